"""Where each panel of the table goes on a terminal of a given size, and how a panel is drawn.

Theory of operation
-------------------
``plan`` is a pure function of the terminal's size and of what the panels hold (``Needs``):

* below ``MIN_WIDTH`` x ``MIN_HEIGHT`` there is no table, only one line that says so (and that
  ``--line`` plays at any size): a decision the person cannot see is never taken;
* the board is a pane with tabs (board, you, history, talk: F2 to F5), and the person's side,
  what they alone know above their decision, is a column beside it when the board's widest
  grid fits beside that column cell by cell (``side``), else a row under the board, the two
  side by side (``stacked``), so neither is ever narrower than ``SIDE_MIN``;
* heights go first to the decision (its whole question, the typing line and at least a few
  options), then to what the board needs to show its status and its first grid whole, then
  to the private panel; whatever a panel cannot show whole it scrolls, and its border and the
  status line name the key that shows the rest;
* a strip of the newest history lies under everything, and a line of table talk when the
  table has talk.

``box`` draws a panel with its border (titles on the top edge, what is further down on the
bottom edge) as lines of exactly its width, and ``window`` picks the items of a list that
show around the highlighted one. The application (``table``) and replay draw with these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spycraft.cli import typeset
from spycraft.cli.typeset import Fragment, Line, line_width

MIN_WIDTH, MIN_HEIGHT = 80, 24
SIDE_MIN = 35  # the person's column (private facts, decision), borders included
SIDE_MAX = 60
DECISION_ROWS = 4  # lines of options always shown, at least (a scroll mark counted)
BORDER = "class:frame.border"


@dataclass(frozen=True)
class Needs:
    """What the panels hold, measured for any width (each callable takes an inner width)."""

    board_natural: int  # the widest grid, every cell on one line (compact forms counted)
    first_natural: int  # the first grid (the board itself), the same way
    board_fits: Callable[[int], bool]  # every grid set without breaking a word
    first_rows: Callable[[int, bool], int]  # lines up to the end of the first grid (packed?)
    board_rows: Callable[[int, bool], int]  # lines of the whole board
    private_rows: Callable[[int], int]  # 0: no private panel
    prompt_rows: Callable[[int], int]  # 0: no decision panel
    option_rows: Callable[[int], int]
    tallest_option: Callable[[int], int] = lambda width: 1  # the lines of the longest option
    person_natural: int = 0  # the widest private fact or option unwrapped, marks included
    talk: bool = False


@dataclass(frozen=True)
class Plan:
    width: int
    height: int
    small: bool = False  # below the minimum: the message alone
    stacked: bool = False  # the board above the person's row, else beside their column
    pane: tuple[int, int] = (0, 0)  # the board pane (width, height), borders included
    private: tuple[int, int] = (0, 0)  # (0, 0): none
    decision: tuple[int, int] = (0, 0)  # (0, 0): none
    prompt: int = 0  # rows of the decision's question
    history: int = 0  # rows of the history strip
    talk: int = 0  # rows of the talk strip
    packed: bool = False  # the status facts several to a line

    @property
    def column(self) -> int:
        """The width of the person's column beside the board (0 when stacked or absent)."""
        return 0 if self.stacked else max(self.private[0], self.decision[0])


def plan(width: int, height: int, needs: Needs) -> Plan:
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return Plan(width, height, small=True)
    history = 1 if height < 26 else 2 if height < 28 else min(12, max(5, (height - 24) // 3 + 4))
    talk = (1 if height < 28 else 2 if height < 40 else 3) if needs.talk else 0
    avail = height - 1 - history - talk
    person = needs.private_rows(SIDE_MIN - 2) > 0 or needs.prompt_rows(SIDE_MIN - 2) > 0
    if not person:  # a spectator's table: the board takes the whole width
        inner = avail - 2
        return Plan(width, height, pane=(width, avail), history=history, talk=talk,
                    packed=needs.first_rows(width - 2, False) > inner)
    room = width - SIDE_MIN - 2
    if needs.first_natural <= room and needs.board_fits(room):
        return _side(width, height, avail, needs, history, talk)  # beside, cell by cell
    stacked = _stacked(width, avail, needs, history, talk)
    if needs.board_fits(room) and stacked.pane[1] - 2 < needs.first_rows(width - 2, True):
        return _side(width, height, avail, needs, history, talk)  # wrapped, if stacked
    return stacked  # cannot show the board's first grid whole


def _side(width: int, height: int, avail: int, needs: Needs, history: int, talk: int) -> Plan:
    # The board's first grid whole comes first, then the person's facts and options unwrapped,
    # then the board's other grids unwrapped; the room left over goes to the person.
    column = max(SIDE_MIN, min(SIDE_MAX, needs.person_natural + 2,
                               width - 2 - needs.first_natural))
    if not needs.board_fits(width - column - 2):
        column = SIDE_MIN
    column = max(column, min(SIDE_MAX, width - 2 - needs.board_natural))
    if column > SIDE_MIN and needs.first_rows(width - column - 2, True) > avail - 2:
        column = SIDE_MIN  # a wider board wraps its facts less: its first grid whole comes first
    pane_w = width - column
    packed = needs.first_rows(pane_w - 2, False) > avail - 2
    private, decision, prompt = _column(column, avail, needs)
    return Plan(width, height, pane=(pane_w, avail), private=private, decision=decision,
                prompt=prompt, history=history, talk=talk, packed=packed)


def _stacked(width: int, avail: int, needs: Needs, history: int, talk: int) -> Plan:
    """The board across the whole width, the person's row (private | decision) under it."""
    has_private = needs.private_rows(SIDE_MIN - 2) > 0
    dec_w = max(SIDE_MIN, width // 2) if has_private else width
    priv_w = width - dec_w if has_private else 0
    prompt = needs.prompt_rows(dec_w - 2)
    least = _decision_least(prompt, needs.option_rows(dec_w - 2),
                            needs.tallest_option(dec_w - 2)) if prompt else 0
    want_dec = 2 + prompt + 1 + needs.option_rows(dec_w - 2) if prompt else 0
    want_priv = 2 + needs.private_rows(priv_w - 2) if has_private else 0
    if prompt:  # the decision gives up an option's line if the board's first grid needs it
        first_need = 2 + needs.first_rows(width - 2, True)
        floor = 2 + prompt + 1 + min(needs.option_rows(dec_w - 2), DECISION_ROWS - 1)
        least = max(floor, min(least, avail - first_need))
    least = max(least, 3 if has_private else 0)
    # The board gets what it needs to show all of it, spaced out when that fits, the person's
    # row the rest; but never less than the decision's least, nor more than it wants.
    packed = avail - 2 - needs.board_rows(width - 2, False) < least
    board_need = 2 + needs.board_rows(width - 2, packed)
    row = max(least, min(max(want_dec, want_priv), avail - board_need))
    row = min(row, avail - 3)
    return Plan(width, avail + 1 + history + talk, stacked=True, pane=(width, avail - row),
                private=(priv_w, row) if has_private else (0, 0),
                decision=(dec_w, row) if prompt else (0, 0), prompt=prompt,
                history=history, talk=talk, packed=packed)


def _decision_least(prompt: int, options: int, tallest: int = 1) -> int:
    """The decision's least height: its borders, its whole question, the typing line and a
    few options (``DECISION_ROWS``, the scroll mark counted), or the longest option whole
    with its two marks."""
    return 2 + prompt + 1 + min(options, max(DECISION_ROWS, tallest + 2))


def _column(width: int, avail: int, needs: Needs) -> tuple[tuple[int, int], tuple[int, int], int]:
    """The private panel and the decision, one above the other in a column of ``width``."""
    inner = width - 2
    prompt = needs.prompt_rows(inner)
    private_rows = needs.private_rows(inner)
    if not prompt:
        return (width, avail), (0, 0), 0
    options = needs.option_rows(inner)
    least = _decision_least(prompt, options, needs.tallest_option(inner))
    want = 2 + prompt + 1 + options
    if not private_rows:
        return (0, 0), (width, avail), prompt
    want_priv = 2 + private_rows
    if want_priv + want <= avail:
        priv = want_priv  # all of it; the decision gets the rest
    else:
        priv = max(3, min(want_priv, avail - least))
    return (width, priv), (width, avail - priv), prompt


# --- drawing ----------------------------------------------------------------------------------


def pad(line: Line, width: int) -> Line:
    """``line`` filled with spaces to ``width`` cells (it must not be wider)."""
    used = line_width(line)
    return [*line, ("", " " * (width - used))] if used < width else list(line)


def edge(width: int, left: str, right: str, parts: Sequence[Line],
         tail: Sequence[Line] = ()) -> Line:
    """A border line: ``parts`` from the left, ``tail`` from the right; while they do not fit,
    the last of ``parts`` is left out first, then the last of ``tail``."""
    parts, tail = list(parts), list(tail)
    while True:
        used = sum(line_width(p) + 2 for p in [*parts, *tail])
        if used <= width - 4 or not (parts or tail):
            break
        if parts:
            parts.pop()
        else:
            tail.pop()
    out: Line = [(BORDER, left + "─")]
    for p in parts:
        out += [(BORDER, " ")] + p + [(BORDER, " ")]
    fill = width - 4 - line_width(out[1:]) - sum(line_width(p) + 2 for p in tail)
    out.append((BORDER, "─" * max(0, fill)))
    for p in tail:
        out += [(BORDER, " ")] + p + [(BORDER, " ")]
    out.append((BORDER, "─" + right))
    return out


def box(width: int, height: int, body: Sequence[Line], title: Sequence[Line] = (),
        footer: Sequence[Line] = (), tabs: Sequence[Line] = ()) -> list[Line]:
    """A panel of exactly ``width`` x ``height`` cells: ``title`` (then ``tabs`` at the right)
    on its top edge, ``body`` inside (as many lines as there is room for), ``footer`` on its
    bottom edge."""
    inner = width - 2
    lines = [edge(width, "┌", "┐", title, tabs)]
    for line in list(body)[: height - 2]:
        lines.append([(BORDER, "│"), *pad(line, inner), (BORDER, "│")])
    while len(lines) < height - 1:
        lines.append([(BORDER, "│"), ("", " " * inner), (BORDER, "│")])
    lines.append(edge(width, "└", "┘", footer))
    return lines[:height]


def sides(line: Line, width: int) -> Line:
    """A body line between the two side borders of a panel ``width`` wide."""
    return [(BORDER, "│"), *pad(line, width - 2), (BORDER, "│")]


def scrolled(lines: Sequence[Line], top: int, rows: int) -> tuple[int, list[Line]]:
    """The ``rows`` lines from ``top`` (kept within the text), and the top actually used."""
    top = max(0, min(top, len(lines) - rows))
    return top, list(lines[top: top + rows])


def window(items: Sequence[Sequence[Line]], selected: int, top: int,
           rows: int) -> tuple[int, list[Line], int, int]:
    """The items of a list that show in ``rows`` lines with ``selected`` whole among them,
    starting at item ``top`` when it can: (the first item shown, their lines, how many items
    are above, how many below). A mark line takes the place of an item when some are hidden
    above or below (the caller writes them)."""
    count = len(items)
    if not count:
        return 0, [], 0, 0
    heights = [len(item) for item in items]
    selected = max(0, min(selected, count - 1))
    top = max(0, min(top, selected))

    def fits(first: int) -> int:
        """How many items from ``first`` fit, with the marks they need."""
        room = rows - (1 if first > 0 else 0)
        used = shown = 0
        for h in heights[first:]:
            if used + h > room:
                break
            used += h
            shown += 1
        if first + shown < count:  # the bottom mark needs its line
            while shown and used + 1 > room:
                shown -= 1
                used -= heights[first + shown]
        return shown

    while top < selected and fits(top) <= selected - top:
        top += 1
    shown = max(1, fits(top))
    lines: list[Line] = []
    for item in items[top: top + shown]:
        lines += item
    return top, lines[: rows], top, count - top - shown


def fitted(parts: Sequence[tuple[int, Line]], width: int,
           separator: Fragment = ("", " · ")) -> Line:
    """Status parts (priority, fragments) in their order, the least important (highest
    number) left out first until the line fits ``width``."""
    kept = list(parts)
    while kept:
        line: Line = []
        for i, (_, part) in enumerate(kept):
            if i:
                line.append(separator)
            line += part
        if line_width(line) <= width:
            return line
        worst = max(range(len(kept)), key=lambda i: (kept[i][0], i))
        kept.pop(worst)
    return []


def message(text: str, width: int, height: int) -> list[Line]:
    """One message in the middle of a screen (the terminal is too small)."""
    lines = typeset.wrap([("class:label", text)], max(1, width))
    top = max(0, (height - len(lines)) // 2)
    return [[] for _ in range(top)] + lines

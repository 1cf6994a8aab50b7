"""Text set for a terminal: styled words wrapped to a width, and tables laid out in columns.

Theory of operation
-------------------
Everything the full-screen table, its help and ``spycraft rules`` show is a list of lines, each
a list of prompt-toolkit fragments (``(style, text)`` pairs), set here for one width:

* ``wrap`` breaks styled text at spaces (a word that is wider than the whole line, and only
  such a word, is broken, never cut: every character stays on screen). Continuation lines are
  indented (``hang``), so a reader, and a test, can tell where a wrapped item ends.
* ``table`` lays out columns as people expect from a table: each column as wide as its widest
  cell when that fits, else at least as wide as its longest word, the room left shared out by
  how much each column still wants; cells wrap within their column. It answers None when even
  the longest words do not fit side by side (the caller then has a compact form of the table,
  or forces it with ``force=True``, which breaks words).
* ``pack`` lays out short items (the facts of a status panel) several to a line where they
  fit whole.

Widths are terminal cells (``cells``), so wide characters in a player's name count twice.
Nothing here knows a game; ``cli.app.picture`` and ``cli.markdown`` set their text with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

Fragment = tuple[str, str]
Line = list[Fragment]

_PIECES = re.compile(r"( +|\n)")


ONE_CELL = frozenset("─│┌┐└┘├┤┬┴┼•·…–—−×→←§")
"""Characters the typesetting and the guides draw with, one cell each (as ``wcwidth`` says,
which a test checks): counted, like ASCII, without importing ``wcwidth``."""


def cells(text: str) -> int:
    """How many terminal cells printable ``text`` takes: as prompt-toolkit counts them when it
    draws (``wcwidth`` of each character), without importing it."""
    if text.isascii():
        return len(text)
    return sum(1 if c.isascii() or c in ONE_CELL else _char_cells(c) for c in text)


@lru_cache(maxsize=4096)
def _char_cells(char: str) -> int:
    from wcwidth import wcwidth  # only for other text than ASCII (its tables take a while)

    return max(0, wcwidth(char))


def line_width(line: Iterable[Fragment]) -> int:
    return sum(cells(text) for _, text in line)


def plain(lines: Iterable[Line]) -> str:
    """The text of set lines, without styles."""
    return "\n".join("".join(text for _, text in line) for line in lines)


# A unit is a word (its pieces, each with its style), a run of spaces, or a line break.
_Unit = tuple[str, list[Fragment], int]


def _units(fragments: Iterable[Fragment]) -> list[_Unit]:
    units: list[_Unit] = []
    for style, text in fragments:
        for piece in _PIECES.split(text):
            if not piece:
                continue
            if piece == "\n":
                units.append(("break", [], 0))
            elif piece[0] == " ":
                units.append(("space", [(style, piece)], len(piece)))
            elif units and units[-1][0] == "word":  # a word that goes on in another style
                kind, parts, width = units[-1]
                units[-1] = (kind, [*parts, (style, piece)], width + cells(piece))
            else:
                units.append(("word", [(style, piece)], cells(piece)))
    return units


def _split_word(parts: list[Fragment], room: int) -> tuple[list[Fragment], list[Fragment]]:
    """The head of a word that fills ``room`` cells, and the rest."""
    head: list[Fragment] = []
    used = 0
    for i, (style, text) in enumerate(parts):
        for j, char in enumerate(text):
            width = cells(char)
            if used + width > room and (head or j):
                head.append((style, text[:j]))
                return [h for h in head if h[1]], [(style, text[j:]), *parts[i + 1:]]
            used += width
        head.append((style, text))
    return head, []


def wrap(fragments: Iterable[Fragment], width: int, hang: int = 0,
         first: Sequence[Fragment] = ()) -> list[Line]:
    """``fragments`` set in lines of at most ``width`` cells, broken at spaces; every line
    after the first starts with ``hang`` spaces; ``first`` opens the first line (a bullet).
    A line break in the text starts a new line; an empty text gives one empty line."""
    width = max(1, width)
    hang = min(hang, width - 1)
    lines: list[Line] = [list(first)]
    used = line_width(first)
    space: list[Fragment] = []  # spaces waiting for the next word on this line
    fresh = True  # nothing but the opening (or the hang) on this line yet

    def new_line() -> None:
        nonlocal used, fresh, space
        lines.append([("", " " * hang)] if hang else [])
        used, fresh, space = hang, True, []

    for kind, parts, size in _units(fragments):
        if kind == "break":
            new_line()
            continue
        if kind == "space":
            if not fresh:
                space = parts
            continue
        gap = line_width(space) if not fresh else 0
        if used + gap + size > width and not fresh:
            new_line()
            gap = 0
        if gap:
            lines[-1].extend(space)
            used += gap
        while used + size > width:  # a word wider than a whole line: broken, never cut
            head, parts = _split_word(parts, width - used)
            lines[-1].extend(head)
            new_line()
            size = line_width(parts)
        lines[-1].extend(parts)
        used += size
        fresh, space = False, []
    return lines


def pack(items: Sequence[Sequence[Fragment]], width: int, separator: str = "  ·  ",
         style: str = "class:hint", hang: int = 2) -> list[Line]:
    """Items side by side, as many to a line as fit whole; an item wider than a line wraps
    on lines of its own (continuations indented by ``hang``)."""
    lines: list[Line] = []
    used = 0
    sep = cells(separator)
    for item in items:
        size = line_width(item)
        if lines and used and used + sep + size <= width:
            lines[-1] += [(style, separator), *item]
            used += sep + size
            continue
        wrapped = wrap(item, width, hang)
        lines += wrapped
        used = line_width(wrapped[-1]) if len(wrapped) == 1 else width  # alone on its lines
    return lines


# --- tables -----------------------------------------------------------------------------------


def _longest_word(line: Sequence[Fragment]) -> int:
    return max((size for kind, _, size in _units(line) if kind == "word"), default=0)


Text = Sequence[Fragment]  # a cell's or a header's text, in styles


class Fit:
    """How a table is set in a width: each column's width, the gap between columns, and
    whether every cell is whole on one line (``whole``) or some wrap."""

    def __init__(self, widths: list[int], gap: int, whole: bool) -> None:
        self.widths, self.gap, self.whole = widths, gap, whole

    @property
    def width(self) -> int:
        return sum(self.widths) + self.gap * max(0, len(self.widths) - 1)


def table_widths(columns: Sequence[Text], rows: Sequence[Sequence[Text]], width: int,
                 force: bool = False) -> Fit | None:
    """How a table is set in ``width`` cells, or None when even the longest words do not fit
    side by side (unless ``force``: then words break)."""
    if not columns:
        return Fit([], 0, True)
    return fit(*measure(columns, rows), width, force)


def measure(columns: Sequence[Text], rows: Sequence[Sequence[Text]]
            ) -> tuple[list[int], list[int]]:
    """Each column's natural width (its widest cell) and least width (its longest word)."""
    count = len(columns)
    natural = [line_width(c) for c in columns]
    least = [_longest_word(c) for c in columns]
    for row in rows:
        for i, cell in enumerate(row[:count]):
            natural[i] = max(natural[i], line_width(cell))
            least[i] = max(least[i], _longest_word(cell))
    return natural, least


def fit(natural: list[int], least: list[int], width: int, force: bool = False) -> Fit | None:
    """Column widths from what the columns measure (``measure``), for ``width`` cells."""
    count = len(natural)
    if not count:
        return Fit([], 0, True)
    for gap in (2, 1):
        if sum(natural) + gap * (count - 1) <= width:
            return Fit(natural, gap, True)
    gap = 2 if sum(least) + 2 * (count - 1) <= width else 1
    room = width - gap * (count - 1)
    if sum(least) > room:
        if not force:
            return None
        # Forced: every column gets its share of what there is (words will break).
        share = [max(1, room * w // max(1, sum(least))) for w in least]
        return Fit(share, gap, False)
    widths = list(least)
    spare = room - sum(widths)
    want = [n - w for n, w in zip(natural, widths)]
    total = sum(want)
    if total:
        given = [spare * w // total for w in want]
        widths = [w + g for w, g in zip(widths, given)]
        spare -= sum(given)
        for i in sorted(range(count), key=lambda i: -(natural[i] - widths[i])):
            if spare <= 0:
                break
            if widths[i] < natural[i]:
                widths[i] += 1
                spare -= 1
    return Fit(widths, gap, False)


def table(columns: Sequence[Text], rows: Sequence[Sequence[Text]], width: int,
          header_style: str = "class:label", force: bool = False,
          rule: str = "") -> list[Line] | None:
    """The table's lines (the header first, when any column is named), cells wrapped in their
    columns; None when it cannot be set in ``width`` without breaking words (unless ``force``).
    ``rule``: a character drawn under the header (Markdown tables), or none."""
    fitted = table_widths(columns, rows, width, force)
    if fitted is None:
        return None
    return set_table(columns, rows, fitted, header_style, rule)


def set_table(columns: Sequence[Text], rows: Sequence[Sequence[Text]], fitted: Fit,
              header_style: str = "class:label", rule: str = "") -> list[Line]:
    """The table's lines in the widths ``fitted`` gives."""
    widths, gap = fitted.widths, fitted.gap
    out: list[Line] = []
    body = [list(row[: len(columns)]) + [[]] * (len(columns) - len(row)) for row in rows]
    if any(line_width(c) for c in columns):
        styled = [[(header_style or style, text) for style, text in c] for c in columns]
        out += _row(styled, widths, gap)
        if rule:
            out.append([("class:hint", (" " * gap).join(rule * w for w in widths))])
    for row in body:
        out += _row(row, widths, gap)
    return out


def _fits(cell: Text, width: int) -> bool:
    """A cell that stands on one line as it is (no line break, no spaces to trim)."""
    return all("\n" not in text for _, text in cell) and line_width(cell) <= width and not (
        cell and (cell[0][1][:1] == " " or cell[-1][1][-1:] == " "))


def _row(row: Sequence[Text], widths: Sequence[int], gap: int) -> list[Line]:
    columns = [[list(cell)] if _fits(cell, w) else wrap(cell, w) for cell, w in zip(row, widths)]
    height = max((len(c) for c in columns), default=1)
    lines: list[Line] = []
    for k in range(height):
        line: Line = []
        for i, (col, w) in enumerate(zip(columns, widths)):
            part = col[k] if k < len(col) else []
            line += part
            if i < len(widths) - 1:
                line.append(("", " " * (w - line_width(part) + gap)))
        while line and not line[-1][1].strip() and not line[-1][0]:
            line.pop()
        lines.append(line)
    return lines

"""What the table looks like, as styled text: a game's ``Screen`` and history drawn for a panel.

Theory of operation: ``Picture`` is one moment of a table as the application draws it, built in
the game's thread by ``Painter.picture`` (the game's ``screen``; where it fails to build, a line
that says so, so a drawing bug never ends a person's game). ``Painter.tell`` turns each record
into at most one history ``Event`` (the game's ``story``). The other functions draw these as
prompt-toolkit fragments, ``(style, text)`` pairs, one list a panel: grids with aligned columns,
facts as ``label: text``, tones as colours (``STYLE``). Nothing here touches a terminal; the
tests read the fragments as text, and the line mode prints them without styles
(``cli.lines``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.cli import typeset
from spycraft.cli.typeset import Line
from spycraft.crypto.text import printable, printable_block
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event, Fact, Grid, Result, Screen

log = logging.getLogger("spycraft.app")

Fragments = list[tuple[str, str]]

# The tones of ``engines.viewmodel`` as prompt-toolkit styles (a side's colour by its name).
STYLE = {
    "tone.you": "bold ansicyan",
    "tone.turn": "bold ansiyellow",
    "tone.good": "ansigreen",
    "tone.bad": "ansired",
    "tone.hidden": "italic ansibrightblack",
    "tone.muted": "ansibrightblack",
    "label": "bold",
    "title": "bold underline",
    "headline": "bold reverse",
    "why": "italic ansibrightblack",
    "chosen": "reverse",
    "hint": "ansibrightblack",
    "frame.border": "ansibrightblack",
    "frame.label": "bold",
    "status": "reverse",
    "tab": "ansibrightblack",
    "tab.on": "bold reverse",
    "more": "bold ansicyan",
    "warn": "bold reverse ansired",
    "md.h1": "bold underline",
    "md.h2": "bold ansicyan",
    "md.h3": "bold",
    "md.bold": "bold",
    "md.em": "italic",
    "md.code": "ansigreen",
    "md.bullet": "ansicyan",
}
_SIDES = {"red": "ansired", "blue": "ansiblue", "green": "ansigreen", "yellow": "ansiyellow",
          "black": "ansibrightblack", "white": "bold", "resistance": "ansiblue",
          "spies": "ansired", "spy": "ansired", "orange": "#ff8700", "purple": "ansimagenta"}
_PALETTE = ("ansimagenta", "ansicyan", "ansiyellow", "ansigreen", "ansiblue", "ansired")


def tone_style(tone: str) -> str:
    """The style of a tone: a class for the fixed tones, a colour for ``side:<name>``."""
    if tone.startswith("side:"):
        name = tone[5:].strip().lower()
        return _SIDES.get(name) or _PALETTE[sum(map(ord, name)) % len(_PALETTE)]
    return f"class:tone.{tone}" if tone else ""


@dataclass(frozen=True)
class Picture:
    """One moment of a table for the application: the game's screen, or (when it failed to
    build) a line that says so."""

    title: str
    seq: int
    screen: Screen | None
    text: str
    turn: int | None = None  # the seat whose record is awaited, None once the game is over
    ended: bool = False


class Painter:
    """Pictures and history of one game's tables (the game's table engine is made once)."""

    def __init__(self, definition: GameDefinition) -> None:
        self.definition = definition
        self.table = definition.table()

    def picture(self, state: TableState[Any], seat: int | None, view: Any) -> Picture:
        """The picture of ``state`` seen by ``seat`` (None: the public picture), whose own view
        (``GameSeat.view`` live, a ``hindsight`` entry in replay) is ``view``."""
        definition = self.definition
        screen = None
        text = ""
        try:
            screen = definition.screen(state, seat, view)
        except Exception:  # a game's drawing bug must not end a person's game
            log.exception("%s: screen failed at record %d", definition.name, state.seq)
            text = "(this game cannot draw its board here)"
        turn = None
        if state.result is None:
            expected = self.table.expect(state)
            turn = expected.seat if expected is not None else None
        return Picture(definition.title, state.seq, screen, text, turn, state.result is not None)

    def seen_by(self, states: Sequence[TableState[Any]], viewer: int | None) -> list[Any]:
        """The view ``viewer`` had at each state of a finished game (the game's ``hindsight``,
        the one place a replay learns what a seat knew); None for each for the public
        picture."""
        if viewer is None:
            return [None] * len(states)
        return list(self.definition.hindsight([s.game for s in states], viewer))

    def tell(self, before: Any, signed: Any, after: TableState[Any]) -> Event | None:
        """The history event ``signed`` completes (at most one); ``before`` is the table state
        before it, or None."""
        record = signed.record
        if record.kind == "beacon" and after.pending:
            return None  # a beacon round in progress says nothing until its draw is made
        game_before = before.game if before is not None else None
        try:
            return self.definition.story(game_before, record, after.game)
        except Exception:
            log.exception("%s: no words for record %d", self.definition.name, signed.seq)
            return None


# --- drawing ---------------------------------------------------------------------------------
#
# Every panel is set for the width it is given (``cli.typeset``): lines of fragments, words
# wrapped, never cut. ``board_lines`` also says where each grid starts, so a panel that shows
# only its top can name what is below.


def _cells(row: Sequence[Any], count: int) -> list[Line]:
    return [[(tone_style(cell.tone), printable(cell.text))] for cell in row[:count]]


def _form(g: Grid) -> tuple[list[Line], list[list[Line]]]:
    return ([[("", printable(c))] for c in g.columns],
            [_cells(r, len(g.columns)) for r in g.rows])


@functools.lru_cache(maxsize=512)
def _measured(g: Grid) -> tuple[list[int], list[int]]:
    """A grid's columns measured once (a grid is frozen: the same grid, the same sizes)."""
    return typeset.measure(*_form(g))


def _fit(g: Grid, width: int, force: bool = False) -> typeset.Fit | None:
    natural, least = _measured(g)
    return typeset.fit(list(natural), list(least), width, force)


def natural_width(g: Grid) -> int:
    """The cells a grid takes with every cell whole on one line (its compact form's, when it
    has one): what a panel must give it to draw it cell by cell."""
    widths = []
    for form in (g, g.compact):
        if form is not None:
            natural, _ = _measured(form)
            widths.append(sum(natural) + 2 * max(0, len(natural) - 1))
    return min(widths)


def grid_fits(g: Grid, width: int) -> bool:
    """Whether the grid (or its compact form) can be set in ``width`` without breaking a word."""
    return any(_fit(form, width) is not None for form in (g, g.compact) if form is not None)


def grid_lines(g: Grid, width: int) -> list[Line]:
    """A grid under its title, set in ``width``: whole when it fits, else its compact form
    when that fits whole, else with its cells wrapped at words (the compact form first: it is
    made for small screens), else (not even the longest words fit side by side) with words
    broken, none lost."""
    forms = [g] if g.compact is None else [g, g.compact]
    chosen, fit = g, None
    for whole in (True, False):
        for form in (forms if whole else forms[::-1]):
            found = _fit(form, width)
            if found is not None and (found.whole or not whole):
                chosen, fit = form, found
                break
        if fit is not None:
            break
    if fit is None:
        fit = _fit(g, width, force=True)
    assert fit is not None
    columns, rows = _form(chosen)
    body = typeset.set_table(columns, rows, fit)
    return typeset.wrap([("class:title", printable(chosen.title))], width, 2) + body


def fact_items(items: Iterable[Fact], width: int) -> list[list[Line]]:
    """Each fact's lines, ``label: text``, wrapped with its continuations indented; ``(?)``
    marks a fact whose rules the help explains."""
    return [typeset.wrap(_fact(fact), width, 2) for fact in items]


def fact_lines(items: Iterable[Fact], width: int) -> list[Line]:
    """The facts one after another (``fact_items``)."""
    return [line for item in fact_items(items, width) for line in item]


def _fact(fact: Fact) -> Line:
    line: Line = []
    if fact.label:
        line.append(("class:label", f"{printable(fact.label)}: "))
    line.append((tone_style(fact.tone), printable(fact.text)))
    if fact.explain:
        line.append(("class:hint", " (?)"))
    return line


def packed_facts(items: Sequence[Fact], width: int) -> list[Line]:
    """Facts several to a line where they fit whole (a small screen's status)."""
    return typeset.pack([_fact(f) for f in items], width)


def result_lines(res: Result, width: int) -> list[Line]:
    out = typeset.wrap([("class:headline " + tone_style(res.tone), f" {printable(res.headline)} ")],
                       width)
    for line in res.detail:
        out += typeset.wrap([("", printable(line))], width, 2)
    for g in res.reveal:
        out.append([])
        out += grid_lines(g, width)
    return out


@dataclass(frozen=True)
class Set:
    """A panel's text set for one width: its lines, and where each part starts (line index,
    name), so a panel that shows only some of it can say what the rest holds."""

    lines: list[Line]
    parts: tuple[tuple[int, str], ...] = ()


def board_lines(pic: Picture | None, width: int, packed: bool = False) -> Set:
    """The board panel: the status facts, each grid, the notes; or the line that says the
    game cannot draw it.
    ``packed``: for a small screen, the facts several to a line and no blank lines."""
    if pic is None:
        return Set(typeset.wrap([("class:hint", "waiting for the table…")], width, 2))
    if pic.screen is None:
        out: list[Line] = []
        for text in printable_block(pic.text).splitlines() or [""]:
            out += typeset.wrap([("", text)], width, 2)
        return Set(out)
    screen = pic.screen
    lines = packed_facts(screen.status, width) if packed else fact_lines(screen.status, width)
    parts = [(0, "status")]
    for g in screen.board:
        if not packed:  # a small screen's grids go without a blank line between (titles mark them)
            lines.append([])
        parts.append((len(lines), g.title))
        lines += grid_lines(g, width)
    for note in screen.notes:
        lines += typeset.wrap([("class:hint", printable(note))], width, 2)
    return Set(lines, tuple(parts))


def first_rows(screen: Screen, width: int, packed: bool = False) -> int:
    """The lines ``board_lines`` takes up to the end of the first grid (the board itself)."""
    facts = packed_facts(screen.status, width) if packed else fact_lines(screen.status, width)
    first = grid_lines(screen.board[0], width) if screen.board else []
    return len(facts) + (0 if packed or not screen.board else 1) + len(first)


def private_lines(pic: Picture | None, width: int) -> list[Line]:
    """The private panel: what this seat alone knows (empty for the public picture)."""
    if pic is None or pic.screen is None:
        return []
    return fact_lines(pic.screen.private, width)


def event_lines(event: Event, width: int, style: str | None = None) -> list[Line]:
    line: Line = [(style if style is not None else tone_style(event.tone), printable(event.text))]
    if event.why:
        line.append(("class:why", f"  ({printable(event.why)})"))
    return typeset.wrap(line, width, 2)


def history_lines(events: Sequence[Event], width: int, current: int | None = None) -> list[Line]:
    """History lines, each event wrapped, with why a score moved; ``current`` is marked."""
    out: list[Line] = []
    for i, event in enumerate(events):
        out += event_lines(event, width, "class:chosen" if i == current else None)
    return out


# --- the same as plain fragments (one list, lines joined), for the tests and the line mode ----


def _joined(lines: Sequence[Line]) -> Fragments:
    out: Fragments = []
    for line in lines:
        out += line
        out.append(("", "\n"))
    return out


WIDE = 200  # the width the fragment forms below are set in


def grid(g: Grid, width: int = WIDE) -> Fragments:
    """A grid with aligned columns under its title; a cell's tone colours it."""
    return _joined(grid_lines(g, width))


def facts(items: Iterable[Fact]) -> Fragments:
    return _joined(fact_lines(items, WIDE))


def result(res: Result) -> Fragments:
    return _joined(result_lines(res, WIDE))


def board(pic: Picture | None, width: int = WIDE) -> Fragments:
    """The board panel: the status facts and grids of the screen (``board_lines``)."""
    return _joined(board_lines(pic, width).lines)


def private(pic: Picture | None) -> Fragments:
    """The private panel: what this seat alone knows (empty for the public picture)."""
    return _joined(private_lines(pic, WIDE))


def history(events: Sequence[Event], current: int | None = None) -> Fragments:
    """History lines, each with why a score moved; ``current`` (an index) is marked."""
    return _joined(history_lines(events, WIDE, current))


def plain(fragments: Fragments) -> str:
    """The text of fragments, without styles (for tests and for the line after the app)."""
    return "".join(text for _, text in fragments)


def explained(screen: Screen | None, label: str | None = None) -> list[tuple[str, str]]:
    """The help's part on the table: each explained fact by its label and text ("Score
    (Resistance 0, Spies 0)"), then its rules; the ones ``label`` names first."""
    if screen is None:
        return []
    labels = {f.text: f.label for f in (*screen.status, *screen.private) if f.label}
    return [(f"{labels[name]} ({name})" if name in labels and labels[name] != name else name,
             text) for name, text in explanations(screen, label)]


def explanations(screen: Screen | None, label: str | None = None) -> list[tuple[str, str]]:
    """(name, rules text) of what the screen explains: those a ``label`` names first (the
    option under the cursor), then every other fact that carries an explanation, once each."""
    if screen is None:
        return []
    found: dict[str, str] = {}
    every = [*screen.status, *screen.private]
    wanted = label.lower() if label else ""
    for fact in every:
        if fact.explain and wanted and (fact.text.lower() in wanted or wanted in fact.text.lower()):
            found.setdefault(fact.text, fact.explain)
    for fact in every:
        if fact.explain:
            found.setdefault(fact.text or fact.label, fact.explain)
    return list(found.items())

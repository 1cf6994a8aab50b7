"""What the table looks like, as styled text: a game's ``Screen`` and history drawn for a panel.

Theory of operation: ``Picture`` is one moment of a table as the application draws it, built in
the game's thread by ``Painter.picture`` (the game's ``screen`` when it has one, else, or when
it fails to build, its ``render`` text). ``Painter.tell`` turns each
record into at most one history ``Event`` (the game's ``story``, else its ``narrate`` line). The
other functions draw these as prompt-toolkit fragments, ``(style, text)`` pairs, one list a panel:
grids with aligned columns, facts as ``label: text``, tones as colours (``STYLE``). Nothing here
touches a terminal; the tests read the fragments as text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
    """One moment of a table for the application: the game's screen, or (when the game has no
    view model or it failed to build) its rendered text."""

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
        if definition.screen is not None:
            try:
                screen = definition.screen(state, seat, view)
            except Exception:  # the rendered text is the fallback
                log.exception("%s: screen failed at record %d", definition.name, state.seq)
        text = ""
        if screen is None:
            try:
                text = definition.render(view if view is not None else state.game, seat)
            except Exception:  # a game's drawing bug must not end a person's game
                log.exception("%s: render failed at record %d", definition.name, state.seq)
                text = "(this game cannot draw its board here)"
        turn = None
        if state.result is None:
            expected = self.table.expect(state)
            turn = expected.seat if expected is not None else None
        return Picture(definition.title, state.seq, screen, text, turn, state.result is not None)

    def tell(self, before: Any, signed: Any, after: TableState[Any]) -> Event | None:
        """The history event ``signed`` completes (at most one); ``before`` is the table state
        before it, or None."""
        record = signed.record
        if record.kind == "beacon" and after.pending:
            return None  # a beacon round in progress says nothing until its draw is made
        game_before = before.game if before is not None else None
        try:
            if self.definition.story is not None:
                return self.definition.story(game_before, record, after.game)
            line = self.definition.narrate(game_before, record, after.game)
        except Exception:
            log.exception("%s: no words for record %d", self.definition.name, signed.seq)
            return None
        return Event(signed.seq, line) if line else None


# --- drawing ----------------------------------------------------------------------------------


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _fit(widths: list[int], room: int) -> list[int]:
    """Column widths within ``room``: narrow columns keep their width and the widest give up
    what is too much, down to 6 characters each (a vote column stays whole beside a long team)."""
    cap = max(widths, default=0)
    while cap > 6 and sum(min(w, cap) for w in widths) > room:
        cap -= 1
    return [min(w, cap) for w in widths]


def grid(g: Grid, width: int = 200) -> Fragments:
    """A grid with aligned columns under its title; a cell's tone colours it."""
    out: Fragments = [("class:title", printable(g.title)), ("", "\n")]
    count = len(g.columns)
    widths = [len(c) for c in g.columns]
    for row in g.rows:
        for i, cell in enumerate(row[:count]):
            widths[i] = max(widths[i], len(cell.text))
    widths = _fit(widths, width - 2 * count)
    if any(g.columns):
        for i, column in enumerate(g.columns):
            out.append(("class:label", _clip(printable(column), widths[i]).ljust(widths[i] + 2)))
        out.append(("", "\n"))
    for row in g.rows:
        for i, cell in enumerate(row[:count]):
            out.append((tone_style(cell.tone),
                        _clip(printable(cell.text), widths[i]).ljust(widths[i])))
            out.append(("", "  "))
        out.append(("", "\n"))
    return out


def facts(items: Iterable[Fact]) -> Fragments:
    out: Fragments = []
    for fact in items:
        if fact.label:
            out.append(("class:label", f"{printable(fact.label)}: "))
        out.append((tone_style(fact.tone), printable(fact.text)))
        if fact.explain:
            out.append(("class:hint", "  (?)"))
        out.append(("", "\n"))
    return out


def result(res: Result) -> Fragments:
    out: Fragments = [("class:headline " + tone_style(res.tone), f" {printable(res.headline)} "),
                      ("", "\n")]
    for line in res.detail:
        out.append(("", printable(line) + "\n"))
    for g in res.reveal:
        out.append(("", "\n"))
        out.extend(grid(g))
    return out


def board(pic: Picture | None, width: int = 200) -> Fragments:
    """The board panel: the status facts and grids of the screen, or the rendered text."""
    if pic is None:
        return [("class:hint", "waiting for the table…")]
    if pic.screen is None:
        return [("", printable_block(pic.text))]
    screen = pic.screen
    out = facts(screen.status)
    for g in screen.board:
        out.append(("", "\n"))
        out.extend(grid(g, width))
    for note in screen.notes:
        out.append(("class:hint", "\n" + printable(note)))
    return out


def private(pic: Picture | None) -> Fragments:
    """The private panel: what this seat alone knows (empty for the public picture)."""
    if pic is None or pic.screen is None:
        return []
    return facts(pic.screen.private)


def history(events: Sequence[Event], current: int | None = None) -> Fragments:
    """History lines, each with why a score moved; ``current`` (an index) is marked."""
    out: Fragments = []
    for i, event in enumerate(events):
        style = "class:chosen" if i == current else tone_style(event.tone)
        out.append((style, printable(event.text)))
        if event.why:
            out.append(("class:why", f"  ({printable(event.why)})"))
        out.append(("", "\n"))
    return out


def plain(fragments: Fragments) -> str:
    """The text of fragments, without styles (for tests and for the line after the app)."""
    return "".join(text for _, text in fragments)


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

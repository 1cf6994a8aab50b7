"""What a table UI draws: a typed picture of one moment of a game, seen from one side.

Theory of operation
-------------------
A game turns its state into a ``Screen`` (``GameDefinition.screen``) and each record into at
most one history ``Event`` (``GameDefinition.story``). The full-screen application, the line
mode and ``replay`` draw these; none of them knows a game's rules, and no game knows how it is
drawn. Everything here is plain data: text for people (never a record kind, a card id or a
protocol step) plus a ``tone`` a UI may colour by. A UI may drop tones and still say everything.

``Screen`` is the state of the table: ``status`` (round, whose turn, scores, each with why it
changed), ``board`` (one or more grids: the mission track, the vote history, the board squares,
the tableaux), ``private`` (what this seat alone knows: role, hand, notebook, what it was shown;
empty for the public picture and for spectators) and ``result`` once the game has ended.

``Event`` is one line of history that reads like the game ("Leader 2 proposes seats 0, 2 and
4"); a run of cryptographic records is told once, when the step they make is done ("roles
dealt and verified"), so ``story`` returns None for the records in between. ``why`` says why
a score or a track moved, where one did.

``Fact.explain`` carries the rules text of what the fact names (an ability, a plot card, a
square), so a UI can show it where the thing appears.

Tones: "" (plain), "you" (this seat), "turn" (whose turn it is), "good" / "bad" (from the
viewer's side when known, else from the rulebook's: a success, a failure), "hidden" (face down,
unknown), "muted" (past, inactive), and "side:<name>" (a team or colour named by the game).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    text: str
    tone: str = ""


@dataclass(frozen=True)
class Grid:
    """A table of cells: ``columns`` are the headers, each row has one cell per column."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    # The same table in fewer columns of terminal (a board's squares in two letters), for a UI
    # that cannot set the full one whole; it says the same things, its title says how to read it.
    compact: Grid | None = None


@dataclass(frozen=True)
class Fact:
    """One labelled line: ``label`` ("Round", "Your role"), ``text`` ("3 of 5", "Spy")."""

    label: str
    text: str
    tone: str = ""
    explain: str = ""  # rules text of the thing named, for a help popup where it appears


@dataclass(frozen=True)
class Event:
    """One line of history: the record (``seq``) that completed it, and why a score moved."""

    seq: int
    text: str
    round: int | None = None
    why: str = ""
    tone: str = ""


@dataclass(frozen=True)
class Result:
    """The end of a game from the viewer's side: "You won" / "Red won" / "Abandoned"."""

    headline: str
    detail: tuple[str, ...] = ()  # why it ended, scores, who forfeited
    reveal: tuple[Grid, ...] = ()  # the final reveal: every role, card, deployment
    tone: str = ""


@dataclass(frozen=True)
class Screen:
    game: str  # the game's title
    status: tuple[Fact, ...]
    board: tuple[Grid, ...] = ()
    private: tuple[Fact, ...] = ()
    result: Result | None = None
    notes: tuple[str, ...] = ()  # free lines under the board (a situation in play, a hint)

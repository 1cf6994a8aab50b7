"""What one seat sees of Confusion, as data for bots and as text for people (§11, §12).

``SeatView`` is what a seat's agent gets with each decision: the public ``Game`` and the types of
the opponent's spies, which this seat assigned (§12), never a type of its own spies. Both
notebook pages are derived from the public log alone (``notebook.page``), so the "My spies" page
of a seat is the same for everyone who reads the transcript. ``render`` draws the board and the
pages (the history is ``screen.story``, in the line mode too); ``hindsight`` rebuilds, for
``replay --as``, what a seat knew at each point: the opponent's types come from that seat's own
final openings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.engines.confusion import notebook
from spycraft.engines.confusion.board import (
    SIDE_NAMES,
    SIDE_PREFIXES,
    SIZE,
    SPIES,
    Side,
    Square,
    opp,
)
from spycraft.engines.confusion.model import Game


@dataclass(frozen=True)
class SeatView:
    game: Game
    seat: int
    opponent_types: tuple[tuple[str, str], ...] = ()  # (enemy spy, its type), once assigned

    def type_of(self, enemy: str) -> str | None:
        return dict(self.opponent_types).get(enemy)


def _game(state: Any) -> Game:
    if isinstance(state, SeatView):
        return state.game
    game: Game = getattr(state, "game", state)
    return game


def _cell(g: Game, where: Square) -> str:
    spy = g.board.occupant(where)
    if spy is None:
        return "[]" if where == g.board.briefcase else " ."
    mark = spy[0] + spy[2]
    if spy in g.board.promoted:
        mark = mark.lower()
    return mark + ("*" if where == g.board.briefcase else "")


def board_text(g: Game) -> str:
    rows = []
    for y in range(SIZE - 1, -1, -1):
        cells = " ".join(f"{_cell(g, Square(x, y)):>3}" for x in range(SIZE))
        rows.append(f"{y + 1:>2} {cells}")
    rows.append("   " + " ".join(f"{c:>3}" for c in "abcdefghijk"))
    return "\n".join(rows)


def _page_lines(g: Game, side: Side, truth: dict[str, str]) -> list[str]:
    page = notebook.page(g.log, side)
    lines = []
    for spy in SPIES[side]:
        c = page.of(spy)
        mark = "known" if len(c) == 1 else "suspect" if "DA" in c else ""
        gone = " (removed)" if spy in g.removed else ""
        true = f" is {truth[spy]};" if spy in truth else ""
        lines.append(f"  {spy}{gone}:{true} C = {{{', '.join(c)}}} {mark}".rstrip())
    return lines


def render(state: Any, seat: int | None = None) -> str:
    """The board, the turn and the notebook; a seat's view adds the types it assigned."""
    g = _game(state)
    truth = dict(state.opponent_types) if isinstance(state, SeatView) else {}
    head = (
        f"turn {g.turn_no}: {SIDE_NAMES[g.turn]} to play ({g.step}); quiet {g.quiet}; "
        f"briefcase {g.board.briefcase}; ranks visited {', '.join(map(str, g.visited))}"
    )
    if g.tokens_variant:
        head += "; tokens " + " / ".join(
            f"{SIDE_NAMES[s]}: {', '.join(g.tokens[s]) or '-'}" for s in (0, 1)
        )
    parts = [head, board_text(g)]
    if g.phase in ("assign", "draw"):
        return "\n".join(parts)
    mine: Side | None = None if seat is None else 0 if seat == 0 else 1
    sides: list[Side] = [0, 1] if mine is None else [mine, opp(mine)]
    for side in sides:
        title = "My spies" if side == mine else "Opponent's spies" if seat is not None else ""
        title = title or f"{SIDE_NAMES[side]}'s spies"
        parts.append(f"{title} ({SIDE_PREFIXES[side]}):")
        parts += _page_lines(g, side, truth if side != mine else {})
    return "\n".join(parts)


def hindsight(states: Sequence[Any], seat: int) -> list[SeatView]:
    """What ``seat`` knew at each state: the public game and, once the spies were assigned, the
    types of the opponent's spies, read from this seat's own final openings."""
    games = [_game(s) for s in states]
    last = games[-1]
    opened = last.openings[seat]
    enemy: Side = 1 if seat == 0 else 0
    truth: tuple[tuple[str, str], ...] = ()
    if opened is not None and last.assigned[enemy]:
        truth = tuple(
            (spy, opened[last.assigned[enemy][i]]) for i, spy in enumerate(SPIES[enemy])
        )
    return [SeatView(g, seat, truth if g.assigned[enemy] else ()) for g in games]

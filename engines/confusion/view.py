"""What one seat knows of Confusion: live during the game, and in hindsight after it (§11, §12).

``SeatView`` is what a seat's agent gets with each decision: the public ``Game`` and the types of
the opponent's spies, which this seat assigned (§12), never a type of its own spies. Both
notebook pages are derived from the public log alone (``notebook.page``), so the "My spies" page
of a seat is the same for everyone who reads the transcript; the screen (``screen``) draws both.
``hindsight`` rebuilds, for ``replay --as``, what a seat knew at each point: the opponent's types
come from that seat's own final openings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spycraft.engines.confusion.board import SPIES, Side
from spycraft.engines.confusion.model import Game

if TYPE_CHECKING:
    from spycraft.engines.confusion.rules import State


@dataclass(frozen=True)
class SeatView:
    game: Game
    seat: int
    opponent_types: tuple[tuple[str, str], ...] = ()  # (enemy spy, its type), once assigned

    def type_of(self, enemy: str) -> str | None:
        return dict(self.opponent_types).get(enemy)


def hindsight(states: Sequence[State], seat: int) -> list[SeatView]:
    """What ``seat`` knew at each state: the public game and, once the spies were assigned, the
    types of the opponent's spies, read from this seat's own final openings."""
    games = [state.game for state in states]
    last = games[-1]
    opened = last.openings[seat]
    enemy: Side = 1 if seat == 0 else 0
    truth: tuple[tuple[str, str], ...] = ()
    if opened is not None and last.assigned[enemy]:
        truth = tuple(
            (spy, opened[last.assigned[enemy][i]]) for i, spy in enumerate(SPIES[enemy])
        )
    return [SeatView(g, seat, truth if g.assigned[enemy] else ()) for g in games]

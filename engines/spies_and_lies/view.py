"""What one seat knows of Stratego: Spies & Lies: live during the game, and in hindsight after it.

``SeatView`` is what a seat's agent gets with each decision: the public board and the seat's own
deployment and Sergeant token, nothing of the opponent's hidden cards; the screen (``screen``)
shows the seat its own hidden ranks from it. ``hindsight`` rebuilds it for ``replay --as``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spycraft.engines.spies_and_lies.model import Board

if TYPE_CHECKING:
    from spycraft.engines.spies_and_lies.rules import State


@dataclass(frozen=True)
class SeatView:
    board: Board
    seat: int
    deployment: tuple[int, ...] | None = None  # this seat's ranks under M1..M4, once chosen
    sergeant_token: bool | None = None  # this seat's Sergeant token, once chosen


def hindsight(states: Sequence[State], seat: int) -> list[SeatView]:
    """What ``seat`` saw at each state of a finished game: the board plus its own deployment.

    Every deployed card is face up by the end of its day (or opened by the final reveal), so the
    transcript alone tells which rank stood under each of the seat's Mission cards that day.
    """
    boards = [state.game for state in states]
    deployed: dict[int, tuple[int, ...]] = {}
    for board in boards:
        ranks = tuple(c.rank for c in board.cards[seat]) if board.cards[seat] else ()
        if len(ranks) == 4 and all(r is not None for r in ranks):
            deployed[board.day] = tuple(r for r in ranks if r is not None)
    return [
        SeatView(board, seat, deployed.get(board.day) if board.cards[seat] else None)
        for board in boards
    ]

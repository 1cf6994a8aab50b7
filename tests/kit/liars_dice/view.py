"""What one seat knows of Liar's Dice: the public table and its own dice, live and in hindsight.

``SeatView`` is what a seat's agent gets with each decision and what its screen shows it: the
public state (``rules.Table``) and the dice under its own cup once they are rolled, nothing
of anyone else's. ``hindsight`` rebuilds it for ``replay --as``: every cup is opened when its
round is counted, so the transcript alone tells each seat's dice of every counted round (and of
a round stopped by a forfeit, where it opened its cup).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Table


@dataclass(frozen=True)
class SeatView:
    table: Table
    seat: int
    dice: tuple[int, ...] | None = None  # this seat's dice this round, once rolled


def hindsight(states: Sequence[Table], seat: int) -> list[SeatView]:
    """What ``seat`` saw at each state of a finished game: the table and its own dice."""
    tables = list(states)
    known: dict[int, tuple[int, ...]] = {}
    for t in tables:
        for counted in t.game.counted:
            known[counted.number] = counted.dice[seat]
        mine = t.game.opened[seat] if t.game.opened else None
        if mine is not None:
            known[t.game.number] = mine
    views = []
    for t in tables:
        g = t.game
        rolled = g.rolled and g.dice[seat] > 0 and g.cups[seat] is not None
        views.append(SeatView(t, seat, known.get(g.number) if rolled else None))
    return views

"""What a person is told at the start and the end of a game: who sits where (names from
peers printed without control characters), and the result from their own side ("you won").

Theory of operation: both read only the genesis (names by seat) and the final table state with
the game's ``side_of`` (which side a seat played, known to every peer once roles are revealed).
"""

from __future__ import annotations

from collections.abc import Sequence

from spycraft.crypto.text import printable
from spycraft.engines import registry
from spycraft.engines.screens import plain_result
from spycraft.engines.table import TableState

__all__ = ["printable", "roster", "verdict"]  # printable: the one rule, from crypto.text


def roster(names: Sequence[str], me: int | None) -> str:
    """``at the table: seat 0 ada (you), seat 1 bot-XTIF``."""
    seats = [f"seat {i} {printable(name)}{' (you)' if i == me else ''}"
             for i, name in enumerate(names)]
    return "at the table: " + ", ".join(seats)


def _side(name: str) -> str:
    return name[:1].upper() + name[1:]


def verdict(definition: registry.GameDefinition, state: TableState[object],
            seat: int | None) -> str:
    """The result line: ``result: you won: Spies win (three failures)`` for a seated person,
    ``result: Spies won (three failures)`` for a host watching or selfplay (never an internal
    id), the plain result for a game with no winner; a result that forfeits decided says who
    forfeited and why in words (``result: seat 1 ran out of time; seat 0 claims the game: no
    winner``; the audit keeps the exact record form)."""
    result = state.result
    if result is None:
        return "result: the game did not finish"
    if result.forfeits:
        text = plain_result(result, _side)
    elif not result.winners:
        return f"result: {result.describe()}"
    elif result.shared:
        names = " and ".join(result.shared)
        text = f"{_side(names)} share the win ({result.reason.replace('_', ' ')})"
    else:
        text = f"{_side(result.winners[0])} won ({result.reason.replace('_', ' ')})"
    if not result.winners:
        return f"result: {text}"
    if seat is None:
        return f"result: {text}" + (f"; {result.detail}" if result.detail and not result.forfeits
                                    else "")
    side = definition.rules.side_of(state.game, seat)
    if side is None:
        return f"result: {text}"
    if result.shared:
        mine = "you share the win" if side in result.shared else "you lost"
    else:
        mine = "you won" if side == result.winner else "you lost"
    return f"result: {mine}, playing {_side(side)}: {text}"

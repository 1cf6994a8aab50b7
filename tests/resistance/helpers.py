"""Whole Resistance tables in one process, and ways to make one seat cheat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.resistance import GAME
from spycraft.engines.resistance.rules import State
from spycraft.engines.resistance.seat import ResistanceSeat
from spycraft.engines.seat import SeatContext
from spycraft.engines.table import Turn

Tamper = Callable[[ResistanceSeat, State, Turn, str, Any], Any]


def table(
    n: int,
    seed: int,
    plot: bool = False,
    targeting: bool = False,
    blind_spies: bool = False,
    bot: str = "heuristic",
    cheater: int | None = None,
    tamper: Tamper | None = None,
) -> tuple[LocalTable, list[Agent]]:
    """A signed table of ``n`` bot seats; ``cheater`` builds its records through ``tamper``."""
    definition = GAME
    if cheater is not None and tamper is not None:
        definition = replace(GAME, seat=cheating_seat(cheater, tamper))
    entropy = SeededEntropy(seed)
    options = GAME.options(players=n, plot=plot, targeting=targeting, blind_spies=blind_spies)
    local = new_local_table(definition, options, n, entropy)
    agents = [GAME.bots[bot](entropy.child(f"bot/{i}"), i) for i in range(n)]
    return local, agents


def cheating_seat(cheater: int, tamper: Tamper) -> Callable[[SeatContext], ResistanceSeat]:
    class CheatingSeat(ResistanceSeat):
        def build(self, state: State, turn: Turn, agent: Agent) -> tuple[str, Any]:
            kind, body = super().build(state, turn, agent)
            return kind, tamper(self, state, turn, kind, body)

    def factory(context: SeatContext) -> ResistanceSeat:
        seat_class = CheatingSeat if context.index == cheater else ResistanceSeat
        return seat_class(context, GAME.rules)

    return factory


def run_until(local: LocalTable, agents: list[Agent], stop: Callable[[State, Turn], bool]) -> Turn:
    """Step honestly until the next turn satisfies ``stop``; return that turn."""
    for _ in range(10_000):
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended first"
        if turn.kinds != ("beacon",) and turn.kinds != ("result",) and stop(local.state.game, turn):
            return turn
        local.step(agents)
    raise AssertionError("never reached")


def seat_of(local: LocalTable, index: int) -> ResistanceSeat:
    seat = local.seats[index].game
    assert isinstance(seat, ResistanceSeat)
    return seat

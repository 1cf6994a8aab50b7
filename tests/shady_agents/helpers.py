"""Whole Shady Agents tables in one process, and seats that cheat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.records import SignedRecord
from spycraft.engines.agent import Agent
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.seat import SeatContext
from spycraft.engines.shady_agents import GAME
from spycraft.engines.shady_agents.seat import ShadyAgentsSeat
from spycraft.engines.table import TableState

SeatClass = type[ShadyAgentsSeat]


@dataclass
class Played:
    local: LocalTable
    agents: list[Agent]
    states: list[TableState[Any]]  # states[i]: before records[i]; states[-1]: the end

    @property
    def records(self) -> list[SignedRecord]:
        return self.local.records

    def positions(self, kind: str) -> list[int]:
        return [i for i, r in enumerate(self.records) if r.record.kind == kind]


def table(
    n: int, seed: int, bot: str = "random", cheaters: dict[int, SeatClass] | None = None
) -> tuple[LocalTable, list[Agent]]:
    definition = GAME
    if cheaters:
        definition = replace(GAME, seat=seats(cheaters))
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, {}, n, entropy)
    agents = [GAME.bots[bot](entropy.child(f"bot/{i}"), i) for i in range(n)]
    return local, agents


def seats(cheaters: dict[int, SeatClass]) -> Callable[[SeatContext], ShadyAgentsSeat]:
    def factory(context: SeatContext) -> ShadyAgentsSeat:
        return cheaters.get(context.index, ShadyAgentsSeat)(context, GAME.rules)

    return factory


def play(
    n: int, seed: int, bot: str = "random", cheaters: dict[int, SeatClass] | None = None
) -> Played:
    local, agents = table(n, seed, bot, cheaters)
    states = [local.state]
    while local.step(agents) is not None:
        states.append(local.state)
    return Played(local, agents, states)

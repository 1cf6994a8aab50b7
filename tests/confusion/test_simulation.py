"""The rules-model game (``engines.confusion.simulation``) asks each seat exactly what the full,
signed game asks it: the same decisions (seat, kind, prompt, options, labels and view, the view
but for the commitments' bytes the model does not hold) in the same order, and ends in the same
public state. This is what lets the bot benchmark play the model instead of the cryptography."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.confusion import GAME
from spycraft.engines.confusion import model as C
from spycraft.engines.confusion.movement import TYPE_IDS
from spycraft.engines.confusion.simulation import Deal, Simulation, comparable, deal_of, play
from spycraft.engines.local import new_local_table


class Logged:
    def __init__(self, agent: Agent, log: list[tuple[Any, ...]]) -> None:
        self.agent, self.log = agent, log

    def decide(self, decision: Decision) -> int:
        choice = self.agent.decide(decision)
        self.log.append((comparable(decision), choice))
        return choice


def agents(levels: tuple[str, str], seed: int, log: list[tuple[Any, ...]]) -> list[Agent]:
    entropy = SeededEntropy(seed)
    return [Logged(GAME.bots[level](entropy.child(f"bot/{i}"), i), log)
            for i, level in enumerate(levels)]


@pytest.mark.parametrize("options,levels,seed", [
    ({}, ("expert", "normal"), 1),
    ({"tokens": True}, ("easy", "expert"), 2),
    ({"tokens": True, "first": "red"}, ("random", "expert"), 3),
])
def test_the_model_game_decides_exactly_as_the_full_game(
    options: dict[str, Any], levels: tuple[str, str], seed: int
) -> None:
    local = new_local_table(GAME, GAME.genesis_options(2, options), 2, SeededEntropy(seed))
    full: list[tuple[Any, ...]] = []
    seats = agents(levels, seed, full)
    games = [local.state.game.game]
    while local.step(seats) is not None:
        games.append(local.state.game.game)
    modelled: list[tuple[Any, ...]] = []
    start = C.start(b"", bool(options.get("tokens")), options.get("first", "random"))
    end = play(start, deal_of(games), agents(levels, seed, modelled))
    assert len(modelled) == len(full) > 0
    for index, (a, b) in enumerate(zip(modelled, full)):
        assert a == b, f"decision {index} differs"
    played = next(g for g in games if g.outcome is not None)
    assert replace(end, table=b"", commitments=((), ())) == replace(
        played, table=b"", commitments=((), ()))


def test_a_deal_is_a_function_of_its_entropy_and_orders_the_thirteen_types() -> None:
    deal = Deal.draw(SeededEntropy(7).child("deal"))
    assert deal == Deal.draw(SeededEntropy(7).child("deal"))
    assert all(sorted(order) == sorted(TYPE_IDS) for order in deal.orders)
    sizes = C.draw_sizes(C.start(b"", False, "random"))
    assert len(deal.draws) == len(sizes) and all(0 <= v < k for v, k in zip(deal.draws, sizes))


def test_an_agent_that_answers_outside_the_options_is_refused() -> None:
    class Wild:
        def decide(self, decision: Decision) -> int:
            return len(decision.options)

    deal = Deal.draw(SeededEntropy(0))
    with pytest.raises(ValueError, match="option"):
        Simulation(C.start(b"", False, "random"), deal, [Wild(), Wild()]).run()

"""The rules-model game (``engines.resistance.simulation``) asks every seat exactly what the full,
signed game asks it: the same decisions (seat, kind, options, labels, view) in the same order,
and ends in the same public state. This is what lets the bot benchmark play the model instead
of the cryptography, and the expert's tests play ten seats cheaply."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto import recognition
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import new_local_table
from spycraft.engines.resistance import GAME
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.simulation import Deal, Simulation, deal_of, play

LEVELS = ("easy", "normal", "expert")


class Logged:
    def __init__(self, agent: Agent, log: list[tuple[Any, ...]]) -> None:
        self.agent, self.log = agent, log

    def decide(self, decision: Decision) -> int:
        choice = self.agent.decide(decision)
        self.log.append((decision.seat, decision.kind, decision.options, decision.labels,
                         decision.view, choice))
        return choice


def agents(n: int, seed: int, log: list[tuple[Any, ...]]) -> list[Agent]:
    entropy = SeededEntropy(seed)
    return [Logged(GAME.bots[LEVELS[(i + seed) % 3]](entropy.child(f"bot/{i}"), i), log)
            for i in range(n)]


@pytest.mark.parametrize("n,options,seed", [
    (5, {}, 1),
    (7, {"plot": True}, 2),
    (8, {"plot": True, "targeting": True, "blind_spies": True}, 3),
])
def test_the_model_game_decides_exactly_as_the_full_game(n: int, options: dict[str, bool],
                                                         seed: int) -> None:
    local = new_local_table(GAME, GAME.options(players=n, **options), n, SeededEntropy(seed))
    full: list[tuple[Any, ...]] = []
    seats = agents(n, seed, full)
    games = [local.state.game.game]
    while local.step(seats) is not None:
        games.append(local.state.game.game)
    spies = [s for s, role in enumerate(local.state.game.roles) if role == recognition.SPY]
    modelled: list[tuple[Any, ...]] = []
    end = play(R.new_game(n, **options), deal_of(games, spies), agents(n, seed, modelled))
    assert len(modelled) == len(full) > 0
    for index, (a, b) in enumerate(zip(modelled, full)):
        assert a == b, f"decision {index} differs"
    assert end == games[-1]


def test_a_deal_is_a_function_of_its_entropy_and_deals_the_rules_spy_count() -> None:
    for n in R.PLAYER_COUNTS:
        deal = Deal.draw(SeededEntropy(n).child("deal"), n, plot=True)
        assert deal == Deal.draw(SeededEntropy(n).child("deal"), n, plot=True)
        assert len(set(deal.spies)) == R.spies(n) and all(0 <= s < n for s in deal.spies)
        assert len(deal.draws) == len(R.plot_deck(n))


def test_an_agent_that_answers_outside_the_options_is_refused() -> None:
    class Wild:
        def decide(self, decision: Decision) -> int:
            return len(decision.options)

    deal = Deal.draw(SeededEntropy(0), 5, plot=False)
    with pytest.raises(ValueError, match="option"):
        Simulation(R.new_game(5), deal, [Wild() for _ in range(5)]).run()

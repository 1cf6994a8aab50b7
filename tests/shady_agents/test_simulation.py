"""The rules-model game (``engines.shady_agents.simulation``) decides exactly as the full game.

Whole games are played through ``engines.local`` (every tool sealed, every record signed and
verified), each seat's bot recording every decision it is shown and its answer; then the same
deal, read back from the finished game (``deal_of``), is played on the rules model by fresh bots
of the same levels and seeds. Every decision (seat, kind, prompt, options, labels, the view with
its record numbers renamed in order, the answer) and the winner must be the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import bots, registry
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import new_local_table
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.rules import TEAM_NAME
from spycraft.engines.shady_agents.simulation import Deal, Simulation, World, deal_of, outcome
from spycraft.engines.shady_agents.view import Knowledge, SeatView


class Recording:
    def __init__(self, bot: Agent, log: list[tuple[Any, ...]]) -> None:
        self.bot, self.log = bot, log

    def decide(self, decision: Decision) -> int:
        choice = self.bot.decide(decision)
        self.log.append((decision, choice))
        return choice


def renamed(log: list[tuple[Decision, int]]) -> list[tuple[Any, ...]]:
    """Each decision with the record numbers of its view replaced by their rank in the game."""
    out = []
    for decision, choice in log:
        view = decision.view
        assert isinstance(view, SeatView)
        game, me = view.game, view.knowledge
        seqs = sorted({g.seq for g in game.gifts} | {d.seq for d in game.discards}
                      | {a.seq for a in game.interrogations}
                      | {s for a in game.interrogations for _, _, s in a.answers})
        rank = {s: i for i, s in enumerate(seqs)}
        game = replace(
            game,
            gifts=tuple(replace(g, seq=rank[g.seq]) for g in game.gifts),
            discards=tuple(replace(d, seq=rank[d.seq]) for d in game.discards),
            interrogations=tuple(
                replace(a, seq=rank[a.seq],
                        answers=tuple((w, said, rank[s]) for w, said, s in a.answers))
                for a in game.interrogations),
        )
        me = Knowledge(me.seat, me.team,
                       tuple((rank[s], r, k) for s, r, k in me.given),
                       tuple((rank[s], g, k) for s, g, k in me.received), me.discarded)
        out.append((decision.seat, decision.kind, decision.prompt, decision.options,
                    decision.labels, SeatView(game, me), choice))
    return out


@pytest.mark.parametrize("players,seed,levels", [
    (4, 1, ["normal", "easy", "normal", "easy"]),
    (5, 2, ["expert", "normal", "easy", "normal", "normal"]),
    (6, 3, ["normal"] * 6),
    (7, 4, ["easy", "normal"] * 3 + ["random"]),
])
def test_the_model_game_decides_as_the_full_game(players: int, seed: int,
                                                  levels: list[str]) -> None:
    definition = registry.load("shady-agents")
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, definition.genesis_options(players, {}), players,
                            entropy)
    full: list[tuple[Any, ...]] = []
    state = local.run([Recording(bots.make(definition.bots, level, entropy.child(f"bot/{i}"), i),
                                 full) for i, level in enumerate(levels)])
    assert state.result is not None
    deal = deal_of(state.game.game, state.game.roles)
    model: list[tuple[Any, ...]] = []
    end = Simulation(World.start(deal), [
        Recording(bots.make(definition.bots, level, entropy.child(f"bot/{i}"), i), model)
        for i, level in enumerate(levels)]).run()
    assert renamed(model) == renamed(full)
    assert end.game.phase == M.END
    winner = outcome(end)
    assert state.result.winner == (None if winner is None else TEAM_NAME[winner])


def test_a_drawn_deal_is_a_deal_of_the_table() -> None:
    for players in range(4, 11):
        deal = Deal.draw(SeededEntropy(players).child("deal"), players)
        end = Simulation(World.start(deal), [
            bots.make(registry.load("shady-agents").bots, "normal",
                      SeededEntropy(players).child(f"bot/{i}"), i) for i in range(players)
        ]).run()
        assert end.game.phase == M.END and len(end.roles) == players
        assert (players % 2 == 1) == (deal.leftover is not None)

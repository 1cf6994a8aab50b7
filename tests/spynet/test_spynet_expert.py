"""SpyNet's rules-model simulation and its expert bot.

* the simulation decides exactly as the full game (``engines.local``): the same decisions, seat
  by seat (kind, prompt, options, labels, the view's cards and public game, answer), on deals
  read back from full games, at every seat count, with situations;
* a seeded expert game is deterministic, the expert chooses only legal options, and from its
  own view alone: a fresh expert fed the same decisions answers the same;
* the worlds the expert searches keep what its seat knows and are worlds it cannot rule out:
  every card once, the faces it saw where it saw them, a face-down mission of its branch.
"""

from __future__ import annotations

from collections import Counter

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Decision
from spycraft.engines.local import new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.cards import BRANCHES, DECK, Kind, card
from spycraft.engines.spynet.expert import (
    ExpertAgent,
    Stream,
    determinise,
    hidden_positions,
    public_faces,
)
from spycraft.engines.spynet.simulation import Deal, Simulation, deal_of, same_view
from spycraft.engines.spynet.view import SeatView
from tests.conformance.games import Recorder


def agents(seed: int, levels: list[str]) -> list[Recorder]:
    entropy = SeededEntropy(seed)
    return [Recorder(BOTS[level](entropy.child(f"bot/{i}"), i)) for i, level in enumerate(levels)]


def decisions(recorders: list[Recorder]) -> list[tuple[Decision, int]]:
    return [asked for recorder in recorders for asked in recorder.asked]


@pytest.mark.parametrize(("situation", "levels", "seed"), [
    ("random", ["normal", "easy"], 11),
    ("S07", ["random", "normal", "easy"], 12),
    ("S03", ["normal", "random", "easy", "normal"], 13),
    ("off", ["expert", "normal"], 14),
])
def test_the_simulation_decides_exactly_as_the_full_game(
    situation: str, levels: list[str], seed: int
) -> None:
    n = len(levels)
    local = new_local_table(GAME, {"situation": situation}, n, SeededEntropy(seed))
    full = agents(seed, levels)
    state = local.run(full)
    model = agents(seed, levels)
    simulation = Simulation(n, deal_of(state.game), model)
    simulation.run()
    for mine, theirs in zip(full, model, strict=True):
        assert len(mine.asked) == len(theirs.asked)
        for (a, i), (b, j) in zip(mine.asked, theirs.asked):
            assert (a.seat, a.kind, a.prompt, a.options, a.labels, i) == (
                b.seat, b.kind, b.prompt, b.options, b.labels, j)
            assert same_view(a.view, b.view)
    assert simulation.score().points == state.game.final.points


@pytest.mark.parametrize(("levels", "seed"), [
    (["expert", "normal"], 21),
    (["normal", "expert", "easy"], 22),
    (["expert", "normal", "random", "expert"], 23),
])
def test_a_seeded_expert_chooses_legally_from_its_own_view_alone(
    levels: list[str], seed: int
) -> None:
    n = len(levels)
    deal = Deal.draw(SeededEntropy(seed).child("deal"), n)
    first = agents(seed, levels)
    Simulation(n, deal, first).run()  # Simulation refuses an index out of range
    again = agents(seed, levels)
    Simulation(n, deal, again).run()
    assert [(d.labels, i) for d, i in decisions(first)] == [
        (d.labels, i) for d, i in decisions(again)]
    entropy = SeededEntropy(seed)
    for seat, level in enumerate(levels):
        if level != "expert":
            continue
        fresh = BOTS["expert"](entropy.child(f"bot/{seat}"), seat)
        assert first[seat].asked
        for decision, choice in first[seat].asked:
            assert decision.seat == seat and 0 <= choice < len(decision.options)
            assert fresh.decide(decision) == choice, f"seat {seat}: not its view alone"


def test_the_worlds_an_expert_searches_keep_what_its_seat_knows() -> None:
    views: list[SeatView] = []

    class Watching(ExpertAgent):
        def decide(self, decision: Decision) -> int:
            views.append(decision.view)
            return super().decide(decision)

    entropy = SeededEntropy(31)
    bots = [BOTS["normal"](entropy.child(f"bot/{i}"), i) for i in range(4)]
    watcher = Watching(entropy.child("bot/1"), 1)
    bots[1] = watcher
    Simulation(4, Deal.draw(entropy.child("deal"), 4), bots).run()
    stream = Stream(7)
    for view in views[::10]:
        game = view.game
        assert game is not None
        world = determinise(game, watcher.memory, stream)
        hidden = hidden_positions(game)
        assert Counter(world[p] for p in hidden) + public_faces(game) == Counter(DECK)
        for p, face in view.hand + view.draft:
            assert world[p] == face
        for pile, seen in zip(game.piles, view.piles):
            for p, face in zip(pile, seen):
                assert face is None or world[p] == face
        for seat_missions in game.missions:
            for branch, pile in zip(BRANCHES, seat_missions):
                for m in pile:
                    assert card(world[m.position]).kind is Kind.MISSION
                    assert card(world[m.position]).belongs_to(branch)

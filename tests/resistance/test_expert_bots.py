"""The Resistance's expert bot and its belief, at every seat count and option, played on the rules
model (``simulation``: the same decisions as the signed game, tested in ``test_simulation``).

* the expert, in any seat and among any levels, chooses from its own view alone (a fresh expert
  fed the same decisions answers the same) and is deterministic from its seed;
* spies who know each other agree without talking on who fails: never more Fails than the
  mission needs from expert spies;
* the belief keeps what is certain certain (its own role, the spies it recognised, a Fail it saw)
  and a ``Tracker`` kept between decisions gives the belief computed from scratch.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.resistance import GAME
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.belief import Belief, Tracker, hypotheses
from spycraft.engines.resistance.simulation import Deal, play
from spycraft.engines.resistance.view import Knowledge, SeatView
from tests.conformance.games import Recorder

LEVELS = ("easy", "normal", "expert")



def game_of(n: int, options: dict[str, bool], seed: int,
            levels: list[str]) -> tuple[R.Game, list[Recorder], Deal]:
    entropy = SeededEntropy(seed)
    deal = Deal.draw(entropy.child("deal"), n, options["plot"])
    agents = [Recorder(GAME.bots[level](entropy.child(f"bot/{i}"), i))
              for i, level in enumerate(levels)]
    return play(R.new_game(n, **options), deal, agents), agents, deal


tables = st.tuples(st.sampled_from(R.PLAYER_COUNTS),
                   st.fixed_dictionaries({"plot": st.booleans(), "targeting": st.booleans(),
                                          "blind_spies": st.booleans()}),
                   st.integers(0, 10**6))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables, st.data())
def test_the_expert_chooses_from_its_own_view_alone_and_its_spies_fail_no_more_than_needed(
    table: tuple[int, dict[str, bool], int], data: st.DataObject
) -> None:
    n, options, seed = table
    levels = data.draw(st.lists(st.sampled_from(LEVELS), min_size=n, max_size=n)
                       .filter(lambda ls: "expert" in ls), label="levels")
    end, agents, _ = game_of(n, options, seed, levels)
    assert end.ending is not None
    entropy = SeededEntropy(seed)
    cards: dict[int, list[tuple[int, str]]] = {}
    for i, (level, agent) in enumerate(zip(levels, agents)):
        if level != "expert":
            continue
        fresh = GAME.bots["expert"](entropy.child(f"bot/{i}"), i)
        for decision, choice in agent.asked:
            assert decision.seat == i
            assert fresh.decide(decision) == choice, f"seat {i}: not its view alone"
            if decision.kind == "mission_card":
                assert isinstance(decision.view, SeatView)
                cards.setdefault(decision.view.game.round, []).append(
                    (i, decision.options[choice]))
    if options["blind_spies"]:
        return
    for result in end.results:
        if result is None:
            continue
        expert_fails = sum(1 for seat, card in cards.get(result.round, []) if card == R.FAIL)
        assert expert_fails <= R.fails_needed(n, result.mission), result


def test_a_seeded_ten_seat_expert_game_with_the_plot_is_deterministic() -> None:
    options = {"plot": True, "targeting": False, "blind_spies": False}
    first, agents, _ = game_of(10, options, 9, ["expert"] * 10)
    again, _, _ = game_of(10, options, 9, ["expert"] * 10)
    assert first == again
    assert first.ending is not None and sum(len(a.asked) for a in agents) > 100


def test_the_belief_keeps_what_is_certain_and_a_kept_tracker_equals_a_fresh_one() -> None:
    options = {"plot": True, "targeting": False, "blind_spies": False}
    _, agents, deal = game_of(7, options, 4, ["expert", "normal"] * 3 + ["easy"])
    for seat in (0, 1):
        kept = Tracker(7)
        for decision, _ in agents[seat].asked[::5]:
            view = decision.view
            assert isinstance(view, SeatView)
            me = view.knowledge
            belief = Belief.of(view.game, me, kept)
            assert belief == Belief.of(view.game, me)
            assert abs(sum(belief.weights) - 1.0) < 1e-9
            chance = belief.spy_chance()
            if me.spy:  # the spies know each other: their belief is certain
                assert all(abs(chance[s] - (s in deal.spies)) < 1e-9 for s in range(7))
            else:
                assert chance[seat] == 0.0
            for _, subject, card in me.seen_cards:
                if card == R.FAIL:
                    assert abs(chance[subject] - 1.0) < 1e-9
            for subject, spy in me.seen_roles:
                assert abs(chance[subject] - spy) < 1e-9


def test_a_fail_shown_in_the_spotlight_rules_out_every_set_without_that_seat() -> None:
    n = 5
    shown = R.MissionResult(1, 1, 0, (0, 1), 0, 1, True, ((1, R.FAIL),))
    played = replace(R.new_game(n), round=2, results=(shown, None, None, None, None))
    belief = Belief.of(played, Knowledge(seat=-1, spy=False))
    for bits, weight in zip(hypotheses(n), belief.weights):
        assert (weight > 0) == bool(bits >> 1 & 1)
    assert abs(belief.spy_chance()[1] - 1.0) < 1e-9


def test_a_blind_spy_leading_a_two_fail_mission_puts_himself_on_it() -> None:
    """Under Blind Spies a spy knows one spy (himself): leading the fourth mission at seven seats,
    which needs two Fails, he still proposes a team (with himself), found by the search at seed
    84210, where the expert had no team to choose from."""
    options = {"plot": False, "targeting": False, "blind_spies": True}
    levels = ["easy", "easy", "easy", "expert", "easy", "normal", "easy"]
    end, agents, deal = game_of(7, options, 84210, levels)
    assert end.ending is not None
    proposals = [(d, c) for d, c in agents[3].asked if d.kind == "propose"]
    assert proposals
    if 3 in deal.spies:
        assert all(3 in d.options[c].team for d, c in proposals
                   if R.fails_needed(7, d.options[c].mission) == 2)

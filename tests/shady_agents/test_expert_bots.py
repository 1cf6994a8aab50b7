"""Shady Agents' expert bot (``engines.shady_agents.expert``), played on the rules model.

* a seeded game with experts is deterministic, decision for decision;
* the expert chooses only among the options offered, and from its own view alone: a fresh
  expert of the same seed, fed the same decisions, answers the same;
* every world it samples agrees with what its seat knows (its team, the team sizes, the kinds it
  gave, received and discarded, every tool used once) and with the public game.
The full-game checks (legal records, an audited transcript, no secret in a view) are the
conformance suite's, which plays every level (tests/conformance/test_bots.py).
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.shady_agents import bots
from spycraft.engines.shady_agents.belief import belief, posterior
from spycraft.engines.shady_agents.components import BULLET, MEDKIT
from spycraft.engines.shady_agents.expert import Stream, info_value, option_scores, sample_world
from spycraft.engines.shady_agents.scoring import team_sizes
from spycraft.engines.shady_agents.simulation import Deal, Simulation, World
from spycraft.engines.shady_agents.view import SeatView


def game_of(players: int, seed: int, levels: list[str]) -> tuple[World, list[tuple[Decision, int]]]:
    entropy = SeededEntropy(seed)
    deal = Deal.draw(entropy.child("deal"), players)
    log: list[tuple[Decision, int]] = []
    agents: list[Agent] = [bots.BOTS[level](entropy.child(f"bot/{i}"), i)
                           for i, level in enumerate(levels)]
    end = Simulation(World.start(deal), agents, lambda d, i: log.append((d, i))).run()
    return end, log


def test_a_seeded_expert_game_is_deterministic() -> None:
    first, log = game_of(5, 11, ["expert", "normal", "expert", "easy", "expert"])
    again, log_again = game_of(5, 11, ["expert", "normal", "expert", "easy", "expert"])
    assert first == again
    assert [(d.seat, d.kind, d.options, i) for d, i in log] == [
        (d.seat, d.kind, d.options, i) for d, i in log_again]


def test_the_expert_chooses_legally_from_its_own_view_alone() -> None:
    levels = ["expert", "normal", "expert", "easy"]
    for seed in (3, 8):
        _, log = game_of(4, seed, levels)
        fresh: dict[int, Agent] = {
            i: bots.BOTS["expert"](SeededEntropy(seed).child(f"bot/{i}"), i)
            for i, level in enumerate(levels) if level == "expert"}
        asked = 0
        for decision, choice in log:
            assert 0 <= choice < len(decision.options)
            if decision.seat in fresh:
                assert isinstance(decision.view, SeatView)
                assert decision.view.knowledge.seat == decision.seat
                assert fresh[decision.seat].decide(decision) == choice
                asked += 1
        assert asked >= 4


def test_every_sampled_world_agrees_with_what_the_seat_knows() -> None:
    _, log = game_of(6, 5, ["normal"] * 6)
    stream = Stream(7)
    checked = 0
    for decision, _ in log:
        view = decision.view
        assert isinstance(view, SeatView)
        game, me = view.game, view.knowledge
        assert me.team is not None
        weighed = posterior(game, me)
        for _ in range(5):
            world = sample_world(game, me, weighed, stream)
            assert world.game == game and world.roles[me.seat] == me.team
            law, corrupt = team_sizes(game.n, game.leftover)
            assert (world.roles.count("L"), world.roles.count("C")) == (law, corrupt)
            knows = world.knowledge(me.seat)
            assert (knows.given, knows.received, knows.discarded) == (
                me.given, me.received, me.discarded)
            for seat in range(game.n):  # every seat uses its one Bullet and one Medkit once
                used: list[Any] = [k for g, k in zip(game.gifts, world.gift_kinds)
                                   if g.giver == seat]
                used += [k for d, k in zip(game.discards, world.discard_kinds) if d.seat == seat]
                assert len(used) == len(set(used)) and set(used) <= {BULLET, MEDKIT}
            checked += 1
    assert checked > 50


def test_the_expert_first_player_keeps_both_tools_for_the_last_turn() -> None:
    """As the first player the expert calls its free interrogation (it gives nothing blind in
    round 1) and gives both tools in round 2, the game's last turn; the heuristic gives a blind
    Bullet instead."""
    for players, seed in ((4, 2), (6, 5), (9, 13)):
        end, log = game_of(players, seed, ["expert"] * players)
        first = end.game.first
        opening = [(d, i) for d, i in log if d.kind == "round_one" and d.seat == first]
        assert len(opening) == 1
        decision, choice = opening[0]
        assert decision.options[choice] == ("interrogate", None)
        assert [g.giver for g in end.game.gifts if g.round == 1].count(first) == 0
        assert [g.giver for g in end.game.gifts].count(first) == 2
        assert end.game.gifts[-1].giver == first
        _, normal = game_of(players, seed, ["normal"] * players)
        heuristic = [(d, i) for d, i in normal if d.kind == "round_one" and d.seat == first]
        assert heuristic[0][0].options[heuristic[0][1]][:2] == ("move", BULLET)


def test_the_short_team_gives_medkits_at_the_blind_positions_of_an_odd_table() -> None:
    """On the short team of an odd table the first player and the next seat give their Medkit
    in round 1, where the heuristic gives a blind Bullet (and the expert's first player on the
    long team, or at an even table, calls its free interrogation)."""
    for players, seed in ((7, 1), (9, 2)):
        end, log = game_of(players, seed, ["expert"] * players)
        first, short = end.game.first, end.game.leftover
        blind = [(d, i) for d, i in log if d.kind == "round_one"
                 and (d.seat - first) % players < 2]
        assert len(blind) == 2
        for decision, choice in blind:
            view = decision.view
            assert isinstance(view, SeatView) and view.knowledge.team == short
            assert decision.options[choice][:2] == ("move", MEDKIT)
        _, normal = game_of(players, seed, ["normal"] * players)
        heuristic = [(d, i) for d, i in normal if d.kind == "round_one"
                     and (d.seat - first) % players < 2]
        assert [d.options[i][:2] for d, i in heuristic] == [("move", BULLET)] * 2


def test_the_expert_values_an_interrogation_by_the_tool_it_keeps_but_on_a_long_team() -> None:
    """The expert ranks round-1 options as the heuristic does, less the heuristic's worth of the
    answers (``INFO_VALUE``) on every interrogation, at an even table and on the short team of an
    odd one; on the long team of an odd table exactly as the heuristic does."""
    teams = set()
    for players, seed in ((6, 5), (7, 5), (7, 3)):
        _, log = game_of(players, seed, ["normal"] * players)
        compared = 0
        for decision, _ in log:
            view = decision.view
            assert isinstance(view, SeatView)
            game, me = view.game, view.knowledge
            if decision.kind != "round_one" or (me.seat - game.first) % players < 2:
                continue  # the blind movers' scores do not count the answers
            long_team = game.leftover is not None and me.team != game.leftover
            less = 0.0 if long_team else bots.INFO_VALUE
            assert info_value(game, me) == bots.INFO_VALUE - less
            ours = option_scores(decision)
            theirs = bots.HeuristicAgent(Stream(0), me.seat)._round_one(
                game, me, belief(game, me), decision.options)
            for option, a, b in zip(decision.options, ours, theirs):
                gap = less if option[0] == "interrogate" else 0.0
                assert abs((b - a) - gap) < 1e-3
            teams.add((players % 2, long_team))
            compared += 1
        assert compared >= 2
    assert teams == {(0, False), (1, False), (1, True)}


def test_above_five_seats_the_expert_plays_its_plan_without_searching() -> None:
    """At 6-10 seats the expert's choice is the heuristic's, with the expert's worth of an
    interrogation, but for the first player's free interrogation (no search)."""
    seed, players = 4, 8
    end, log = game_of(players, seed, ["expert"] * players)
    plans = {i: bots.HeuristicAgent(SeededEntropy(seed).child(f"bot/{i}").child("heuristic"), i)
             for i in range(players)}
    checked = 0
    for decision, choice in log:
        if decision.kind == "round_one" and decision.seat == end.game.first:
            continue
        view = decision.view
        assert isinstance(view, SeatView)
        plans[decision.seat].info_value = info_value(view.game, view.knowledge)
        assert plans[decision.seat].decide(decision) == choice
        checked += 1
    assert checked >= 2 * players - 1  # every turn of both rounds but the free interrogation

"""Seats and teams (§1), power and dominance (§3), conditions and the final score (§2.5, §9)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.engines.spynet.cards import BRANCHES, Branch, card
from spycraft.engines.spynet.scoring import (
    Board,
    StackedAgent,
    Tableau,
    agent_power,
    condition_holds,
    dominates,
    dominators,
    may_play_mission,
    misplaced_missions,
    opponents,
    power,
    score,
    team_of,
    teammate,
    teams,
)

from .support import board, boards, tableau

INT, OPS, TEC, SIG = Branch.INT, Branch.OPS, Branch.TEC, Branch.SIG


# --- §1 seats and teams -----------------------------------------------------------------------


def test_four_players_play_in_two_teams_of_partners_sitting_opposite() -> None:
    assert teams(4) == ((0, 2), (1, 3))
    assert [teammate(s, 4) for s in range(4)] == [2, 3, 0, 1]
    assert opponents(0, 4) == (1, 3) and opponents(3, 4) == (0, 2)
    assert team_of(2, 4) == (0, 2)


@pytest.mark.parametrize("players", [2, 3])
def test_two_or_three_players_each_play_alone(players: int) -> None:
    assert teams(players) == tuple((s,) for s in range(players))
    for seat in range(players):
        assert teammate(seat, players) is None
        assert opponents(seat, players) == tuple(o for o in range(players) if o != seat)


# --- §3 power -------------------------------------------------------------------------------


def test_power_is_printed_power_plus_attached_funding_and_zero_for_an_empty_stack() -> None:
    b = board(tableau("INT: A05+F01 A29 | SIG: A16+F05"), tableau())
    assert power(b, 0, INT) == 7
    assert power(b, 0, SIG) == 3
    assert power(b, 0, TEC) == 0
    assert power(b, 1, INT) == 0


def test_example_14_10_technology_race_gives_printed_tec_agents_one_more() -> None:
    assert agent_power(StackedAgent("A13"), "S01") == 4
    assert agent_power(StackedAgent("A25"), "S01") == 3  # a special TEC agent is a TEC agent
    assert agent_power(StackedAgent("A29"), "S01") == 1  # a mercenary in TEC gets no bonus
    assert agent_power(StackedAgent("A13"), None) == 3


def test_example_14_10_austerity_counts_each_funding_card_as_one_power() -> None:
    agent = StackedAgent("A14", ("F08",))
    assert agent_power(agent, "S02") == 5
    assert agent_power(agent, None) == 7
    b = board(tableau("TEC: A14+F08"), tableau(), situation="S02")
    assert b.tableaux[0].funding_cards() == 1


def test_mercenary_market_gives_each_mercenary_one_more_and_nothing_else() -> None:
    assert agent_power(StackedAgent("A33", ("F02",)), "S05") == 5
    assert agent_power(StackedAgent("A15"), "S05") == 5
    assert agent_power(StackedAgent("A15"), "S01") == 6


# --- §3 dominance, example 14.4 ---------------------------------------------------------------


def tec_board(*stacks: str, situation: str | None = None) -> Board:
    return board(*(tableau(f"TEC: {s}" if s else "") for s in stacks), situation=situation)


def test_example_14_4_partners_both_dominate_above_every_opponent() -> None:
    b = tec_board("A15+F01", "A14", "A13+F05", "A11+F06")  # 6, 4, 5, 3
    assert [power(b, s, TEC) for s in range(4)] == [6, 4, 5, 3]
    assert dominators(b, TEC) == (0, 2)


def test_example_14_4_an_opponent_reaching_a_tie_ends_one_partners_dominance() -> None:
    b = tec_board("A15+F01", "A14", "A13+F05", "A11+F06 A12")  # s3 plays A12: 5
    assert power(b, 3, TEC) == 5
    assert not dominates(b, 2, TEC)  # 5 vs 5
    assert dominates(b, 0, TEC)
    assert not dominates(b, 3, TEC)
    assert dominators(b, TEC) == (0,)


def test_example_14_4_and_decision_tied_partners_above_every_opponent_both_dominate() -> None:
    b = board(
        tableau("OPS: A09"),  # 4
        tableau("OPS: A07"),  # 2
        tableau("OPS: A06 A08"),  # 4
        tableau("OPS: A23 A24"),  # 3
    )
    assert [power(b, s, OPS) for s in range(4)] == [4, 2, 4, 3]
    assert dominators(b, OPS) == (0, 2)


def test_example_14_4_a_tie_between_opponents_at_three_seats_means_nobody_dominates() -> None:
    b = board(tableau("INT: A03"), tableau("INT: A01 A02"), tableau("INT: A22"))
    assert [power(b, s, INT) for s in range(3)] == [3, 3, 1]
    assert dominators(b, INT) == ()


def test_example_14_4_nobody_dominates_with_power_zero() -> None:
    b = board(tableau(), tableau())
    assert dominators(b, SIG) == ()
    assert not dominates(board(tableau()), 0, SIG)


def test_example_14_4_cold_standoff_lets_tied_seats_play_missions_without_dominating() -> None:
    b = board(tableau("INT: A03"), tableau("INT: A01 A02"), tableau("INT: A22"), situation="S04")
    assert [may_play_mission(b, s, INT) for s in range(3)] == [True, True, False]
    assert dominators(b, INT) == ()
    assert not may_play_mission(replace(b, situation=None), 0, INT)


def test_cold_standoff_still_needs_power_above_zero() -> None:
    b = board(tableau(), tableau(), situation="S04")
    assert not may_play_mission(b, 0, OPS)


# --- §2.5 conditions --------------------------------------------------------------------------


def test_net_needs_an_agent_in_each_of_the_four_stacks() -> None:
    full = board(tableau("INT: A01 | OPS: A06 | TEC: A11 | SIG: A29", "INT: M06"), tableau())
    assert condition_holds(full, 0, INT, "M06")
    three = board(tableau("INT: A01 | OPS: A06 | TEC: A11", "INT: M06"), tableau())
    assert not condition_holds(three, 0, INT, "M06")


def test_deep_needs_three_agents_in_the_missions_own_stack() -> None:
    b = board(tableau("OPS: A06 A07 A29 | INT: A01 A02", "OPS: M12 | INT: M12"), tableau())
    assert condition_holds(b, 0, OPS, "M12")
    assert not condition_holds(b, 0, INT, "M12")


def test_funds_counts_funding_cards_not_their_value_even_under_austerity() -> None:
    two = board(tableau("TEC: A11+F01 | SIG: A16+F02", "TEC: M18"), tableau(), situation="S02")
    assert condition_holds(two, 0, TEC, "M18")
    one = board(tableau("TEC: A11+F10", "TEC: M18"), tableau())
    assert not condition_holds(one, 0, TEC, "M18")


def test_cell_counts_this_mission_and_the_others_in_its_pile() -> None:
    alone = board(tableau("", "SIG: M24"), tableau())
    assert not condition_holds(alone, 0, SIG, "M24")
    pair = board(tableau("", "SIG: M19 M24"), tableau())
    assert condition_holds(pair, 0, SIG, "M24")


def test_pair_looks_at_the_cards_two_branches_wherever_it_lies() -> None:
    b = board(tableau("OPS: A08 | SIG: A17", "OPS: M29"), tableau())
    assert condition_holds(b, 0, OPS, "M29")
    b = board(tableau("OPS: A08", "OPS: M29"), tableau())
    assert not condition_holds(b, 0, OPS, "M29")


def test_grand_needs_three_dominated_branches() -> None:
    three = board(tableau("INT: A01 | OPS: A06 | TEC: A11", "SIG: M32"), tableau("SIG: A16"))
    assert condition_holds(three, 0, SIG, "M32")
    two = board(tableau("INT: A01 | OPS: A06", "SIG: M32"), tableau("SIG: A16"))
    assert not condition_holds(two, 0, SIG, "M32")


def test_dom_is_read_in_the_branch_the_mission_lies_in_at_the_end() -> None:
    b = board(tableau("INT: A05", "INT: M05"), tableau("INT: A04+F10"))
    assert not condition_holds(b, 0, INT, "M05")  # dominance lost after it was played
    assert score(b).seat_points == (0, 0)


def test_technology_race_changes_end_conditions_too() -> None:
    b = board(tableau("TEC: A13", "TEC: M17"), tableau("TEC: A29+F08"))  # 3 vs 4
    assert not condition_holds(b, 0, TEC, "M17")
    assert not condition_holds(replace(b, situation="S01"), 0, TEC, "M17")  # 4 vs 4: a tie
    b = board(tableau("TEC: A14", "TEC: M17"), tableau("TEC: A29+F08"))  # 4 vs 4
    assert not condition_holds(b, 0, TEC, "M17")
    assert condition_holds(replace(b, situation="S01"), 0, TEC, "M17")  # 5 vs 4


# --- §9 scoring, example 14.9 ----------------------------------------------------------------


def example_14_9() -> Board:
    return board(
        tableau("INT: A05+F01 A29 | OPS: A07 | SIG: A16+F05", "INT: M05 M01 | SIG: M23"),
        tableau("INT: A04 | OPS: A10+F03 | TEC: A13 | SIG: A30", "OPS: M11 M12 | TEC: M15"),
        tableau("INT: A01 A22 | TEC: A14+F02 | SIG: A19", "SIG: M32 | TEC: M30"),
        tableau("INT: A03 A02+F04 | OPS: A08 | TEC: A15 | SIG: A17", "TEC: M17 | OPS: M09 M29"),
    )


def test_example_14_9_powers_and_dominance() -> None:
    b = example_14_9()
    assert [[power(b, s, br) for br in BRANCHES] for s in range(4)] == [
        [7, 2, 0, 3],
        [4, 6, 3, 1],
        [2, 0, 5, 4],
        [6, 3, 5, 2],
    ]
    assert {br: dominators(b, br) for br in BRANCHES} == {
        INT: (0,),
        OPS: (1, 3),
        TEC: (),
        SIG: (0, 2),
    }


def test_example_14_9_mission_points_with_conditions() -> None:
    result = score(example_14_9())
    points = {(m.seat, m.mission): (m.holds, m.points) for m in result.missions}
    assert points == {
        (0, "M05"): (True, 3),
        (0, "M01"): (True, 1),
        (0, "M23"): (True, 3),
        (1, "M11"): (True, 3),
        (1, "M12"): (False, 0),
        (1, "M15"): (True, 2),
        (2, "M32"): (False, 0),
        (2, "M30"): (True, 2),
        (3, "M17"): (False, 0),
        (3, "M09"): (True, 2),
        (3, "M29"): (True, 2),
    }
    assert result.seat_points == (7, 5, 2, 4)


def test_example_14_9_tied_teams_are_parted_by_funding_cards_in_their_tableaux() -> None:
    result = score(example_14_9())
    assert result.teams == ((0, 2), (1, 3))
    assert result.points == (9, 9)
    assert result.funding == (3, 2)
    assert result.winners == ((0, 2),)


def test_the_highest_score_wins_whatever_the_funding() -> None:
    b = board(tableau("INT: A01", "INT: M03"), tableau("OPS: A06+F08+F09+F10"))
    result = score(b)
    assert result.points == (2, 0) and result.winners == ((0,),)


def test_teams_still_tied_on_funding_share_the_win() -> None:
    b = board(tableau("INT: A01+F01"), tableau("OPS: A06+F10"), tableau())
    result = score(b)
    assert result.points == (0, 0, 0)
    assert result.funding == (1, 1, 0)
    assert result.winners == ((0,), (1,))


def test_decision_funding_arrived_with_a_flipped_agent_counts_for_its_new_owner() -> None:
    # A07+[F01] flipped from seat 2 to seat 1 (example 14.5): the card is in seat 1's tableau.
    b = board(tableau(), tableau("OPS: A07+F01 | TEC: A26"), tableau("OPS: A08"))
    assert score(b).funding == (0, 1, 0)


def test_a_mission_in_a_branch_it_does_not_belong_to_is_found_at_the_reveal() -> None:
    b = board(tableau("INT: A01", "INT: M01 | OPS: M13 | SIG: M31"), tableau())
    assert [(m.seat, m.branch, m.mission) for m in misplaced_missions(b)] == [(0, OPS, "M13")]
    assert misplaced_missions(example_14_9()) == ()


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(boards())
def test_dominance_belongs_to_one_team_at_most_and_needs_power(b: Board) -> None:
    for branch in BRANCHES:
        ds = dominators(b, branch)
        assert len({team_of(s, b.players) for s in ds}) <= 1
        assert all(power(b, s, branch) > 0 for s in ds)
        for s in ds:
            assert all(power(b, s, branch) > power(b, o, branch) for o in opponents(s, b.players))


@settings(max_examples=100, deadline=None)
@given(boards())
def test_the_mission_test_is_dominance_except_under_cold_standoff_where_it_is_looser(
    b: Board,
) -> None:
    for seat in range(b.players):
        for branch in BRANCHES:
            if dominates(b, seat, branch):
                assert may_play_mission(b, seat, branch)
            if b.situation != "S04":
                assert may_play_mission(b, seat, branch) == dominates(b, seat, branch)


@settings(max_examples=100, deadline=None)
@given(boards())
def test_the_score_adds_up_and_the_winners_are_best_then_richest(b: Board) -> None:
    result = score(b)
    for m in result.missions:
        assert m.points == (card(m.mission).stars if m.holds else 0)
    assert sum(result.seat_points) == sum(result.points) == sum(m.points for m in result.missions)
    assert result.winners
    won = [result.teams.index(t) for t in result.winners]
    assert all(result.points[i] == max(result.points) for i in won)
    tied = [i for i, p in enumerate(result.points) if p == max(result.points)]
    assert all(result.funding[i] == max(result.funding[j] for j in tied) for i in won)
    assert result == score(b)


@settings(max_examples=100, deadline=None)
@given(boards(), st.integers(1, 3))
def test_turning_the_table_turns_the_score(b: Board, shift: int) -> None:
    n = b.players
    turned = replace(b, tableaux=b.tableaux[shift % n :] + b.tableaux[: shift % n])
    before, after = score(b), score(turned)
    assert after.seat_points == tuple(before.seat_points[(s + shift) % n] for s in range(n))
    moved = {tuple(sorted((s - shift) % n for s in team)) for team in before.winners}
    assert set(after.winners) == moved


@settings(max_examples=100, deadline=None)
@given(boards(), st.data())
def test_adding_an_agent_never_costs_its_owner_power_or_dominance(
    b: Board, data: st.DataObject
) -> None:
    on_board = {a.card for t in b.tableaux for a in t.agents()}
    spare = [c for c in ("A01", "A29", "A15", "A33") if c not in on_board]
    if not spare:
        return
    agent = data.draw(st.sampled_from(spare))
    seat = data.draw(st.integers(0, b.players - 1))
    branch = data.draw(st.sampled_from(card(agent).branches))
    t = b.tableaux[seat]
    i = BRANCHES.index(branch)
    grown_stack = t.stacks[i] + (StackedAgent(agent),)
    grown = replace(t, stacks=t.stacks[:i] + (grown_stack,) + t.stacks[i + 1 :])
    after = replace(b, tableaux=b.tableaux[:seat] + (grown,) + b.tableaux[seat + 1 :])
    assert power(after, seat, branch) > power(b, seat, branch)
    if dominates(b, seat, branch):
        assert dominates(after, seat, branch)
    for other in range(b.players):
        if other != seat:
            assert power(after, other, branch) == power(b, other, branch)


@settings(max_examples=100, deadline=None)
@given(boards())
def test_austerity_never_adds_power_and_never_changes_funding_cards(b: Board) -> None:
    austere = replace(b, situation="S02")
    plain = replace(b, situation=None)
    for t in b.tableaux:
        for agent in t.agents():
            assert agent_power(agent, "S02") <= agent_power(agent, None)
    assert score(austere).funding == score(plain).funding


def test_an_empty_tableau_has_four_empty_stacks_and_piles() -> None:
    assert Tableau().stacks == ((), (), (), ()) and Tableau().missions == ((), (), (), ())

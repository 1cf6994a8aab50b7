"""The worked examples of rules/resistance.md §10, fed to the pure rules exactly as written."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game, IllegalMove, Proposal


def start(n: int, leader: int, **options: bool) -> Game:
    return R.set_first_leader(R.new_game(n, **options), leader)


def propose(game: Game, team: Iterable[int], mission: int | None = None) -> Game:
    assert game.phase == R.PROPOSE
    m = game.round if mission is None else mission
    return R.propose(game, game.leader, Proposal(m, tuple(sorted(team))))


def vote(game: Game, approve: Iterable[int]) -> Game:
    """Every vote step of this proposal, with ``approve`` the approvers."""
    yes = set(approve)
    assert game.phase == R.VOTE
    while game.phase == R.VOTE:
        game = R.cast_votes(game, {s: s in yes for s in game.voters})
        if game.phase == R.VOTE and game.opinion_step:
            break
    return game


def mission(game: Game, fails: Iterable[int] = ()) -> Game:
    """All members play (``fails`` play Fail); spotlight shown; the rest revealed as counts."""
    bad = set(fails)
    assert game.phase == R.MISSION_PLAY, game.phase
    game = R.play_mission(game, {s: R.FAIL if s in bad else R.SUCCESS for s in game.spotlighted})
    return reveal(game, bad)


def reveal(game: Game, fails: set[int]) -> Game:
    assert game.phase == R.MISSION_REVEAL, game.phase
    hidden = [s for s in game.team if s not in game.spotlighted]
    f = sum(1 for s in hidden if s in fails)
    return R.reveal_mission(game, len(hidden) - f, f)


def draw(game: Game, *cards: str) -> Game:
    for card in cards:
        assert game.phase == R.PLOT_DRAW
        game = R.draw_plot_card(game, sorted(game.deck).index(card))
    return game


def score(game: Game) -> tuple[int, int]:
    return game.successes, game.failures


# --- 10.1 ----------------------------------------------------------------------------------------


def test_five_players_resistance_wins() -> None:
    g = start(5, 2)
    assert [R.team_size(5, m) for m in R.MISSIONS] == [2, 3, 2, 3, 3]
    assert R.approvals_needed(5) == 3
    g = vote(propose(g, {2, 3}), {0, 1, 2, 3})
    g = mission(g, fails={3})
    result = g.results[0]
    assert result is not None and (result.successes, result.fails, result.failed) == (1, 1, True)
    assert (score(g), g.leader, g.vote_track, g.round) == ((0, 1), 3, 0, 2)
    g = vote(propose(g, {1, 3, 4}), {1, 3})
    assert (g.vote_track, g.leader, g.phase) == (1, 4, R.PROPOSE)
    g = mission(vote(propose(g, {0, 2, 4}), {0, 2, 4}))
    assert (score(g), g.leader, g.vote_track) == ((1, 1), 0, 0)
    g = mission(vote(propose(g, {0, 4}), {0, 1, 2, 4}))
    assert (score(g), g.leader) == ((2, 1), 1)
    g = vote(propose(g, {1, 2, 4}), {1, 3})
    assert (g.vote_track, g.leader) == (1, 2)
    g = mission(vote(propose(g, {0, 2, 4}), {0, 1, 2, 4}))
    assert score(g) == (3, 1)
    assert g.phase == R.END and g.ending == R.Ending("resistance", "three_successes")


# --- 10.2 ----------------------------------------------------------------------------------------


def test_five_rejections_in_one_round_win_for_the_spies() -> None:
    g = start(5, 4)
    for expected_leader in (4, 0, 1, 2, 3):
        assert g.leader == expected_leader
        g = vote(propose(g, {0, 1}), {0, 1})
    assert g.vote_track == 5
    assert g.ending == R.Ending("spies", "five_rejections")
    assert all(r is None for r in g.results)


def test_a_tie_is_a_rejection_with_six_players() -> None:
    g = vote(propose(start(6, 0), {0, 1}), {0, 1, 2})
    assert (g.vote_track, g.phase, g.leader) == (1, R.PROPOSE, 1)


# --- 10.3 ----------------------------------------------------------------------------------------


def seven_player_opening() -> Game:
    g = start(7, 6)
    assert [R.team_size(7, m) for m in R.MISSIONS] == [2, 3, 3, 4, 4]
    assert R.fails_needed(7, 4) == 2
    g = mission(vote(propose(g, {6, 1}), {0, 1, 2, 4, 6}))
    assert (score(g), g.leader) == ((1, 0), 0)
    g = mission(vote(propose(g, {0, 2, 4}), {0, 2, 3, 4, 5}), fails={0})
    assert (score(g), g.leader) == ((1, 1), 1)
    g = mission(vote(propose(g, {1, 2, 4}), {1, 2, 4, 6}))
    assert (score(g), g.leader) == ((2, 1), 2)
    return g


def test_fourth_mission_needs_two_fails_with_seven_players() -> None:
    g = mission(vote(propose(seven_player_opening(), {0, 1, 2, 4}), {0, 1, 2, 3, 4}), fails={0})
    result = g.results[3]
    assert result is not None and (result.successes, result.fails, result.failed) == (3, 1, False)
    assert g.ending == R.Ending("resistance", "three_successes")


def test_two_fails_fail_the_fourth_mission_and_one_fails_the_fifth() -> None:
    g = seven_player_opening()
    g = mission(vote(propose(g, {0, 1, 2, 3}), {0, 1, 2, 3, 5}), fails={0, 3})
    assert (score(g), g.leader) == ((2, 2), 3)
    g = mission(vote(propose(g, {0, 3, 5, 6}), {0, 3, 5, 6}), fails={3})
    result = g.results[4]
    assert result is not None and (result.successes, result.fails) == (3, 1)
    assert g.ending == R.Ending("spies", "three_failures")


# --- 10.4 ----------------------------------------------------------------------------------------


def test_seven_players_with_the_plot_thickens() -> None:
    g = start(7, 0, plot=True)
    assert g.phase == R.PLOT_DRAW and g.deck == R.plot_deck(7) and len(g.deck) == 15
    g = draw(g, "P03", "P11")
    assert g.phase == R.PLOT_DEAL
    g = R.deal_plot(g, 0, {"P11": 3, "P03": 5})
    point = R.decision(g)
    assert point is not None and point.kind == "overheard_target" and point.seats == (3,)
    assert set(point.options) == {2, 4}
    g = R.resolve_overheard(g, 3, 2)
    assert g.looks[-1] == R.Look(3, 2, "P11", "role", 1)
    assert "P11" in g.discard
    g = propose(g, {0, 1})  # the Take Responsibility window is empty: straight to the vote
    g = vote(g, {0, 1, 3, 4, 6})
    assert g.phase == R.WINDOW_NO_CONFIDENCE and g.window_seat() == 5
    g = R.play_window(g, 5, True)
    assert (g.vote_track, g.leader, "P03" in g.discard) == (1, 1, True)
    assert g.phase == R.PROPOSE  # no second draw this round
    g = mission(vote(propose(g, {1, 4}), {0, 1, 3, 4}))
    assert (score(g), g.leader) == ((1, 0), 2)

    g = draw(g, "P01", "P06")
    g = R.deal_plot(g, 2, {"P06": 4, "P01": 6})
    g = propose(g, {0, 2, 5})
    assert g.phase == R.VOTE and g.opinion_step and g.voters == (4,)
    g = R.cast_votes(g, {4: False})
    assert not g.opinion_step and g.voters == (2, 3, 5, 6, 0, 1)
    g = R.cast_votes(g, {s: s in {0, 2, 5, 6} for s in g.voters})
    g = mission(g, fails={2})
    assert (score(g), g.leader) == ((1, 1), 3)

    assert g.phase == R.WINDOW_STRONG_LEADER and g.window is not None
    assert g.window.order == (4, 5, 6, 0, 1, 2) and g.window_seat() == 6
    g = R.play_window(g, 6, True)
    assert g.leader == 6 and "P01" in g.discard and g.phase == R.PLOT_DRAW
    g = draw(g, "P10", "P08")
    g = R.deal_plot(g, 6, {"P10": 1, "P08": 3})
    g = propose(g, {6, 0, 1})
    g = vote(g, {4, 0, 1, 2, 5, 6})
    assert g.phase == R.WINDOW_SPOTLIGHT and g.window_seat() == 1
    g = R.play_window(g, 1, 6)
    assert g.phase == R.MISSION_PLAY and g.spotlighted == (6,)
    g = R.play_mission(g, {6: R.FAIL})
    assert g.phase == R.WINDOW_CLOSE_EYE and g.window_seat() == 3
    point = R.decision(g)
    assert point is not None and point.options == (None, 0, 1)
    g = R.play_window(g, 3, 0)
    assert g.looks[-1] == R.Look(3, 0, "P08", "mission_card", 3)
    g = R.reveal_mission(g, 2, 0)
    result = g.results[2]
    assert result is not None and (result.successes, result.fails, result.failed) == (2, 1, True)
    assert result.spotlight == ((6, R.FAIL),)
    assert (score(g), g.leader) == ((1, 2), 0)

    g = draw(g, "P14", "P15")
    g = R.deal_plot(g, 0, {"P14": 2, "P15": 1})
    point = R.decision(g)
    assert point is not None and point.kind == "open_up_viewer" and point.seats == (2,)
    g = R.resolve_open_up(g, 2, 5)
    assert g.looks[-1] == R.Look(5, 2, "P14", "role", 4)
    g = propose(g, {0, 1, 3, 4})
    assert g.phase == R.WINDOW_TAKE_RESPONSIBILITY and g.window_seat() == 1
    g = R.play_window(g, 1, (4, "P06"))
    assert g.hands[1] == ("P06",) and g.hands[4] == ()
    assert g.phase == R.VOTE and g.voters == (1,)
    g = mission(vote(g, {1, 0, 3, 4}))
    assert (score(g), g.leader) == ((2, 2), 1)

    g = draw(g, "P02", "P12")
    g = R.deal_plot(g, 1, {"P12": 4, "P02": 0})
    g = R.resolve_overheard(g, 4, 5)
    g = propose(g, {0, 1, 3, 4})
    assert g.voters == (1,)
    g = mission(vote(g, {1, 0, 3, 4}))
    assert g.ending == R.Ending("resistance", "three_successes")
    assert set(g.deck) == {"P04", "P05", "P07", "P09", "P13"}
    assert set(g.discard) == {"P01", "P03", "P08", "P10", "P11", "P12", "P14", "P15"}
    assert g.hands == (("P02",), ("P06",), (), (), (), (), ())


# --- 10.5 ----------------------------------------------------------------------------------------


def test_no_confidence_can_be_the_fifth_rejection() -> None:
    g = start(5, 2, plot=True)
    assert len(g.deck) == 7
    g = R.deal_plot(draw(g, "P03"), 2, {"P03": 0})
    for _ in range(4):
        g = vote(propose(g, {0, 1}), ())
    assert (g.vote_track, g.leader) == (4, 1)
    g = vote(propose(g, {1, 2}), {0, 1, 2})
    assert g.phase == R.WINDOW_NO_CONFIDENCE and g.window is not None
    assert g.window.order == (1, 2, 3, 4, 0) and g.window_seat() == 0
    g = R.play_window(g, 0, True)
    assert g.vote_track == 5 and g.ending == R.Ending("spies", "five_rejections")
    assert g.vote_log[-1].approved and g.vote_log[-1].no_confidence == 0


# --- 10.6 ----------------------------------------------------------------------------------------


def test_targeting_lets_the_leader_choose_the_mission() -> None:
    g = start(5, 0, targeting=True)
    assert g.available_missions() == (1, 2, 3, 4)
    g = mission(vote(propose(g, {0, 1}, mission=3), {0, 1, 2}))
    assert (score(g), g.leader) == ((1, 0), 1)
    assert g.available_missions() == (1, 2, 4)
    with pytest.raises(IllegalMove):
        propose(g, {0, 1, 2}, mission=5)
    g = mission(vote(propose(g, {1, 2}, mission=1), {0, 1, 2}))
    assert g.available_missions() == (2, 4, 5)
    g = vote(propose(g, {0, 1, 2}, mission=5), {1, 2})
    assert (g.vote_track, g.leader) == (1, 3)
    g = mission(vote(propose(g, {0, 3, 4}, mission=2), {1, 3, 4}), fails={3})
    assert (score(g), g.leader) == ((2, 1), 4)
    assert g.available_missions() == (4, 5)
    g = vote(propose(g, {0, 1, 4}, mission=4), {3, 4})
    assert (g.vote_track, g.leader) == (1, 0)
    g = mission(vote(propose(g, {0, 1, 2}, mission=5), {0, 1, 2}))
    assert g.ending == R.Ending("resistance", "three_successes")
    assert [None if r is None else r.failed for r in g.results] == [False, True, False, None, False]


# --- single rules ---------------------------------------------------------------------------------


def test_a_team_of_the_wrong_size_is_illegal() -> None:
    with pytest.raises(IllegalMove):
        propose(start(5, 0), {0, 1, 2})


def test_the_leader_never_deals_a_plot_card_to_himself() -> None:
    g = draw(start(5, 2, plot=True), "P03")
    with pytest.raises(IllegalMove):
        R.deal_plot(g, 2, {"P03": 2})


def test_a_plot_card_cannot_be_played_outside_its_window() -> None:
    g = start(5, 2, plot=True)
    g = R.deal_plot(draw(g, "P03"), 2, {"P03": 0})
    g = propose(g, {0, 1})
    with pytest.raises(IllegalMove):
        R.play_window(g, 0, True)


def test_plot_deal_options_count_the_one_to_one_maps() -> None:
    g = draw(start(9, 0, plot=True), "P01", "P02", "P03")
    point = R.decision(g)
    assert point is not None and len(point.options) == 8 * 7 * 6


def test_an_empty_plot_deck_skips_the_draw() -> None:
    from dataclasses import replace

    g = replace(R.new_game(5, plot=True), deck=())
    g = R.set_first_leader(g, 0)
    assert g.phase == R.PROPOSE and g.drawn

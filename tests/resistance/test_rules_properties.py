"""Whole games through the pure rules with bots, 5-10 players, every option combination."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.entropy import SeededEntropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.bots import BOTS
from spycraft.engines.resistance.model import Game
from spycraft.engines.resistance.screen import screen
from spycraft.engines.resistance.view import Knowledge, SeatView


def knowledge(
    game: Game,
    seat: int,
    spies: set[int],
    seen: list[tuple[int, int]],
    cards: dict[tuple[int, int], str],
) -> Knowledge:
    spy = seat in spies
    return Knowledge(
        seat=seat,
        spy=spy,
        known_spies=tuple(sorted(spies)) if spy and not game.blind_spies else (),
        seen_roles=tuple((s, s in spies) for v, s in seen if v == seat),
        seen_cards=tuple(
            (look.round, look.subject, cards[(look.round, look.subject)])
            for look in game.looks
            if look.viewer == seat and look.what == "mission_card"
        ),
    )


def play(n: int, plot: bool, targeting: bool, blind: bool, seed: int, bot: str) -> Game:
    entropy = SeededEntropy(seed)
    spies = set()
    while len(spies) < R.spies(n):
        spies.add(below(entropy, n))
    agents: list[Agent] = [BOTS[bot](entropy.child(f"bot{s}"), s) for s in range(n)]
    game = R.new_game(n, plot=plot, targeting=targeting, blind_spies=blind)
    cards: dict[tuple[int, int], str] = {}
    for _ in range(2000):
        seen = [(look.viewer, look.subject) for look in game.looks if look.what == "role"]

        def ask(
            seat: int,
            kind: str,
            options: tuple[object, ...],
            game: Game = game,
            seen: list[tuple[int, int]] = seen,
        ) -> object:
            view = SeatView(game, knowledge(game, seat, spies, seen, cards))
            d = Decision(seat, kind, kind, options, tuple(map(str, options)), view)
            choice = agents[seat].decide(d)
            assert 0 <= choice < len(options)
            return options[choice]

        assert screen(game, None, None).status
        if game.phase == R.END:
            return game
        if game.phase == R.FIRST_LEADER:
            game = R.set_first_leader(game, below(entropy, n))
            continue
        if game.phase == R.PLOT_DRAW:
            game = R.draw_plot_card(game, below(entropy, len(game.deck)))
            continue
        if game.phase == R.MISSION_REVEAL:
            team = [s for s in game.team if s not in game.spotlighted]
            fails = sum(1 for s in team if cards[(game.round, s)] == R.FAIL)
            game = R.reveal_mission(game, len(team) - fails, fails)
            continue
        point = R.decision(game)
        assert point is not None, game.phase
        if point.kind == "vote":
            game = R.cast_votes(game, {s: bool(ask(s, "vote", point.options)) for s in point.seats})
        elif point.kind == "mission_card":
            for s in point.seats:
                cards[(game.round, s)] = str(
                    ask(s, "mission_card", R.mission_card_options(s in spies))
                )
            game = R.play_mission(game, {s: cards[(game.round, s)] for s in game.spotlighted})
        else:
            (seat,) = point.seats
            assert point.options, f"{point.kind} asked with no legal option"
            choice = ask(seat, point.kind, point.options)
            if point.kind == "plot_deal":
                assert isinstance(choice, tuple)
                game = R.deal_plot(game, seat, dict(choice))
            elif point.kind == "overheard_target":
                assert isinstance(choice, int)
                game = R.resolve_overheard(game, seat, choice)
            elif point.kind == "open_up_viewer":
                assert isinstance(choice, int)
                game = R.resolve_open_up(game, seat, choice)
            elif point.kind == "propose":
                assert isinstance(choice, R.Proposal)
                game = R.propose(game, seat, choice)
            else:
                game = R.play_window(game, seat, choice)
        check_invariants(game)
    raise AssertionError("the game did not end")


def check_invariants(game: Game) -> None:
    assert 0 <= game.vote_track <= 5 and 1 <= game.round <= 5
    assert game.successes <= 3 and game.failures <= 3
    if game.plot:
        everything = list(game.deck) + list(game.discard) + list(game.drawn_cards)
        everything += [c for h in game.hands for c in h] + [c for c, _ in game.to_resolve]
        assert Counter(everything) == Counter(R.plot_deck(game.n))
        for hand in game.hands:
            assert all(R.CARDS[c].category != R.IMMEDIATE for c in hand)
    if game.phase == R.END:
        assert game.ending is not None
    if game.window is not None:
        assert R.window_options(game, game.window_seat())


options = st.tuples(st.booleans(), st.booleans(), st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 10), options, st.integers(0, 2**32), st.sampled_from(["random", "heuristic"]))
def test_whole_games_end_with_a_legal_result(
    n: int, opts: tuple[bool, bool, bool], seed: int, bot: str
) -> None:
    game = play(n, *opts, seed, bot)
    assert game.ending is not None
    reason = game.ending.reason
    if reason == "three_successes":
        assert game.successes == 3 and game.ending.winner == "resistance"
    elif reason == "three_failures":
        assert game.failures == 3 and game.ending.winner == "spies"
    else:
        assert reason == "five_rejections" and game.vote_track == 5


@settings(max_examples=10, deadline=None)
@given(st.integers(5, 10), options, st.integers(0, 2**32))
def test_replaying_the_same_inputs_gives_the_same_game(
    n: int, opts: tuple[bool, bool, bool], seed: int
) -> None:
    assert play(n, *opts, seed, "heuristic") == play(n, *opts, seed, "heuristic")


@settings(max_examples=20, deadline=None)
@given(st.integers(5, 10), st.booleans(), st.integers(0, 2**32))
def test_recognised_heuristic_spies_never_fail_more_than_the_mission_needs(
    n: int, plot: bool, seed: int
) -> None:
    game = play(n, plot, False, False, seed, "heuristic")
    for result in game.results:
        if result is not None and not result.spotlight:
            assert result.fails <= R.fails_needed(n, result.mission)

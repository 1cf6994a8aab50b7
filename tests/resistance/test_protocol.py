"""Whole signed games through the table engine, and a seat that cheats in every way we know."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto import recognition
from spycraft.crypto.elgamal import Ciphertext
from spycraft.crypto.errors import (
    BadOpening,
    IllegalAction,
    InvalidProof,
    OutOfTurn,
    RecordError,
    RuleViolation,
)
from spycraft.crypto.group import GENERATOR
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.rules import State
from spycraft.engines.resistance.seat import ResistanceSeat
from spycraft.engines.table import Table, Turn

from .helpers import run_until, seat_of, table


def replay(local: Any) -> Any:
    fresh = Table(local.definition.rules)
    state = fresh.start(local.genesis)
    for signed in local.records:
        state = fresh.apply(state, signed)
    return state


@settings(max_examples=8, deadline=None)
@given(
    st.sampled_from([5, 5, 6, 7, 8]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32),
    st.sampled_from(["random", "heuristic"]),
)
def test_whole_signed_games_end_cleanly_and_replay_identically(
    n: int, plot: bool, targeting: bool, blind: bool, seed: int, bot: str
) -> None:
    local, agents = table(n, seed, plot, targeting, blind, bot)
    final = local.run(agents)
    result = final.result
    assert result is not None and not result.forfeits
    game: State = final.game
    assert game.game.ending is not None and result.winner == game.game.ending.winner
    assert sum(role == recognition.SPY for role in game.roles) == R.spies(n)
    assert replay(local) == final


@pytest.mark.parametrize("n", [9, 10])
def test_large_tables_with_every_option(n: int) -> None:
    local, agents = table(n, 7 + n, plot=True, targeting=True)
    final = local.run(agents)
    assert final.result is not None and not final.result.forfeits


def test_each_seat_learns_its_role_and_spies_recognise_each_other() -> None:
    local, agents = table(7, 3)
    local.run(agents)
    roles = local.state.game.roles
    spies = tuple(s for s, r in enumerate(roles) if r == recognition.SPY)
    for i in range(7):
        knows = seat_of(local, i).knowledge(local.state.game)
        assert knows.spy == (i in spies)
        assert knows.known_spies == (spies if knows.spy else ())


def test_blind_spies_do_not_recognise_each_other() -> None:
    local, agents = table(7, 3, blind_spies=True)
    local.run(agents)
    assert all(not seat_of(local, i).knowledge(local.state.game).known_spies for i in range(7))
    assert local.state.game.tags == ()


# --- cheaters ----------------------------------------------------------------------------------


def forge(local: Any, agents: Any, turn: Turn, change: Any) -> RecordError:
    """Build the honest record for ``turn``, alter its body, sign it, and return the rejection."""
    seat = local.seats[turn.seat]
    kind, body = seat.game_body(local.state, turn, agents[turn.seat])
    kind, body = change(kind, body)
    signed = seat.sign(local.state, kind, body)
    with pytest.raises(RecordError) as caught:
        local.table.apply(local.state, signed)
    assert caught.value.seq == local.state.seq + 1
    return caught.value


def test_a_vote_changed_after_its_commitment_is_a_false_opening() -> None:
    local, agents = table(5, 11)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("vote_open",))
    error = forge(local, agents, turn, lambda k, b: (k, {**b, "vote": not b["vote"]}))
    assert isinstance(error, BadOpening) and error.seat == turn.seat


def test_a_bad_shuffle_is_caught_at_once() -> None:
    local, agents = table(5, 12)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("shuffle",) and t.seat == 2)

    def swap_in_a_spy(kind: str, body: Any) -> Any:
        cards = [list(row) for row in body["cards"]]
        cards[0][0] = Ciphertext(GENERATOR, GENERATOR).encode()
        return kind, {**body, "cards": cards}

    error = forge(local, agents, turn, swap_in_a_spy)
    assert isinstance(error, InvalidProof) and error.seat == 2


def test_a_bad_reveal_token_is_caught_at_once() -> None:
    local, agents = table(5, 13)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("deal_tokens",) and t.seat == 3)

    def wrong_token(kind: str, body: Any) -> Any:
        tokens = [list(pair) for pair in body["tokens"]]
        tokens[1][0] = [GENERATOR.encode(), tokens[1][0][1]]
        return kind, {"tokens": tokens}

    error = forge(local, agents, turn, wrong_token)
    assert isinstance(error, InvalidProof) and error.seat == 3


def test_a_team_of_the_wrong_size_is_illegal() -> None:
    local, agents = table(5, 14)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("propose",))
    error = forge(local, agents, turn, lambda k, b: (k, {**b, "team": [0, 1, 2, 3]}))
    assert isinstance(error, IllegalAction) and error.seat == turn.seat


def test_a_plot_card_outside_its_window_is_out_of_turn() -> None:
    for seed in range(40):
        local, agents = table(5, seed, plot=True)

        def holder_votes(game: State, turn: Turn) -> bool:
            return turn.kinds == ("vote_commit",) and bool(
                game.game.holds(turn.seat, R.NO_CONFIDENCE)
            )

        try:
            turn = run_until(local, agents, holder_votes)
        except AssertionError:
            continue
        error = forge(local, agents, turn, lambda k, b: ("no_confidence", {"play": True}))
        assert isinstance(error, OutOfTurn) and error.seat == turn.seat
        return
    pytest.fail("no seed dealt No Confidence to a voter")


def test_a_spotlight_on_a_seat_off_the_team_is_illegal() -> None:
    for seed in range(60):
        local, agents = table(5, seed, plot=True)
        try:
            turn = run_until(local, agents, lambda s, t: t.kinds == ("spotlight",))
        except AssertionError:
            continue
        outsider = next(s for s in range(5) if s not in local.state.game.game.team)
        error = forge(local, agents, turn, lambda k, b, o=outsider: (k, {"target": o}))
        assert isinstance(error, IllegalAction) and error.seat == turn.seat
        return
    pytest.fail("no seed opened a Spotlight window")


def fail_always(seat: ResistanceSeat, state: State, turn: Turn, kind: str, body: Any) -> Any:
    if kind == "mission_card":
        from spycraft.crypto import mix
        from spycraft.crypto.entropy import SeededEntropy
        from spycraft.engines.game import proof_context
        from spycraft.engines.resistance.rules import MISSION_FACES

        context = proof_context("resistance", state.table, seat.seq, seat.seat, kind)
        card = mix.contribute(state.pk, MISSION_FACES, R.FAIL, context, SeededEntropy(b"x" * 32))
        return {"card": card.encode()}
    return body


def test_a_resistance_member_who_plays_fail_forfeits_at_the_final_reveal() -> None:
    for seed in range(30):
        local, agents = table(5, seed, cheater=1, tamper=fail_always)
        final = local.run(agents)
        game: State = final.game
        mine = [c for c in game.played if c.seat == 1]
        if game.roles[1] != recognition.RESISTANCE or not mine:
            continue
        result = final.result
        assert result is not None
        assert (result.winner, result.reason, result.forfeits) == ("spies", "fraud", (1,))
        assert result.evidence == tuple(c.seq for c in mine)
        errors = [v.error() for v in game.violations]
        assert all(isinstance(e, RuleViolation) and e.seat == 1 for e in errors)
        assert [e.seq for e in errors] == [c.seq for c in mine]
        return
    pytest.fail("seat 1 was never a Resistance member on a team")


def hide_from_the_team(seat: ResistanceSeat, state: State, turn: Turn, kind: str, body: Any) -> Any:
    return {"tag": bytes(32)} if kind == "spy_tag" else body


def test_a_spy_with_a_forged_tag_forfeits_at_the_final_reveal() -> None:
    for seed in range(30):
        local, agents = table(5, seed, cheater=0, tamper=hide_from_the_team)
        final = local.run(agents)
        game: State = final.game
        if game.roles[0] != recognition.SPY:
            continue
        assert final.result is not None
        assert (final.result.winner, final.result.forfeits) == ("resistance", (0,))
        (violation,) = game.violations
        assert (violation.seat, violation.seq) == (0, game.tag_seqs[0])
        assert isinstance(violation.error(), RuleViolation)
        return
    pytest.fail("seat 0 was never a spy")


def test_a_fraud_interrupt_makes_the_cheaters_team_lose() -> None:
    local, agents = table(5, 15)
    turn = run_until(local, agents, lambda s, t: t.kinds == ("vote_open",))
    seat = local.seats[turn.seat]
    kind, body = seat.game_body(local.state, turn, agents[turn.seat])
    bad = seat.sign(local.state, kind, {**body, "vote": not body["vote"]})
    accuser = local.seats[(turn.seat + 1) % 5]
    local.state = local.table.apply(
        local.state, accuser.sign(local.state, "fraud", {"evidence": [bad.raw]})
    )
    final = local.run(agents)
    assert final.result is not None and final.result.forfeits == (turn.seat,)
    cheater_side = "spies" if final.game.roles[turn.seat] == recognition.SPY else "resistance"
    assert final.result.winner != cheater_side and final.result.winner is not None

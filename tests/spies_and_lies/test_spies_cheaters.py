"""Cheaters: a modified seat tries each lie; the engine names the error, the seat and the seq."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto import membership
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    BadOpening,
    IllegalAction,
    InvalidProof,
    MalformedRecord,
    OutOfTurn,
    RecordError,
    RuleViolation,
)
from spycraft.crypto.group import Scalar
from spycraft.engines.game import proof_context
from spycraft.engines.local import LocalTable
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import BLUE, RED, SERGEANT, Board
from spycraft.engines.spies_and_lies.rules import (
    card_commitment,
    layout_commitment,
    opens_mission,
    rank_domain,
    token_set,
)
from spycraft.engines.spies_and_lies.seat import SpiesAndLiesSeat
from spycraft.engines.table import Turn

from .support import FirstOption, board, expected, first_seed, honest_table, play_until


def rejects(
    table: LocalTable, seat: int, kind: str, body: Any, error: type[RecordError]
) -> RecordError:
    """Sign (kind, body) as ``seat`` and check that the table refuses it with ``error``."""
    signed = table.seats[seat].sign(table.state, kind, body)
    with pytest.raises(error) as caught:
        table.table.apply(table.state, signed)
    assert (caught.value.seat, caught.value.seq) == (seat, table.state.seq + 1)
    return caught.value


def red_builds_a_rejected_record(
    table: LocalTable, agents: list[Any], error: type[RecordError], match: str
) -> None:
    """Red's seat builds its (cheating) next record; the table refuses it, naming Red and seq."""
    signed = table.seats[RED].build(table.state, agents[RED])
    with pytest.raises(error, match=match) as caught:
        table.table.apply(table.state, signed)
    assert (caught.value.seat, caught.value.seq) == (RED, table.state.seq + 1)


def at(seat: int, kind: str) -> Any:
    return lambda turn, b: turn == Turn(seat, (kind,))


def is_reveal_of(seat: int, index: int) -> Any:
    return lambda turn, b: turn == Turn(seat, ("reveal",)) and model.target_index(b) == index


def non_sergeants(b: Board, seat: int) -> list[int]:
    return [r for r in model.hand(b, seat) if r != SERGEANT]


def cheating_red(seed: int, ranks: Any) -> tuple[LocalTable, list[Any]]:
    """A table where Red's seat commits to ``ranks(board)`` (written into its memo) on day 1."""
    table, agents = honest_table(seed)
    play_until(table, agents, at(RED, "deploy"))
    table.seats[RED].memo["deploy/1"] = list(ranks(board(table)))
    return table, agents


SERGEANT_IN_RED_HAND = first_seed(lambda b: SERGEANT not in b.exhausted[RED])


def test_a_reveal_that_does_not_open_its_commitment_is_a_false_opening() -> None:
    table, agents = honest_table(1)
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("reveal",))
    honest = table.seats[turn.seat].build(table.state, agents[turn.seat]).record.body
    lie = {"rank": honest["rank"] % 10 + 1, "nonce": honest["nonce"]}
    rejects(table, turn.seat, "reveal", lie, BadOpening)


def test_an_out_of_order_deployment_is_a_rule_violation_at_the_reveal_that_breaks_the_order() -> (
    None
):
    def out_of_order(b: Board) -> tuple[int, ...]:
        low, mid, high, top = non_sergeants(b, RED)[:4]
        return (low, high, mid, top)

    table, agents = cheating_red(SERGEANT_IN_RED_HAND, out_of_order)
    play_until(table, agents, is_reveal_of(RED, 1))
    table.step(agents)  # M2 is still consistent with a legal deployment (Sergeant at M3)
    play_until(table, agents, is_reveal_of(RED, 2))
    red_builds_a_rejected_record(table, agents, RuleViolation, "not increasing")


def token_proofs(table: LocalTable, seat: int, tokens: list[bool], lie: int | None = None,
                 seq: int | None = None) -> list[Any]:
    """The seat's proofs for ``tokens`` at the next record (or ``seq``); for mission ``lie``,
    where no true statement exists, a liar's proof: a true one for a commitment it invents."""
    b = board(table)
    s = table.seats[seat].game
    assert isinstance(s, SpiesAndLiesSeat)
    ranks = table.seats[seat].memo[f"deploy/{b.day}"]
    where = proof_context("spies-and-lies", table.state.genesis.table,
                          table.state.seq + 1 if seq is None else seq, seat, "tokens")
    proofs = []
    for i, (rank, token) in enumerate(zip(ranks, tokens)):
        domain, allowed = rank_domain(seat, b.day, i + 1), token_set(b, seat, token)
        commitment, value = card_commitment(b, seat, i), str(rank)
        blinding = s.blinding(b.day, i + 1)
        if i == lie:
            blinding = Scalar.random(SeededEntropy(b"liar"))
            value = allowed[0]
            commitment = membership.commit(domain, value, blinding)
        proofs.append(membership.prove_member(commitment, domain, value, blinding, allowed,
                                              where, SeededEntropy(b"proof")).encode())
    return proofs


def lay_out(table: LocalTable, agents: list[Any], tokens: list[bool]) -> dict[str, Any]:
    """Red commits ``tokens`` as its layout, Blue its own; returns Red's opening (no proofs)."""
    play_until(table, agents, at(RED, "layout"))
    nonce = table.seats[RED].context.secret("tokens", 1)
    lie = {"digest": layout_commitment(RED, 1, tokens, nonce).digest}
    table.state = table.table.apply(table.state, table.seats[RED].sign(table.state, "layout", lie))
    table.step(agents)  # Blue's layout
    return {"tokens": tokens, "nonce": nonce}


def test_deploying_an_exhausted_soldier_is_refused_at_the_tokens_record() -> None:
    # The card's rank is outside the hand, so no proof of "in the hand" exists for it: the
    # opening of the tokens, before the first guess, is where it is refused.
    def with_exhausted(b: Board) -> tuple[int, ...]:
        exhausted = b.exhausted[RED][0]
        rest = [r for r in non_sergeants(b, RED) if r > exhausted][:3]
        if len(rest) < 3:
            rest = non_sergeants(b, RED)[-3:]
        return (exhausted, *rest)

    table, agents = cheating_red(1, with_exhausted)
    play_until(table, agents, at(RED, "layout"))
    b = board(table)
    assert b.current is not None
    tokens = [model.forced_token(r, b.current) for r in table.seats[RED].memo["deploy/1"]]
    opening = lay_out(table, agents, tokens)
    error = rejects(table, RED, "tokens", {**opening, "proofs": token_proofs(table, RED, tokens,
                                                                             lie=0)},
                    InvalidProof)
    assert "M1 is not proven to hold a soldier of the hand" in error.what


def test_deploying_one_soldier_twice_is_caught_at_the_second_reveal() -> None:
    def repeated(b: Board) -> tuple[int, ...]:
        low, mid, high = non_sergeants(b, RED)[:3]
        return (low, low, mid, high)

    table, agents = cheating_red(SERGEANT_IN_RED_HAND, repeated)
    play_until(table, agents, is_reveal_of(RED, 1))
    red_builds_a_rejected_record(table, agents, RuleViolation, "already deployed")


def test_a_false_token_on_a_soldier_other_than_the_sergeant_is_refused_when_shown() -> None:
    table, agents = cheating_red(1, lambda b: tuple(non_sergeants(b, RED)[:4]))
    play_until(table, agents, at(RED, "layout"))
    b = board(table)
    ranks = table.seats[RED].memo["deploy/1"]
    assert b.current is not None
    tokens = [model.forced_token(r, b.current) for r in ranks]
    tokens[0] = not tokens[0]
    opening = lay_out(table, agents, tokens)
    # the liar's proof for M1 does not verify; the honest proof of the true token is over the
    # other set (of another size, or not verifying for this one)
    error = rejects(table, RED, "tokens", {**opening, "proofs": token_proofs(table, RED, tokens,
                                                                             lie=0)},
                    InvalidProof)
    assert "M1 is not proven" in error.what
    honest = token_proofs(table, RED, [not tokens[0], *tokens[1:]])
    error = rejects(table, RED, "tokens", {**opening, "proofs": honest}, RecordError)
    assert isinstance(error, (InvalidProof, MalformedRecord))


def test_token_proofs_from_another_record_or_of_the_wrong_shape_are_refused() -> None:
    table, agents = honest_table(2)
    play_until(table, agents, at(RED, "tokens"))
    honest = table.seats[RED].build(table.state, agents[RED]).record.body
    tokens = list(honest["tokens"])
    elsewhere = token_proofs(table, RED, tokens, seq=table.state.seq)
    rejects(table, RED, "tokens", {**honest, "proofs": elsewhere}, InvalidProof)
    rejects(table, RED, "tokens", {**honest, "proofs": honest["proofs"][:3]}, MalformedRecord)
    rejects(table, RED, "tokens", {**honest, "proofs": [honest["proofs"][1]] * 4},
            RecordError)


def test_tokens_that_do_not_open_the_layout_commitment_are_a_false_opening() -> None:
    table, agents = honest_table(2)
    play_until(table, agents, at(RED, "tokens"))
    honest = table.seats[RED].build(table.state, agents[RED]).record.body
    lie = {**honest, "tokens": [not t for t in honest["tokens"]]}
    rejects(table, RED, "tokens", lie, BadOpening)


def test_a_record_out_of_turn_is_refused_by_the_table() -> None:
    table, agents = honest_table(3)
    play_until(table, agents, at(RED, "deploy"))
    rejects(table, 1, "deploy", {"missions": [[bytes(32)] * 2] * 4}, OutOfTurn)
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("guess",))
    rejects(table, 1 - turn.seat, "guess", {"rank": 5}, OutOfTurn)


def test_a_guess_outside_one_to_ten_is_an_illegal_action() -> None:
    table, agents = honest_table(4)
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("guess",))
    rejects(table, turn.seat, "guess", {"rank": 11}, IllegalAction)
    rejects(table, turn.seat, "guess", {"rank": 0}, IllegalAction)
    rejects(table, turn.seat, "guess", {"rank": True}, MalformedRecord)
    rejects(table, turn.seat, "guess", {"rank": 3, "also": 1}, MalformedRecord)


def test_a_deception_token_you_do_not_have_is_refused_because_there_is_no_d3() -> None:
    table, _ = honest_table(5)
    agents = [FirstOption(), FirstOption()]  # places a DT whenever it can
    turn = play_until(
        table,
        agents,
        lambda turn, b: turn.kinds == ("guess",) and b.dt[model.defender(b)] == 0,
    )
    rejects(table, 1 - turn.seat, "deceive", {"place": True}, OutOfTurn)


def test_a_second_deception_token_in_one_step_is_refused() -> None:
    table, _ = honest_table(5)
    agents = [FirstOption(), FirstOption()]
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("guess",) and b.placed)
    rejects(table, 1 - turn.seat, "deceive", {"place": True}, OutOfTurn)


def test_a_captain_copy_that_is_not_offered_is_an_illegal_action() -> None:
    seed = first_seed(lambda b: b.exhausted[RED][0] not in (6, 7, 10))
    table, _ = honest_table(seed)
    agents = [FirstOption(), FirstOption()]  # always guesses 1: the Captain activates
    play_until(table, agents, at(RED, "deploy"))
    rest = [r for r in non_sergeants(board(table), RED) if r > 6][:3]
    table.seats[RED].memo["deploy/1"] = [6, *rest]
    play_until(table, agents, at(RED, "captain"))
    offered = model.captain_options(board(table), RED)
    assert offered == (0, board(table).exhausted[RED][0])
    not_offered = next(r for r in model.RANKS if r not in offered)
    rejects(table, RED, "captain", {"copy": not_offered}, IllegalAction)
    rejects(table, RED, "captain", {"copy": 6}, IllegalAction)


def test_a_caught_cheater_forfeits_and_the_honest_seat_still_opens_its_cards() -> None:
    table, agents = cheating_red(1, lambda b: tuple(reversed(non_sergeants(b, RED)[:4])))
    turn = play_until(table, agents, lambda turn, b: turn == Turn(RED, ("reveal",)))
    bad = table.seats[RED].build(table.state, agents[RED])
    with pytest.raises(RuleViolation):
        table.table.apply(table.state, bad)
    fraud = table.seats[1].sign(table.state, "fraud", {"evidence": [bad.raw]})
    table.state = table.table.apply(table.state, fraud)
    table.records.append(fraud)
    assert expected(table) == Turn(1, ("final",))
    final = table.run(agents)
    assert final.result is not None
    assert (final.result.winner, final.result.reason, final.result.forfeits) == (
        "Blue",
        "fraud",
        (0,),
    )
    assert final.result.evidence == (fraud.seq,)
    assert all(c.rank is not None for c in final.game.game.cards[1])
    assert turn.seat == RED


def test_a_seat_that_copies_the_other_seats_deployment_cannot_open_or_prove_it() -> None:
    """Every commitment names its seat, day and mission: Blue re-posting Red's commitments can
    use neither Red's openings nor a proof of its own for its tokens."""
    table, agents = honest_table(3)
    play_until(table, agents, lambda turn, b: turn == Turn(BLUE, ("deploy",)))
    red = [list(c.commitment) for c in board(table).cards[RED]]
    copy = table.seats[BLUE].sign(table.state, "deploy", {"missions": red})
    # Blue's own choice, which its copied commitments do not hold
    table.seats[BLUE].memo["deploy/1"] = list(model.legal_deployments(
        model.hand(board(table), BLUE))[0])
    table.state = table.table.apply(table.state, copy)
    b = board(table)
    red_ranks = table.seats[RED].memo[f"deploy/{b.day}"]
    red_seat = table.seats[RED].game
    assert isinstance(red_seat, SpiesAndLiesSeat)
    for index, rank in enumerate(red_ranks):
        blinding = red_seat.blinding(b.day, index + 1).encode()
        assert opens_mission(b, RED, index, rank, blinding)
        assert not opens_mission(b, BLUE, index, rank, blinding)
    play_until(table, agents, at(BLUE, "tokens"))
    signed = table.seats[BLUE].build(table.state, agents[BLUE])
    with pytest.raises(InvalidProof) as caught:
        table.table.apply(table.state, signed)
    assert (caught.value.seat, caught.value.seq) == (BLUE, table.state.seq + 1)

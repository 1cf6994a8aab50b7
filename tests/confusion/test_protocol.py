"""Confusion's hidden elements on the table: cheaters caught with the exact error, seat and seq,
leaks, and determinism. Every record is real: built and signed by a seat, applied by the table."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import (
    IllegalAction,
    InvalidProof,
    MalformedRecord,
    RecordError,
)
from spycraft.crypto.group import Scalar
from spycraft.crypto.membership import Commitment, commit, prove_member
from spycraft.crypto.records import SignedRecord
from spycraft.engines.confusion import GAME
from spycraft.engines.confusion.movement import TYPE_IDS, answer_sets, promotion_sets
from spycraft.engines.confusion.rules import TYPE_DOMAIN
from spycraft.engines.confusion.seat import ConfusionSeat
from spycraft.engines.game import proof_context
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.table import TableState

SEED = 5  # a short heuristic game with tokens: reveals, a promotion, eliminate_opp_da


@cache
def played(seed: int = SEED, tokens: bool = True, bot: str = "heuristic"
           ) -> tuple[LocalTable, list[TableState[Any]]]:
    e = SeededEntropy(seed)
    options = GAME.genesis_options(2, {"tokens": True} if tokens else {})
    local = new_local_table(GAME, options, 2, e)
    agents = [GAME.bots[bot](e.child(f"bot/{i}"), i) for i in range(2)]
    states = [local.state]
    while local.step(agents) is not None:
        states.append(local.state)
    return local, states


def first(kind: str, test: Any = lambda body: True) -> tuple[int, SignedRecord]:
    local, _ = played()
    for i, signed in enumerate(local.records):
        if signed.record.kind == kind and test(signed.record.body):
            return i, signed
    raise AssertionError(f"no {kind} record in the game")


def forged_proof(i: int, seat: int, kind: str, value: str, allowed: tuple[str, ...]) -> Any:
    """A proof a liar can make: a true membership of ``value`` in ``allowed`` for a commitment it
    invents with a known blinding; presented for the real commitment it cannot verify."""
    _, states = played()
    blinding = Scalar.random(SeededEntropy(b"liar"))
    fake = commit(TYPE_DOMAIN, value, blinding)
    context = proof_context("confusion", states[i].genesis.table, states[i].seq + 1, seat, kind)
    return prove_member(fake, TYPE_DOMAIN, value, blinding, allowed, context,
                        SeededEntropy(b"liar/proof")).encode()


def rejected(i: int, body: dict[str, Any], kind: str | None = None) -> RecordError:
    local, states = played()
    honest = local.records[i]
    forged = local.seats[honest.record.seat].sign(states[i], kind or honest.record.kind, body)
    with pytest.raises(RecordError) as error:
        local.table.apply(states[i], forged)
    assert (error.value.seat, error.value.seq) == (honest.record.seat, honest.record.seq)
    return error.value


def test_the_game_audits_and_its_replay_is_byte_for_byte_the_same() -> None:
    local, states = played()
    again = new_local_table(GAME, GAME.genesis_options(2, {"tokens": True}), 2,
                            SeededEntropy(SEED))
    for signed in local.records:
        again.state = again.table.apply(again.state, signed)
    assert again.state == states[-1]
    assert local.state.result is not None


def _answer(test: Any) -> tuple[int, SignedRecord]:
    return first("answer", lambda b: test(b) and b["promotion"] is None)


@pytest.mark.parametrize("truth", [True, False], ids=["false-no", "false-yes"])
def test_a_false_answer_is_an_invalid_proof_naming_the_answerer(truth: bool) -> None:
    i, honest = _answer(lambda b: b["yes"] is truth)
    _, states = played()
    asked = states[i].game.game.asked
    lie = answer_sets(asked).for_answer(not truth)
    liar_type = next(t for t in lie if t != "DA")
    body = {**honest.record.body, "yes": not truth,
            "proof": forged_proof(i, honest.record.seat, "answer", liar_type, lie)}
    assert isinstance(rejected(i, body), InvalidProof)


def test_the_honest_proof_with_the_answer_flipped_is_refused() -> None:
    i, honest = _answer(lambda b: True)
    body = {**honest.record.body, "yes": not honest.record.body["yes"]}
    # a proof over the other set: of the wrong size (malformed) or not verifying
    assert isinstance(rejected(i, body), (InvalidProof, MalformedRecord))


def test_a_false_promotion_statement_is_an_invalid_proof() -> None:
    i, honest = first("answer", lambda b: b["promotion"] is not None)
    stated, _ = honest.record.body["promotion"]
    lie = promotion_sets().for_answer(not stated)
    proof = forged_proof(i, honest.record.seat, "answer", lie[0], lie)
    body = {**honest.record.body, "promotion": [not stated, proof]}
    assert isinstance(rejected(i, body), InvalidProof)


def test_a_false_reveal_is_an_invalid_proof() -> None:
    i, honest = first("show")
    shown = honest.record.body["type"]
    other = next(t for t in TYPE_IDS if t != shown)
    body = {"type": other, "proof": forged_proof(i, honest.record.seat, "show", other, (other,))}
    assert isinstance(rejected(i, body), InvalidProof)


def test_eliminate_opp_da_aimed_at_a_spy_that_is_not_the_double_agent() -> None:
    i, honest = first("free", lambda b: b["action"] == "eliminate_opp_da")
    _, states = played()
    g = states[i].game.game
    da = honest.record.body["spy"]
    enemy = next(s for s in g.spies_on_board(0 if da.startswith("W") else 1) if s != da)
    proof = forged_proof(i, honest.record.seat, "free", "DA", ("DA",))
    body = {"action": "eliminate_opp_da", "spy": enemy, "proof": proof}
    assert isinstance(rejected(i, body), InvalidProof)
    # and the honest proof for the real DA does not name another spy either
    body = {**honest.record.body, "spy": enemy}
    assert isinstance(rejected(i, body), InvalidProof)


def test_an_announcement_that_is_not_announceable_is_illegal() -> None:
    i, honest = first("announce")
    squares = [to for to in ("f6", "a11", "z9", "f1") if to != honest.record.body["to"]]
    assert len(squares) >= 3
    for to in squares:
        body = {**honest.record.body, "to": to}
        assert isinstance(rejected(i, body), IllegalAction), to


def test_a_proof_replayed_from_another_turn_is_refused() -> None:
    # The true statement, proved by the answerer with its own secrets, but for the context of
    # an earlier record (as a proof kept from another turn would be): refused.
    i, honest = _answer(lambda b: True)
    local, states = played()
    g = states[i].game.game
    seat = local.seats[honest.record.seat].game
    assert isinstance(seat, ConfusionSeat) and g.pending is not None and g.asked is not None
    index = g.assigned[seat.enemy][ord(g.pending.spy[2]) - ord("A")]
    allowed = answer_sets(g.asked).for_answer(honest.record.body["yes"])
    earlier = proof_context("confusion", states[i].genesis.table, honest.record.seq - 4,
                            honest.record.seat, "answer")
    proof = prove_member(Commitment.decode(g.commitment_of(g.pending.spy)), TYPE_DOMAIN,
                         seat.order()[index], seat.blinding(index), allowed, earlier,
                         SeededEntropy(b"replay")).encode()
    assert isinstance(rejected(i, {**honest.record.body, "proof": proof}), InvalidProof)


def test_no_blinding_appears_in_any_record_before_the_final_reveal() -> None:
    local, _ = played()
    for seat in local.seats:
        game_seat = seat.game
        assert isinstance(game_seat, ConfusionSeat)
        kept = game_seat.kept_secrets()
        for signed in local.records:
            if signed.record.kind != "final":
                assert not any(k in signed.raw for k in kept)


def test_a_seats_view_never_holds_a_type_of_its_own_spies() -> None:
    local, states = played()
    for seat in local.seats:
        view = seat.game.view(states[-1].game)
        own = "W-" if seat.index == 0 else "R-"
        assert view.opponent_types and all(not s.startswith(own) for s, _ in view.opponent_types)


def test_before_the_final_reveal_only_a_show_record_names_a_type() -> None:
    # Answers and statements carry a bit and a proof, never a type: what a player learns of its
    # own types is what the rules show (§12): the answers themselves, shown types, deductions.
    local, _ = played()
    for signed in local.records:
        if signed.record.kind in ("show", "final"):
            continue
        body = signed.record.body
        assert not any(isinstance(v, str) and v in TYPE_IDS for v in _leaves(body))


def test_a_double_agent_answer_is_the_same_record_as_a_forced_one() -> None:
    # Same kind, same keys, a proof over the same public set: nothing in the record tells a
    # free answer from a forced one.
    local, states = played()
    shapes = set()
    for i, signed in enumerate(local.records):
        if signed.record.kind != "answer":
            continue
        g = states[i].game.game
        assert g.asked is not None
        allowed = answer_sets(g.asked).for_answer(signed.record.body["yes"])
        proof = signed.record.body["proof"]
        assert len(proof[0]) == len(proof[1]) == len(allowed)
        shapes.add(tuple(sorted(signed.record.body)))
    assert shapes == {("promotion", "proof", "yes")}


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]

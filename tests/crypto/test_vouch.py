"""Proofs a process made itself are trusted by its own check, and nothing else is (crypto.vouch).

Each prover is made to prove a false statement (its public value not the witness's): a proof
only its maker's ``Vouched`` accepts, so each test shows at once that the prover's digest is
the one its verifier looks up (else nothing would ever be skipped) and that every other case (no
``Vouched``, another one, another context, another statement, one bit of the proof changed) is
checked in full.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pytest
from toolkit_table import make_table

from spycraft.crypto import records
from spycraft.crypto.elgamal import Ciphertext, encrypt, trivial
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import BadSignature, ProofError
from spycraft.crypto.group import GENERATOR, Point, Scalar
from spycraft.crypto.identity import Identity
from spycraft.crypto.linear import Equation, LinearProof, Relation, prove, verify
from spycraft.crypto.proofs import (
    EqualityProof,
    OneOfProof,
    SchnorrProof,
    prove_dlog,
    prove_encrypts_one_of,
    prove_equal_dlogs,
    prove_knows_one_of,
    verify_dlog,
    verify_encrypts_one_of,
    verify_equal_dlogs,
    verify_knows_one_of,
)
from spycraft.crypto.records import Record, sign_record, verify_record_signature
from spycraft.crypto.shuffle import (
    ShuffleProof,
    ShuffleWitness,
    prove_shuffle_rows,
    verify_shuffle_rows,
)
from spycraft.crypto.vouch import Vouched, vouching

ONE = Scalar.from_int(1)
CONTEXT = b"game/table/seq 7/seat 2/kind"
OTHER_CONTEXT = b"game/table/seq 7/seat 3/kind"


def _point(label: str) -> Point:
    return Point.hash_to("test/vouch", label)


class Lie:
    """One prover's proof of a false statement, and its verifier's check of it."""

    def __init__(self, name: str, make: Callable[[bytes], Any],
                 check: Callable[[Any, bytes, bool], None], flip: Callable[[Any], Any]) -> None:
        self.name, self.make, self.check, self.flip = name, make, check, flip

    def __repr__(self) -> str:
        return self.name


def _flip_first(proof: Any) -> Any:
    """The proof with its first scalar (the challenge) one more: one value changed."""
    if isinstance(proof, (SchnorrProof, EqualityProof)):
        return type(proof)(proof.challenge + ONE, proof.response)
    if isinstance(proof, LinearProof):
        return LinearProof(proof.challenge + ONE, proof.responses)
    if isinstance(proof, OneOfProof):
        return OneOfProof((proof.challenges[0] + ONE, *proof.challenges[1:]), proof.responses)
    if isinstance(proof, ShuffleProof):
        return ShuffleProof(proof.commitments, proof.chain, proof.challenge + ONE,
                            proof.responses, proof.chain_responses, proof.permutation_responses)
    raise TypeError(proof)


def _lies() -> Iterator[Lie]:
    entropy = SeededEntropy(b"tests/vouch")
    x = Scalar.random(entropy)
    wrong = _point("not x*G")  # nobody knows its discrete log: every proof below is of a lie
    c1 = _point("c1")

    yield Lie(
        "schnorr",
        lambda ctx: prove_dlog(x, wrong, ctx, entropy),
        lambda proof, ctx, other: verify_dlog(_point("else") if other else wrong, proof, ctx),
        _flip_first,
    )
    yield Lie(
        "chaum-pedersen",
        lambda ctx: prove_equal_dlogs(x, GENERATOR, Point.base_mul(x), c1, wrong, ctx, entropy),
        lambda proof, ctx, other: verify_equal_dlogs(
            GENERATOR, Point.base_mul(x), c1, _point("else") if other else wrong, proof, ctx),
        _flip_first,
    )
    table = make_table(2)
    candidates = (_point("yes"), _point("no"))
    r = Scalar.random(entropy)
    fake = Ciphertext(Point.base_mul(r), wrong)  # encrypts neither candidate
    yield Lie(
        "one-of",
        lambda ctx: prove_encrypts_one_of(table.pk, fake.c1, fake.c2, candidates, 0, r, ctx,
                                          entropy),
        lambda proof, ctx, other: verify_encrypts_one_of(
            table.pk, fake.c1, fake.c2, (candidates[1], candidates[0]) if other else candidates,
            proof, ctx),
        _flip_first,
    )
    publics = (wrong, _point("p1"), _point("p2"))
    yield Lie(
        "knows-one-of",
        lambda ctx: prove_knows_one_of(GENERATOR, publics, 0, x, ctx, entropy),
        lambda proof, ctx, other: verify_knows_one_of(
            GENERATOR, publics[::-1] if other else publics, proof, ctx),
        _flip_first,
    )

    def relation(public: Point) -> Relation:
        return Relation("test/vouch", 1, (Equation(public, ((0, GENERATOR),)),))

    yield Lie(
        "linear",
        lambda ctx: prove(relation(wrong), [x], ctx, entropy),
        lambda proof, ctx, other: verify(relation(_point("else") if other else wrong), proof,
                                         ctx),
        _flip_first,
    )
    rows = [(encrypt(table.pk, _point(f"card {i}"), Scalar.random(entropy)),) for i in range(3)]
    not_a_shuffle = [(trivial(_point(f"other {i}")),) for i in range(3)]
    witness = ShuffleWitness((1, 2, 0), tuple((Scalar.random(entropy),) for _ in range(3)))
    yield Lie(
        "shuffle",
        lambda ctx: prove_shuffle_rows(rows, not_a_shuffle, table.pk, witness, ctx, entropy),
        lambda proof, ctx, other: verify_shuffle_rows(
            rows, not_a_shuffle[::-1] if other else not_a_shuffle, table.pk, proof, ctx),
        _flip_first,
    )


LIES = list(_lies())


def _scope(vouched: Vouched | None) -> AbstractContextManager[object]:
    return nullcontext() if vouched is None else vouching(vouched)


@pytest.mark.parametrize("lie", LIES, ids=repr)
def test_its_makers_check_trusts_a_proof_it_made_and_every_other_check_does_not(
        lie: Lie) -> None:
    ours = Vouched()
    with vouching(ours):
        proof = lie.make(CONTEXT)
        lie.check(proof, CONTEXT, False)  # skipped: the very proof, statement and context
    assert len(ours) == 1
    with pytest.raises(ProofError):
        lie.check(proof, CONTEXT, False)  # no Vouched current: checked in full
    for scope, proof_seen, context, other in (
        (Vouched(), proof, CONTEXT, False),  # another seat's (or table's) Vouched
        (ours, proof, OTHER_CONTEXT, False),  # our bytes in another record: another context
        (ours, proof, CONTEXT, True),  # another statement
        (ours, lie.flip(proof), CONTEXT, False),  # one value of the proof changed
    ):
        with _scope(scope), pytest.raises(ProofError):
            lie.check(proof_seen, context, other)


@pytest.mark.parametrize("lie", LIES, ids=repr)
def test_a_proof_made_outside_any_vouched_is_never_trusted(lie: Lie) -> None:
    proof = lie.make(CONTEXT)
    later = Vouched()
    with vouching(later), pytest.raises(ProofError):
        lie.check(proof, CONTEXT, False)
    assert len(later) == 0


def test_a_proof_made_in_a_worker_thread_is_kept_in_the_vouched_it_was_given() -> None:
    """The session builds in a worker thread: the thread has its own context, the set is shared."""
    lie = LIES[0]
    ours = Vouched()
    made: list[Any] = []

    def build() -> None:
        with vouching(ours):
            made.append(lie.make(CONTEXT))

    worker = threading.Thread(target=build)
    worker.start()
    worker.join()
    with vouching(ours):
        lie.check(made[0], CONTEXT, False)
    with pytest.raises(ProofError):
        lie.check(made[0], CONTEXT, False)


def _record(seat: int) -> Record:
    return Record(b"t" * 16, 3, b"p" * 32, seat, "move", {"pick": 1})


def test_our_signature_is_trusted_only_by_our_check_and_only_under_our_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    me, other = Identity(b"m" * 32), Identity(b"o" * 32)
    ours = Vouched()
    with vouching(ours):
        signed = sign_record(_record(2), me)
    checked: list[bytes] = []
    real = records.verify_signature

    def counting(public_key: bytes, signature: bytes, message: bytes) -> bool:
        checked.append(public_key)
        return real(public_key, signature, message)

    monkeypatch.setattr(records, "verify_signature", counting)
    with vouching(ours):
        verify_record_signature(signed, me.public)
        assert checked == []  # our own record: the signature we just made is not checked again
        with pytest.raises(BadSignature):
            verify_record_signature(signed, other.public)  # another seat's key: checked, refused
    assert checked == [other.public]
    verify_record_signature(signed, me.public)  # outside our check: in full, as anyone's
    assert checked == [other.public, me.public]
    theirs = sign_record(_record(3), other)  # signed outside: never vouched
    with vouching(ours):
        verify_record_signature(theirs, other.public)
    assert checked[-1] == other.public and len(checked) == 3

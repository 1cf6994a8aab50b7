"""Proofs a process made itself are trusted by its own check, and nothing else is (crypto.vouch).

For each prover: a proof of a true statement made under a ``Vouched`` is not checked again under
it (its verifier never recomputes the challenge, counted: the witness's check stands in), and
every other case (no ``Vouched``, another one, another context, another statement, one value of
the proof changed) is checked in full; a proof of a false statement (a public value that is not
the witness's: red team 16) fails its witness's check, so our own check refuses it as
everyone's does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import ModuleType
from typing import Any

import pytest
from toolkit_table import make_table

from spycraft.crypto import linear, proofs, records, shuffle
from spycraft.crypto.elgamal import Ciphertext, encrypt, reencrypt, trivial
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


class Case:
    """One prover: ``make(ctx, true)`` gives (proof, what it proves) for a true statement or a
    false one, and ``check(proof, proven, ctx, other)`` is its verifier (``other``: of another
    statement than the one proven); ``module.hashes`` is the function its prover and its full
    check call to hash the challenge, counted to see a check skipped."""

    def __init__(self, name: str, module: ModuleType, hashes: str,
                 make: Callable[[bytes, bool], tuple[Any, Any]],
                 check: Callable[[Any, Any, bytes, bool], None]) -> None:
        self.name, self.module, self.hashes, self.make, self.check = (
            name, module, hashes, make, check)

    def __repr__(self) -> str:
        return self.name


def _flip(proof: Any) -> Any:
    """The proof with its challenge one more: one value changed."""
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


def _cases() -> Iterator[Case]:
    entropy = SeededEntropy(b"tests/vouch")
    x = Scalar.random(entropy)
    xg = Point.base_mul(x)
    wrong = _point("not x*G")  # nobody knows its discrete log: a proof of it proves a lie
    other = _point("another statement")
    c1 = _point("c1")

    def dlog(ctx: bytes, true: bool) -> tuple[Any, Any]:
        public = xg if true else wrong
        return prove_dlog(x, public, ctx, entropy), public

    yield Case("schnorr", proofs, "_challenge", dlog,
               lambda proof, public, ctx, o: verify_dlog(other if o else public, proof, ctx))

    def equal(ctx: bytes, true: bool) -> tuple[Any, Any]:
        public = c1 * x if true else wrong
        return prove_equal_dlogs(x, GENERATOR, xg, c1, public, ctx, entropy), public

    yield Case("chaum-pedersen", proofs, "_challenge", equal,
               lambda proof, public, ctx, o: verify_equal_dlogs(
                   GENERATOR, xg, c1, other if o else public, proof, ctx))
    table = make_table(2)
    candidates = (_point("yes"), _point("no"))
    r = Scalar.random(entropy)

    def one_of(ctx: bytes, true: bool) -> tuple[Any, Any]:
        ct = encrypt(table.pk, candidates[0], r) if true else \
            Ciphertext(Point.base_mul(r), wrong)  # encrypts neither candidate
        return prove_encrypts_one_of(table.pk, ct.c1, ct.c2, candidates, 0, r, ctx, entropy), ct

    yield Case("one-of", proofs, "_challenge", one_of,
               lambda proof, ct, ctx, o: verify_encrypts_one_of(
                   table.pk, ct.c1, ct.c2, (other, candidates[1]) if o else candidates, proof,
                   ctx))

    def knows(ctx: bytes, true: bool) -> tuple[Any, Any]:
        publics = (xg if true else wrong, _point("p1"))
        return prove_knows_one_of(GENERATOR, publics, 0, x, ctx, entropy), publics

    yield Case("knows-one-of", proofs, "_challenge", knows,
               lambda proof, publics, ctx, o: verify_knows_one_of(
                   GENERATOR, (other, publics[1]) if o else publics, proof, ctx))

    def relation(public: Point) -> Relation:
        return Relation("test/vouch", 1, (Equation(public, ((0, GENERATOR),)),))

    def linear_proof(ctx: bytes, true: bool) -> tuple[Any, Any]:
        public = xg if true else wrong
        return prove(relation(public), [x], ctx, entropy), public

    yield Case("linear", linear, "_challenge", linear_proof,
               lambda proof, public, ctx, o: verify(relation(other if o else public), proof,
                                                    ctx))
    rows = [(encrypt(table.pk, _point(f"card {i}"), Scalar.random(entropy)),) for i in range(3)]
    witness = ShuffleWitness((1, 2, 0), tuple((Scalar.random(entropy),) for _ in range(3)))

    def shuffled(ctx: bytes, true: bool) -> tuple[Any, Any]:
        outputs = [(reencrypt(rows[witness.permutation[i]][0], table.pk,
                              witness.randomness[i][0]),) for i in range(3)] if true else \
            [(trivial(_point(f"other {i}")),) for i in range(3)]  # not a shuffle of the rows
        return prove_shuffle_rows(rows, outputs, table.pk, witness, ctx, entropy), outputs

    yield Case("shuffle", shuffle, "_challenges", shuffled,
               lambda proof, outputs, ctx, o: verify_shuffle_rows(
                   rows, outputs[::-1] if o else outputs, table.pk, proof, ctx))


CASES = list(_cases())


@contextmanager
def _counted(case: Case, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the case's challenge is hashed within the block."""
    real = getattr(case.module, case.hashes)
    calls: list[int] = []

    def counting(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    with monkeypatch.context() as patch:
        patch.setattr(case.module, case.hashes, counting)
        yield calls


def _scope(vouched: Vouched | None) -> AbstractContextManager[object]:
    return nullcontext() if vouched is None else vouching(vouched)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_its_makers_check_skips_a_true_proof_it_made_and_every_other_check_is_full(
        case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = Vouched()
    with vouching(ours):
        proof, proven = case.make(CONTEXT, True)
    assert len(ours) == 1
    with _counted(case, monkeypatch) as calls, vouching(ours):
        case.check(proof, proven, CONTEXT, False)  # the very proof, statement and context
    assert calls == []
    with _counted(case, monkeypatch) as calls:
        case.check(proof, proven, CONTEXT, False)  # no Vouched current: checked in full
    assert calls
    with _counted(case, monkeypatch) as calls, vouching(Vouched()):
        case.check(proof, proven, CONTEXT, False)  # another seat's (or table's) Vouched
    assert calls
    for proof_seen, context, other in (
        (proof, OTHER_CONTEXT, False),  # our bytes in another record: another context
        (proof, CONTEXT, True),  # another statement
        (_flip(proof), CONTEXT, False),  # one value of the proof changed
    ):
        with vouching(ours), pytest.raises(ProofError):
            case.check(proof_seen, proven, context, other)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_a_false_statement_fails_its_witness_check_so_our_own_check_refuses_it(
        case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = Vouched()
    with vouching(ours):
        proof, proven = case.make(CONTEXT, False)
    assert len(ours) == 1  # filed, with a witness check that fails
    with _counted(case, monkeypatch) as calls, vouching(ours), pytest.raises(ProofError):
        case.check(proof, proven, CONTEXT, False)
    assert calls  # then checked in full, and refused


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_a_proof_made_outside_any_vouched_is_checked_in_full(
        case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    proof, proven = case.make(CONTEXT, True)
    later = Vouched()
    with _counted(case, monkeypatch) as calls, vouching(later):
        case.check(proof, proven, CONTEXT, False)
    assert calls and len(later) == 0


def test_a_proof_made_in_a_worker_thread_is_kept_in_the_vouched_it_was_given(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The session builds in a worker thread: the thread has its own context, the set is shared."""
    case = CASES[-1]
    ours = Vouched()
    made: list[tuple[Any, Any]] = []

    def build() -> None:
        with vouching(ours):
            made.append(case.make(CONTEXT, True))

    worker = threading.Thread(target=build)
    worker.start()
    worker.join()
    (proof, proven), = made
    with _counted(case, monkeypatch) as calls, vouching(ours):
        case.check(proof, proven, CONTEXT, False)
    assert calls == []


def test_a_filed_check_that_raises_asks_for_the_full_check_and_never_crashes_ours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 16, round 2: a check that raised ended our session on a record everyone else
    accepts; now the verifier decides, as for anyone's record."""
    entropy = SeededEntropy(b"tests/vouch/raises")
    x = Scalar.random(entropy)
    ours = Vouched()
    with vouching(ours):
        proof = prove_dlog(x, Point.base_mul(x), CONTEXT, entropy)
    digest, = ours._checks

    def broken() -> bool:
        raise IndexError("a bug of ours in a filed check")

    ours._checks[digest] = broken
    case = CASES[0]
    with _counted(case, monkeypatch) as calls, vouching(ours):
        verify_dlog(Point.base_mul(x), proof, CONTEXT)  # checked in full, and true
    assert calls


def test_a_list_changed_after_proving_changes_nothing_our_own_check_says() -> None:
    """Red team 16, round 2: the filed checks read what was proven, not the caller's lists as
    they are later (which could have passed a false proof, or raised)."""
    entropy = SeededEntropy(b"tests/vouch/lists")
    x, y = Scalar.random(entropy), Scalar.random(entropy)
    xg = Point.base_mul(x)
    ours = Vouched()
    relation = Relation("test/vouch", 1, (Equation(xg, ((0, GENERATOR),)),))
    witnesses = [y]  # a false witness: the proof fails everywhere
    publics = [xg, _point("p1")]
    candidates = [_point("yes"), _point("no")]
    r = Scalar.random(entropy)
    table = make_table(2)
    ct = encrypt(table.pk, candidates[0], r)
    with vouching(ours):
        false_linear = prove(relation, witnesses, CONTEXT, entropy)
        knows = prove_knows_one_of(GENERATOR, publics, 0, x, CONTEXT, entropy)
        one_of = prove_encrypts_one_of(table.pk, ct.c1, ct.c2, candidates, 0, r, CONTEXT, entropy)
    witnesses[0] = x  # "fixed" after the proof
    publics.clear()
    candidates.clear()
    with vouching(ours):
        with pytest.raises(ProofError):
            verify(relation, false_linear, CONTEXT)
        verify_knows_one_of(GENERATOR, (xg, _point("p1")), knows, CONTEXT)
        verify_encrypts_one_of(table.pk, ct.c1, ct.c2, (_point("yes"), _point("no")), one_of,
                               CONTEXT)


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

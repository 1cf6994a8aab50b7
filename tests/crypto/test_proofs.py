"""Sigma proofs: honest proofs verify; a proof of something false, or replayed, does not."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import InvalidProof, MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, Point, Scalar
from spycraft.crypto.proofs import (
    EqualityProof,
    OneOfProof,
    SchnorrProof,
    prove_dlog,
    prove_encrypts_one_of,
    prove_equal_dlogs,
    verify_dlog,
    verify_encrypts_one_of,
    verify_equal_dlogs,
)

Ctx = Callable[..., bytes]
CANDIDATES = (Point.hash_to("test/value", "success"), Point.hash_to("test/value", "fail"),
              Point.hash_to("test/value", "third"))


def test_schnorr_proof_verifies_and_survives_cbor(entropy: SeededEntropy, context: Ctx) -> None:
    x = Scalar.random(entropy)
    proof = prove_dlog(x, Point.base_mul(x), context(0, 3), entropy)
    again = SchnorrProof.decode(decode(encode(proof.encode())))
    verify_dlog(Point.base_mul(x), again, context(0, 3))


def test_schnorr_proof_replayed_under_another_seq_or_seat_is_rejected(
        entropy: SeededEntropy, context: Ctx) -> None:
    x = Scalar.random(entropy)
    proof = prove_dlog(x, Point.base_mul(x), context(0, 3), entropy)
    for other in (context(0, 4), context(1, 3)):
        with pytest.raises(ProofError):
            verify_dlog(Point.base_mul(x), proof, other)


def test_schnorr_proof_for_another_key_is_rejected(entropy: SeededEntropy, context: Ctx) -> None:
    x = Scalar.random(entropy)
    proof = prove_dlog(x, Point.base_mul(x), context(0, 3), entropy)
    with pytest.raises(ProofError):
        verify_dlog(Point.base_mul(x + Scalar.from_int(1)), proof, context(0, 3))


def test_chaum_pedersen_proves_a_correct_token(entropy: SeededEntropy, context: Ctx) -> None:
    x = Scalar.random(entropy)
    c1 = Point.hash_to("test", "c1")
    proof = prove_equal_dlogs(x, GENERATOR, Point.base_mul(x), c1, c1 * x, context(1, 9), entropy)
    verify_equal_dlogs(GENERATOR, Point.base_mul(x), c1, c1 * x,
                       EqualityProof.decode(decode(encode(proof.encode()))), context(1, 9))


def test_chaum_pedersen_rejects_a_token_made_with_another_secret(
        entropy: SeededEntropy, context: Ctx) -> None:
    x, y = Scalar.random(entropy), Scalar.random(entropy)
    c1 = Point.hash_to("test", "c1")
    # the prover claims X = x*G but used y for the token
    proof = prove_equal_dlogs(x, GENERATOR, Point.base_mul(x), c1, c1 * y, context(1, 9), entropy)
    with pytest.raises(ProofError) as caught:
        verify_equal_dlogs(GENERATOR, Point.base_mul(x), c1, c1 * y, proof, context(1, 9))
    err = caught.value.attribute(1, 9)
    assert isinstance(err, InvalidProof) and (err.seat, err.seq) == (1, 9)


def _encrypt(pk: Point, m: Point, r: Scalar) -> tuple[Point, Point]:
    return Point.base_mul(r), m + pk * r


@settings(max_examples=6, deadline=None)
@given(st.integers(0, len(CANDIDATES) - 1), st.integers(0, 2**64))
def test_or_proof_verifies_for_every_allowed_value(index: int, seed: int) -> None:
    entropy = SeededEntropy(seed)
    pk = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    c1, c2 = _encrypt(pk, CANDIDATES[index], r)
    proof = prove_encrypts_one_of(pk, c1, c2, CANDIDATES, index, r, b"ctx", entropy)
    again = OneOfProof.decode(decode(encode(proof.encode())), len(CANDIDATES))
    verify_encrypts_one_of(pk, c1, c2, CANDIDATES, again, b"ctx")


def test_or_proof_cannot_vouch_for_a_value_outside_the_set(entropy: SeededEntropy) -> None:
    pk = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    c1, c2 = _encrypt(pk, Point.hash_to("test/value", "forbidden"), r)
    for index in range(len(CANDIDATES)):
        proof = prove_encrypts_one_of(pk, c1, c2, CANDIDATES, index, r, b"ctx", entropy)
        with pytest.raises(ProofError):
            verify_encrypts_one_of(pk, c1, c2, CANDIDATES, proof, b"ctx")


def test_or_proof_is_bound_to_its_context_and_ciphertext(entropy: SeededEntropy) -> None:
    pk = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    c1, c2 = _encrypt(pk, CANDIDATES[0], r)
    proof = prove_encrypts_one_of(pk, c1, c2, CANDIDATES, 0, r, b"ctx", entropy)
    with pytest.raises(ProofError):
        verify_encrypts_one_of(pk, c1, c2, CANDIDATES, proof, b"other ctx")
    # a re-randomised copy of someone else's ciphertext cannot reuse their proof
    s = Scalar.random(entropy)
    with pytest.raises(ProofError):
        verify_encrypts_one_of(pk, c1 + Point.base_mul(s), c2 + pk * s, CANDIDATES, proof, b"ctx")


def test_or_proof_with_the_wrong_number_of_branches_is_rejected(entropy: SeededEntropy) -> None:
    pk = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    c1, c2 = _encrypt(pk, CANDIDATES[0], r)
    proof = prove_encrypts_one_of(pk, c1, c2, CANDIDATES, 0, r, b"ctx", entropy)
    with pytest.raises(MalformedValue):
        OneOfProof.decode(proof.encode(), 2)
    with pytest.raises(ProofError):
        verify_encrypts_one_of(pk, c1, c2, CANDIDATES[:2], proof, b"ctx")


@pytest.mark.parametrize("garbage", [None, [], [b"x"], [bytes(32)], [bytes(32), b"\xff" * 32]])
def test_garbage_is_not_a_proof(garbage: object) -> None:
    with pytest.raises(MalformedValue):
        SchnorrProof.decode(garbage)


def test_nonces_are_hedged_so_a_replayed_entropy_stream_does_not_leak_the_key() -> None:
    # a seat that resumes with the same deterministic entropy proves two different statements
    x = Scalar.random(SeededEntropy(1))
    a, b = Point.hash_to("test", "a"), Point.hash_to("test", "b")
    p1 = prove_equal_dlogs(x, GENERATOR, Point.base_mul(x), a, a * x, b"ctx", SeededEntropy(2))
    p2 = prove_equal_dlogs(x, GENERATOR, Point.base_mul(x), b, b * x, b"ctx", SeededEntropy(2))
    # with equal nonces, x = (s1 - s2) / (e1 - e2); check that this does not recover x
    recovered = (p1.response - p2.response) * (p1.challenge - p2.challenge).inverse()
    assert recovered != x


def _recovered(s1: Scalar, e1: Scalar, s2: Scalar, e2: Scalar) -> Scalar:
    """The witness two responses s = w + e*x would give away if they shared their nonce w."""
    return (s1 - s2) * (e1 - e2).inverse()


def test_a_schnorr_nonce_depends_on_the_whole_statement() -> None:
    # one secret, one replayed entropy stream, two bases: the statements differ only in the base
    x = Scalar.random(SeededEntropy(1))
    h = Point.hash_to("test", "h")
    p1 = prove_dlog(x, Point.base_mul(x), b"ctx", SeededEntropy(2))
    p2 = prove_dlog(x, h * x, b"ctx", SeededEntropy(2), base=h)
    assert _recovered(p1.response, p1.challenge, p2.response, p2.challenge) != x


def test_an_or_proof_nonce_depends_on_the_whole_statement() -> None:
    # one ciphertext and witness, one replayed entropy stream; the candidate lists differ only in
    # a candidate the ciphertext does not encrypt
    entropy = SeededEntropy(3)
    pk = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    c1, c2 = _encrypt(pk, CANDIDATES[0], r)
    other = (CANDIDATES[0], CANDIDATES[1], Point.hash_to("test/value", "fourth"))
    p1 = prove_encrypts_one_of(pk, c1, c2, CANDIDATES, 0, r, b"ctx", SeededEntropy(4))
    p2 = prove_encrypts_one_of(pk, c1, c2, other, 0, r, b"ctx", SeededEntropy(4))
    assert p1.challenges[1:] != p2.challenges[1:]  # the simulated branches are drawn afresh
    assert _recovered(p1.responses[0], p1.challenges[0], p2.responses[0], p2.challenges[0]) != r

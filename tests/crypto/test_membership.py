"""Set-membership proofs on Pedersen commitments: complete, sound against a false set, bound to
their context (a proof replayed for another record, seat, set or commitment fails)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import Scalar
from spycraft.crypto.membership import (
    Commitment,
    commit,
    decode_proof,
    new_blinding,
    prove_member,
    verify_member,
)
from spycraft.crypto.proofs import OneOfProof

Ctx = Callable[..., bytes]
DOMAIN = "test/types"
ALPHABET = tuple(f"T{i:02}" for i in range(1, 13)) + ("DA",)


def test_a_true_membership_verifies_after_a_cbor_round_trip(
        entropy: SeededEntropy, context: Ctx) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T10", r)
    allowed = ("T05", "T10", "DA")
    proof = prove_member(c, DOMAIN, "T10", r, allowed, context(1, 7), entropy)
    again = decode_proof(decode(encode(proof.encode())), allowed)
    verify_member(Commitment.decode(decode(encode(c.encode()))), DOMAIN, allowed, again,
                  context(1, 7))


def test_every_value_of_the_alphabet_proves_membership_of_the_full_set(
        entropy: SeededEntropy, context: Ctx) -> None:
    for value in ALPHABET:
        r = new_blinding(entropy)
        c = commit(DOMAIN, value, r)
        proof = prove_member(c, DOMAIN, value, r, ALPHABET, context(0, 3), entropy)
        verify_member(c, DOMAIN, ALPHABET, proof, context(0, 3))


def test_the_honest_prover_refuses_a_value_outside_the_set(
        entropy: SeededEntropy, context: Ctx) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T04", r)
    with pytest.raises(ValueError):
        prove_member(c, DOMAIN, "T04", r, ("T10", "DA"), context(0, 3), entropy)


def test_a_proof_for_a_false_set_does_not_verify(entropy: SeededEntropy, context: Ctx) -> None:
    # The committed value is T04; the cheater proves a true statement about another value with
    # the same blinding, and presents it for a set that excludes T04.
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T04", r)
    lie = ("T10", "DA")
    forged = prove_member(commit(DOMAIN, "T10", r), DOMAIN, "T10", r, lie, context(0, 3), entropy)
    with pytest.raises(ProofError):
        verify_member(c, DOMAIN, lie, forged, context(0, 3))


def test_a_proof_with_tampered_challenges_does_not_verify(
        entropy: SeededEntropy, context: Ctx) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "DA", r)
    allowed = ("T01", "DA")
    proof = prove_member(c, DOMAIN, "DA", r, allowed, context(0, 3), entropy)
    one = Scalar.from_int(1)
    shifted = OneOfProof((proof.challenges[0] + one, proof.challenges[1] - one), proof.responses)
    with pytest.raises(ProofError):
        verify_member(c, DOMAIN, allowed, shifted, context(0, 3))


def test_a_proof_replayed_in_another_record_seat_set_or_commitment_is_refused(
        entropy: SeededEntropy, context: Ctx) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T02", r)
    allowed = ("T02", "T03", "DA")
    proof = prove_member(c, DOMAIN, "T02", r, allowed, context(1, 9), entropy)
    verify_member(c, DOMAIN, allowed, proof, context(1, 9))
    for other in (context(1, 10), context(0, 9)):
        with pytest.raises(ProofError):
            verify_member(c, DOMAIN, allowed, proof, other)
    with pytest.raises(ProofError):
        verify_member(c, DOMAIN, ("T02", "T04", "DA"), proof, context(1, 9))
    elsewhere = commit(DOMAIN, "T02", new_blinding(entropy))
    with pytest.raises(ProofError):
        verify_member(elsewhere, DOMAIN, allowed, proof, context(1, 9))
    with pytest.raises(ProofError):
        verify_member(c, "test/other-alphabet", allowed, proof, context(1, 9))


def test_openings_bind_value_and_blinding(entropy: SeededEntropy) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T07", r)
    assert c.opens(DOMAIN, "T07", r)
    assert not c.opens(DOMAIN, "T08", r)
    assert not c.opens(DOMAIN, "T07", r + Scalar.from_int(1))


def test_malformed_proofs_and_commitments_are_typed(entropy: SeededEntropy) -> None:
    with pytest.raises(MalformedValue):
        decode_proof([[b"\x00" * 32], [b"\x00" * 32]], ("T01", "DA"))
    with pytest.raises(MalformedValue):
        Commitment.decode(b"\xff" * 32)
    with pytest.raises(MalformedValue):
        decode_proof("nope", ("T01",))

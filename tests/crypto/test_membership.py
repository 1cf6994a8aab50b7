"""Commitments to values of an alphabet (r*G + V(v), r*H) and their proofs: set membership,
tuple membership (a row of an allowed list) and being a permutation of the alphabet; each
complete, sound against a false statement, bound to its context (a proof replayed for another
record, seat, set, row list, alphabet or commitment fails)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import IDENTITY, Point, Scalar
from spycraft.crypto.membership import (
    BINDING_BASE,
    Commitment,
    commit,
    decode_permutation_proof,
    decode_proof,
    new_blinding,
    prove_member,
    prove_permutation,
    prove_row_member,
    value_point,
    verify_member,
    verify_permutation,
    verify_row_member,
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
    # the tag fixes the blinding: the same point with another tag opens to nothing
    other = Commitment(c.point, BINDING_BASE * (r + Scalar.from_int(1)))
    assert not any(other.opens(DOMAIN, v, r) for v in ALPHABET)


def test_a_commitment_is_the_encryption_of_its_value_under_the_binding_base(
        entropy: SeededEntropy) -> None:
    r = new_blinding(entropy)
    c = commit(DOMAIN, "T03", r)
    assert c.tag == BINDING_BASE * r
    assert c.point - Point.base_mul(r) == value_point(DOMAIN, "T03")
    assert BINDING_BASE not in (value_point(DOMAIN, v) for v in ALPHABET)


def test_malformed_proofs_and_commitments_are_typed(entropy: SeededEntropy) -> None:
    with pytest.raises(MalformedValue):
        decode_proof([[b"\x00" * 32], [b"\x00" * 32]], ("T01", "DA"))
    with pytest.raises(MalformedValue):
        Commitment.decode(b"\xff" * 32)
    with pytest.raises(MalformedValue):
        Commitment.decode([b"\xff" * 32, BINDING_BASE.encode()])
    with pytest.raises(MalformedValue):  # r = 0 would show the value: refused
        Commitment.decode([value_point(DOMAIN, "DA").encode(), IDENTITY.encode()])
    with pytest.raises(MalformedValue):
        decode_proof("nope", ("T01",))
    with pytest.raises(MalformedValue):
        decode_permutation_proof([[], [], [], [], []], ALPHABET)


# --- a permutation of the alphabet -----------------------------------------------------------


def permuted(entropy: SeededEntropy, order: tuple[str, ...] = tuple(reversed(ALPHABET))
             ) -> tuple[list[Commitment], list[Scalar], tuple[str, ...]]:
    rs = [new_blinding(entropy) for _ in order]
    return [commit(DOMAIN, v, r) for v, r in zip(order, rs)], rs, order


def test_commitments_to_an_ordering_of_the_alphabet_prove_it_after_a_cbor_round_trip(
        entropy: SeededEntropy, context: Ctx) -> None:
    cs, rs, order = permuted(entropy)
    proof = prove_permutation(cs, DOMAIN, ALPHABET, order, rs, context(1, 2), entropy)
    again = decode_permutation_proof(decode(encode(proof.encode())), ALPHABET)
    verify_permutation([Commitment.decode(decode(encode(c.encode()))) for c in cs], DOMAIN,
                       ALPHABET, again, context(1, 2))


@pytest.mark.parametrize("cheat", [
    ("DA",) * 13,  # every value the free one
    ("T02",) + ALPHABET[1:],  # a duplicate, one value missing
    ALPHABET[:-1] + ("T13",),  # a value outside the alphabet
], ids=["all-one-value", "duplicate", "outside"])
def test_commitments_that_are_not_a_permutation_have_no_proof(
        cheat: tuple[str, ...], entropy: SeededEntropy, context: Ctx) -> None:
    cs, rs, order = permuted(entropy)
    with pytest.raises(ValueError):
        prove_permutation(cs, DOMAIN, ALPHABET, cheat, rs, context(1, 2), entropy)
    # the honest proof, presented for the cheating commitments (same blindings), fails
    proof = prove_permutation(cs, DOMAIN, ALPHABET, order, rs, context(1, 2), entropy)
    lies = [commit(DOMAIN, v, r) for v, r in zip(cheat, rs)]
    with pytest.raises(ProofError):
        verify_permutation(lies, DOMAIN, ALPHABET, proof, context(1, 2))


def test_a_permutation_proof_fits_only_its_commitments_order_context_and_alphabet(
        entropy: SeededEntropy, context: Ctx) -> None:
    cs, rs, order = permuted(entropy)
    proof = prove_permutation(cs, DOMAIN, ALPHABET, order, rs, context(1, 2), entropy)
    verify_permutation(cs, DOMAIN, ALPHABET, proof, context(1, 2))
    swapped = [cs[1], cs[0], *cs[2:]]
    fresh = [commit(DOMAIN, v, new_blinding(entropy)) for v in order]
    for commitments, where, domain, alphabet in (
            (swapped, context(1, 2), DOMAIN, ALPHABET),
            (fresh, context(1, 2), DOMAIN, ALPHABET),
            (cs, context(1, 3), DOMAIN, ALPHABET),
            (cs, context(0, 2), DOMAIN, ALPHABET),
            (cs, context(1, 2), "test/other-alphabet", ALPHABET),
            (cs, context(1, 2), DOMAIN, tuple(reversed(ALPHABET)))):
        with pytest.raises(ProofError):
            verify_permutation(commitments, domain, alphabet, proof, where)
    with pytest.raises(ProofError):
        verify_permutation(cs[:-1], DOMAIN, ALPHABET, proof, context(1, 2))


def test_membership_on_commitments_proven_a_permutation_stays_sound(
        entropy: SeededEntropy, context: Ctx) -> None:
    # The commitment to the DA answers "in {DA}" and any set holding it; a commitment to T05
    # has no proof of "in {DA}", and the DA's proof does not carry over to it.
    cs, rs, order = permuted(entropy)
    da = order.index("DA")
    proof = prove_member(cs[da], DOMAIN, "DA", rs[da], ("DA",), context(0, 9), entropy)
    verify_member(cs[da], DOMAIN, ("DA",), proof, context(0, 9))
    mole = order.index("T05")
    with pytest.raises(ProofError):
        verify_member(cs[mole], DOMAIN, ("DA",), proof, context(0, 9))
    forged = prove_member(commit(DOMAIN, "DA", rs[mole]), DOMAIN, "DA", rs[mole], ("DA",),
                          context(0, 9), entropy)
    with pytest.raises(ProofError):
        verify_member(cs[mole], DOMAIN, ("DA",), forged, context(0, 9))


# --- a tuple of committed values is one of the allowed rows ------------------------------------


ROWS = (("1", "2", "3", "5"), ("1", "4", "2", "3"), ("2", "3", "5", "9"), ("4", "1", "2", "3"))


def committed_row(entropy: SeededEntropy, row: tuple[str, ...]
                  ) -> tuple[list[Commitment], list[Scalar]]:
    rs = [new_blinding(entropy) for _ in row]
    return [commit("test/ranks", v, r) for v, r in zip(row, rs)], rs


def test_a_committed_row_of_the_list_proves_it_after_a_cbor_round_trip(
        entropy: SeededEntropy, context: Ctx) -> None:
    for row in ROWS:
        cs, rs = committed_row(entropy, row)
        proof = prove_row_member(cs, "test/ranks", row, rs, ROWS, context(0, 4), entropy)
        again = decode_proof(decode(encode(proof.encode())), ROWS)
        verify_row_member(cs, "test/ranks", ROWS, again, context(0, 4))


def test_a_row_outside_the_list_has_no_proof_and_borrowed_proofs_fail(
        entropy: SeededEntropy, context: Ctx) -> None:
    illegal = ("5", "3", "2", "1")
    cs, rs = committed_row(entropy, illegal)
    with pytest.raises(ValueError):
        prove_row_member(cs, "test/ranks", illegal, rs, ROWS, context(0, 4), entropy)
    # a true proof for a legal row under the same blindings, shown for the illegal commitments
    legal, _ = committed_row(entropy, ROWS[2])
    honest = [commit("test/ranks", v, r) for v, r in zip(ROWS[2], rs)]
    proof = prove_row_member(honest, "test/ranks", ROWS[2], rs, ROWS, context(0, 4), entropy)
    for commitments, rows, where in ((cs, ROWS, context(0, 4)),
                                     (legal, ROWS, context(0, 4)),
                                     (list(reversed(honest)), ROWS, context(0, 4)),
                                     (honest, ROWS[1:] + ROWS[:1], context(0, 4)),
                                     (honest, ROWS, context(0, 5))):
        with pytest.raises(ProofError):
            verify_row_member(commitments, "test/ranks", rows, proof, where)
    with pytest.raises(ProofError):
        verify_row_member(honest, "test/ranks", (("1", "2", "3"),), proof, context(0, 4))

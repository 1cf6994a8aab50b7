"""Proof of a shuffle: honest shuffles verify; any other relation between decks is rejected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolkit_table import Table, make_table

from spycraft.crypto.elgamal import Ciphertext, decrypt_with_secret, encrypt, reencrypt, trivial
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import Point, Scalar, scalar_sum
from spycraft.crypto.shuffle import (
    ShuffleProof,
    ShuffleWitness,
    prove_shuffle,
    shuffle,
    shuffle_and_prove,
    shuffle_rows_and_prove,
    verify_shuffle,
    verify_shuffle_rows,
)

TABLE = make_table(2)


def deck(n: int) -> tuple[Ciphertext, ...]:
    return tuple(trivial(Point.hash_to("test/card", i)) for i in range(n))


def plaintexts(table: Table, cts: tuple[Ciphertext, ...]) -> list[bytes]:
    x = scalar_sum(table.secrets)
    return sorted(decrypt_with_secret(ct, x).encode() for ct in cts)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**32))
def test_honest_shuffles_verify_and_keep_the_cards(n: int, seed: int) -> None:
    inputs = deck(n)
    outputs, proof = shuffle_and_prove(inputs, TABLE.pk, b"ctx", SeededEntropy(seed))
    verify_shuffle(inputs, outputs, TABLE.pk, ShuffleProof.decode(decode(encode(proof.encode())),
                                                                  n), b"ctx")
    assert plaintexts(TABLE, outputs) == plaintexts(TABLE, inputs)


def test_shuffle_proof_replayed_under_another_context_is_rejected(entropy: SeededEntropy) -> None:
    inputs = deck(5)
    outputs, proof = shuffle_and_prove(inputs, TABLE.pk, b"seq 4", entropy)
    with pytest.raises(ProofError):
        verify_shuffle(inputs, outputs, TABLE.pk, proof, b"seq 5")


def test_a_card_swapped_for_another_is_caught(entropy: SeededEntropy) -> None:
    inputs = deck(5)
    outputs, witness = shuffle(inputs, TABLE.pk, entropy)
    # the cheater replaces one output with a fresh encryption of another card, then proves
    forged = list(outputs)
    forged[2] = encrypt(TABLE.pk, Point.hash_to("test/card", 0), Scalar.random(entropy))
    proof = prove_shuffle(inputs, forged, TABLE.pk, witness, b"ctx", entropy)
    with pytest.raises(ProofError):
        verify_shuffle(inputs, forged, TABLE.pk, proof, b"ctx")


def test_a_duplicated_card_is_caught(entropy: SeededEntropy) -> None:
    inputs = deck(4)
    # output 0 and 1 both come from input 0: not a permutation
    r = [Scalar.random(entropy) for _ in range(4)]
    outputs = tuple(reencrypt(inputs[j], TABLE.pk, r[i]) for i, j in enumerate((0, 0, 2, 3)))
    for claimed in ((0, 1, 2, 3), (1, 0, 2, 3)):
        witness = ShuffleWitness(claimed, tuple((ri,) for ri in r))
        proof = prove_shuffle(inputs, outputs, TABLE.pk, witness, b"ctx", entropy)
        with pytest.raises(ProofError):
            verify_shuffle(inputs, outputs, TABLE.pk, proof, b"ctx")


def test_a_proof_does_not_verify_for_other_outputs(entropy: SeededEntropy) -> None:
    inputs = deck(5)
    outputs, proof = shuffle_and_prove(inputs, TABLE.pk, b"ctx", entropy)
    other, _ = shuffle_and_prove(inputs, TABLE.pk, b"ctx", entropy)
    with pytest.raises(ProofError):
        verify_shuffle(inputs, other, TABLE.pk, proof, b"ctx")
    with pytest.raises(ProofError):  # another key
        verify_shuffle(inputs, outputs, TABLE.publics[0], proof, b"ctx")


def test_a_tampered_response_is_caught(entropy: SeededEntropy) -> None:
    inputs = deck(3)
    outputs, proof = shuffle_and_prove(inputs, TABLE.pk, b"ctx", entropy)
    raw = proof.encode()
    responses = list(raw[4])  # type: ignore[arg-type]
    responses[1] = Scalar.from_int(12345).encode()
    tampered = ShuffleProof.decode([raw[0], raw[1], raw[2], raw[3], responses], 3)
    with pytest.raises(ProofError):
        verify_shuffle(inputs, outputs, TABLE.pk, tampered, b"ctx")


def test_wrong_sizes_are_rejected(entropy: SeededEntropy) -> None:
    inputs = deck(3)
    outputs, proof = shuffle_and_prove(inputs, TABLE.pk, b"ctx", entropy)
    with pytest.raises(ProofError):
        verify_shuffle(inputs, outputs[:2], TABLE.pk, proof, b"ctx")
    with pytest.raises(MalformedValue):
        ShuffleProof.decode(proof.encode(), 4)


def test_a_non_canonical_point_in_a_proof_is_rejected(entropy: SeededEntropy) -> None:
    inputs = deck(2)
    _, proof = shuffle_and_prove(inputs, TABLE.pk, b"ctx", entropy)
    raw = proof.encode()
    c0 = raw[0][0]  # type: ignore[index]
    bent = [[c0[:31] + bytes([c0[31] | 0x80]), raw[0][1]], *raw[1:]]  # type: ignore[index]
    with pytest.raises(MalformedValue):
        ShuffleProof.decode(bent, 2)


def test_rows_are_shuffled_in_lockstep(entropy: SeededEntropy) -> None:
    rows = tuple((trivial(Point.hash_to("a", i)), trivial(Point.hash_to("b", i)))
                 for i in range(4))
    outputs, proof = shuffle_rows_and_prove(rows, TABLE.pk, b"ctx", entropy)
    verify_shuffle_rows(rows, outputs, TABLE.pk,
                        ShuffleProof.decode(decode(encode(proof.encode())), 4, 2), b"ctx")
    x = scalar_sum(TABLE.secrets)
    pairs = {(decrypt_with_secret(a, x), decrypt_with_secret(b, x)) for a, b in outputs}
    assert pairs == {(Point.hash_to("a", i), Point.hash_to("b", i)) for i in range(4)}
    # breaking the pairing (swapping one column between two rows) is caught
    broken = list(outputs)
    broken[0], broken[1] = (outputs[0][0], outputs[1][1]), (outputs[1][0], outputs[0][1])
    with pytest.raises(ProofError):
        verify_shuffle_rows(rows, broken, TABLE.pk, proof, b"ctx")


def test_shuffle_proof_nonces_depend_on_the_inputs_and_the_key() -> None:
    # A seat that resumes with a replayed entropy stream and shuffles another deck: the same
    # permutation and randomness, the same context, different inputs (or another key). Equal
    # nonces would show in equal permutation commitments and would let anyone compare the two
    # proofs' responses; the nonces must differ whenever the statement does.
    first, second = deck(5), tuple(reencrypt(ct, TABLE.pk, Scalar.from_int(9)) for ct in deck(5))
    out1, witness1 = shuffle(first, TABLE.pk, SeededEntropy(11))
    out2, witness2 = shuffle(second, TABLE.pk, SeededEntropy(11))
    assert witness1 == witness2
    p1 = prove_shuffle(first, out1, TABLE.pk, witness1, b"ctx", SeededEntropy(12))
    p2 = prove_shuffle(second, out2, TABLE.pk, witness2, b"ctx", SeededEntropy(12))
    assert set(p1.commitments).isdisjoint(p2.commitments)
    assert set(p1.permutation_responses).isdisjoint(p2.permutation_responses)
    other_key = make_table(2, seed=8).pk
    out3, witness3 = shuffle(first, other_key, SeededEntropy(11))
    p3 = prove_shuffle(first, out3, other_key, witness3, b"ctx", SeededEntropy(12))
    assert witness3 == witness1 and set(p1.commitments).isdisjoint(p3.commitments)
    verify_shuffle(first, out1, TABLE.pk, p1, b"ctx")
    verify_shuffle(second, out2, TABLE.pk, p2, b"ctx")
    verify_shuffle(first, out3, other_key, p3, b"ctx")

"""ElGamal under a joint key: homomorphism, re-encryption, proven key and decryption shares."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from toolkit_table import Table

from spycraft.crypto.elgamal import (
    Ciphertext,
    DecryptionShare,
    KeyShare,
    ciphertext_sum,
    combine,
    decrypt_with_secret,
    decryption_share,
    encrypt,
    make_key_share,
    reencrypt,
    verify_decryption_share,
    verify_key_share,
)
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import Point, Scalar, scalar_sum

Ctx = Callable[..., bytes]


def test_joint_decryption_recovers_the_message(table3: Table, entropy: SeededEntropy,
                                               context: Ctx) -> None:
    m = Point.hash_to("test", "m")
    ct = reencrypt(encrypt(table3.pk, m, Scalar.random(entropy)), table3.pk,
                   Scalar.random(entropy))
    shares = [decryption_share(ct, x, context(i, 5), entropy)
              for i, x in enumerate(table3.secrets)]
    for i, share in enumerate(shares):
        verify_decryption_share(ct, table3.publics[i], share, context(i, 5))
    assert combine(ct, [s.share for s in shares]) == m
    assert decrypt_with_secret(ct, scalar_sum(table3.secrets)) == m


def test_ciphertexts_add_their_plaintexts(table3: Table, entropy: SeededEntropy) -> None:
    a, b = Point.hash_to("test", "a"), Point.hash_to("test", "b")
    total = ciphertext_sum([encrypt(table3.pk, a, Scalar.random(entropy)),
                            encrypt(table3.pk, b, Scalar.random(entropy))])
    assert decrypt_with_secret(total, scalar_sum(table3.secrets)) == a + b


def test_key_shares_verify_and_reject_replay(table3: Table, context: Ctx) -> None:
    for i, share in enumerate(table3.shares):
        verify_key_share(KeyShare.decode(decode(encode(share.encode()))), context(i, 1))
    with pytest.raises(ProofError):
        verify_key_share(table3.shares[0], context(1, 1))  # seat 1 copies seat 0's share


def test_identity_key_share_is_rejected_on_decode(table3: Table) -> None:
    share = table3.shares[0].encode()
    with pytest.raises(MalformedValue):
        KeyShare.decode([bytes(32), share[1]])


def test_decryption_share_with_a_wrong_secret_is_rejected(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    ct = encrypt(table3.pk, Point.hash_to("test", "m"), Scalar.random(entropy))
    forged = decryption_share(ct, Scalar.random(entropy), context(0, 5), entropy,
                              public=table3.publics[0])
    with pytest.raises(ProofError):
        verify_decryption_share(ct, table3.publics[0], forged, context(0, 5))


def test_decryption_share_for_another_ciphertext_is_rejected(
        table3: Table, entropy: SeededEntropy, context: Ctx) -> None:
    ct1 = encrypt(table3.pk, Point.hash_to("test", "m"), Scalar.random(entropy))
    ct2 = encrypt(table3.pk, Point.hash_to("test", "m"), Scalar.random(entropy))
    share = decryption_share(ct1, table3.secrets[0], context(0, 5), entropy)
    with pytest.raises(ProofError):
        verify_decryption_share(ct2, table3.publics[0], share, context(0, 5))
    DecryptionShare.decode(decode(encode(share.encode())))


def test_make_key_share_matches_its_secret(entropy: SeededEntropy) -> None:
    x = Scalar.random(entropy)
    assert make_key_share(x, b"c", entropy).public == Point.base_mul(x)


@pytest.mark.parametrize("bad", [None, [b"x"], [bytes(32)], [bytes(32), b"\xff" * 32]])
def test_garbage_is_not_a_ciphertext(bad: object) -> None:
    with pytest.raises(MalformedValue):
        Ciphertext.decode(bad)

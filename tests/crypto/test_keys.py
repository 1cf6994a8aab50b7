"""Keys of small order or in a non-canonical encoding are refused wherever a key enters.

The small-order points are the public test vectors: the eight small-order Ed25519 encodings and
the non-canonical encodings of small-order points (libsodium's blocklist, and "Taming the many
EdDSAs", Chalkias et al. 2020), and the X25519 u-coordinates of small order with their
non-canonical forms (libsodium's ``has_small_order`` blocklist, RFC 7748 §6.1's remark).
"""

from __future__ import annotations

import ctypes

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from spycraft.crypto import sodium
from spycraft.crypto.errors import BadKey
from spycraft.crypto.identity import Identity, verify_signature
from spycraft.crypto.keys import check_identity_key, check_table_key
from spycraft.crypto.records import SeatKeys

ED25519_SMALL_ORDER = [bytes.fromhex(h) for h in (
    # the eight points of order 1, 2, 4 and 8, canonically encoded
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
)]
ED25519_NON_CANONICAL = [bytes.fromhex(h) for h in (
    "0100000000000000000000000000000000000000000000000000000000000080",  # identity, x = -0
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # order 2, x = -0
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # y = p + 1, x = -0
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # y = p
)]
X25519_SMALL_ORDER = [bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",  # u = 0 (order 4)
    "0100000000000000000000000000000000000000000000000000000000000000",  # u = 1 (order 1)
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",  # order 8
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",  # order 8
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # u = p - 1 (order 2)
)]
X25519_NON_CANONICAL = [bytes.fromhex(h) for h in (
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # u = p, i.e. 0
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # u = p + 1, i.e. 1
    "cdeb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",  # top bit set
    "4c9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",  # top bit set
    "d9ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # top bit set
    "daffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # top bit set
    "dbffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # top bit set
)]



def table_key(secret: bytes) -> bytes:
    """A seat's X25519 table key, as ``engines.seat.table_key_public`` derives it."""
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes_raw()


HONEST_IDENTITY = Identity(bytes(range(32))).public
HONEST_TABLE_KEY = table_key(bytes(range(1, 33)))
IDENTITY_POINT = ED25519_SMALL_ORDER[0]


def test_honest_keys_pass() -> None:
    for seed in range(20):
        check_identity_key(Identity(bytes([seed]) * 32).public)
        check_table_key(table_key(bytes([seed]) * 32))


@pytest.mark.parametrize("key", ED25519_SMALL_ORDER + ED25519_NON_CANONICAL, ids=bytes.hex)
def test_a_small_order_or_non_canonical_identity_key_is_refused(key: bytes) -> None:
    with pytest.raises(BadKey, match=r"identity key \(Ed25519\): not a canonical point"):
        check_identity_key(key)


def _ed25519_add(p: bytes, q: bytes) -> bytes:
    """p + q through libsodium (test support: a key with a torsion component)."""
    out = ctypes.create_string_buffer(32)
    add = sodium._lib.crypto_core_ed25519_add
    add.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    assert add(out, p, q) == 0
    return out.raw


@pytest.mark.parametrize("torsion", ED25519_SMALL_ORDER[1:], ids=bytes.hex)
def test_an_honest_identity_key_plus_a_small_order_point_is_refused(torsion: bytes) -> None:
    mixed = _ed25519_add(HONEST_IDENTITY, torsion)
    assert mixed != HONEST_IDENTITY
    with pytest.raises(BadKey, match="prime-order subgroup"):
        check_identity_key(mixed)


def test_under_the_identity_point_one_signature_signs_everything_but_not_for_spycraft() -> None:
    # R = identity, S = 0 satisfies S*B == R + k*A for every message when A is the identity:
    # a cofactorless verifier like OpenSSL's accepts it. This is why keys are checked at the door
    # and why spycraft's one verifier (libsodium's) refuses small-order keys as well.
    universal = IDENTITY_POINT + bytes(32)
    openssl = Ed25519PublicKey.from_public_bytes(IDENTITY_POINT)
    for message in (b"seat 1 votes yes", b"seat 1 abandons"):
        openssl.verify(universal, message)  # raises if it does not verify
        assert not verify_signature(IDENTITY_POINT, universal, message)
    with pytest.raises(BadKey):
        SeatKeys("mallory", IDENTITY_POINT, HONEST_TABLE_KEY, bytes(32))


def test_spycraft_verifies_exactly_the_honest_signatures() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    message = b"record"
    signature = key.sign(message)
    assert verify_signature(HONEST_IDENTITY, signature, message)
    assert not verify_signature(HONEST_IDENTITY, signature, message + b"!")
    assert not verify_signature(
        HONEST_IDENTITY, signature[:63] + bytes([signature[63] ^ 1]), message
    )
    assert not verify_signature(HONEST_IDENTITY[:31], signature, message)
    assert not verify_signature(HONEST_IDENTITY, signature[:63], message)
    # S + L is the same signature in a non-canonical form: refused (strict, as every peer must be)
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signature[32:], "little") + order
    assert s < 2**256
    assert not verify_signature(HONEST_IDENTITY, signature[:32] + s.to_bytes(32, "little"), message)


@pytest.mark.parametrize("key", X25519_SMALL_ORDER, ids=bytes.hex)
def test_a_small_order_table_key_is_refused(key: bytes) -> None:
    with pytest.raises(BadKey, match=r"table key \(X25519\): of small order"):
        check_table_key(key)


@pytest.mark.parametrize("key", X25519_NON_CANONICAL, ids=bytes.hex)
def test_a_non_canonical_table_key_is_refused(key: bytes) -> None:
    with pytest.raises(BadKey, match=r"table key \(X25519\): non-canonical"):
        check_table_key(key)


def test_the_small_order_table_keys_give_everyone_the_same_shared_secret() -> None:
    # why they are refused: a value sealed to such a key is readable by anyone
    for key in X25519_SMALL_ORDER:
        for secret in (bytes(range(32)), bytes(range(5, 37))):
            with pytest.raises(ValueError):  # cryptography: the shared secret would be all zeros
                private = X25519PrivateKey.from_private_bytes(secret)
                private.exchange(X25519PublicKey.from_public_bytes(key))


@pytest.mark.parametrize("key", [b"", bytes(31), bytes(33), "ab" * 16, None])
def test_a_key_of_the_wrong_length_or_type_is_refused(key: object) -> None:
    for check in (check_identity_key, check_table_key):
        with pytest.raises(BadKey, match="must be 32 bytes"):
            check(key)  # type: ignore[arg-type, unused-ignore]


@pytest.mark.parametrize("identity, table_key", [
    (IDENTITY_POINT, HONEST_TABLE_KEY),
    (HONEST_IDENTITY, X25519_SMALL_ORDER[0]),
    (HONEST_IDENTITY, X25519_NON_CANONICAL[2]),
])
def test_no_seat_keys_hold_a_bad_key(identity: bytes, table_key: bytes) -> None:
    with pytest.raises(BadKey):
        SeatKeys("seat", identity, table_key, bytes(32))
    SeatKeys("seat", HONEST_IDENTITY, HONEST_TABLE_KEY, bytes(32))

"""Public keys from peers: refuse any identity or table key that is not a safe, canonical key.

Theory of operation: a seat brings two public keys to a table, an Ed25519 identity key (signs
records, genesis and hellos) and an X25519 table key (in the genesis and the hello; no game seals
to it any more: seals go to a seat's key share in the group, ``crypto.seal``). Both arrive from
a peer (hello, lobby roster, genesis, a transcript file), so both are checked where they enter,
once, by these two functions; the hot path (signature verification) then uses them as they are.

* ``check_identity_key``: 32 bytes that libsodium validates as a canonical encoding of a point
  on the curve, not of small order, and that are in the prime-order subgroup by an exact test
  in libsodium's arithmetic (``sodium.ed25519_is_valid_point`` says why libsodium's own
  subgroup test is not enough). A small-order key is the dangerous one: under the identity
  point, for instance, the "signature" (R = identity, S = 0) verifies for every message with a
  cofactorless verifier such as OpenSSL's, so anyone could sign for that seat.
* ``check_table_key``: 32 bytes, a canonical u-coordinate (u < 2**255 - 19, top bit clear),
  and not of small order. The order test is an X25519 exchange with a fixed private key through
  ``cryptography``: the clamped scalar is a multiple of the cofactor, so the shared secret is
  all zeros exactly when the key lies in the small subgroup, and ``cryptography`` refuses that
  result. A value sealed to such a key would be readable by anyone (its shared secret is public).

Both raise ``BadKey`` naming the key and the reason; the caller adds whose key it was.
No curve arithmetic here: libsodium and ``cryptography`` do it.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from spycraft.crypto.errors import BadKey
from spycraft.crypto.sodium import ed25519_is_valid_point

KEY_BYTES = 32
_FIELD_PRIME = 2**255 - 19
# Any private key serves the order test; this one is fixed so the check is deterministic.
_PROBE = X25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def _check_length(key: object, which: str) -> bytes:
    if not isinstance(key, bytes) or len(key) != KEY_BYTES:
        raise BadKey(which, f"must be {KEY_BYTES} bytes")
    return key


def check_identity_key(key: bytes) -> None:
    """Raise ``BadKey`` unless ``key`` is a canonical Ed25519 key in the prime-order subgroup."""
    which = "identity key (Ed25519)"
    key = _check_length(key, which)
    if not ed25519_is_valid_point(key):
        raise BadKey(which, "not a canonical point of the prime-order subgroup "
                     "(small order, mixed order, off the curve or non-canonical)")


def check_table_key(key: bytes) -> None:
    """Raise ``BadKey`` unless ``key`` is a canonical X25519 public key not of small order."""
    which = "table key (X25519)"
    key = _check_length(key, which)
    if key[31] & 0x80:
        raise BadKey(which, "non-canonical (the top bit is set)")
    if int.from_bytes(key, "little") >= _FIELD_PRIME:
        raise BadKey(which, "non-canonical (u is not below 2**255 - 19)")
    try:
        _PROBE.exchange(X25519PublicKey.from_public_bytes(key))
    except ValueError:
        raise BadKey(which, "of small order (every shared secret with it is zero)") from None

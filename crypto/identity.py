"""Ed25519 identities: the long-term key a player is known by, and its human-checkable fingerprint.

Theory of operation: an identity is created once per user (the CLI stores it under the user's
config directory, mode 0600; this module never touches files). Its public half signs records and
hellos. The fingerprint is what two friends read aloud across the table to be sure they are
seated with each other: 20 base32 characters of a SHA-256 of the public key, in groups of four.

Verification: ``verify_signature`` is the one Ed25519 verifier of the program (records, genesis
signatures, hellos): libsodium's, through ``crypto.sodium``. All peers must accept exactly the
same signatures, and libsodium's rule is the strict one (canonical S; no small-order or
non-canonical key or R); it is also about twice as fast as OpenSSL's here (54 vs 104 us), which
halves the largest cost of an audit. Signing stays with ``cryptography`` (Ed25519 signatures are
deterministic, so either library gives the same bytes). Keys are checked once where they enter
(``crypto.keys``), not on every verification.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import cached_property

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from spycraft.crypto.hashing import tagged_hash
from spycraft.crypto.sodium import ed25519_verify


def fingerprint(public_key: bytes) -> str:
    """A short human-checkable name for a public key, e.g. ``K7QF-2MZD-XH4A-7TNB-C3PW``."""
    letters = base64.b32encode(tagged_hash("fingerprint", public_key)).decode()[:20]
    return "-".join(letters[i : i + 4] for i in range(0, 20, 4))


def verify_signature(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True when ``signature`` is a valid Ed25519 signature of ``message`` under ``public_key``."""
    if not (isinstance(public_key, bytes) and isinstance(signature, bytes)
            and isinstance(message, bytes)):
        return False
    return ed25519_verify(public_key, signature, message)


@dataclass(frozen=True)
class Identity:
    """A private Ed25519 identity."""

    secret: bytes  # the 32-byte private seed

    def __post_init__(self) -> None:
        if len(self.secret) != 32:
            raise ValueError("an Ed25519 private seed is 32 bytes")

    @cached_property
    def _key(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.secret)

    @cached_property
    def public(self) -> bytes:
        return self._key.public_key().public_bytes_raw()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def __repr__(self) -> str:  # never print the secret
        return f"Identity({self.fingerprint})"

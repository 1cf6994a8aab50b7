"""Ed25519 identities: the long-term key a player is known by, and its human-checkable fingerprint.

Theory of operation: an identity is created once per user (the CLI stores it under the user's
config directory, mode 0600; this module never touches files). Its public half signs records and
hellos. The fingerprint is what two friends read aloud across the table to be sure they are
seated with each other: 20 base32 characters of a SHA-256 of the public key, in groups of four.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from spycraft.crypto.hashing import tagged_hash


def fingerprint(public_key: bytes) -> str:
    """A short human-checkable name for a public key, e.g. ``K7QF-2MZD-XH4A-9TNB-C3PW``."""
    letters = base64.b32encode(tagged_hash("fingerprint", public_key)).decode()[:20]
    return "-".join(letters[i : i + 4] for i in range(0, 20, 4))


def verify_signature(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True when ``signature`` is a valid Ed25519 signature of ``message`` under ``public_key``."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


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
        return self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def __repr__(self) -> str:  # never print the secret
        return f"Identity({self.fingerprint})"

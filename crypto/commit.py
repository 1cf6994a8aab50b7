"""Hash commitments: bind a value now, open it later.

A commitment is SHA-256 over canonical CBOR of [domain tag, purpose, value, 32-byte nonce]
(``tagged_hash``). It hides the value while the nonce is secret (the nonce has 256 bits of
entropy) and binds it because SHA-256 is collision resistant. The purpose string keeps a
commitment made for one use from being opened for another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spycraft.crypto.errors import EncodingError
from spycraft.crypto.hashing import tagged_hash

NONCE_BYTES = 32


@dataclass(frozen=True)
class Commitment:
    digest: bytes
    purpose: str

    @classmethod
    def to(cls, purpose: str, value: Any, nonce: bytes) -> Commitment:
        if len(nonce) != NONCE_BYTES:
            raise ValueError("a commitment nonce is 32 bytes")
        return cls(tagged_hash("commit/" + purpose, [value, nonce]), purpose)

    def opens_to(self, value: Any, nonce: bytes) -> bool:
        """True when (value, nonce) opens this commitment."""
        if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
            return False
        try:
            return Commitment.to(self.purpose, value, nonce).digest == self.digest
        except EncodingError:  # a value that cannot even be encoded opens nothing
            return False

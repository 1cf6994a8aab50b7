"""The one way spycraft hashes: SHA-256 over the canonical CBOR of [domain, value].

Every hash names its purpose (the domain), so a value hashed for one use can never be mistaken
for a value hashed for another (a commitment for a record id, a beacon step for a challenge).
"""

from __future__ import annotations

import hashlib
from typing import Any

from spycraft.crypto.encoding import encode


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()  # the standard library: no Hash object per call


def tagged_hash(domain: str, value: Any) -> bytes:
    """SHA-256 of canonical CBOR ``[domain, value]``: 32 bytes."""
    return sha256(encode(["spycraft/" + domain, value]))


def uniform_from(seed: bytes, index: int, k: int) -> int:
    """The ``index``-th uniform integer in ``[0, k)`` derived from a public random seed.

    Each value takes 256 fresh bits; reducing them modulo k < 2**32 leaves a bias below 2**-224.
    """
    if not 0 < k < 1 << 32:
        raise ValueError("uniform range must be 1..2**32-1")
    wide = int.from_bytes(tagged_hash("uniform", [seed, index, k]), "big")
    return wide % k

"""Where secrets come from: an ``Entropy`` hands out labelled, independent byte strings.

Theory of operation: the sans-IO cores never read the OS or a clock. Whoever runs a seat passes
it an ``Entropy``. Real play draws every root secret (identities, each seat's master secret, bot
choices) from the operating system's CSPRNG (``spycraft.p2p.entropy``); only ``spycraft
selfplay`` and tests seed a ``SeededEntropy`` with a user-given number, so that a selfplay run is
reproducible byte for byte. ``SeededEntropy`` is also the deterministic stream a seat derives
from its own master secret for one record (``derive_secret``), so a record rebuilt after a
crash has the same bytes; there its seed is a CSPRNG secret, never a user's number.
``child(label)`` gives an independent stream for one purpose (one seat, one table key, one bot),
so adding a draw in one place never shifts the secrets drawn elsewhere.
"""

from __future__ import annotations

from typing import Protocol

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from spycraft.crypto.encoding import encode


class Entropy(Protocol):
    def take(self, n: int) -> bytes:
        """n fresh secret bytes."""
        ...

    def child(self, label: str) -> Entropy:
        """An independent stream for one purpose."""
        ...


class SeededEntropy:
    """A deterministic stream from a seed: HKDF-SHA256 over the seed, the path and a counter."""

    def __init__(self, seed: bytes | int, path: tuple[str, ...] = ()) -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(32, "big", signed=False)
        self._seed = seed
        self._path = path
        self._counter = 0

    def take(self, n: int) -> bytes:
        self._counter += 1
        info = encode(["spycraft/seeded-entropy", list(self._path), self._counter])
        return HKDF(algorithm=hashes.SHA256(), length=n, salt=None, info=info).derive(self._seed)

    def child(self, label: str) -> SeededEntropy:
        return SeededEntropy(self._seed, self._path + (label,))



def below(entropy: Entropy, k: int) -> int:
    """A uniform integer in [0, k) from any entropy source (bias < 2**-200 for small k)."""
    if k <= 0:
        raise ValueError("empty range")
    return int.from_bytes(entropy.take(32), "big") % k


def derive_secret(master: bytes, *label: str | int, n: int = 32) -> bytes:
    """A secret derived from a seat's master secret for one labelled purpose.

    A seat keeps a single 32-byte master secret per table (persisted, mode 0600) and derives every
    nonce, key and permutation from it, so a seat that crashes resumes with the same secrets.
    """
    info = encode(["spycraft/seat-secret", list(label)])
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=None, info=info).derive(master)

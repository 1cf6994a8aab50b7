"""Helpers for the toolkit tests: a small table of seats with key shares, record contexts."""

from __future__ import annotations

from dataclasses import dataclass

from spycraft.crypto.elgamal import KeyShare, joint_key, make_key_share
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.group import Point, Scalar


@dataclass(frozen=True)
class Table:
    secrets: tuple[Scalar, ...]
    shares: tuple[KeyShare, ...]

    @property
    def publics(self) -> tuple[Point, ...]:
        return tuple(s.public for s in self.shares)

    @property
    def pk(self) -> Point:
        return joint_key(self.publics)


def ctx(seat: int, seq: int, what: str = "") -> bytes:
    """A record context as an engine would build it: table id, seq, seat."""
    return b"table-1|" + f"{seq}|{seat}|{what}".encode()


def make_table(seats: int, seed: int = 7) -> Table:
    entropy = SeededEntropy(seed)
    secrets = tuple(Scalar.random(entropy.child(f"key{i}")) for i in range(seats))
    shares = tuple(make_key_share(x, ctx(i, 1), entropy.child(f"proof{i}"))
                   for i, x in enumerate(secrets))
    return Table(secrets, shares)

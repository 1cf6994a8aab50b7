"""Proofs this process made itself, so that its own check of its own record does not make them
twice (issue 21: "a seat does not verify its own proofs again").

Theory of operation
-------------------
A seat checks every record it takes into its chain, its own too (``p2p.protocol``: the engine
does not know which seat is local). The proofs in the record it just wrote are the ones its
provers have just made, so checking them again is the cost of making them a second time: a
tenth of a ten-seat setup's checks, each seat's own shuffle the largest.

A ``Vouched`` is the set of proofs made while it is current (``vouching``, a context variable:
each trio task and each worker thread has its own). While one is current, every prover of the
toolkit adds the digest of what it proved (``made``: the proof's kind, its context, its
statement as the verifier reads it, and the proof's encoding) and every verifier returns at once
for a digest the set holds (``holds``); for anything else it checks in full. The session makes
one current around the building of its own record and around its own check of that record, and
nowhere else, so a peer's record, an audit, a replay and a record resumed from disk after a
crash are all checked in full.

Why it holds
------------
* **A vouched proof is one its verifier accepts.** Only a prover adds a digest, and only after
  it checked with its witness that its statement holds (``active``): the public values it was
  handed are the witness's (a Schnorr key is ``secret * base``, a shuffle's outputs are its
  inputs permuted and re-encrypted with the witness's randomness, every equation of a linear
  relation sums). That costs a few scalar multiplications, fewer than the verifier's check,
  which has no witness to use. A prover handed a false statement (a caller's bug: the provers
  never refuse one) vouches for nothing, so its proof fails our own check as it fails everyone
  else's (red team 16 proved eight provers would otherwise have vouched for a lie). The
  toolkit's tests hold each prover to its verifier. So skipping the check changes no outcome:
  the state is the one a full check gives, byte for byte, and our seat's engine stays where
  every other seat's is.
* **A digest vouches for one statement, in one context, in one encoding.** It is SHA-256 over
  the canonical CBOR of everything the verifier reads (``crypto.hashing.tagged_hash``), so a proof
  made for one statement vouches for no other, and a proof changed in one bit is checked in full.
* **Nothing a peer sends adds a digest.** Digests come only from our provers while our own build
  is under way, and they are read only while our own record is checked. A record of another seat
  that carries our proof's bytes is checked outside any ``Vouched``, in full.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from spycraft.crypto.hashing import tagged_hash


class Encodable(Protocol):
    def encode(self) -> object: ...


class Vouched:
    """The digests of the proofs made while this set was current."""

    __slots__ = ("_digests",)

    def __init__(self) -> None:
        self._digests: set[bytes] = set()

    def __len__(self) -> int:
        return len(self._digests)


_current: ContextVar[Vouched | None] = ContextVar("spycraft.crypto.vouch", default=None)


@contextmanager
def vouching(vouched: Vouched) -> Iterator[Vouched]:
    """Make ``vouched`` current: provers add to it, verifiers trust what it holds."""
    token = _current.set(vouched)
    try:
        yield vouched
    finally:
        _current.reset(token)


def _digest(kind: str, context: bytes, statement: object, proof: Encodable | bytes) -> bytes:
    encoded = proof if isinstance(proof, bytes) else proof.encode()
    return tagged_hash("vouch/" + kind, [context, statement, encoded])


def active() -> bool:
    """Whether a ``Vouched`` is current: a prover then checks its statement with its witness,
    and only if it holds says so with ``made``."""
    return _current.get() is not None


def made(kind: str, context: bytes, statement: object, proof: Encodable | bytes) -> None:
    """A prover's word that ``proof`` of ``statement`` verifies, given once it checked with its
    witness that the statement holds (kept only while a ``Vouched`` is current)."""
    vouched = _current.get()
    if vouched is not None:
        vouched._digests.add(_digest(kind, context, statement, proof))


def holds(kind: str, context: bytes, statement: object, proof: Encodable | bytes) -> bool:
    """True when this very proof of this very statement was made under the current ``Vouched``."""
    vouched = _current.get()
    return vouched is not None and _digest(kind, context, statement, proof) in vouched._digests

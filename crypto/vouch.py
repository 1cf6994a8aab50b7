"""Proofs this process made itself, so that its own check of its own record does not make them
twice (issue 21: "a seat does not verify its own proofs again").

Theory of operation
-------------------
A seat checks every record it takes into its chain, its own too (``p2p.protocol``: the engine
does not know which seat is local). The proofs in the record it just wrote are the ones its
provers have just made, so checking them again is the cost of making them a second time: a
tenth of a ten-seat setup's checks, each seat's own shuffle the largest.

A ``Vouched`` holds the proofs made while it is current (``vouching``, a context variable: each
trio task and each worker thread has its own). While one is current, every prover of the
toolkit files what it proved (``made``: the proof's kind, its context, its statement as the
verifier reads it, and the proof's encoding, by their digest) with a check of that statement by
its witness: that the public values it was handed are the witness's (a Schnorr key is
``secret * base``, a shuffle's outputs are its inputs permuted and re-encrypted with the
witness's randomness, every equation of a linear relation sums). A verifier, while one is
current, looks the proof up (``holds``): for a proof filed there it runs that check instead of
its own, and for anything else it checks in full. The session makes one current around the
building of its own record and around its own check of that record, and nowhere else, so a
peer's record, an audit, a replay and a record resumed from disk after a crash are all checked
in full.

The witness's check costs a few scalar multiplications, fewer than the verifier's (which has no
witness to use: a tenth of a shuffle's check, a quarter of a decryption share's); it is run at
our own check, which comes after the record was sent (``p2p.protocol``: our record leaves
first), so the next writer never waits on it, and a prover's cost is what it was. The filings
hold their witnesses until then: the session drops the ``Vouched`` with its own check.

Why it holds
------------
* **A proof passes our own check only if its verifier would pass it.** Only a prover files a
  proof, and the proof it makes verifies whenever its statement holds (the toolkit's tests hold
  each prover to its verifier); the witness's check says whether it holds. A prover handed a
  false statement (a caller's bug: no prover refuses one; red team 16 showed eight that would
  otherwise have been vouched for) fails that check, and our own check refuses the record as
  everyone else's does. So the state is the one a full check gives, byte for byte, and our
  seat's engine stays where every other seat's is.
* **A witness's check that fails in any way asks for the full check.** It returns True or it
  does not vouch: an exception in it (a bug of ours) is a False, so our own check is the
  verifier's, never a crash of the session over a record everyone else accepts (red team 16,
  round 2).
* **A filing covers one statement, in one context, in one encoding.** Its digest is SHA-256 over
  the canonical CBOR of everything the verifier reads (``crypto.hashing.tagged_hash``), so a
  proof made for one statement vouches for no other, and a proof changed in one bit is checked
  in full.
* **Nothing a peer sends files a proof.** Filings come only from our provers while our own build
  is under way, and they are read only while our own record is checked. A record of another
  seat that carries our proof's bytes is checked outside any ``Vouched``, in full.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from spycraft.crypto.hashing import tagged_hash


class Encodable(Protocol):
    def encode(self) -> object: ...


class Vouched:
    """The proofs made while this set was current, each with its witness's check."""

    __slots__ = ("_checks",)

    def __init__(self) -> None:
        self._checks: dict[bytes, Callable[[], bool]] = {}

    def __len__(self) -> int:
        return len(self._checks)


_current: ContextVar[Vouched | None] = ContextVar("spycraft.crypto.vouch", default=None)


@contextmanager
def vouching(vouched: Vouched) -> Iterator[Vouched]:
    """Make ``vouched`` current: provers file into it, verifiers look their proofs up in it."""
    token = _current.set(vouched)
    try:
        yield vouched
    finally:
        _current.reset(token)


def _digest(kind: str, context: bytes, statement: object, proof: Encodable | bytes) -> bytes:
    encoded = proof if isinstance(proof, bytes) else proof.encode()
    return tagged_hash("vouch/" + kind, [context, statement, encoded])


def made(kind: str, context: bytes, statement: object, proof: Encodable | bytes,
         witnessed: Callable[[], bool]) -> None:
    """A prover's filing: ``proof`` of ``statement``, and ``witnessed``, which says with the
    witness whether the statement holds (kept only while a ``Vouched`` is current). ``witnessed``
    must read only what it was given as it was when proven (tuples, points, scalars): a caller
    may change a list it passed, after the proof (red team 16, round 2)."""
    vouched = _current.get()
    if vouched is not None:
        vouched._checks[_digest(kind, context, statement, proof)] = witnessed


def holds(kind: str, context: bytes, statement: object, proof: Encodable | bytes) -> bool:
    """True when this very proof of this very statement was filed under the current
    ``Vouched`` and its witness shows that the statement holds; False asks for a full check."""
    vouched = _current.get()
    if vouched is None:
        return False
    witnessed = vouched._checks.get(_digest(kind, context, statement, proof))
    if witnessed is None:
        return False
    try:
        return witnessed() is True
    except Exception:  # noqa: BLE001 (a bug of ours in a filed check: the verifier decides)
        return False

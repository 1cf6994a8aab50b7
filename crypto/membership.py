"""Pedersen commitments to a value from a small public alphabet, with proofs of set membership.

Theory of operation: every value ``v`` of an alphabet (the 13 movement types of Confusion, say)
has its own group element ``V(v) = hash_to_point("membership/<domain>", v)``, so nobody knows a
discrete log between any two of them or to the generator G. A commitment to ``v`` with a secret
blinding scalar ``r`` is the point ``C = r*G + V(v)``: perfectly hiding (r is uniform), and binding
because two openings of one C would give log_G(V(a) - V(b)).

Set membership: "the committed value lies in S" is the statement "for some s in S, the prover
knows log_G(C - V(s))", a CDS OR over Schnorr branches (``proofs.prove_knows_one_of``) with base
G, so each branch costs one fixed-base and one variable-base multiplication. The challenge is
bound to the caller's ``context`` (table, seq, seat, kind) and to the commitment, the alphabet's
domain and S, so a proof made for one answer cannot be replayed for another answer, spy, turn or
table. A value outside S has no branch whose discrete log anybody knows: the proof cannot be made.

Opening: ``(value, blinding)``; ``opens`` checks it against the point. Commitments from peers go
through ``Commitment.decode``; a proof that does not verify raises ``ProofError``; bytes of the
wrong shape raise ``MalformedValue`` (both ``Unattributed``, attributed by the engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, Point, Scalar
from spycraft.crypto.proofs import OneOfProof, prove_knows_one_of, verify_knows_one_of


@lru_cache(maxsize=1024)
def value_point(domain: str, value: str) -> Point:
    """V(value): the alphabet's element for ``value`` (nobody knows its discrete log)."""
    return Point.hash_to("membership/" + domain, value)


def _context(context: bytes, commitment: Commitment, domain: str, allowed: Sequence[str]
             ) -> bytes:
    # The OR-proof hashes its publics C - V(s); binding the names of S and the domain too makes
    # the statement explicit in the transcript of the challenge.
    return encode([context, commitment.point.encode(), domain, list(allowed)])


@dataclass(frozen=True, slots=True)
class Commitment:
    """A Pedersen commitment ``r*G + V(value)`` to one value of an alphabet."""

    point: Point

    def encode(self) -> bytes:
        return self.point.encode()

    @classmethod
    def decode(cls, value: object) -> Commitment:
        return cls(Point.decode(value))

    def opens(self, domain: str, value: str, blinding: Scalar) -> bool:
        return Point.base_mul(blinding) + value_point(domain, value) == self.point


def commit(domain: str, value: str, blinding: Scalar) -> Commitment:
    """The commitment to ``value`` with the secret ``blinding`` (a uniform nonzero scalar)."""
    return Commitment(Point.base_mul(blinding) + value_point(domain, value))


def new_blinding(entropy: Entropy) -> Scalar:
    return Scalar.random(entropy)


def _publics(commitment: Commitment, domain: str, allowed: Sequence[str]) -> list[Point]:
    return [commitment.point - value_point(domain, v) for v in allowed]


def prove_member(commitment: Commitment, domain: str, value: str, blinding: Scalar,
                 allowed: Sequence[str], context: bytes, entropy: Entropy) -> OneOfProof:
    """Prove that ``commitment`` (to ``value`` with ``blinding``) holds a value of ``allowed``.

    ``ValueError`` if ``value`` is not in ``allowed``: a true statement is the only one a caller
    can ask for (a false one has no proof).
    """
    if value not in allowed:
        raise ValueError(f"{value!r} is not in the set: no proof exists")
    if len(set(allowed)) != len(allowed):
        raise ValueError("the allowed set lists a value twice")
    publics = _publics(commitment, domain, allowed)
    bound = _context(context, commitment, domain, allowed)
    return prove_knows_one_of(GENERATOR, publics, allowed.index(value),
                              blinding, bound, entropy)


def verify_member(commitment: Commitment, domain: str, allowed: Sequence[str], proof: OneOfProof,
                  context: bytes) -> None:
    """Raise ``ProofError`` unless ``proof`` shows the committed value lies in ``allowed``."""
    if not allowed or len(set(allowed)) != len(allowed):
        raise ProofError("a membership proof needs a set of distinct values")
    publics = _publics(commitment, domain, allowed)
    bound = _context(context, commitment, domain, allowed)
    verify_knows_one_of(GENERATOR, publics, proof, bound)


def decode_proof(value: object, allowed: Sequence[str]) -> OneOfProof:
    """A membership proof from a peer, for a set of ``len(allowed)`` values."""
    if not allowed:
        raise MalformedValue("a membership proof needs a nonempty set")
    return OneOfProof.decode(value, len(allowed))

"""Non-interactive sigma proofs over ristretto255: Schnorr, Chaum-Pedersen and CDS OR-proofs.

Theory of operation: each proof is a three-move sigma protocol made non-interactive with
Fiat-Shamir. The challenge is ``Scalar.from_hash("proof/<kind>", [context, statement,
commitments])``: the proof kind (domain separation), the caller's ``context`` bytes (which MUST
bind table id, seq and seat, so a proof cannot be replayed in another record, table or seat's
name), the full statement (every base and public value) and the prover's commitments.

Proofs travel in challenge form ``(challenge, response)``: the verifier recomputes the
commitments from the response (A = s*B - e*X) and checks that hashing them gives the challenge
back. This is equivalent to sending the commitments and is half the size.

Nonces are hedged: ``w = H(fresh entropy, witness, statement, context)``. A seat that resumes
from a deterministic entropy stream after a crash would otherwise reuse a nonce on a different
statement and leak its key; with the witness and statement in the hash, equal nonces only occur
for equal proofs.

Failures: a proof that does not verify raises ``ProofError``; bytes that are not a proof raise
``MalformedValue``. Both are ``Unattributed``: the engine re-raises them with
``exc.attribute(seat, seq)`` as ``InvalidProof`` / ``MalformedRecord``.

Statements proved here:
- ``prove_dlog``: knowledge of x with X = x*B (key shares, ElGamal randomness).
- ``prove_equal_dlogs``: one x with X1 = x*B1 and X2 = x*B2 (decryption shares, reveal tokens).
- ``prove_encrypts_one_of``: the ElGamal ciphertext (c1, c2) under pk encrypts one of the listed
  points M_k (CDS: a disjunction of the Chaum-Pedersen statements (G, c1, pk, c2 - M_k)).
- ``prove_knows_one_of``: knowledge of log_B(X_k) for one of the listed X_k (CDS over Schnorr
  branches; ``crypto.membership`` proves a Pedersen-committed value lies in a set with it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.crypto import vouch
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, ZERO, Point, Scalar, decode_scalars, scalar_sum


def _challenge(kind: str, context: bytes, statement: list[bytes], commitments: list[bytes]
               ) -> Scalar:
    return Scalar.from_hash("proof/" + kind, [context, statement, commitments])


def hedged_nonce(kind: str, seed: bytes, witness: list[bytes], statement: list[Any],
                 context: bytes, label: int = 0) -> Scalar:
    """A proof nonce from a fresh 32-byte seed, hedged with the witness and what is proved.

    ``label`` tells apart the several nonces one proof draws from one seed.
    """
    return Scalar.from_hash("proof-nonce/" + kind, [seed, witness, statement, context, label])


def _enc(points: Sequence[Point]) -> list[bytes]:
    return [p.encode() for p in points]


@dataclass(frozen=True, slots=True)
class SchnorrProof:
    """Knowledge of the discrete log of a public point: (challenge, response)."""

    challenge: Scalar
    response: Scalar

    def encode(self) -> list[bytes]:
        return [self.challenge.encode(), self.response.encode()]

    @classmethod
    def decode(cls, value: object) -> SchnorrProof:
        e, s = decode_scalars(value, count=2)
        return cls(e, s)


def prove_dlog(secret: Scalar, public: Point, context: bytes, entropy: Entropy,
               base: Point = GENERATOR) -> SchnorrProof:
    """Prove knowledge of ``secret`` with ``public = secret * base``."""
    statement = _enc([base, public])
    w = hedged_nonce("schnorr", entropy.take(32), [secret.encode()], statement, context)
    e = _challenge("schnorr", context, statement, [(base * w).encode()])
    proof = SchnorrProof(e, w + e * secret)
    vouch.made("schnorr", context, statement, proof, lambda: base * secret == public)
    return proof


def verify_dlog(public: Point, proof: SchnorrProof, context: bytes, base: Point = GENERATOR
                ) -> None:
    """Raise ``ProofError`` unless the proof shows knowledge of log_base(public)."""
    statement = _enc([base, public])
    if vouch.holds("schnorr", context, statement, proof):
        return
    commitment = base * proof.response - public * proof.challenge
    if _challenge("schnorr", context, statement, [commitment.encode()]) != proof.challenge:
        raise ProofError("Schnorr proof of knowledge does not verify")


@dataclass(frozen=True, slots=True)
class EqualityProof:
    """Chaum-Pedersen: log_B1(X1) == log_B2(X2), as (challenge, response)."""

    challenge: Scalar
    response: Scalar

    def encode(self) -> list[bytes]:
        return [self.challenge.encode(), self.response.encode()]

    @classmethod
    def decode(cls, value: object) -> EqualityProof:
        e, s = decode_scalars(value, count=2)
        return cls(e, s)


def prove_equal_dlogs(secret: Scalar, base1: Point, public1: Point, base2: Point, public2: Point,
                      context: bytes, entropy: Entropy) -> EqualityProof:
    """Prove ``public1 = secret * base1`` and ``public2 = secret * base2`` for one secret."""
    statement = _enc([base1, public1, base2, public2])
    w = hedged_nonce("chaum-pedersen", entropy.take(32), [secret.encode()], statement, context)
    commitments = _enc([base1 * w, base2 * w])
    e = _challenge("chaum-pedersen", context, statement, commitments)
    proof = EqualityProof(e, w + e * secret)
    vouch.made("chaum-pedersen", context, statement, proof,
               lambda: base1 * secret == public1 and base2 * secret == public2)
    return proof


def verify_equal_dlogs(base1: Point, public1: Point, base2: Point, public2: Point,
                       proof: EqualityProof, context: bytes) -> None:
    """Raise ``ProofError`` unless log_base1(public1) == log_base2(public2) is proven."""
    statement = _enc([base1, public1, base2, public2])
    if vouch.holds("chaum-pedersen", context, statement, proof):
        return
    e, s = proof.challenge, proof.response
    commitments = _enc([base1 * s - public1 * e, base2 * s - public2 * e])
    if _challenge("chaum-pedersen", context, statement, commitments) != e:
        raise ProofError("Chaum-Pedersen proof of equal discrete logs does not verify")


@dataclass(frozen=True, slots=True)
class OneOfProof:
    """CDS OR-proof that an ElGamal ciphertext encrypts one of k known points.

    One (challenge, response) pair per candidate; the challenges add up to the Fiat-Shamir
    challenge, so the prover can simulate all branches but one.
    """

    challenges: tuple[Scalar, ...]
    responses: tuple[Scalar, ...]

    def encode(self) -> list[list[bytes]]:
        return [[e.encode() for e in self.challenges], [s.encode() for s in self.responses]]

    @classmethod
    def decode(cls, value: object, candidates: int) -> OneOfProof:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("an OR-proof is [challenges, responses]")
        return cls(decode_scalars(value[0], count=candidates),
                   decode_scalars(value[1], count=candidates))


def _one_of_statement(pk: Point, c1: Point, c2: Point, candidates: Sequence[Point]
                      ) -> list[bytes]:
    return _enc([GENERATOR, pk, c1, c2, *candidates])


def prove_encrypts_one_of(pk: Point, c1: Point, c2: Point, candidates: Sequence[Point],
                          index: int, randomness: Scalar, context: bytes, entropy: Entropy
                          ) -> OneOfProof:
    """Prove (c1, c2) = (r*G, candidates[index] + r*pk) without saying which index."""
    if not 0 <= index < len(candidates):
        raise IndexError("the plaintext index is not among the candidates")
    statement = _one_of_statement(pk, c1, c2, candidates)
    seed = entropy.take(32)
    challenges: list[Scalar] = []
    responses: list[Scalar] = []
    commitments: list[bytes] = []
    witness = [randomness.encode(), index.to_bytes(4, "big")]
    w = hedged_nonce("one-of", seed, witness, statement, context)
    for k, m in enumerate(candidates):
        if k == index:
            challenges.append(ZERO)
            responses.append(w)
            commitments += _enc([GENERATOR * w, pk * w])
            continue
        ek = hedged_nonce("one-of", seed, witness, statement, context, 2 * k + 1)
        sk = hedged_nonce("one-of", seed, witness, statement, context, 2 * k + 2)
        challenges.append(ek)
        responses.append(sk)
        commitments += _enc([Point.base_mul(sk) - c1 * ek, pk * sk - (c2 - m) * ek])
    e = _challenge("one-of", context, statement, commitments)
    real = e - scalar_sum(challenges)
    challenges[index] = real
    responses[index] = w + real * randomness
    proof = OneOfProof(tuple(challenges), tuple(responses))
    plaintext = candidates[index]  # as proven (a caller may change its list after)
    vouch.made("one-of", context, statement, proof,
               lambda: Point.base_mul(randomness) == c1 and plaintext + pk * randomness == c2)
    return proof


def verify_encrypts_one_of(pk: Point, c1: Point, c2: Point, candidates: Sequence[Point],
                           proof: OneOfProof, context: bytes) -> None:
    """Raise ``ProofError`` unless (c1, c2) provably encrypts one of ``candidates`` under pk."""
    if len(proof.challenges) != len(candidates) or len(proof.responses) != len(candidates):
        raise ProofError("OR-proof has the wrong number of branches")
    statement = _one_of_statement(pk, c1, c2, candidates)
    if vouch.holds("one-of", context, statement, proof):
        return
    commitments: list[bytes] = []
    for m, ek, sk in zip(candidates, proof.challenges, proof.responses):
        commitments += _enc([Point.base_mul(sk) - c1 * ek, pk * sk - (c2 - m) * ek])
    e = _challenge("one-of", context, statement, commitments)
    if scalar_sum(proof.challenges) != e:
        raise ProofError("OR-proof (ciphertext encrypts one of the allowed values) does not verify")



def _knows_one_of_statement(base: Point, publics: Sequence[Point]) -> list[bytes]:
    return _enc([base, *publics])


def prove_knows_one_of(base: Point, publics: Sequence[Point], index: int, secret: Scalar,
                       context: bytes, entropy: Entropy) -> OneOfProof:
    """CDS OR of Schnorr proofs: knowledge of log_base(publics[k]) for some k, unnamed.

    ``publics[index] = secret * base``; every other branch is simulated. The proof has the
    layout of ``OneOfProof`` (one challenge and one response per branch).
    """
    if not 0 <= index < len(publics):
        raise IndexError("the witness branch is not among the statements")
    statement = _knows_one_of_statement(base, publics)
    seed = entropy.take(32)
    witness = [secret.encode(), index.to_bytes(4, "big")]
    w = hedged_nonce("knows-one-of", seed, witness, statement, context)
    challenges: list[Scalar] = []
    responses: list[Scalar] = []
    commitments: list[bytes] = []
    for k, public in enumerate(publics):
        if k == index:
            challenges.append(ZERO)
            responses.append(w)
            commitments.append((base * w).encode())
            continue
        ek = hedged_nonce("knows-one-of", seed, witness, statement, context, 2 * k + 1)
        sk = hedged_nonce("knows-one-of", seed, witness, statement, context, 2 * k + 2)
        challenges.append(ek)
        responses.append(sk)
        commitments.append((base * sk - public * ek).encode())
    e = _challenge("knows-one-of", context, statement, commitments)
    real = e - scalar_sum(challenges)
    challenges[index] = real
    responses[index] = w + real * secret
    proof = OneOfProof(tuple(challenges), tuple(responses))
    public = publics[index]  # as proven (a caller may change its list after)
    vouch.made("knows-one-of", context, statement, proof, lambda: base * secret == public)
    return proof


def verify_knows_one_of(base: Point, publics: Sequence[Point], proof: OneOfProof,
                        context: bytes) -> None:
    """Raise ``ProofError`` unless the prover knows log_base of one of ``publics``."""
    if len(proof.challenges) != len(publics) or len(proof.responses) != len(publics):
        raise ProofError("OR-proof has the wrong number of branches")
    statement = _knows_one_of_statement(base, publics)
    if vouch.holds("knows-one-of", context, statement, proof):
        return
    commitments = [(base * sk - public * ek).encode()
                   for public, ek, sk in zip(publics, proof.challenges, proof.responses)]
    e = _challenge("knows-one-of", context, statement, commitments)
    if scalar_sum(proof.challenges) != e:
        raise ProofError("OR-proof (knowledge of one of the discrete logs) does not verify")

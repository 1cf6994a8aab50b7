"""Sigma proofs of linear relations over ristretto255: one prover and one verifier for them all.

Theory of operation: a ``Relation`` says "I know scalars w_0 .. w_{m-1} such that, for every
equation j, Y_j = sum_i w_i * B_ji", each ``Equation`` being a public point Y_j and its terms
(witness index i, base B_ji). Schnorr (one witness, one equation), Chaum-Pedersen (one witness,
two equations) and a verifiable encryption of a decryption share (two witnesses, three
equations, ``crypto.seal``) are all such relations; this module is the one sigma protocol behind
them (Maurer's proof of knowledge of a preimage under a group homomorphism), made
non-interactive with Fiat-Shamir in the style of ``crypto.proofs``:

- the prover draws one nonce n_i per witness, hedged: ``H(fresh seed, witnesses, statement,
  context, i)``, so a seat that resumes from a deterministic stream never reuses a nonce on
  another statement;
- commits A_j = sum_i n_i * B_ji for every equation;
- takes the challenge e = ``Scalar.from_hash("proof/linear/<name>", [context, statement, A])``;
- answers s_i = n_i + e * w_i.

The proof travels in challenge form ``[e, s_0, .., s_{m-1}]``: the verifier recomputes
A_j = sum_i s_i * B_ji - e * Y_j and checks that hashing them gives e back.

Why it holds. Soundness: two accepting answers (s, s') to one commitment under challenges
e != e' give every witness, w_i = (s_i - s'_i) / (e - e'); the challenge is a hash of the
commitments, so without the witnesses a prover passes with probability about q / L after q hash
queries. Zero knowledge: for any challenge, uniform responses and the commitments they imply
(``commitments_for``, the simulator) are distributed exactly like an honest prover's
transcript, so a proof says nothing but that the relation holds.

Binding: the statement hashed is the relation's ``name`` (domain separation: a proof made for
one use never verifies for another), the witness count, and every equation's public point, its
witness indices and its bases; ``context`` (the caller's record context: game, table, seq,
seat, kind) ties the proof to one record, so it cannot be replayed elsewhere.

The prover does not check that its witnesses satisfy the relation: the APIs built on it compute
every public point from the witnesses themselves (a false statement only yields a proof that
fails for everyone). ``Relation`` refuses, as a programming error, an equation without terms, a
witness index out of range, a witness used twice in one equation, and a witness no equation
uses (its response would be a free value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spycraft.crypto import vouch
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import ProofError
from spycraft.crypto.group import Point, Scalar, decode_scalars
from spycraft.crypto.proofs import hedged_nonce

MAX_WITNESSES = 8  # the relations spycraft proves have at most two; a bound for decoding


@dataclass(frozen=True, slots=True)
class Equation:
    """Y = sum of w_i * B over ``terms`` ((witness index, base) pairs)."""

    public: Point
    terms: tuple[tuple[int, Point], ...]


@dataclass(frozen=True, slots=True)
class Relation:
    """What a linear proof proves: knowledge of ``witnesses`` scalars satisfying every equation."""

    name: str
    witnesses: int
    equations: tuple[Equation, ...]

    def __post_init__(self) -> None:
        if not 1 <= self.witnesses <= MAX_WITNESSES or not self.equations:
            raise ValueError("a relation has 1 to 8 witnesses and at least one equation")
        used: set[int] = set()
        for equation in self.equations:
            indices = [i for i, _ in equation.terms]
            if not indices or len(set(indices)) != len(indices):
                raise ValueError("an equation names each of its witnesses once, and at least one")
            if any(not 0 <= i < self.witnesses for i in indices):
                raise ValueError("a term names a witness the relation does not have")
            used.update(indices)
        if len(used) != self.witnesses:
            raise ValueError("every witness appears in some equation")

    def statement(self) -> list[object]:
        """What the challenge binds: the name, the witness count, and every equation in full."""
        return [
            self.name,
            self.witnesses,
            [
                [e.public.encode(), [[i, base.encode()] for i, base in e.terms]]
                for e in self.equations
            ],
        ]


@dataclass(frozen=True, slots=True)
class LinearProof:
    """A proof of a ``Relation`` in challenge form: the challenge and one response per witness."""

    challenge: Scalar
    responses: tuple[Scalar, ...]

    def encode(self) -> list[bytes]:
        return [self.challenge.encode(), *(s.encode() for s in self.responses)]

    @classmethod
    def decode(cls, value: object, witnesses: int) -> LinearProof:
        """A proof from a peer for a relation of ``witnesses`` witnesses (``MalformedValue``)."""
        scalars = decode_scalars(value, count=witnesses + 1)
        return cls(scalars[0], scalars[1:])


def _challenge(relation: Relation, context: bytes, statement: list[object],
               commitments: Sequence[Point]) -> Scalar:
    return Scalar.from_hash(
        "proof/linear/" + relation.name, [context, statement, [a.encode() for a in commitments]]
    )


def commitments_for(relation: Relation, challenge: Scalar, responses: Sequence[Scalar]
                    ) -> tuple[Point, ...]:
    """A_j = sum_i s_i * B_ji - e * Y_j: the commitments an answer implies (verifier's side)."""
    found = []
    for equation in relation.equations:
        acc = equation.public * -challenge
        for i, base in equation.terms:
            acc = acc + base * responses[i]
        found.append(acc)
    return tuple(found)


def prove(relation: Relation, witnesses: Sequence[Scalar], context: bytes, entropy: Entropy
          ) -> LinearProof:
    """Prove knowledge of ``witnesses`` for ``relation``, bound to ``context``."""
    if len(witnesses) != relation.witnesses:
        raise ValueError(f"the relation has {relation.witnesses} witnesses")
    seed = entropy.take(32)
    bound = relation.statement()
    statement = [relation.name, bound]
    secret = [w.encode() for w in witnesses]
    nonces = [
        hedged_nonce("linear/" + relation.name, seed, secret, statement, context, i)
        for i in range(relation.witnesses)
    ]
    commitments = []
    for equation in relation.equations:
        terms = iter(equation.terms)
        i, base = next(terms)
        acc = base * nonces[i]
        for i, base in terms:
            acc = acc + base * nonces[i]
        commitments.append(acc)
    e = _challenge(relation, context, bound, commitments)
    proof = LinearProof(e, tuple(n + e * w for n, w in zip(nonces, witnesses)))
    equations = tuple((eq.public, tuple(eq.terms)) for eq in relation.equations)  # as proven
    known = tuple(witnesses)
    vouch.made("linear", context, bound, proof, lambda: _holds(equations, known))
    return proof


def _holds(equations: Sequence[tuple[Point, Sequence[tuple[int, Point]]]],
           witnesses: Sequence[Scalar]) -> bool:
    """Whether ``witnesses`` satisfy every equation (public, terms): the witness's check of a
    proof filed with ``crypto.vouch``."""
    for public, terms in equations:
        acc = public
        for i, base in terms:
            acc = acc - base * witnesses[i]
        if not acc.is_identity():
            return False
    return True


def verify(relation: Relation, proof: LinearProof, context: bytes) -> None:
    """Raise ``ProofError`` unless ``proof`` shows knowledge of witnesses for ``relation``."""
    if len(proof.responses) != relation.witnesses:
        raise ProofError(f"a proof of {relation.name} has {relation.witnesses} responses")
    bound = relation.statement()
    if vouch.holds("linear", context, bound, proof):
        return
    commitments = commitments_for(relation, proof.challenge, proof.responses)
    if _challenge(relation, context, bound, commitments) != proof.challenge:
        raise ProofError(f"proof of {relation.name} does not verify")

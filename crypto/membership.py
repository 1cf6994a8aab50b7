"""Commitments to values from a small public alphabet, with proofs of set membership and of being
a permutation of the alphabet.

Theory of operation
-------------------
Every value ``v`` of an alphabet (the 13 movement types of Confusion, the ranks of Spies & Lies)
has its own group element ``V(v) = hash_to_point("membership/<domain>", v)``, and the alphabet
shares one *binding base* ``H = hash_to_point("membership/binding-base", "H")``, so nobody knows
a discrete log between any two of G, H and the V(v). A commitment to ``v`` with a secret blinding
scalar ``r`` is the pair

    C = r*G + V(v)        (the Pedersen part: what membership proofs are about)
    D = r*H               (the binding tag)

which is the ElGamal encryption of V(v) under the public key H, with its two components in the
order (V(v) + r*G, r*H) that ``crypto.elgamal.reencrypt`` produces from the pair (V(v), 0), the
commitment with r = 0.

* **Binding** is perfect: D fixes r (H generates the group), and then C fixes V(v); an opening
  ``(v, r)`` is checked by ``opens``.
* **Hiding** is computational (DDH in ristretto255): ``(G, H, C - V(s), D)`` is a Diffie-Hellman
  tuple exactly when s = v, so telling which value a commitment holds is deciding DDH with
  nobody knowing log_G H. (The bare Pedersen commitment C alone was perfectly hiding and only
  computationally binding; the tag trades the one for the other, and is what lets a shuffle
  prove what all the commitments hold together.)

**Set membership** (``prove_member``): "the committed value lies in S" is the statement "for
some s in S, the prover knows log_G(C - V(s))", a CDS OR over Schnorr branches
(``proofs.prove_knows_one_of``) with base G, one fixed-base and one variable-base
multiplication per branch. The proof is special honest-verifier zero knowledge (every branch is
simulated but one, and the challenges are uniform), so it shows membership and nothing else.
Soundness needs the committed value to be known to the extractor: a rewound proof yields sigma
with C - V(s) = sigma*G; with C = rho*G + V(t) (from the opening, or extracted from the
permutation proof below) that is V(t) - V(s) = (sigma - rho)*G, a discrete-log relation between
hash-to-group points, unless s = t. So no value outside S has a proof, under the discrete-log
assumption. The challenge is bound to the caller's ``context`` (table, seq, seat, kind), to both
points of the commitment, the alphabet's domain and S, so a proof made for one answer cannot be
replayed for another answer, spy, turn or table.

**Tuple membership** (``prove_row_member``): "the k committed values, read in order, are one
of the allowed rows" (a legal deployment of four Mission cards), as one CDS OR over the rows.
Weights ``w_1..w_k`` are hashed from the statement (context, commitments, domain, rows) before
anything else, and branch ``d`` proves knowledge of log_G(sum_i w_i*(C_i - V(d_i))), whose
witness is sum_i w_i*r_i when the committed row is d. If the committed row t differs from d, the
extracted relation is sum_i w_i*(V(t_i) - V(d_i)) = (sigma - sum_i w_i*r_i)*G: its coefficient
on some V(v) is a nonzero combination of the weights except with probability about
rows/2**252 over the weights (fixed after the commitments), so again a discrete-log relation. A
commitment whose C is not r*G plus any V(v) for the r its tag fixes can pass the OR but never
opens: such a cheat is a false opening the moment the card is revealed. Cost per row: one
fixed-base and one variable-base multiplication and k point subtractions (the products
w_i*V(v) are computed once per proof).

**Permutation of the alphabet** (``prove_permutation``): "the n commitments hold the n values
of the alphabet, each once, in some order" is exactly "the commitments, as ciphertexts (C, D),
are a re-encryption and permutation under the key H of the pairs (V(v), 0) of the alphabet in
its public order", which the toolkit's proof of a shuffle (``crypto.shuffle``, Terelius-Wikstrom
in the CHVote form) proves with soundness error about n/2**252. That proof's soundness does not
depend on anybody not knowing the key's discrete log. Its one computational assumption is the
binding of its own permutation commitment (generators G, h, h_1..h_n hashed under
"shuffle/generator", unrelated to H). The re-encryption part is a Chaum-Pedersen statement, that
the challenge-weighted sum of the outputs minus that of the permuted inputs is rho*(G, H) for
one rho, which is special-sound whatever anybody knows about log_G H; and as it holds for n
independent challenge vectors, each output minus its input is some rho_i*(G, H) (linear algebra
over the scalars, in the subgroup of such pairs). Here the prover knows every rho_i (they are
the blindings) and the permutation (it chose the order); nobody knows log_G H, which is what
keeps the commitments hiding. So the extractor of a verifying proof obtains the permutation pi
and every rho_i with (C_i, D_i) = (V(alphabet[pi(i)]) + rho_i*G, rho_i*H): every commitment opens
to a distinct value of the alphabet, which is also what the membership proofs above need to be
sound. The shuffle proof is honest-verifier zero knowledge and its nonces are hedged with the
witness, so it shows nothing about the order. Size for 13 values: 57 group elements and scalars
(1.9 KB in CBOR); ``benchmarks/bench_confusion.py`` measures its cost.

Opening: ``(value, blinding)``; ``opens`` checks both points. Commitments from peers go through
``Commitment.decode``, which refuses a tag that is the identity (r = 0 would make C show its
value); a proof that does not verify raises ``ProofError``; bytes of the wrong shape raise
``MalformedValue`` (both ``Unattributed``, attributed by the engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from spycraft.crypto.elgamal import Ciphertext
from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import GENERATOR, IDENTITY, Point, Scalar, point_sum, scalar_sum
from spycraft.crypto.proofs import OneOfProof, prove_knows_one_of, verify_knows_one_of
from spycraft.crypto.shuffle import ShuffleProof, ShuffleWitness, prove_shuffle, verify_shuffle

BINDING_BASE = Point.hash_to("membership/binding-base", "H")
"""H: the key the commitments are encryptions under (nobody knows log_G H)."""


@lru_cache(maxsize=1024)
def value_point(domain: str, value: str) -> Point:
    """V(value): the alphabet's element for ``value`` (nobody knows its discrete log)."""
    return Point.hash_to("membership/" + domain, value)


@dataclass(frozen=True, slots=True)
class Commitment:
    """``(r*G + V(value), r*H)``: a perfectly binding, DDH-hiding commitment to one value."""

    point: Point
    tag: Point

    def encode(self) -> list[bytes]:
        return [self.point.encode(), self.tag.encode()]

    @classmethod
    def decode(cls, value: object) -> Commitment:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a commitment is [point, tag]")
        return cls(Point.decode(value[0]), Point.decode(value[1], nonidentity=True))

    def opens(self, domain: str, value: str, blinding: Scalar) -> bool:
        return (BINDING_BASE * blinding == self.tag
                and Point.base_mul(blinding) + value_point(domain, value) == self.point)

    def ciphertext(self) -> Ciphertext:
        """The commitment as the ElGamal ciphertext (c1, c2) = (V(value) + r*G, r*H) under H."""
        return Ciphertext(self.point, self.tag)


def commit(domain: str, value: str, blinding: Scalar) -> Commitment:
    """The commitment to ``value`` with the secret ``blinding`` (a uniform nonzero scalar)."""
    return Commitment(Point.base_mul(blinding) + value_point(domain, value),
                      BINDING_BASE * blinding)


def new_blinding(entropy: Entropy) -> Scalar:
    return Scalar.random(entropy)


def _distinct(values: Sequence[object], what: str) -> None:
    if not values or len(set(values)) != len(values):
        raise ProofError(f"a membership proof needs {what} of distinct values")


# --- one committed value in a set ---------------------------------------------------------------


def _context(context: bytes, commitment: Commitment, domain: str, allowed: Sequence[str]
             ) -> bytes:
    # The OR-proof hashes its publics C - V(s); binding the tag, the names of S and the domain
    # too makes the statement explicit in the transcript of the challenge.
    return encode([context, commitment.encode(), domain, list(allowed)])


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
    _distinct(allowed, "a set")
    publics = _publics(commitment, domain, allowed)
    bound = _context(context, commitment, domain, allowed)
    verify_knows_one_of(GENERATOR, publics, proof, bound)


def decode_proof(value: object, allowed: Sequence[str]) -> OneOfProof:
    """A membership proof from a peer, for a set of ``len(allowed)`` values."""
    if not allowed:
        raise MalformedValue("a membership proof needs a nonempty set")
    return OneOfProof.decode(value, len(allowed))


# --- k committed values, read in order, are one of the allowed rows -----------------------------


def _row_statement(commitments: Sequence[Commitment], domain: str,
                   rows: Sequence[Sequence[str]], context: bytes) -> tuple[bytes, list[Scalar]]:
    bound = encode([context, [c.encode() for c in commitments], domain,
                    [list(row) for row in rows]])
    weights = [Scalar.from_hash("membership/row-weight", [bound, i])
               for i in range(len(commitments))]
    return bound, weights


def _row_publics(commitments: Sequence[Commitment], domain: str,
                 rows: Sequence[Sequence[str]], weights: Sequence[Scalar]) -> list[Point]:
    """sum_i w_i*(C_i - V(row_i)) for each row, with every w_i*V(v) computed once."""
    k = len(commitments)
    if any(len(row) != k for row in rows):
        raise ProofError(f"every allowed row must have {k} values")
    weighted = point_sum(c.point * w for c, w in zip(commitments, weights))
    products: dict[tuple[int, str], Point] = {}
    for row in rows:
        for i, v in enumerate(row):
            if (i, v) not in products:
                products[i, v] = value_point(domain, v) * weights[i]
    return [weighted - point_sum(products[i, v] for i, v in enumerate(row)) for row in rows]


def prove_row_member(commitments: Sequence[Commitment], domain: str, values: Sequence[str],
                     blindings: Sequence[Scalar], rows: Sequence[Sequence[str]], context: bytes,
                     entropy: Entropy) -> OneOfProof:
    """Prove that ``commitments`` (to ``values`` with ``blindings``) hold one of ``rows``.

    ``ValueError`` unless ``values`` is one of ``rows`` (only a true statement has a proof).
    """
    rows = [tuple(row) for row in rows]
    if tuple(values) not in rows:
        raise ValueError(f"{list(values)} is not an allowed row: no proof exists")
    if len(set(rows)) != len(rows):
        raise ValueError("the allowed rows list a row twice")
    bound, weights = _row_statement(commitments, domain, rows, context)
    publics = _row_publics(commitments, domain, rows, weights)
    witness = scalar_sum(w * r for w, r in zip(weights, blindings))
    return prove_knows_one_of(GENERATOR, publics, rows.index(tuple(values)), witness, bound,
                              entropy)


def verify_row_member(commitments: Sequence[Commitment], domain: str,
                      rows: Sequence[Sequence[str]], proof: OneOfProof, context: bytes) -> None:
    """Raise ``ProofError`` unless ``proof`` shows the commitments hold one of ``rows``."""
    rows = [tuple(row) for row in rows]
    _distinct(rows, "rows")
    bound, weights = _row_statement(commitments, domain, rows, context)
    verify_knows_one_of(GENERATOR, _row_publics(commitments, domain, rows, weights), proof,
                        bound)


# --- n commitments hold the n values of the alphabet --------------------------------------------


def _alphabet(domain: str, alphabet: Sequence[str]) -> list[Ciphertext]:
    """The pairs (V(v), 0) for the alphabet in its public order: r = 0 commitments to it."""
    return [Ciphertext(value_point(domain, v), IDENTITY) for v in alphabet]


def _permutation_context(context: bytes, domain: str, alphabet: Sequence[str]) -> bytes:
    return encode([context, "membership/permutation", domain, list(alphabet)])


def prove_permutation(commitments: Sequence[Commitment], domain: str, alphabet: Sequence[str],
                      values: Sequence[str], blindings: Sequence[Scalar], context: bytes,
                      entropy: Entropy) -> ShuffleProof:
    """Prove that ``commitments`` (to ``values`` with ``blindings``) hold every value of
    ``alphabet`` exactly once, without saying in which order.

    ``ValueError`` unless ``values`` is an ordering of ``alphabet``.
    """
    if sorted(values) != sorted(alphabet) or len(set(alphabet)) != len(alphabet):
        raise ValueError("the values are not an ordering of the alphabet: no proof exists")
    witness = ShuffleWitness(tuple(alphabet.index(v) for v in values),
                             tuple((r,) for r in blindings))
    return prove_shuffle(_alphabet(domain, alphabet), [c.ciphertext() for c in commitments],
                         BINDING_BASE, witness, _permutation_context(context, domain, alphabet),
                         entropy)


def verify_permutation(commitments: Sequence[Commitment], domain: str, alphabet: Sequence[str],
                       proof: ShuffleProof, context: bytes) -> None:
    """Raise ``ProofError`` unless the commitments provably hold each value of ``alphabet`` once."""
    _distinct(alphabet, "an alphabet")
    if len(commitments) != len(alphabet):
        raise ProofError(f"{len(commitments)} commitments cannot hold {len(alphabet)} values")
    try:
        verify_shuffle(_alphabet(domain, alphabet), [c.ciphertext() for c in commitments],
                       BINDING_BASE, proof, _permutation_context(context, domain, alphabet))
    except ProofError:
        raise ProofError(f"the {len(alphabet)} commitments are not proven to hold each value "
                         "once (the permutation proof does not verify)") from None


def decode_permutation_proof(value: object, alphabet: Sequence[str]) -> ShuffleProof:
    """A permutation proof from a peer, for an alphabet of ``len(alphabet)`` values."""
    return ShuffleProof.decode(value, len(alphabet))

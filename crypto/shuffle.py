"""Verifiable shuffle: re-encrypt and permute ElGamal ciphertexts, and prove it in zero knowledge.

Theory of operation: a shuffler turns inputs e_1..e_N into outputs e~_i = e_psi(i) +
Enc(0; r~_i) for a secret permutation psi and secret randomness r~_i, and proves that it did
without revealing psi. The proof is the Terelius-Wikstrom proof of a shuffle in the form the
CHVote specification writes out step by step (GenShuffleProof / CheckShuffleProof, Haenni et al.,
"Pseudo-code algorithms for verifiable re-encryption mix-nets", FC 2017), adapted to the
prime-order group ristretto255 and written additively:

1. Permutation commitment: c_psi(i) = r_psi(i)*G + h_i with independent generators h_i
   (``generators``: hash-to-point with a domain tag, so nobody knows relations between them).
2. Challenges u_1..u_N = H(context, pk, inputs, outputs, commitments); u'_i = u_psi(i).
3. Commitment chain: c^_0 = h, c^_i = r^_i*G + u'_i*c^_(i-1), so c^_N = r^*G + (prod u)*h.
4. A sigma protocol proves knowledge of (r-bar, r^, r', r~, r^_i, u'_i) with
     sum(c_j) - sum(h_i)   = r-bar*G                    (the commitment is to a permutation
     c^_N - (prod u_j)*h   = r^*G                        matrix: these two plus the chain)
     sum(u_j*c_j)          = r'*G + sum(u'_i*h_i)
     sum(u'_i*e~_i)        = sum(u_j*e_j) + Enc(0; r~)  (outputs re-encrypt permuted inputs)
     c^_i                  = r^_i*G + u'_i*c^_(i-1)
   with one Fiat-Shamir challenge over everything above. Challenges are full 252-bit scalars,
   so the soundness error is about N/2**252, far below the 2**-64 we need.

Rows: the same proof shuffles rows of w ciphertexts (one permutation for all columns, fresh
randomness for every ciphertext) at the cost of w copies of the last relation, so two decks can
be shuffled in lockstep (a role card and its recognition key, in ``recognition``). ``shuffle``,
``prove_shuffle`` and ``verify_shuffle`` are the one-column case.

The proof travels in challenge form (no t-values): the verifier recomputes them and re-hashes.
Nonces are hedged: one seed hashes fresh entropy, the witness (permutation, randomness) and the
whole statement (context, key, inputs, outputs), and every nonce is derived from that seed.
Cost for N ciphertexts: prover about 5N scalar multiplications + 4N base multiplications
(including the shuffle itself), verifier about 8N scalar multiplications + N base
multiplications, plus about 9N point additions each. ``benchmarks/bench_toolkit.py`` measures it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TypeVar

from spycraft.crypto import vouch
from spycraft.crypto.elgamal import Ciphertext, reencrypt
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import (
    ONE,
    ZERO,
    Point,
    Scalar,
    decode_points,
    decode_scalars,
    point_sum,
    scalar_sum,
)
from spycraft.crypto.hashing import tagged_hash, uniform_from

MAX_CIPHERTEXTS = 1024
MAX_WIDTH = 8

Row = tuple[Ciphertext, ...]


@cache
def _generator(index: int) -> Point:
    return Point.hash_to("shuffle/generator", index)


def generators(n: int) -> tuple[Point, tuple[Point, ...]]:
    """h and h_1..h_n: independent generators nobody knows a discrete-log relation between."""
    return _generator(0), tuple(_generator(i) for i in range(1, n + 1))


@lru_cache(maxsize=64)
def _generator_sum(n: int) -> Point:
    return point_sum(generators(n)[1])


@dataclass(frozen=True, slots=True)
class ShuffleWitness:
    """The shuffler's secret: output row i is input row permutation[i], re-encrypted column by
    column with randomness[i]."""

    permutation: tuple[int, ...]
    randomness: tuple[tuple[Scalar, ...], ...]


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    commitments: tuple[Point, ...]  # c_1..c_N, the permutation commitment
    chain: tuple[Point, ...]  # c^_1..c^_N, the commitment chain
    challenge: Scalar
    responses: tuple[Scalar, ...]  # s1, s2, s3, then s4 for each column
    chain_responses: tuple[Scalar, ...]  # s^_1..s^_N
    permutation_responses: tuple[Scalar, ...]  # s'_1..s'_N

    def encode(self) -> list[object]:
        return [
            [p.encode() for p in self.commitments],
            [p.encode() for p in self.chain],
            [self.challenge.encode(), *(s.encode() for s in self.responses)],
            [s.encode() for s in self.chain_responses],
            [s.encode() for s in self.permutation_responses],
        ]

    @classmethod
    def decode(cls, value: object, n: int, width: int = 1) -> ShuffleProof:
        if not isinstance(value, (list, tuple)) or len(value) != 5:
            raise MalformedValue("a shuffle proof is [commitments, chain, scalars, s^, s']")
        e, *responses = decode_scalars(value[2], count=4 + width)
        return cls(
            decode_points(value[0], count=n),
            decode_points(value[1], count=n),
            e,
            tuple(responses),
            decode_scalars(value[3], count=n),
            decode_scalars(value[4], count=n),
        )


def random_permutation(n: int, entropy: Entropy) -> tuple[int, ...]:
    """A uniform permutation of range(n) (Fisher-Yates over one 32-byte draw)."""
    seed = entropy.take(32)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_from(seed, i, i + 1)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def shuffle_rows(inputs: Sequence[Row], pk: Point, entropy: Entropy
                 ) -> tuple[tuple[Row, ...], ShuffleWitness]:
    """Permute rows and re-encrypt every ciphertext; returns outputs and the witness."""
    n = len(inputs)
    permutation = random_permutation(n, entropy)
    randomness = tuple(tuple(Scalar.random(entropy) for _ in row) for row in inputs)
    outputs = tuple(
        tuple(reencrypt(ct, pk, r) for ct, r in zip(inputs[permutation[i]], randomness[i]))
        for i in range(n))
    return outputs, ShuffleWitness(permutation, randomness)


def shuffle(inputs: Sequence[Ciphertext], pk: Point, entropy: Entropy
            ) -> tuple[tuple[Ciphertext, ...], ShuffleWitness]:
    """Permute and re-encrypt; returns the outputs and the witness for ``prove_shuffle``."""
    outputs, witness = shuffle_rows([(ct,) for ct in inputs], pk, entropy)
    return tuple(row[0] for row in outputs), witness


def _encode_rows(rows: Sequence[Row]) -> list[list[list[bytes]]]:
    return [[ct.encode() for ct in row] for row in rows]


def _statement_digest(context: bytes, pk: Point, inputs: Sequence[Row], outputs: Sequence[Row],
                      commitments: Sequence[Point]) -> bytes:
    return tagged_hash("shuffle/statement", [
        context, pk.encode(), _encode_rows(inputs), _encode_rows(outputs),
        [c.encode() for c in commitments],
    ])


def _challenges(digest: bytes, n: int) -> list[Scalar]:
    return [Scalar.from_hash("shuffle/u", [digest, j]) for j in range(n)]


def _challenge(digest: bytes, chain: Sequence[Point], t: Sequence[Point]) -> Scalar:
    return Scalar.from_hash("shuffle/challenge", [
        digest, [p.encode() for p in chain], [p.encode() for p in t]])


def _check_shape(inputs: Sequence[Row], outputs: Sequence[Row]) -> tuple[int, int]:
    """(N, width) of a shuffle; ``ProofError`` if the outputs cannot be a shuffle of the inputs."""
    n = len(inputs)
    if not 0 < n <= MAX_CIPHERTEXTS:
        raise MalformedValue(f"a shuffle takes 1..{MAX_CIPHERTEXTS} rows, not {n}")
    width = len(inputs[0])
    if not 0 < width <= MAX_WIDTH or any(len(row) != width for row in inputs):
        raise MalformedValue(f"shuffle rows must all have one width in 1..{MAX_WIDTH}")
    if len(outputs) != n or any(len(row) != width for row in outputs):
        raise ProofError(f"a shuffle of {n} rows of {width} produced something else")
    return n, width


def prove_shuffle_rows(inputs: Sequence[Row], outputs: Sequence[Row], pk: Point,
                       witness: ShuffleWitness, context: bytes, entropy: Entropy
                       ) -> ShuffleProof:
    """Prove that ``outputs`` re-encrypts a permutation of the rows ``inputs`` under pk."""
    n, width = _check_shape(inputs, outputs)
    psi, r_tilde = witness.permutation, witness.randomness
    h, hs = generators(n)
    # Hedged like every proof nonce (``proofs.hedged_nonce``): fresh entropy, the witness and the
    # whole statement. A replayed entropy stream (a resumed seat) then never reuses a nonce on
    # another statement, which would reveal the permutation from two proofs.
    seed = tagged_hash("shuffle/nonce-seed", [
        entropy.take(32), list(psi), [[r.encode() for r in row] for row in r_tilde], context,
        pk.encode(), _encode_rows(inputs), _encode_rows(outputs)])
    counter = iter(range(1 << 30))

    def nonce() -> Scalar:
        return Scalar.from_hash("shuffle/nonce", [seed, next(counter)])

    # 1. permutation commitment: c_psi(i) = r_psi(i)*G + h_i
    r = [nonce() for _ in range(n)]
    commitments = [Point.base_mul(rj) for rj in r]
    for i in range(n):
        commitments[psi[i]] = commitments[psi[i]] + hs[i]
    digest = _statement_digest(context, pk, inputs, outputs, commitments)
    u = _challenges(digest, n)
    u_prime = [u[psi[i]] for i in range(n)]

    # 2. commitment chain: c^_0 = h, c^_i = r^_i*G + u'_i*c^_(i-1)
    r_hat = [nonce() for _ in range(n)]
    chain: list[Point] = []
    previous = h
    for i in range(n):
        previous = Point.base_mul(r_hat[i]) + previous * u_prime[i]
        chain.append(previous)

    # 3. the aggregate witnesses
    r_bar = scalar_sum(r)
    v = ONE
    r_hat_total = ZERO
    for i in range(n - 1, -1, -1):
        r_hat_total = r_hat_total + r_hat[i] * v
        v = v * u_prime[i]
    r_prime = scalar_sum(r[j] * u[j] for j in range(n))
    r_tilde_total = [scalar_sum(r_tilde[i][k] * u_prime[i] for i in range(n))
                     for k in range(width)]

    # 4. sigma-protocol commitments t, then the challenge and responses
    w1, w2, w3 = nonce(), nonce(), nonce()
    w4 = [nonce() for _ in range(width)]
    w_hat = [nonce() for _ in range(n)]
    w_prime = [nonce() for _ in range(n)]
    t = [Point.base_mul(w1), Point.base_mul(w2), Point.base_mul(w3) + _lincomb(w_prime, hs)]
    for k in range(width):
        t.append(_lincomb(w_prime, [row[k].c1 for row in outputs]) - Point.base_mul(w4[k]))
        t.append(_lincomb(w_prime, [row[k].c2 for row in outputs]) - pk * w4[k])
    chain_before = [h, *chain[:-1]]
    t += [Point.base_mul(w_hat[i]) + chain_before[i] * w_prime[i] for i in range(n)]
    e = _challenge(digest, chain, t)

    proof = ShuffleProof(
        tuple(commitments),
        tuple(chain),
        e,
        (w1 + e * r_bar, w2 + e * r_hat_total, w3 + e * r_prime,
         *(w4[k] + e * r_tilde_total[k] for k in range(width))),
        tuple(w_hat[i] + e * r_hat[i] for i in range(n)),
        tuple(w_prime[i] + e * u_prime[i] for i in range(n)),
    )
    rows_in, rows_out = _frozen(inputs), _frozen(outputs)  # as proven
    permutation, randomness = tuple(psi), _frozen(r_tilde)
    vouch.made("shuffle", context, digest, proof,  # the digest binds context, pk, rows, c
               lambda: _is_shuffle(rows_in, rows_out, pk, permutation, randomness))
    return proof


T = TypeVar("T")


def _frozen(rows: Sequence[Sequence[T]]) -> tuple[tuple[T, ...], ...]:
    return tuple(tuple(row) for row in rows)


def _is_shuffle(inputs: Sequence[Row], outputs: Sequence[Row], pk: Point, psi: Sequence[int],
                randomness: Sequence[Sequence[Scalar]]) -> bool:
    """Whether ``outputs`` are ``inputs`` permuted by ``psi`` and re-encrypted with
    ``randomness``: the witness's check of a proof filed with ``crypto.vouch``."""
    if sorted(psi) != list(range(len(inputs))) or len(randomness) != len(outputs) or \
            any(len(r) != len(row) for r, row in zip(randomness, outputs)):
        return False
    return all(
        out == reencrypt(ct, pk, r)
        for i, row in enumerate(outputs)
        for out, ct, r in zip(row, inputs[psi[i]], randomness[i])
    )


def verify_shuffle_rows(inputs: Sequence[Row], outputs: Sequence[Row], pk: Point,
                        proof: ShuffleProof, context: bytes) -> None:
    """Raise ``ProofError`` unless ``outputs`` provably re-encrypts a permutation of ``inputs``."""
    n, width = _check_shape(inputs, outputs)
    if not (len(proof.commitments) == len(proof.chain) == len(proof.chain_responses)
            == len(proof.permutation_responses) == n) or len(proof.responses) != 3 + width:
        raise ProofError("shuffle proof sized for a different shuffle")
    c, chain, e = proof.commitments, proof.chain, proof.challenge
    digest = _statement_digest(context, pk, inputs, outputs, c)
    if vouch.holds("shuffle", context, digest, proof):
        return
    h, hs = generators(n)
    s1, s2, s3, *s4 = proof.responses
    s_hat, s_prime = proof.chain_responses, proof.permutation_responses
    u = _challenges(digest, n)
    neg_e = -e
    u_product = ONE
    for uj in u:
        u_product = u_product * uj
    # each t is rebuilt as (response terms) - e * (statement); -e*u_j is computed once
    neg_eu = [neg_e * uj for uj in u]
    c_bar = point_sum(c) - _generator_sum(n)
    c_hat = chain[-1] - h * u_product
    t = [Point.base_mul(s1) + c_bar * neg_e,
         Point.base_mul(s2) + c_hat * neg_e,
         Point.base_mul(s3) + _lincomb(s_prime, hs) + _lincomb(neg_eu, c)]
    for k in range(width):
        t.append(_lincomb(s_prime, [row[k].c1 for row in outputs])
                 + _lincomb(neg_eu, [row[k].c1 for row in inputs]) - Point.base_mul(s4[k]))
        t.append(_lincomb(s_prime, [row[k].c2 for row in outputs])
                 + _lincomb(neg_eu, [row[k].c2 for row in inputs]) - pk * s4[k])
    chain_before = [h, *chain[:-1]]
    t += [Point.base_mul(s_hat[i]) + chain_before[i] * s_prime[i] + chain[i] * neg_e
          for i in range(n)]
    if _challenge(digest, chain, t) != e:
        raise ProofError("shuffle proof does not verify")


def prove_shuffle(inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], pk: Point,
                  witness: ShuffleWitness, context: bytes, entropy: Entropy) -> ShuffleProof:
    """Prove that ``outputs`` is a re-encryption of a permutation of ``inputs`` under pk."""
    return prove_shuffle_rows([(ct,) for ct in inputs], [(ct,) for ct in outputs], pk,
                              witness, context, entropy)


def verify_shuffle(inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], pk: Point,
                   proof: ShuffleProof, context: bytes) -> None:
    """Raise ``ProofError`` unless ``outputs`` provably re-encrypts a permutation of ``inputs``."""
    verify_shuffle_rows([(ct,) for ct in inputs], [(ct,) for ct in outputs], pk, proof, context)


def shuffle_and_prove(inputs: Sequence[Ciphertext], pk: Point, context: bytes,
                      entropy: Entropy) -> tuple[tuple[Ciphertext, ...], ShuffleProof]:
    """Shuffle ``inputs`` and prove it: what a seat publishes for its turn at a shuffle."""
    outputs, witness = shuffle(inputs, pk, entropy)
    proof = prove_shuffle(inputs, outputs, pk, witness, context, entropy)
    return outputs, proof


def shuffle_rows_and_prove(inputs: Sequence[Row], pk: Point, context: bytes, entropy: Entropy
                           ) -> tuple[tuple[Row, ...], ShuffleProof]:
    """Shuffle rows of ciphertexts in lockstep and prove it."""
    outputs, witness = shuffle_rows(inputs, pk, entropy)
    proof = prove_shuffle_rows(inputs, outputs, pk, witness, context, entropy)
    return outputs, proof


def _lincomb(scalars: Sequence[Scalar], points: Sequence[Point]) -> Point:
    """sum(scalars[i] * points[i])."""
    return point_sum(p * s for s, p in zip(scalars, points))

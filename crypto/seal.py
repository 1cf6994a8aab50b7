"""Seals: a value only one seat may read, proven correct by everyone the moment it is sealed.

Theory of operation: a seal is an ElGamal encryption in the group under the receiver's public
key share R = x_R*G (each seat already has one per game: its deck key share, its role deal key
share), with a Fiat-Shamir proof bound to the record's proof context that the hidden value is
exactly what the rules require. Every engine checks the proof when the record arrives, so a
seal that would not open, or would open to the wrong value, is refused at that record and
blamed on its sender (``ProofError`` -> ``InvalidProof``); its receiver opens it with its own
secret and can never be left holding a seal that does not open.

Two kinds of value are sealed:

``SealedShare`` (a reveal token or a decryption share passed privately): the sender's share
  T = x_S*B of a base B (a card's c1) for its key share S = x_S*G, sealed as
  (E1, E2) = (k*G, T + k*R) with a ``crypto.linear`` proof of (x_S, k):
  S = x_S*G, E1 = k*G, E2 = x_S*B + k*R. The receiver computes T = E2 - x_R*E1
  (``open_sealed_share``); everyone has already checked that this is the sender's true share.
``SealedChoice`` (one of a public list of points, such as a Bullet or a Medkit): the point M
  sealed to the receiver and kept under the sender's own key with one randomness,
  (c1, to_receiver, to_sender) = (r*G, M + r*R, M + r*S), with an OR-proof
  (``crypto.proofs``) that (c1, to_sender) encrypts one of the candidates under S, and a linear
  proof of r with c1 = r*G and to_receiver - to_sender = r*(R - S): both columns hide the same
  M. The receiver reads its column, the sender's key opens the other at the final reveal, and
  ``own`` (the sender's column) adds up with the sender's other choices, so a rule such as "one
  of each" is one more proof (``elgamal.prove_plaintext``).

Reusing a game's key share is safe. Only the receiver's secret opens a seal, and the receiver
only ever publishes x_R*C for ciphertexts C whose c1 comes from a proven shuffle (a random point
fixed before the seal is made) or from an encryption with a proof of knowledge of its randomness
(a mission card, a recognition contribution). Getting x_R*E1 out of the receiver that way needs
a c1 with a known relation to E1 = k*G, that is, knowing k, which only the sender does, and the
sender already knows what it sealed. Shared randomness across two keys (``SealedChoice``) is
multi-recipient ElGamal, which hides M under DDH like a single encryption does.

Decoding refuses an E1 or a c1 that is the identity (it would publish the value in clear). The
randomness k (or r) is hedged like a proof nonce (``_randomness``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.crypto import linear
from spycraft.crypto.elgamal import Ciphertext
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue
from spycraft.crypto.group import GENERATOR, Point, Scalar
from spycraft.crypto.linear import Equation, LinearProof, Relation
from spycraft.crypto.proofs import (
    OneOfProof,
    hedged_nonce,
    prove_encrypts_one_of,
    verify_encrypts_one_of,
)


def _randomness(kind: str, entropy: Entropy, secret: list[bytes], statement: list[Any],
                context: bytes) -> Scalar:
    """The encryption's randomness, hedged like a proof nonce: fresh entropy, hashed with what
    is sealed, to whom and in which record, so a seat that rebuilds a record from its
    deterministic stream never uses one randomness for two different seals."""
    while True:
        k = hedged_nonce(kind, entropy.take(32), secret, statement, context)
        if not k.is_zero():
            return k


# --- a share sealed to a receiver -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SealedShare:
    """x_S*B sealed to R: (E1, E2) = (k*G, x_S*B + k*R) with its proof."""

    e1: Point
    e2: Point
    proof: LinearProof

    def encode(self) -> list[object]:
        return [self.e1.encode(), self.e2.encode(), self.proof.encode()]

    @classmethod
    def decode(cls, value: object) -> SealedShare:
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            raise MalformedValue("a sealed share is [E1, E2, proof]")
        return cls(Point.decode(value[0], nonidentity=True), Point.decode(value[1]),
                   LinearProof.decode(value[2], 2))


def _share_relation(base: Point, sender: Point, receiver: Point, e1: Point, e2: Point
                    ) -> Relation:
    return Relation("seal/share", 2, (
        Equation(sender, ((0, GENERATOR),)),
        Equation(e1, ((1, GENERATOR),)),
        Equation(e2, ((0, base), (1, receiver))),
    ))


def seal_share(secret: Scalar, base: Point, receiver: Point, context: bytes, entropy: Entropy,
               sender: Point | None = None) -> SealedShare:
    """Seal this seat's share ``secret * base`` to the key ``receiver``, proven, for the record
    of ``context``. ``sender`` is ``secret * G`` when the caller has it already."""
    sender = Point.base_mul(secret) if sender is None else sender
    statement = [base.encode(), sender.encode(), receiver.encode()]
    k = _randomness("seal/share", entropy, [secret.encode()], statement, context)
    e1 = Point.base_mul(k)
    e2 = base * secret + receiver * k
    relation = _share_relation(base, sender, receiver, e1, e2)
    return SealedShare(e1, e2, linear.prove(relation, (secret, k), context, entropy))


def verify_sealed_share(sealed: SealedShare, base: Point, sender: Point, receiver: Point,
                        context: bytes) -> None:
    """Raise ``ProofError`` unless ``sealed`` holds the share of ``base`` for the key share
    ``sender``, sealed to ``receiver``, in the record of ``context``."""
    relation = _share_relation(base, sender, receiver, sealed.e1, sealed.e2)
    linear.verify(relation, sealed.proof, context)


def open_sealed_share(sealed: SealedShare, receiver_secret: Scalar) -> Point:
    """The receiver's side: the sealed share (verified by the engine when it was sealed)."""
    return sealed.e2 - sealed.e1 * receiver_secret


# --- one of a public list of points, sealed to a receiver and kept under the sender's key ----


@dataclass(frozen=True, slots=True)
class SealedChoice:
    """(c1, to_receiver, to_sender) = (r*G, M + r*R, M + r*S), M one of public candidates."""

    c1: Point
    to_receiver: Point
    to_sender: Point
    one_of: OneOfProof
    same: LinearProof

    @property
    def own(self) -> Ciphertext:
        """The sender's column: M encrypted under the sender's own key."""
        return Ciphertext(self.c1, self.to_sender)

    def encode(self) -> list[object]:
        return [self.c1.encode(), self.to_receiver.encode(), self.to_sender.encode(),
                self.one_of.encode(), self.same.encode()]

    @classmethod
    def decode(cls, value: object, candidates: int) -> SealedChoice:
        if not isinstance(value, (list, tuple)) or len(value) != 5:
            raise MalformedValue("a sealed choice is [c1, to receiver, to sender, OR-proof, "
                                 "proof of one plaintext]")
        return cls(Point.decode(value[0], nonidentity=True), Point.decode(value[1]),
                   Point.decode(value[2]), OneOfProof.decode(value[3], candidates),
                   LinearProof.decode(value[4], 1))


def _same_relation(choice_c1: Point, to_receiver: Point, to_sender: Point, sender: Point,
                   receiver: Point) -> Relation:
    return Relation("seal/choice", 1, (
        Equation(choice_c1, ((0, GENERATOR),)),
        Equation(to_receiver - to_sender, ((0, receiver - sender),)),
    ))


def seal_choice(candidates: Sequence[Point], index: int, sender: Point, receiver: Point,
                context: bytes, entropy: Entropy) -> SealedChoice:
    """Seal ``candidates[index]`` to ``receiver`` (and under ``sender``, the sealing seat's own
    key share), proven to be one of ``candidates``, for the record of ``context``."""
    statement = [[c.encode() for c in candidates], sender.encode(), receiver.encode()]
    r = _randomness("seal/choice", entropy, [index.to_bytes(4, "big")], statement, context)
    message = candidates[index]
    c1 = Point.base_mul(r)
    to_receiver = message + receiver * r
    to_sender = message + sender * r
    one_of = prove_encrypts_one_of(sender, c1, to_sender, candidates, index, r, context, entropy)
    relation = _same_relation(c1, to_receiver, to_sender, sender, receiver)
    same = linear.prove(relation, (r,), context, entropy)
    return SealedChoice(c1, to_receiver, to_sender, one_of, same)


def verify_sealed_choice(sealed: SealedChoice, candidates: Sequence[Point], sender: Point,
                         receiver: Point, context: bytes) -> None:
    """Raise ``ProofError`` unless ``sealed`` hides one of ``candidates`` for ``receiver``, the
    same under ``sender``'s key, in the record of ``context``."""
    verify_encrypts_one_of(sender, sealed.c1, sealed.to_sender, candidates, sealed.one_of,
                           context)
    relation = _same_relation(sealed.c1, sealed.to_receiver, sealed.to_sender, sender, receiver)
    linear.verify(relation, sealed.same, context)


def open_sealed_choice(sealed: SealedChoice, secret: Scalar, candidates: Sequence[Point],
                       *, as_sender: bool = False) -> int:
    """The index of the sealed candidate, read with the receiver's secret (or, ``as_sender``,
    with the sender's: the final reveal). The engine verified the seal, so it is one of them."""
    column = sealed.to_sender if as_sender else sealed.to_receiver
    point = column - sealed.c1 * secret
    try:
        return list(candidates).index(point)
    except ValueError:
        raise MalformedValue("the secret does not open this seal") from None

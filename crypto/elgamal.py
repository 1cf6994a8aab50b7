"""ElGamal over ristretto255 under a joint key: the ciphertexts decks, mixes and roles are made of.

Theory of operation: every seat i holds a key share x_i and publishes X_i = x_i*G with a Schnorr
proof of knowledge (``KeyShare``), which stops a seat from choosing its share as a function of
the others' (a rogue key). The joint public key is pk = sum(X_i); nobody knows its secret
sum(x_i) until every seat has opened its share at the final reveal.

A message is a point M; its encryption with randomness r is (c1, c2) = (r*G, M + r*pk).
Ciphertexts add component-wise (the plaintexts add), and ``reencrypt`` adds an encryption of the
identity, which changes the ciphertext but not the plaintext: the step a shuffle is made of.
``trivial(M)`` is the encryption with r = 0, which anyone can check: how a public deck starts.

Decryption is joint: seat i publishes a decryption share D_i = x_i*c1 with a Chaum-Pedersen
proof that log_G(X_i) == log_c1(D_i) (``DecryptionShare``); then M = c2 - sum(D_i). A deck's
reveal token is exactly such a share. A ciphertext under one seat's own key share can be proven
to hold a given plaintext without decrypting it in public (``prove_plaintext``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from spycraft.crypto import linear
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue
from spycraft.crypto.group import (
    GENERATOR,
    IDENTITY,
    Point,
    Scalar,
    point_sum,
)
from spycraft.crypto.linear import Equation, LinearProof, Relation
from spycraft.crypto.proofs import (
    EqualityProof,
    OneOfProof,
    SchnorrProof,
    prove_dlog,
    prove_encrypts_one_of,
    prove_equal_dlogs,
    verify_dlog,
    verify_encrypts_one_of,
    verify_equal_dlogs,
)


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """ElGamal ciphertext (c1, c2) = (r*G, M + r*pk)."""

    c1: Point
    c2: Point

    def __add__(self, other: Ciphertext) -> Ciphertext:
        return Ciphertext(self.c1 + other.c1, self.c2 + other.c2)

    def encode(self) -> list[bytes]:
        return [self.c1.encode(), self.c2.encode()]

    @classmethod
    def decode(cls, value: object) -> Ciphertext:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a ciphertext is [c1, c2]")
        return cls(Point.decode(value[0]), Point.decode(value[1]))


def encode_ciphertexts(cts: Sequence[Ciphertext]) -> list[list[bytes]]:
    return [ct.encode() for ct in cts]


def decode_ciphertexts(value: object, *, count: int | None = None) -> tuple[Ciphertext, ...]:
    if not isinstance(value, (list, tuple)):
        raise MalformedValue("expected a list of ciphertexts")
    if count is not None and len(value) != count:
        raise MalformedValue(f"expected {count} ciphertexts, got {len(value)}")
    return tuple(Ciphertext.decode(v) for v in value)


def encrypt(pk: Point, message: Point, randomness: Scalar) -> Ciphertext:
    return Ciphertext(Point.base_mul(randomness), message + pk * randomness)


def trivial(message: Point) -> Ciphertext:
    """The encryption of ``message`` with randomness zero: public, and checkable by anyone."""
    return Ciphertext(IDENTITY, message)


def reencrypt(ct: Ciphertext, pk: Point, randomness: Scalar) -> Ciphertext:
    """The same plaintext under fresh randomness: ct + Enc(identity; randomness)."""
    return Ciphertext(ct.c1 + Point.base_mul(randomness), ct.c2 + pk * randomness)


def ciphertext_sum(cts: Iterable[Ciphertext]) -> Ciphertext:
    items = list(cts)
    return Ciphertext(point_sum(c.c1 for c in items), point_sum(c.c2 for c in items))


def decrypt_with_secret(ct: Ciphertext, secret: Scalar) -> Point:
    """Decrypt with the whole secret key (after every share has been opened)."""
    return ct.c2 - ct.c1 * secret


# -- key shares -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyShare:
    """A seat's public key share X_i = x_i*G, with a proof that the seat knows x_i."""

    public: Point
    proof: SchnorrProof

    def encode(self) -> list[object]:
        return [self.public.encode(), self.proof.encode()]

    @classmethod
    def decode(cls, value: object) -> KeyShare:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a key share is [public, proof]")
        return cls(Point.decode(value[0], nonidentity=True), SchnorrProof.decode(value[1]))


def make_key_share(secret: Scalar, context: bytes, entropy: Entropy) -> KeyShare:
    public = Point.base_mul(secret)
    return KeyShare(public, prove_dlog(secret, public, context, entropy))


def verify_key_share(share: KeyShare, context: bytes) -> None:
    """Raise ``ProofError`` unless the share's owner proved knowledge of its secret."""
    if share.public.is_identity():
        raise MalformedValue("a key share must not be the identity")
    verify_dlog(share.public, share.proof, context)


def joint_key(publics: Iterable[Point]) -> Point:
    """The joint public key: the sum of every seat's public share."""
    return point_sum(publics)


def opened_share_matches(secret: Scalar, public: Point) -> bool:
    """At the final reveal: does an opened secret share belong to the public share?"""
    return Point.base_mul(secret) == public


# -- joint decryption -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecryptionShare:
    """D_i = x_i*c1 with a Chaum-Pedersen proof that it used the seat's key share."""

    share: Point
    proof: EqualityProof

    def encode(self) -> list[object]:
        return [self.share.encode(), self.proof.encode()]

    @classmethod
    def decode(cls, value: object) -> DecryptionShare:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a decryption share is [share, proof]")
        return cls(Point.decode(value[0]), EqualityProof.decode(value[1]))


def decryption_share(ct: Ciphertext, secret: Scalar, context: bytes, entropy: Entropy,
                     public: Point | None = None) -> DecryptionShare:
    """This seat's share of the decryption of ``ct``, proven."""
    public = Point.base_mul(secret) if public is None else public
    share = ct.c1 * secret
    return DecryptionShare(
        share, prove_equal_dlogs(secret, GENERATOR, public, ct.c1, share, context, entropy))


def verify_decryption_share(ct: Ciphertext, public: Point, share: DecryptionShare,
                            context: bytes) -> None:
    """Raise ``ProofError`` unless ``share`` is x*c1 for the x behind ``public``."""
    verify_equal_dlogs(GENERATOR, public, ct.c1, share.share, share.proof, context)


def combine(ct: Ciphertext, shares: Iterable[Point]) -> Point:
    """The plaintext, given every seat's (verified) decryption share."""
    return ct.c2 - point_sum(shares)


# -- well-formed encryptions ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProvenCiphertext:
    """A fresh ciphertext with an OR-proof that it encrypts one of a public list of points."""

    ciphertext: Ciphertext
    proof: OneOfProof

    def encode(self) -> list[object]:
        return [self.ciphertext.encode(), self.proof.encode()]

    @classmethod
    def decode(cls, value: object, candidates: int) -> ProvenCiphertext:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a proven ciphertext is [ciphertext, proof]")
        return cls(Ciphertext.decode(value[0]), OneOfProof.decode(value[1], candidates))


def encrypt_one_of(pk: Point, candidates: Sequence[Point], index: int, context: bytes,
                   entropy: Entropy) -> ProvenCiphertext:
    """Encrypt ``candidates[index]`` and prove it is one of ``candidates``."""
    r = Scalar.random(entropy)
    ct = encrypt(pk, candidates[index], r)
    proof = prove_encrypts_one_of(pk, ct.c1, ct.c2, candidates, index, r, context, entropy)
    return ProvenCiphertext(ct, proof)


def verify_one_of(pk: Point, candidates: Sequence[Point], proven: ProvenCiphertext,
                  context: bytes) -> None:
    """Raise ``ProofError`` unless the ciphertext encrypts one of ``candidates``."""
    ct = proven.ciphertext
    verify_encrypts_one_of(pk, ct.c1, ct.c2, candidates, proven.proof, context)


# -- what a ciphertext under one seat's own key holds -----------------------------------------


def _plaintext_relation(ct: Ciphertext, public: Point, message: Point) -> Relation:
    return Relation("elgamal/plaintext", 1, (
        Equation(public, ((0, GENERATOR),)),
        Equation(ct.c2 - message, ((0, ct.c1),)),
    ))


def prove_plaintext(ct: Ciphertext, secret: Scalar, message: Point, context: bytes,
                    entropy: Entropy, public: Point | None = None) -> LinearProof:
    """Prove that ``ct`` decrypts to ``message`` under this seat's key (c2 - M = x*c1 for the x
    behind ``public``), without publishing anything else: e.g. that the sum of a seat's sealed
    tools is one Bullet plus one Medkit."""
    public = Point.base_mul(secret) if public is None else public
    return linear.prove(_plaintext_relation(ct, public, message), (secret,), context, entropy)


def verify_plaintext(ct: Ciphertext, public: Point, message: Point, proof: LinearProof,
                     context: bytes) -> None:
    """Raise ``ProofError`` unless ``ct`` provably decrypts to ``message`` under ``public``."""
    linear.verify(_plaintext_relation(ct, public, message), proof, context)

"""Hidden-role recognition: the spies learn exactly who the spies are; nobody else learns a thing.

Theory of operation (DESIGN.md §5, The Resistance), with one change explained below.

1. Spy key. Every seat i posts Enc(S_i) for a random point S_i = s_i*G, with a Schnorr proof of
   knowledge of the ciphertext's randomness (``contribute`` / ``verify_contribution``). The proof,
   bound to the seat's context, makes each contribution plaintext-aware: the last seat to post
   cannot set its ciphertext to Enc(T) - sum(others) to force a spy key T that it knows, because
   it would not know the randomness of that c1. The homomorphic sum is Enc(S), S = sum(S_i),
   which nobody can decrypt while one seat keeps its key share.
2. Role deck. Each role card is a row of two ciphertexts (face, key):
   resistance = (Enc0(RESISTANCE face), Enc0(NO_KEY)), spy = (Enc0(SPY face), Enc(S)), where Enc0
   is the trivial encryption (randomness zero). Every engine rebuilds this deck from the
   contributions (``role_deck``), so nothing about it needs a proof or a re-randomisation step:
   the k spy rows share the one public Enc(S), and the first proven shuffle re-randomises every
   ciphertext. The rows are then shuffled in lockstep by every seat (``shuffle.
   shuffle_rows_and_prove``): before decryption, after one honest shuffle, a resistance card and
   a spy card are indistinguishable ciphertexts.
3. Deal: card j goes to seat j; every other seat publishes proven tokens for both ciphertexts of
   the row (``role_tokens``), and the owner adds its own (``read_card``). A spy learns S.
4. Tags: every seat publishes 32 bytes; a spy HMAC(KDF(S, context), seat), anyone else fresh
   random bytes (``spy_tag`` / ``resistance_tag``). Spies run ``recognise``; to a non-spy, an HMAC
   under an unknown key is indistinguishable from random bytes. (Blind Spies: no tags.)
5. Final reveal: key shares are opened, every row decrypts; ``audit_tags`` names any spy whose
   tag was wrong (it hid from its team) and any non-spy that posted a valid spy tag (it learned S
   from a spy and posed as one).

Why two columns: plot cards let a seat look at another seat's role (Overheard Conversation,
Establish Confidence, Open Up): the owner seals its token for the face column only. Were the
face itself S (as in the one-column design), a resistance member who looked at one spy would
learn S and recognise every spy from the tags.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from spycraft.crypto.deck import Faces
from spycraft.crypto.elgamal import (
    Ciphertext,
    DecryptionShare,
    ciphertext_sum,
    combine,
    decryption_share,
    encrypt,
    trivial,
    verify_decryption_share,
)
from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, ProofError
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.proofs import SchnorrProof, prove_dlog, verify_dlog

RESISTANCE = "resistance"
SPY = "spy"
ROLE_FACES = Faces.of("recognition/roles", [RESISTANCE, SPY])
NO_KEY = Point.hash_to("recognition/no-key", 0)
TAG_BYTES = 32

RoleCard = tuple[Ciphertext, Ciphertext]
"""(face, key): the two ciphertexts of one role card, shuffled together."""


@dataclass(frozen=True, slots=True)
class Contribution:
    """Enc(S_i) with a proof of knowledge of its randomness."""

    ciphertext: Ciphertext
    proof: SchnorrProof

    def encode(self) -> list[object]:
        return [self.ciphertext.encode(), self.proof.encode()]

    @classmethod
    def decode(cls, value: object) -> Contribution:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise MalformedValue("a recognition contribution is [ciphertext, proof]")
        return cls(Ciphertext.decode(value[0]), SchnorrProof.decode(value[1]))


def contribute(pk: Point, context: bytes, entropy: Entropy) -> Contribution:
    """This seat's share of the spy key, encrypted, with its proof."""
    share = Point.base_mul(Scalar.random(entropy))
    r = Scalar.random(entropy)
    ct = encrypt(pk, share, r)
    return Contribution(ct, prove_dlog(r, ct.c1, context, entropy))


def verify_contribution(contribution: Contribution, context: bytes) -> None:
    """Raise ``ProofError`` unless the contributor knows the randomness of its ciphertext."""
    if contribution.ciphertext.c1.is_identity():
        raise ProofError("a recognition contribution must be a fresh encryption")
    verify_dlog(contribution.ciphertext.c1, contribution.proof, context)


def spy_key_ciphertext(contributions: Iterable[Contribution]) -> Ciphertext:
    """Enc(S): the homomorphic sum of every seat's (verified) contribution."""
    return ciphertext_sum(c.ciphertext for c in contributions)


def role_deck(contributions: Sequence[Contribution], resistance: int, spies: int
              ) -> tuple[RoleCard, ...]:
    """The public, unshuffled role deck: resistance rows first, then spy rows."""
    key = spy_key_ciphertext(contributions)
    resistance_card = (trivial(ROLE_FACES.points[0]), trivial(NO_KEY))
    spy_card = (trivial(ROLE_FACES.points[1]), key)
    return (resistance_card,) * resistance + (spy_card,) * spies


def role_tokens(card: RoleCard, secret: Scalar, context: bytes, entropy: Entropy,
                public: Point | None = None) -> tuple[DecryptionShare, DecryptionShare]:
    """This seat's proven tokens for both ciphertexts of a role card it does not own."""
    face, key = card
    return (decryption_share(face, secret, context, entropy, public),
            decryption_share(key, secret, context, entropy, public))


def verify_role_tokens(card: RoleCard, public: Point,
                       tokens: tuple[DecryptionShare, DecryptionShare], context: bytes) -> None:
    verify_decryption_share(card[0], public, tokens[0], context)
    verify_decryption_share(card[1], public, tokens[1], context)


@dataclass(frozen=True)
class RoleReading:
    """What the owner of a role card learns: its role, and the spy key if it is a spy."""

    role: str
    spy_key: Point | None


def read_card(card: RoleCard, secret: Scalar, face_tokens: Iterable[Point],
              key_tokens: Iterable[Point]) -> RoleReading:
    """The owner's private reveal: every other seat's verified tokens plus its own."""
    face, key = card
    role = ROLE_FACES.label_of(combine(face, [face.c1 * secret, *face_tokens]))
    if role == RESISTANCE:
        return RoleReading(RESISTANCE, None)
    return RoleReading(SPY, combine(key, [key.c1 * secret, *key_tokens]))


def look(card: RoleCard, face_tokens: Iterable[Point]) -> str:
    """A role seen by a non-owner (plot-card looks, the final reveal): all face tokens given."""
    return ROLE_FACES.label_of(combine(card[0], face_tokens))


def _tag_key(spy_key: Point, context: bytes) -> bytes:
    info = encode(["spycraft/recognition-key", context])
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(
        spy_key.encode())


def _mac(key: bytes, seat: int) -> hmac.HMAC:
    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(encode(["spycraft/recognition-tag", seat]))
    return mac


def spy_tag(spy_key: Point, seat: int, context: bytes) -> bytes:
    """A spy's tag: HMAC-SHA256 under a key derived from S and the table context."""
    return _mac(_tag_key(spy_key, context), seat).finalize()


def resistance_tag(entropy: Entropy) -> bytes:
    """A non-spy's tag: fresh random bytes, indistinguishable from a spy tag to a non-spy."""
    return entropy.take(TAG_BYTES)


def _is_spy_tag(key: bytes, seat: int, tag: bytes) -> bool:
    try:
        _mac(key, seat).verify(tag)
    except InvalidSignature:
        return False
    return True


def recognise(spy_key: Point, tags: Sequence[bytes], context: bytes) -> frozenset[int]:
    """A spy's view: the seats (indices into ``tags``) whose tag is a spy tag."""
    key = _tag_key(spy_key, context)
    return frozenset(seat for seat, tag in enumerate(tags) if _is_spy_tag(key, seat, tag))


def audit_tags(roles: Sequence[str], spy_key: Point, tags: Sequence[bytes], context: bytes
               ) -> tuple[int, ...]:
    """Final reveal: seats whose tag contradicts their role (spies that hid, posers)."""
    spies = recognise(spy_key, tags, context)
    return tuple(seat for seat, role in enumerate(roles) if (role == SPY) != (seat in spies))

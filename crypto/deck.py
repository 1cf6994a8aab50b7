"""Mental-poker deck (Barnett-Smart) under the table's joint ElGamal key: no dealer needed.

Theory of operation: a card face is the point ``hash_to("deck/card", [deck_id, label])``, so
nobody knows a relation between faces. A fresh ``Deck`` is the public list of trivial encryptions
(O, M_card) with randomness zero, which every engine recomputes instead of trusting. Then every
seat in turn re-encrypts and permutes the whole deck with a proof of a shuffle
(``Deck.shuffled`` / ``Deck.after_shuffle``); once one seat is honest, nobody knows the order.

A card (c1, c2) opens to M = c2 - sum_i x_i*c1. Seat i's reveal token x_i*c1 carries a
Chaum-Pedersen proof against its public key share (``Deck.reveal_token`` /
``Deck.verify_token``), so a wrong token is caught at once and blamed on its seat.
- Public reveal: every seat publishes its token; ``Deck.open`` names the face.
- Private reveal to seat r: every other seat publishes its token; r adds its own (``Deck.peek``).
- Passing a privately revealed card from holder h to seat v: every token but h's is already
  public, so h seals its token to v's key share (``seal_token``: an ElGamal encryption of the
  token with a proof that it is h's true token of this card, ``crypto.seal.SealedShare``),
  bound to the record by the proof context. Everyone checks it at once
  (``verify_sealed_token``); v opens it (``unseal_token``), which cannot fail once checked.
- Final reveal: each seat opens its key share; ``check_opened_share`` compares it with the public
  share, and then every card can be opened by anyone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from spycraft.crypto.elgamal import (
    Ciphertext,
    DecryptionShare,
    combine,
    decryption_share,
    trivial,
    verify_decryption_share,
)
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedValue, OpeningError
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.seal import SealedShare, open_sealed_share, seal_share, verify_sealed_share
from spycraft.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle

RevealToken = DecryptionShare
"""A seat's token x_i*c1 for one card, with its Chaum-Pedersen proof."""


def card_point(deck_id: str, label: str) -> Point:
    """The face of one card: a point nobody knows the discrete log of."""
    return Point.hash_to("deck/card", [deck_id, label])


@dataclass(frozen=True)
class Faces:
    """The public faces of one deck: labels and their points, and the way back."""

    deck_id: str
    labels: tuple[str, ...]
    points: tuple[Point, ...]
    _by_point: dict[Point, str] = field(repr=False, compare=False)

    @classmethod
    def of(cls, deck_id: str, labels: Sequence[str]) -> Faces:
        points = tuple(card_point(deck_id, label) for label in labels)
        if len(set(labels)) != len(labels):
            raise ValueError("card labels must be distinct")  # a programming error, not a peer's
        return cls(deck_id, tuple(labels), points, dict(zip(points, labels)))

    def label_of(self, face: Point) -> str:
        try:
            return self._by_point[face]
        except KeyError:
            raise MalformedValue("decrypts to no card of this deck") from None


def check_opened_share(secret: Scalar, public: Point) -> None:
    """Final reveal: raise ``OpeningError`` unless the opened secret is behind the public share."""
    if Point.base_mul(secret) != public:
        raise OpeningError("opened key share does not match the public key share")


@dataclass(frozen=True)
class Deck:
    """The face-down cards in their current order; each operation returns a new Deck."""

    faces: Faces
    cards: tuple[Ciphertext, ...]

    @classmethod
    def fresh(cls, faces: Faces) -> Deck:
        """The public starting deck: every face encrypted with randomness zero, in label order."""
        return cls(faces, tuple(trivial(p) for p in faces.points))

    def __len__(self) -> int:
        return len(self.cards)

    # shuffling

    def shuffled(self, pk: Point, context: bytes, entropy: Entropy
                 ) -> tuple[Deck, ShuffleProof]:
        """This seat's turn: a re-encrypted, permuted deck and the proof to publish with it."""
        cards, proof = shuffle_and_prove(self.cards, pk, context, entropy)
        return Deck(self.faces, cards), proof

    def after_shuffle(self, cards: Sequence[Ciphertext], pk: Point, proof: ShuffleProof,
                      context: bytes) -> Deck:
        """A peer's shuffle, accepted only if its proof verifies (``ProofError`` otherwise)."""
        verify_shuffle(self.cards, cards, pk, proof, context)
        return Deck(self.faces, tuple(cards))

    def subset(self, indices: Iterable[int]) -> Deck:
        """Some cards of this deck, e.g. a hand, to shuffle or reveal on their own."""
        return Deck(self.faces, tuple(self.cards[i] for i in indices))

    # revealing

    def reveal_token(self, index: int, secret: Scalar, context: bytes, entropy: Entropy,
                     public: Point | None = None) -> RevealToken:
        """This seat's proven token for card ``index``."""
        return decryption_share(self.cards[index], secret, context, entropy, public)

    def verify_token(self, index: int, public: Point, token: RevealToken, context: bytes
                     ) -> None:
        """Raise ``ProofError`` unless ``token`` is the token of the seat with share ``public``
        for card ``index``."""
        verify_decryption_share(self.cards[index], public, token, context)

    def open(self, index: int, tokens: Iterable[Point]) -> str:
        """The face of card ``index`` given every seat's (verified) token."""
        return self.faces.label_of(combine(self.cards[index], tokens))

    def peek(self, index: int, secret: Scalar, others: Iterable[Point]) -> str:
        """Private reveal: the receiver adds its own token to everybody else's."""
        own = self.cards[index].c1 * secret
        return self.open(index, [own, *others])

    def open_with_secrets(self, index: int, secrets: Iterable[Scalar]) -> str:
        """After the final reveal: decrypt with every opened (and checked) key share."""
        card = self.cards[index]
        return self.open(index, [card.c1 * s for s in secrets])

    # passing a card privately

    def seal_token(self, index: int, secret: Scalar, receiver: Point, context: bytes,
                   entropy: Entropy, public: Point | None = None) -> SealedShare:
        """Holder's side of a private pass: its token of card ``index``, sealed to the key share
        ``receiver`` and proven to be its true token."""
        return seal_share(secret, self.cards[index].c1, receiver, context, entropy, public)

    def verify_sealed_token(self, index: int, sender: Point, receiver: Point,
                            sealed: SealedShare, context: bytes) -> None:
        """Raise ``ProofError`` unless ``sealed`` is the token of the seat with key share
        ``sender`` for card ``index``, sealed to ``receiver``."""
        verify_sealed_share(sealed, self.cards[index].c1, sender, receiver, context)

    @staticmethod
    def unseal_token(sealed: SealedShare, receiver_secret: Scalar) -> Point:
        """Receiver's side: the holder's token (checked by everyone when it was sealed)."""
        return open_sealed_share(sealed, receiver_secret)

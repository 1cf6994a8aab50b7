"""Deck operations: one mental-poker deck shared by every seat, as a sub-protocol with its state.

Theory of operation
-------------------
The deck is ``crypto.deck.Deck`` (Barnett-Smart under the table's joint key). ``DeckOps`` keeps
the deck and the operation in progress; a game composes it as it composes the role deal: it
keeps a ``DeckOps`` in its state, asks ``turn`` who writes next while an operation is open, and
hands the deck's record kinds to ``APPLY``. Operations, each one record per seat in seat order:

``keys``      ``deck_key``: X_i = x_i*G with a Schnorr proof; pk = sum X_i (skipped when the
              game passes the key shares of an earlier setup to ``new``).
``shuffle``   ``deck_shuffle``: the whole deck re-encrypted and permuted with a proof of a
              shuffle, by every seat (nobody knows the order once one seat is honest).
``reveal``    ``deck_tokens``: a game asks for some cards to be revealed (``request``) to one
              seat (a draw, a peek at a pile, a draft hand) or to everyone (a card played). Every
              seat that is not the receiver publishes its proven token for each card; the
              receiver adds its own privately (``DeckHand.peek``); a public reveal takes every
              seat's tokens and its faces are in ``opened``.

Every token carries a Chaum-Pedersen proof against its seat's key share, checked on arrival, so
a false token is caught at once and blamed on its seat and seq. What a seat has learnt is
derived from the public tokens and its own secret, never stored: ``DeckHand.peek``. Passing a
card privately to a teammate, and the final reveal, use ``Deck.seal_token`` and
``Deck.open_with_secrets`` directly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto import elgamal
from spycraft.crypto.deck import Deck, Faces, RevealToken
from spycraft.crypto.elgamal import KeyShare
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.records import Record
from spycraft.crypto.shuffle import ShuffleProof
from spycraft.engines.schema import Encoded, Fields, ListOf, body
from spycraft.engines.table import Turn

KINDS = ("deck_key", "deck_shuffle", "deck_tokens")
Body = dict[str, Any]
MAX_CARDS = 512

SCHEMAS: dict[str, Fields] = {
    "deck_key": body(share=Encoded("key share")),
    "deck_shuffle": body(
        cards=ListOf(Encoded("ciphertext"), high=MAX_CARDS), proof=Encoded("shuffle proof")
    ),
    "deck_tokens": body(tokens=ListOf(Encoded("reveal token"), high=MAX_CARDS)),
}


@dataclass(frozen=True)
class Reveal:
    """Cards to reveal to ``to`` (None: to everyone), and the tokens published so far."""

    cards: tuple[int, ...]
    to: int | None
    tokens: tuple[tuple[int, tuple[Point, ...]], ...] = ()  # (seat, one token per card)

    def owed_by(self, seats: int) -> tuple[int, ...]:
        done = {seat for seat, _ in self.tokens}
        return tuple(s for s in range(seats) if s != self.to and s not in done)


@dataclass(frozen=True)
class DeckOps:
    seats: int
    deck: Deck
    key_shares: tuple[Point, ...] = ()
    shuffles: int = 0
    pending: Reveal | None = None
    done: tuple[Reveal, ...] = ()  # every completed reveal, in order (for peeks and the audit)
    opened: tuple[tuple[int, str], ...] = ()  # (card, face) of every public reveal

    @property
    def pk(self) -> Point:
        return elgamal.joint_key(self.key_shares)

    @property
    def shuffled(self) -> bool:
        return len(self.key_shares) == self.seats and self.shuffles == self.seats

    @property
    def idle(self) -> bool:
        """No operation open: the game may play on (and ``request`` the next reveal)."""
        return self.shuffled and self.pending is None

    def face(self, card: int) -> str | None:
        """The face of a card revealed publicly, else None."""
        return next((f for c, f in self.opened if c == card), None)


def new(seats: int, faces: Faces, key_shares: tuple[Point, ...] = ()) -> DeckOps:
    """A fresh deck of ``faces``; pass the key shares of an earlier setup to skip ``keys``."""
    if key_shares and len(key_shares) != seats:
        raise ValueError("one key share per seat")
    return DeckOps(seats, Deck.fresh(faces), key_shares)


def request(ops: DeckOps, cards: tuple[int, ...], to: int | None) -> DeckOps:
    """Open a reveal of ``cards`` to seat ``to`` (None: public). The game calls it in its
    ``apply`` or ``on_draw``; it is a bug to ask while another operation is open."""
    if not ops.idle:
        raise RuntimeError("a deck operation is already open")
    if not cards or any(not 0 <= c < len(ops.deck) for c in cards):
        raise RuntimeError(f"no such cards in the deck: {cards}")
    return replace(ops, pending=Reveal(tuple(cards), to))


def turn(ops: DeckOps) -> Turn | None:
    """Who writes the deck's next record, or None when no operation is open."""
    if len(ops.key_shares) < ops.seats:
        return Turn(len(ops.key_shares), ("deck_key",))
    if ops.shuffles < ops.seats:
        return Turn(ops.shuffles, ("deck_shuffle",))
    if ops.pending is not None:
        return Turn(ops.pending.owed_by(ops.seats)[0], ("deck_tokens",))
    return None


# --- applying ----------------------------------------------------------------------------------


def apply_key(ops: DeckOps, record: Record, body: Body, context: bytes) -> DeckOps:
    share = KeyShare.decode(body["share"])
    elgamal.verify_key_share(share, context)
    return replace(ops, key_shares=ops.key_shares + (share.public,))


def apply_shuffle(ops: DeckOps, record: Record, body: Body, context: bytes) -> DeckOps:
    cards = elgamal.decode_ciphertexts(body["cards"], count=len(ops.deck))
    proof = ShuffleProof.decode(body["proof"], len(ops.deck))
    deck = ops.deck.after_shuffle(cards, ops.pk, proof, context)
    return replace(ops, deck=deck, shuffles=ops.shuffles + 1)


def apply_tokens(ops: DeckOps, record: Record, body: Body, context: bytes) -> DeckOps:
    reveal = ops.pending
    assert reveal is not None, "the table only asks for deck tokens while a reveal is open"
    raw = body["tokens"]
    if len(raw) != len(reveal.cards):
        raise MalformedRecord(
            record.seat, record.seq, f"one token for each of {len(reveal.cards)} cards"
        )
    public = ops.key_shares[record.seat]
    shares = []
    for card, value in zip(reveal.cards, raw):
        token = RevealToken.decode(value)
        ops.deck.verify_token(card, public, token, context)
        shares.append(token.share)
    reveal = replace(reveal, tokens=reveal.tokens + ((record.seat, tuple(shares)),))
    if reveal.owed_by(ops.seats):
        return replace(ops, pending=reveal)
    ops = replace(ops, pending=None, done=ops.done + (reveal,))
    if reveal.to is None:
        faces = tuple((c, ops.deck.open(c, ops_tokens(reveal, c))) for c in reveal.cards)
        ops = replace(ops, opened=ops.opened + faces)
    return ops


def ops_tokens(reveal: Reveal, card: int) -> tuple[Point, ...]:
    index = reveal.cards.index(card)
    return tuple(tokens[index] for _, tokens in reveal.tokens)


APPLY = {"deck_key": apply_key, "deck_shuffle": apply_shuffle, "deck_tokens": apply_tokens}


# --- the private side --------------------------------------------------------------------------


class DeckHand:
    """One seat's side of the deck: its key share secret, its records, what it may see."""

    def __init__(self, seat: int, key: Scalar) -> None:
        self.seat = seat
        self.key = key
        self.public = Point.base_mul(key)

    def deck_key(self, ops: DeckOps, context: bytes, entropy: Entropy) -> Body:
        return {"share": elgamal.make_key_share(self.key, context, entropy).encode()}

    def deck_shuffle(self, ops: DeckOps, context: bytes, entropy: Entropy) -> Body:
        deck, proof = ops.deck.shuffled(ops.pk, context, entropy)
        return {"cards": elgamal.encode_ciphertexts(deck.cards), "proof": proof.encode()}

    def deck_tokens(self, ops: DeckOps, context: bytes, entropy: Entropy) -> Body:
        reveal = ops.pending
        assert reveal is not None, "tokens are written while a reveal is open"
        tokens = [
            ops.deck.reveal_token(card, self.key, context, entropy.child(str(i)), self.public)
            for i, card in enumerate(reveal.cards)
        ]
        return {"tokens": [t.encode() for t in tokens]}

    def peek(self, ops: DeckOps, card: int) -> str | None:
        """The face of a card revealed to this seat (or publicly); None if it may not know it."""
        for reveal in ops.done:
            if card in reveal.cards and reveal.to in (self.seat, None):
                if reveal.to is None:
                    return ops.face(card)
                return ops.deck.peek(card, self.key, ops_tokens(reveal, card))
        return None


BUILD = {
    "deck_key": DeckHand.deck_key,
    "deck_shuffle": DeckHand.deck_shuffle,
    "deck_tokens": DeckHand.deck_tokens,
}

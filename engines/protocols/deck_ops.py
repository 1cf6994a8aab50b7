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
a false token is caught at once and blamed on its seat and seq. Once a card is revealed to one
seat h, the public knows face + x_h * base for it
(``holder_statement``, sealed tokens included, see below), so h can prove facts about the
face at once without showing it. What a seat has learnt is derived from the public tokens and
its own secret, never stored: ``DeckHand.peek``.

A card may be revealed privately to several seats in turn (a draft hand passed on, a pile that
several seats look at, a card passed to a teammate). Publishing every token twice would make it
public, so each seat's duty per card (``duty``) is: nothing if its token is already public or it
is the receiver; ``SEAL`` if it already knows the card privately (``viewers``) and the reveal is
to one seat: its token goes sealed to the receiver's key share (``Deck.seal_token``, an ElGamal
encryption with a proof that it holds the sender's true token of that card), so the token of
the card's first viewer is the only one never published before a public reveal; ``PUBLISH``
otherwise. A sealed token is checked by everyone when its record arrives, like a public one, so
a false seal (garbage, another card's token, another seat's, sealed to the wrong receiver or
copied from another record) is refused at once and blamed on its sender; the receiver opens
what was proven with its own key share and can never hold a seal that does not open. Nothing of
a seal is left for the final reveal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spycraft.crypto import elgamal
from spycraft.crypto.deck import Deck, Faces, RevealToken
from spycraft.crypto.elgamal import KeyShare
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.seal import SealedShare
from spycraft.crypto.shuffle import ShuffleProof
from spycraft.engines.game import Played, SubProtocol
from spycraft.engines.schema import Body, Encoded, Fields, ListOf, body
from spycraft.engines.table import Turn

KINDS = ("deck_key", "deck_shuffle", "deck_tokens")
MAX_CARDS = 512

SCHEMAS: dict[str, Fields] = {
    "deck_key": body(share=Encoded("key share")),
    "deck_shuffle": body(
        cards=ListOf(Encoded("ciphertext"), high=MAX_CARDS), proof=Encoded("shuffle proof")
    ),
    "deck_tokens": body(
        tokens=ListOf(Encoded("reveal token or null"), high=MAX_CARDS),
        sealed=ListOf(Encoded("sealed token or null"), high=MAX_CARDS),
    ),
}
PUBLISH = "publish"
SEAL = "seal"


@dataclass(frozen=True)
class Reveal:
    """Cards to reveal to ``to`` (None: to everyone); ``owed``: the seats with a duty, in seat
    order; ``tokens``: what each of them published (None where it published nothing)."""

    cards: tuple[int, ...]
    to: int | None
    tokens: tuple[tuple[int, tuple[Point | None, ...]], ...] = ()  # (seat, one entry per card)
    owed: tuple[int, ...] = ()

    def owed_by(self, seats: int) -> tuple[int, ...]:
        done = {seat for seat, _ in self.tokens}
        return tuple(s for s in self.owed if s not in done)


@dataclass(frozen=True)
class SealedToken:
    """A seat's token of ``card`` sealed to ``receiver`` in record ``seq``, proven there."""

    card: int
    sender: int
    receiver: int
    seq: int
    sealed: SealedShare


@dataclass(frozen=True)
class DeckOps:
    seats: int
    deck: Deck
    key_shares: tuple[Point, ...] = ()
    shuffles: int = 0
    pending: Reveal | None = None
    done: tuple[Reveal, ...] = ()  # every completed reveal, in order (for peeks and the audit)
    opened: tuple[tuple[int, str], ...] = ()  # (card, face) of every public reveal
    public: tuple[tuple[tuple[int, Point], ...], ...] = ()  # per card: (seat, token) published
    viewers: tuple[tuple[int, ...], ...] = ()  # per card: the seats it was revealed to privately
    seals: tuple[SealedToken, ...] = ()

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

    def published_by(self, card: int) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.public[card])

    def knows(self, seat: int, card: int) -> bool:
        """Whether ``seat`` may know the card's face (revealed to it, or to everyone)."""
        return seat in self.viewers[card] or self.face(card) is not None

    @property
    def dealt(self) -> bool:
        """Some card was shown to one seat alone (``engines.game.Dealing``)."""
        return any(self.viewers)

    def seen_by(self, seat: int) -> str | None:
        """What ``seat`` has seen that it could walk away from (``engines.game.Dealing``)."""
        return "its cards" if any(seat in viewers for viewers in self.viewers) else None


def duty(ops: DeckOps, seat: int, card: int, to: int | None) -> str | None:
    """What ``seat`` owes for ``card`` in a reveal to ``to`` (module docstring)."""
    if seat == to or seat in ops.published_by(card):
        return None
    if to is not None:
        if ops.knows(to, card):
            return None
        if seat in ops.viewers[card]:
            return SEAL
    return PUBLISH


def new(seats: int, faces: Faces, key_shares: tuple[Point, ...] = ()) -> DeckOps:
    """A fresh deck of ``faces``; pass the key shares of an earlier setup to skip ``keys``."""
    if key_shares and len(key_shares) != seats:
        raise ValueError("one key share per seat")
    deck = Deck.fresh(faces)
    empty = tuple(() for _ in range(len(deck)))
    return DeckOps(seats, deck, key_shares, public=empty, viewers=empty)


def request(ops: DeckOps, cards: tuple[int, ...], to: int | None) -> DeckOps:
    """Open a reveal of ``cards`` to seat ``to`` (None: public). The game calls it in its
    ``apply`` or ``on_draw``; it is a bug to ask while another operation is open. A reveal
    that owes nothing (the receiver knows every card already) completes at once."""
    if not ops.idle:
        raise RuntimeError("a deck operation is already open")
    if not cards or any(not 0 <= c < len(ops.deck) for c in cards):
        raise RuntimeError(f"no such cards in the deck: {cards}")
    owed = tuple(
        s for s in range(ops.seats) if any(duty(ops, s, c, to) is not None for c in cards)
    )
    reveal = Reveal(tuple(cards), to, owed=owed)
    return _complete(ops, reveal) if not owed else replace(ops, pending=reveal)


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


def apply_key(ops: DeckOps, record: Played, body: Body) -> DeckOps:
    share = KeyShare.decode(body["share"])
    elgamal.verify_key_share(share, record.context)
    return replace(ops, key_shares=ops.key_shares + (share.public,))


def apply_shuffle(ops: DeckOps, record: Played, body: Body) -> DeckOps:
    cards = elgamal.decode_ciphertexts(body["cards"], count=len(ops.deck))
    proof = ShuffleProof.decode(body["proof"], len(ops.deck))
    deck = ops.deck.after_shuffle(cards, ops.pk, proof, record.context)
    return replace(ops, deck=deck, shuffles=ops.shuffles + 1)


def apply_tokens(ops: DeckOps, record: Played, body: Body) -> DeckOps:
    reveal = ops.pending
    assert reveal is not None, "the table only asks for deck tokens while a reveal is open"
    raw, raw_sealed = body["tokens"], body["sealed"]
    if len(raw) != len(reveal.cards) or len(raw_sealed) != len(reveal.cards):
        raise MalformedRecord(
            record.seat, record.seq, f"one entry for each of {len(reveal.cards)} cards"
        )
    public = ops.key_shares[record.seat]
    shares: list[Point | None] = []
    published = list(ops.public)
    seals = list(ops.seals)
    for card, value, sealed in zip(reveal.cards, raw, raw_sealed):
        owed = duty(ops, record.seat, card, reveal.to)
        if (value is not None) != (owed == PUBLISH) or (sealed is not None) != (owed == SEAL):
            what = {PUBLISH: "a public token", SEAL: "a sealed token", None: "nothing"}[owed]
            raise MalformedRecord(record.seat, record.seq, f"card {card} needs {what}")
        if value is not None:
            token = RevealToken.decode(value)
            ops.deck.verify_token(card, public, token, record.context)
            shares.append(token.share)
            published[card] = published[card] + ((record.seat, token.share),)
        else:
            shares.append(None)
        if sealed is not None:
            assert reveal.to is not None
            share = SealedShare.decode(sealed)
            receiver = ops.key_shares[reveal.to]
            ops.deck.verify_sealed_token(card, public, receiver, share, record.context)
            seals.append(SealedToken(card, record.seat, reveal.to, record.seq, share))
    reveal = replace(reveal, tokens=reveal.tokens + ((record.seat, tuple(shares)),))
    ops = replace(ops, public=tuple(published), seals=tuple(seals))
    if reveal.owed_by(ops.seats):
        return replace(ops, pending=reveal)
    return _complete(ops, reveal)


def _complete(ops: DeckOps, reveal: Reveal) -> DeckOps:
    ops = replace(ops, pending=None, done=ops.done + (reveal,))
    if reveal.to is None:
        faces = tuple(
            (c, ops.deck.open(c, [t for _, t in ops.public[c]]))
            for c in reveal.cards
            if ops.face(c) is None
        )
        return replace(ops, opened=ops.opened + faces)
    viewers = list(ops.viewers)
    for card in reveal.cards:
        if reveal.to not in viewers[card]:
            viewers[card] = viewers[card] + (reveal.to,)
    return replace(ops, viewers=tuple(viewers))


def ops_tokens(reveal: Reveal, card: int) -> tuple[Point, ...]:
    """The tokens published for ``card`` in this reveal."""
    index = reveal.cards.index(card)
    return tuple(t for _, tokens in reveal.tokens if (t := tokens[index]) is not None)


def holder_statement(ops: DeckOps, card: int, holder: int) -> tuple[Point, Point]:
    """What the public knows of a card revealed to ``holder`` alone: ``(base, residue)`` with
    residue = face + x_h * base, x_h the holder's key share secret.

    Every other seat's token of such a card is public or sealed to the holder: (e1, e2) =
    (k*G, T + k*X_h), proven when it was sealed. So c2 - the public tokens - the e2 =
    face + x_h * (c1 - the e1), and the holder can prove facts about the face at once without
    showing it (``proofs.prove_encrypts_one_of`` with pk = base, c1 = X_h, randomness x_h). A
    card not revealed to the holder has no statement: asking for one is a bug of the game."""
    public = [token for seat, token in ops.public[card] if seat != holder]
    sealed = [s.sealed for s in ops.seals if s.card == card and s.receiver == holder]
    senders = {seat for seat, _ in ops.public[card]} | {
        s.sender for s in ops.seals if s.card == card and s.receiver == holder
    }
    if len(public) + len(sealed) != ops.seats - 1 or senders - {holder} != (
        set(range(ops.seats)) - {holder}
    ):
        raise RuntimeError(f"card {card} was not revealed to seat {holder}")
    cipher = ops.deck.cards[card]
    base, residue = cipher.c1, cipher.c2
    for token in public:
        residue = residue - token
    for share in sealed:
        base, residue = base - share.e1, residue - share.e2
    return base, residue


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
        tokens: list[object] = []
        sealed: list[object] = []
        for i, card in enumerate(reveal.cards):
            owed = duty(ops, self.seat, card, reveal.to)
            tokens.append(
                ops.deck.reveal_token(card, self.key, context, entropy.child(str(i)), self.public)
                .encode()
                if owed == PUBLISH
                else None
            )
            sealed.append(
                ops.deck.seal_token(
                    card, self.key, ops.key_shares[reveal.to], context,
                    entropy.child(f"seal/{card}"), self.public,
                ).encode()
                if owed == SEAL and reveal.to is not None
                else None
            )
        return {"tokens": tokens, "sealed": sealed}

    def peek(self, ops: DeckOps, card: int) -> str | None:
        """The face of a card revealed to this seat (or publicly); None if it may not know it.
        Every other seat's token of a card this seat was shown is public or sealed to it."""
        face = ops.face(card)
        if face is not None or self.seat not in ops.viewers[card]:
            return face
        others = [t for s, t in ops.public[card] if s != self.seat]
        others += [
            ops.deck.unseal_token(seal.sealed, self.key)
            for seal in ops.seals
            if seal.card == card and seal.receiver == self.seat
        ]
        assert len(others) == ops.seats - 1, "a completed reveal left a token owed"
        return ops.deck.peek(card, self.key, others)


BUILD = {
    "deck_key": DeckHand.deck_key,
    "deck_shuffle": DeckHand.deck_shuffle,
    "deck_tokens": DeckHand.deck_tokens,
}

PROTOCOL: SubProtocol[DeckOps, DeckHand] = SubProtocol(KINDS, SCHEMAS, APPLY, BUILD)
"""The deck as a game composes it (``engines.game.SubProtocol``): ``PROTOCOL.moves``."""

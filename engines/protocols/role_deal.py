"""The role deal: hidden roles from a proven-shuffled deck, with optional recognition.

Theory of operation
-------------------
A sub-protocol with its own state (``RoleDeal``), composed by a game's protocol the way the game
composes its rules: the game keeps a ``RoleDeal`` in its state, asks ``turn`` who writes next
while ``done`` is false, and hands each of the five record kinds below to ``apply``. The same
code deals The Resistance's roles (spies recognise each other) and Shady Agents' (no
recognition, n+1 cards for odd n). Stages, each one record per seat in seat order
(DESIGN.md §5, crypto/recognition.py):

``keys``         ``key_share``: X_i = x_i*G with a Schnorr proof; the joint key pk = sum X_i.
``recognition``  ``recognition``: Enc(S_i) with a proof of its randomness (only with
                 recognition on).
``shuffle``      ``shuffle``: the role deck (rows (face, key): ``plain`` cards with the plain face,
                 ``marked`` with the marked face, rebuilt by every engine) re-encrypted, permuted
                 and proven.
``deal``         ``deal_tokens``: seat j's proven tokens for both columns of every card i != j.
                 Card i < n belongs to seat i, which alone can read it; a card n (the leftover,
                 when the deck has one card more than the seats) has everyone's tokens and is
                 public (``leftover``).
``tags``         ``spy_tag``: 32 bytes per seat (only with recognition on): a marked seat
                 publishes HMAC(KDF(S), seat), any other seat random bytes.

A seat reads its own card once every other seat has published its deal tokens (``reads_role``):
the last seat of the deal reads its role before it publishes its own tokens, so walking away
from there on is a desertion (``table.Forfeit``), not a free re-deal.

At the final reveal ``roles_known`` reads every card the opened key shares open, and a card of a
forfeiter (whose share stays closed: ``engines.table``, "What a forfeiter owes") only when the
proven deck's count leaves the closed cards a single face; otherwise it stays unknown.

``RoleHand`` is the private side: it builds this seat's five records from its key share secret
and reads its card. Faces are the two labels of ``crypto.recognition.ROLE_FACES`` ("resistance"
= plain, "spy" = marked); a game names them in its own words.

A game whose key shares are the deal's (The Resistance, Shady Agents) keeps the deal in a
``RoleDealState`` (the kit's ``KeyShareState`` with the deal, and the deal's stage during
setup) and its rules are ``RoleDealRules``: the kit's final reveal with the deal as its
``Dealing`` (the public key shares, when a role is dealt, who has read its role).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from spycraft.crypto import elgamal, recognition
from spycraft.crypto.elgamal import DecryptionShare, KeyShare
from spycraft.crypto.entropy import Entropy
from spycraft.crypto.errors import MalformedRecord, MalformedValue
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.shuffle import ShuffleProof, shuffle_rows_and_prove, verify_shuffle_rows
from spycraft.engines.game import SETUP, KeyShareRules, KeyShareState, Played, SubProtocol
from spycraft.engines.schema import Body, Bytes, Encoded, Fields, Fixed, ListOf, body
from spycraft.engines.table import Turn

RoleCard = recognition.RoleCard
PLAIN, MARKED = recognition.RESISTANCE, recognition.SPY
KEYS, RECOGNITION, SHUFFLE, DEAL, TAGS, DONE = (
    "keys", "recognition", "shuffle", "deal", "tags", "done"
)
KINDS = ("key_share", "recognition", "shuffle", "deal_tokens", "spy_tag")

SCHEMAS: dict[str, Fields] = {
    "key_share": body(share=Encoded("key share")),
    "recognition": body(contribution=Encoded("recognition contribution")),
    "shuffle": body(cards=ListOf(Encoded("role card"), high=64), proof=Encoded("shuffle proof")),
    "deal_tokens": body(
        tokens=ListOf(Fixed((Encoded("face token"), Encoded("key token"))), high=64)
    ),
    "spy_tag": body(tag=Bytes(recognition.TAG_BYTES)),
}


@dataclass(frozen=True)
class RoleDeal:
    seats: int
    plain: int  # cards with the plain face
    marked: int  # cards with the marked face
    recognises: bool  # marked cards carry the spy key, and tags follow the deal
    tag_context: bytes  # what the spy tags are bound to (the game and the table)
    stage: str = KEYS
    key_shares: tuple[Point, ...] = ()
    contributions: tuple[recognition.Contribution, ...] = ()
    deck: tuple[RoleCard, ...] = ()
    shuffles: int = 0
    # face_tokens[j][i], key_tokens[j][i]: seat j's tokens for card i (None for i == j)
    face_tokens: tuple[tuple[Point | None, ...], ...] = ()
    key_tokens: tuple[tuple[Point | None, ...], ...] = ()
    tags: tuple[bytes, ...] = ()
    tag_seqs: tuple[int, ...] = ()

    @property
    def cards(self) -> int:
        return self.plain + self.marked

    @property
    def done(self) -> bool:
        return self.stage == DONE

    @property
    def pk(self) -> Point:
        return elgamal.joint_key(self.key_shares)

    def others_face_tokens(self, card: int) -> tuple[Point, ...]:
        return tuple(t for j in range(self.seats) if (t := self.face_tokens[j][card]) is not None)

    def others_key_tokens(self, card: int) -> tuple[Point, ...]:
        return tuple(t for j in range(self.seats) if (t := self.key_tokens[j][card]) is not None)

    def reads_role(self, seat: int) -> bool:
        """Whether ``seat`` can read its own card: every other seat has published its tokens."""
        if self.stage in (TAGS, DONE):
            return True
        return self.stage == DEAL and len(self.face_tokens) == self.seats - 1 == seat

    @property
    def dealt(self) -> bool:
        """Every card is dealt (every seat published its tokens): each seat holds its role
        (``engines.game.Dealing``)."""
        return self.stage in (TAGS, DONE)

    def seen_by(self, seat: int) -> str | None:
        """What ``seat`` has seen that it could walk away from (``engines.game.Dealing``)."""
        return "its role" if self.reads_role(seat) else None

    def leftover(self) -> str | None:
        """The face of the card no seat holds, public once the deal is over (None if none)."""
        if self.cards == self.seats or len(self.face_tokens) < self.seats:
            return None
        card = self.seats
        return recognition.look(self.deck[card], self.others_face_tokens(card))


@dataclass(frozen=True, kw_only=True)
class RoleDealState(KeyShareState):
    """The kit's fields of a game whose key shares and roles come from the role deal (The
    Resistance, Shady Agents): the deal beside the act, the final reveal and the forfeits."""

    deal: RoleDeal

    @property
    def stage(self) -> str:
        """The deal's stage during setup (keys ... tags), then play, reveal, done."""
        return self.deal.stage if self.act == SETUP else self.act


R = TypeVar("R", bound=RoleDealState)


class RoleDealRules(KeyShareRules[R]):
    """The kit's rules of a game whose key shares come from the role deal: its ``Dealing`` is
    the deal its state keeps (``RoleDealState``)."""

    def dealing(self, state: R) -> RoleDeal:
        return state.deal


def new(
    seats: int, plain: int, marked: int, with_recognition: bool, tag_context: bytes
) -> RoleDeal:
    if plain + marked not in (seats, seats + 1):
        raise ValueError("a role deck has one card per seat, or one more")
    return RoleDeal(seats, plain, marked, with_recognition, tag_context)


def turn(deal: RoleDeal) -> Turn | None:
    """Who writes the deal's next record, or None once the deal is done."""
    stage = deal.stage
    if stage == KEYS:
        return Turn(len(deal.key_shares), ("key_share",))
    if stage == RECOGNITION:
        return Turn(len(deal.contributions), ("recognition",))
    if stage == SHUFFLE:
        return Turn(deal.shuffles, ("shuffle",))
    if stage == DEAL:
        return Turn(len(deal.face_tokens), ("deal_tokens",))
    if stage == TAGS:
        return Turn(len(deal.tags), ("spy_tag",))
    return None


# --- applying (each raises Unattributed for the game to attribute, or MalformedRecord) -------


def apply_key_share(deal: RoleDeal, record: Played, body: Body) -> RoleDeal:
    share = KeyShare.decode(body["share"])
    elgamal.verify_key_share(share, record.context)
    deal = replace(deal, key_shares=deal.key_shares + (share.public,))
    if len(deal.key_shares) < deal.seats:
        return deal
    if deal.recognises:
        return replace(deal, stage=RECOGNITION)
    return _build_deck(replace(deal, stage=SHUFFLE))


def apply_recognition(deal: RoleDeal, record: Played, body: Body) -> RoleDeal:
    contribution = recognition.Contribution.decode(body["contribution"])
    recognition.verify_contribution(contribution, record.context)
    deal = replace(deal, contributions=deal.contributions + (contribution,))
    if len(deal.contributions) == deal.seats:
        deal = _build_deck(replace(deal, stage=SHUFFLE))
    return deal


def _build_deck(deal: RoleDeal) -> RoleDeal:
    return replace(deal, deck=recognition.role_deck(deal.contributions, deal.plain, deal.marked))


def apply_shuffle(deal: RoleDeal, record: Played, body: Body) -> RoleDeal:
    rows = _decode_rows(body["cards"], deal.cards)
    proof = ShuffleProof.decode(body["proof"], deal.cards, 2)
    verify_shuffle_rows(deal.deck, rows, deal.pk, proof, record.context)
    deal = replace(deal, deck=rows, shuffles=deal.shuffles + 1)
    if deal.shuffles == deal.seats:
        deal = replace(deal, stage=DEAL)
    return deal


def apply_deal_tokens(deal: RoleDeal, record: Played, body: Body) -> RoleDeal:
    seat = record.seat
    raw = body["tokens"]
    if len(raw) != deal.cards - 1:
        raise MalformedRecord(seat, record.seq, f"tokens for the {deal.cards - 1} other cards")
    public = deal.key_shares[seat]
    faces: list[Point | None] = []
    keys: list[Point | None] = []
    others = iter(raw)
    for card in range(deal.cards):
        if card == seat:
            faces.append(None)
            keys.append(None)
            continue
        pair = next(others)
        tokens = (DecryptionShare.decode(pair[0]), DecryptionShare.decode(pair[1]))
        recognition.verify_role_tokens(deal.deck[card], public, tokens, record.context)
        faces.append(tokens[0].share)
        keys.append(tokens[1].share)
    deal = replace(
        deal,
        face_tokens=deal.face_tokens + (tuple(faces),),
        key_tokens=deal.key_tokens + (tuple(keys),),
    )
    if len(deal.face_tokens) == deal.seats:
        deal = replace(deal, stage=TAGS if deal.recognises else DONE)
    return deal


def apply_spy_tag(deal: RoleDeal, record: Played, body: Body) -> RoleDeal:
    deal = replace(deal, tags=deal.tags + (body["tag"],), tag_seqs=deal.tag_seqs + (record.seq,))
    if len(deal.tags) == deal.seats:
        deal = replace(deal, stage=DONE)
    return deal


APPLY = {
    "key_share": apply_key_share,
    "recognition": apply_recognition,
    "shuffle": apply_shuffle,
    "deal_tokens": apply_deal_tokens,
    "spy_tag": apply_spy_tag,
}


def _decode_rows(value: tuple[object, ...], cards: int) -> tuple[RoleCard, ...]:
    if len(value) != cards:
        raise MalformedValue(f"a role deck has {cards} cards")
    rows = []
    for row in value:
        face, key = elgamal.decode_ciphertexts(row, count=2)
        rows.append((face, key))
    return tuple(rows)


# --- the final reveal ------------------------------------------------------------------------


def roles_after_reveal(
    deal: RoleDeal, secrets: tuple[Scalar | None, ...]
) -> tuple[str | None, ...]:
    """Every card's face once the seats have opened their key shares (None: not decryptable,
    because a seat that holds no opened secret never published its tokens for it)."""
    roles: list[str | None] = []
    for i, card in enumerate(deal.deck):
        tokens: list[Point | None] = []
        for j, secret in enumerate(secrets):
            tokens.append(card[0].c1 * secret if secret is not None else deal.face_tokens[j][i])
        roles.append(
            None
            if any(t is None for t in tokens)
            else recognition.look(card, [t for t in tokens if t is not None])
        )
    return tuple(roles)


def roles_known(deal: RoleDeal, secrets: tuple[Scalar | None, ...]) -> tuple[str | None, ...]:
    """Every card's face as the final reveal proves it (``engines.table``, "What a forfeiter
    owes"): a card opens with every seat's token (``roles_after_reveal``); a card that stays
    closed (a forfeiter's own: its key share was never opened) is still proven when the proven
    deck has only one face left for the closed cards. Otherwise it stays None: the count says
    which faces the closed cards hold together, not which holds which, and nothing is guessed."""
    faces = list(roles_after_reveal(deal, secrets))
    closed = [i for i, face in enumerate(faces) if face is None]
    plain_left = deal.plain - faces.count(PLAIN)
    marked_left = deal.marked - faces.count(MARKED)
    if closed and (plain_left == 0 or marked_left == 0):
        for i in closed:
            faces[i] = MARKED if plain_left == 0 else PLAIN
    return tuple(faces)


# --- the private side ------------------------------------------------------------------------


class RoleHand:
    """One seat's side of the deal: its key share secret, its card, its records."""

    def __init__(self, seat: int, key: Scalar) -> None:
        self.seat = seat
        self.key = key
        self.public = Point.base_mul(key)
        self._reading: recognition.RoleReading | None = None

    def reading(self, deal: RoleDeal) -> recognition.RoleReading | None:
        """This seat's role (and the spy key, for a marked card with recognition), once dealt."""
        if self._reading is None and len(deal.face_tokens) == deal.seats:
            me = self.seat
            self._reading = recognition.read_card(
                deal.deck[me], self.key, deal.others_face_tokens(me), deal.others_key_tokens(me)
            )
        return self._reading

    def known_marked(self, deal: RoleDeal) -> tuple[int, ...]:
        """Every marked seat, for a marked seat once the tags are in (else nothing)."""
        reading = self.reading(deal)
        if reading is None or reading.spy_key is None or len(deal.tags) < deal.seats:
            return ()
        return tuple(sorted(recognition.recognise(reading.spy_key, deal.tags, deal.tag_context)))

    def key_share(self, deal: RoleDeal, context: bytes, entropy: Entropy) -> Body:
        return {"share": elgamal.make_key_share(self.key, context, entropy).encode()}

    def recognition(self, deal: RoleDeal, context: bytes, entropy: Entropy) -> Body:
        return {"contribution": recognition.contribute(deal.pk, context, entropy).encode()}

    def shuffle(self, deal: RoleDeal, context: bytes, entropy: Entropy) -> Body:
        rows, proof = shuffle_rows_and_prove(deal.deck, deal.pk, context, entropy)
        return {
            "cards": [[face.encode(), key.encode()] for face, key in rows],
            "proof": proof.encode(),
        }

    def deal_tokens(self, deal: RoleDeal, context: bytes, entropy: Entropy) -> Body:
        tokens = []
        for index, card in enumerate(deal.deck):
            if index != self.seat:
                face, key = recognition.role_tokens(card, self.key, context, entropy, self.public)
                tokens.append([face.encode(), key.encode()])
        return {"tokens": tokens}

    def spy_tag(self, deal: RoleDeal, context: bytes, entropy: Entropy) -> Body:
        reading = self.reading(deal)
        assert reading is not None, "the tags come after the deal"
        if reading.spy_key is not None:
            return {"tag": recognition.spy_tag(reading.spy_key, self.seat, deal.tag_context)}
        return {"tag": recognition.resistance_tag(entropy)}


BUILD = {
    "key_share": RoleHand.key_share,
    "recognition": RoleHand.recognition,
    "shuffle": RoleHand.shuffle,
    "deal_tokens": RoleHand.deal_tokens,
    "spy_tag": RoleHand.spy_tag,
}

PROTOCOL: SubProtocol[RoleDeal, RoleHand] = SubProtocol(KINDS, SCHEMAS, APPLY, BUILD)
"""The role deal as a game composes it (``engines.game.SubProtocol``): ``PROTOCOL.moves``."""

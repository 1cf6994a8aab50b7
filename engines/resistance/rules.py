"""The Resistance over signed records: the rules that make the hidden information real.

Theory of operation
-------------------
``ResistanceRules`` is the game's ``GameRules`` (on the kit, ``engines.game``): a pure state
machine over records that wraps the public rules (``model.Game``) and feeds them the beacon
values and the outcomes of the hidden steps once those are proven. Every proof is checked when
its record arrives; what cannot be checked before the end (a Resistance member's Fail, a spy tag)
is checked at the final reveal. The engine never knows which seat is local.
Stages, each one record per seat in seat order unless said otherwise (DESIGN.md §5):

``setup``        the role deal with recognition, a sub-protocol with its own state
                 (``engines.protocols.role_deal``: ``key_share``, ``recognition``, ``shuffle``,
                 ``deal_tokens``, ``spy_tag``; no recognition and no tags under Blind Spies);
                 ``State.stage`` shows the deal's stage meanwhile.
``play``         the first Leader by a beacon Draw, then the rules' flow. Decisions are one record
                 by the deciding seat. Hidden steps:
                 * votes: ``vote_commit`` by each voter of the step in priority order from L, then
                   ``vote_open`` in the same order (Opinion Makers form a step of their own);
                 * plot draws: one beacon Draw gives every card of the draw;
                 * role looks: ``look`` by the seat looked at, its face token sealed to the
                   viewer's key share (``crypto.seal.SealedShare``), proven at once to be its
                   true token, so the viewer always reads the role;
                 * mission: ``mission_card`` (Enc(Success|Fail) + OR-proof) by each member in
                   priority order; ``spotlight_shares`` by every seat if someone is spotlighted;
                   Keeping a Close Eye: ``eye_token`` by every seat but the examiner, who completes
                   the decryption privately; then ``mix`` by every seat over the cards not
                   spotlighted, and ``mission_shares`` by every seat: the counts.
``reveal``       ``reveal``: every seat (but those that forfeited) opens its key share secret.
                 The engine then decrypts every role and every mission card and checks: a
                 Resistance member's Fail and a wrong spy tag are rule violations, each
                 attributed to the record that committed to it; the seat's team forfeits.
``done``         the result.

A forfeit (fraud interrupt or abandon) ends play; before the roles are dealt nobody wins,
afterwards every other seat still opens its secrets and the forfeiter's team loses (the table's
one rule, ``table.settle``, fed by ``side_of``). A forfeiter owes nothing: its role is proven by
the spy count only where the count leaves no choice, and what its closed key share leaves
unjudged (the mission cards, the spy tags) is said in the result. A seat that can read its role
(the last seat of the deal, and everyone after it) and walks away has deserted
(``seen_secret``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spycraft.crypto import elgamal, mix, recognition
from spycraft.crypto.commit import Commitment
from spycraft.crypto.deck import Faces
from spycraft.crypto.elgamal import Ciphertext, DecryptionShare, ProvenCiphertext
from spycraft.crypto.encoding import encode
from spycraft.crypto.errors import BadOpening, IllegalAction, MalformedRecord
from spycraft.crypto.group import Point, scalar_sum
from spycraft.crypto.hashing import uniform_from
from spycraft.crypto.records import Genesis, Record
from spycraft.crypto.seal import SealedShare, verify_sealed_share
from spycraft.crypto.shuffle import ShuffleProof
from spycraft.engines.agent import Choice
from spycraft.engines.game import (
    PLAY,
    REVEAL,
    SETUP,
    Cheat,
    Played,
)
from spycraft.engines.protocols import role_deal
from spycraft.engines.resistance import ABOUT
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game, Proposal
from spycraft.engines.schema import Body
from spycraft.engines.table import Draw, GameNeed, Result, Turn, Unjudged

MISSION_FACES = Faces.of("resistance/mission", [R.SUCCESS, R.FAIL])
RoleCard = recognition.RoleCard

# decision kinds of rules section 9 -> record kinds
RECORD_OF_DECISION = {
    "strong_leader": "strong_leader",
    "plot_deal": "plot_deal",
    "overheard_target": "overheard",
    "open_up_viewer": "open_up",
    "propose": "propose",
    "take_responsibility": "take_responsibility",
    "no_confidence": "no_confidence",
    "spotlight": "spotlight",
    "close_eye": "close_eye",
}


NAME = "resistance"


def recognition_context(table: bytes) -> bytes:
    return encode(["spycraft/resistance/tags", table])


def vote_purpose(table: bytes, vote_index: int, opinion: bool, voter: int) -> str:
    """A vote commitment names its table, vote, step and voter: no seat can adopt another's."""
    return f"resistance/vote/{table.hex()}/{vote_index}/{int(opinion)}/{voter}"


@dataclass(frozen=True)
class PlayedCard:
    round: int
    seat: int
    seq: int
    ciphertext: Ciphertext


@dataclass(frozen=True)
class RoleLook:
    """A plot look at a role: the subject sealed its face token to the viewer, proven."""

    viewer: int
    subject: int
    seq: int
    sealed: SealedShare


@dataclass(frozen=True)
class Eye:
    """Keeping a Close Eye: every seat but the examiner publishes a token of one card."""

    round: int
    examiner: int
    target: int
    ciphertext: Ciphertext
    tokens: tuple[tuple[int, Point], ...] = ()


@dataclass(frozen=True)
class State(role_deal.RoleDealState):
    """The rulebook's game, with what the records add to it; the role deal (keys, recognition,
    the role deck, the deal, the tags), the act, the final reveal and the forfeits are the kit's
    fields (``RoleDealState``)."""

    game: Game
    table: bytes
    # votes of the current step
    commits: tuple[bytes, ...] = ()
    opened: tuple[bool, ...] = ()
    # mission in progress
    cards: tuple[PlayedCard, ...] = ()
    spotlight_shares: tuple[tuple[Point, ...], ...] = ()
    mixed: tuple[Ciphertext, ...] = ()
    mixes: int = 0
    mission_shares: tuple[tuple[Point, ...], ...] = ()
    eyes: tuple[Eye, ...] = ()
    looks_done: int = 0
    # the whole game, for the final reveal
    played: tuple[PlayedCard, ...] = ()
    role_looks: tuple[RoleLook, ...] = ()
    roles: tuple[str | None, ...] = ()  # None: a forfeiter's card the spy count leaves open

    @property
    def n(self) -> int:
        return self.game.n

    @property
    def pk(self) -> Point:
        return self.deal.pk

    @property
    def key_shares(self) -> tuple[Point, ...]:
        return self.deal.key_shares

    @property
    def contributions(self) -> tuple[recognition.Contribution, ...]:
        return self.deal.contributions

    @property
    def deck(self) -> tuple[RoleCard, ...]:
        return self.deal.deck

    @property
    def face_tokens(self) -> tuple[tuple[Point | None, ...], ...]:
        return self.deal.face_tokens

    @property
    def tags(self) -> tuple[bytes, ...]:
        return self.deal.tags

    @property
    def tag_seqs(self) -> tuple[int, ...]:
        return self.deal.tag_seqs

    def pending_look(self) -> R.Look | None:
        role_looks = [look for look in self.game.looks if look.what == "role"]
        return role_looks[self.looks_done] if self.looks_done < len(role_looks) else None

    def open_eye(self) -> Eye | None:
        return self.eyes[-1] if self.eyes and len(self.eyes[-1].tokens) < self.n - 1 else None

    def hidden_cards(self) -> tuple[PlayedCard, ...]:
        return tuple(c for c in self.cards if c.seat not in self.game.spotlighted)

    def others_face_tokens(self, card: int) -> tuple[Point, ...]:
        return self.deal.others_face_tokens(card)


class ResistanceRules(role_deal.RoleDealRules[State]):
    """The table's ``GameRules`` of The Resistance; the moves come from the package's table,
    the final reveal and the forfeits from the kit (``engines.game.KeyShareRules``, over the
    role deal: ``role_deal.RoleDealRules``)."""

    about = ABOUT
    sides: tuple[str, ...] = (R.RESISTANCE, R.SPIES)

    def after(self, state: State) -> State:
        if state.act == SETUP and state.deal.done:
            return replace(state, act=PLAY)
        if state.act == PLAY and state.game.phase == R.END:
            return replace(state, act=REVEAL)
        return state

    def initial(self, genesis: Genesis) -> State:
        o = genesis.options
        n = len(genesis.seats)
        game = R.new_game(n, o["plot"], o["targeting"], o["blind_spies"])
        deal = role_deal.new(
            n, R.RESISTANCE_COUNT[n], R.spies(n), not game.blind_spies,
            recognition_context(genesis.table),
        )
        return State(
            deal=deal,
            game=game,
            table=genesis.table,
            secrets=(None,) * game.n,
        )

    def play(self, state: State) -> GameNeed:
        n = state.n
        dealing = role_deal.turn(state.deal) if state.act == SETUP else None
        if dealing is not None:
            return dealing
        look = state.pending_look()
        if look is not None:
            return Turn(look.subject, ("look",))
        eye = state.open_eye()
        if eye is not None:
            done = {s for s, _ in eye.tokens}
            seat = next(s for s in range(n) if s != eye.examiner and s not in done)
            return Turn(seat, ("eye_token",))
        game = state.game
        phase = game.phase
        if phase == R.FIRST_LEADER:
            return Draw("first_leader")
        if phase == R.PLOT_DRAW:
            return Draw("plot")
        if phase == R.VOTE:
            if len(state.commits) < len(game.voters):
                return Turn(game.voters[len(state.commits)], ("vote_commit",))
            return Turn(game.voters[len(state.opened)], ("vote_open",))
        if phase == R.MISSION_PLAY:
            players = game.mission_players()
            if len(state.cards) < len(players):
                return Turn(players[len(state.cards)], ("mission_card",))
            return Turn(len(state.spotlight_shares), ("spotlight_shares",))
        if phase == R.MISSION_REVEAL:
            if state.mixes < n:
                return Turn(state.mixes, ("mix",))
            return Turn(len(state.mission_shares), ("mission_shares",))
        point = R.decision(game)
        assert point is not None, phase
        return Turn(point.seats[0], (RECORD_OF_DECISION[point.kind],))

    def on_draw(self, state: State, seed: bytes) -> State:
        game = state.game
        if game.phase == R.FIRST_LEADER:
            game = R.set_first_leader(game, uniform_from(seed, 0, game.n))
        else:
            index = 0
            while game.phase == R.PLOT_DRAW:
                game = R.draw_plot_card(game, uniform_from(seed, index, len(game.deck)))
                index += 1
        return replace(state, game=game)

    def audit(self, state: State) -> State:
        return _audit(state)

    def natural(self, state: State) -> Result | None:
        ending = state.game.ending
        return Result(ending.winner, ending.reason) if ending is not None else None

    def side_of(self, state: State, seat: int) -> str | None:
        role = state.roles[seat] if state.roles else None
        if role is None:
            return None
        return R.SPIES if role == recognition.SPY else R.RESISTANCE

    def hidden_side(self, state: State, seat: int) -> int:
        """The Resistance, hidden from one another, are a quorum of the others at every count
        (3 of 5 ... 6 of 10), and may act together as the spies may: their votes alone are a
        claim (docs/rulings.md, red team 26). The spies are always fewer."""
        return R.RESISTANCE_COUNT[len(state.secrets)]

def apply_strong_leader(state: State, record: Record, body: Body) -> State:
    play = body["play"]
    if not isinstance(play, bool):
        raise MalformedRecord(record.seat, record.seq, "play is true or false")
    return _window(state, record, True if play else None)


def apply_no_confidence(state: State, record: Record, body: Body) -> State:
    return apply_strong_leader(state, record, body)


def apply_spotlight(state: State, record: Record, body: Body) -> State:
    return _window(state, record, body["target"])


def apply_take_responsibility(state: State, record: Record, body: Body) -> State:
    take = body["take"]
    return _window(state, record, None if take is None else tuple(take))


def apply_close_eye(state: State, record: Record, body: Body) -> State:
    target = body["target"]
    state = _window(state, record, target)
    if target is None:
        return state
    card = next(c for c in state.cards if c.seat == target)
    eye = Eye(state.game.round, record.seat, target, card.ciphertext)
    return replace(state, eyes=state.eyes + (eye,))


def _window(state: State, record: Record, choice: Choice) -> State:
    if state.game.window is None or R.WINDOW_CARD[state.game.phase] != record.kind:
        raise IllegalAction(record.seat, record.seq, f"no {record.kind} window is open")
    return replace(state, game=R.play_window(state.game, record.seat, choice))


def apply_plot_deal(state: State, record: Record, body: Body) -> State:
    pairs = body["deal"]
    deal = {card: seat for card, seat in pairs}
    if len(deal) != len(pairs):
        raise IllegalAction(record.seat, record.seq, "each drawn card is dealt once")
    return replace(state, game=R.deal_plot(state.game, record.seat, deal))


def apply_overheard(state: State, record: Record, body: Body) -> State:
    return replace(state, game=R.resolve_overheard(state.game, record.seat, body["target"]))


def apply_open_up(state: State, record: Record, body: Body) -> State:
    return replace(state, game=R.resolve_open_up(state.game, record.seat, body["viewer"]))


def apply_propose(state: State, record: Record, body: Body) -> State:
    team = body["team"]
    if not isinstance(team, tuple) or not all(isinstance(s, int) for s in team):
        raise MalformedRecord(record.seat, record.seq, "a team is a list of seats")
    proposal = Proposal(body["mission"], team)
    return replace(state, game=R.propose(state.game, record.seat, proposal))


def apply_look(state: State, record: Played, body: Body) -> State:
    look = state.pending_look()
    assert look is not None and look.subject == record.seat
    sealed = SealedShare.decode(body["sealed"])
    keys = state.key_shares
    face = state.deck[look.subject][0]
    verify_sealed_share(sealed, face.c1, keys[look.subject], keys[look.viewer],
                        record.context)
    role_look = RoleLook(look.viewer, look.subject, record.seq, sealed)
    return replace(
        state, looks_done=state.looks_done + 1, role_looks=state.role_looks + (role_look,)
    )


def apply_vote_commit(state: State, record: Record, body: Body) -> State:
    digest = body["commitment"]
    if not isinstance(digest, bytes) or len(digest) != 32:
        raise MalformedRecord(record.seat, record.seq, "a commitment is 32 bytes")
    return replace(state, commits=state.commits + (digest,))


def apply_vote_open(state: State, record: Record, body: Body) -> State:
    game = state.game
    index = len(state.opened)
    vote, nonce = body["vote"], body["nonce"]
    purpose = vote_purpose(state.table, len(game.vote_log), game.opinion_step, record.seat)
    if not isinstance(vote, bool) or not Commitment(state.commits[index], purpose).opens_to(
        vote, nonce
    ):
        raise BadOpening(record.seat, record.seq, "the vote does not open its commitment")
    opened = state.opened + (vote,)
    if len(opened) < len(game.voters):
        return replace(state, opened=opened)
    votes = dict(zip(game.voters, opened))
    return replace(state, game=R.cast_votes(game, votes), commits=(), opened=())


def apply_mission_card(state: State, record: Played, body: Body) -> State:
    proven = ProvenCiphertext.decode(body["card"], 2)
    mix.verify_contribution(state.pk, MISSION_FACES, proven, record.context)
    card = PlayedCard(state.game.round, record.seat, record.seq, proven.ciphertext)
    state = replace(state, cards=state.cards + (card,), played=state.played + (card,))
    if len(state.cards) == len(state.game.team) and not state.game.spotlighted:
        return _mission_played(state, {})
    return state


def apply_spotlight_shares(state: State, record: Played, body: Body) -> State:
    shown = [next(c for c in state.cards if c.seat == s) for s in state.game.spotlighted]
    shares = _decode_shares(record, body["shares"], len(shown))
    mix.verify_decryption_shares(
        [c.ciphertext for c in shown],
        state.key_shares[record.seat],
        shares,
        record.context,
    )
    collected = state.spotlight_shares + (tuple(s.share for s in shares),)
    state = replace(state, spotlight_shares=collected)
    if len(collected) < state.n:
        return state
    faces = mix.tally([c.ciphertext for c in shown], collected, MISSION_FACES)
    return _mission_played(state, {c.seat: f for c, f in zip(shown, faces)})


def _mission_played(state: State, shown: dict[int, str]) -> State:
    game = R.play_mission(state.game, shown)
    return replace(
        state, game=game, mixed=tuple(c.ciphertext for c in state.hidden_cards()), mixes=0
    )


def apply_eye_token(state: State, record: Played, body: Body) -> State:
    eye = state.open_eye()
    assert eye is not None
    share = DecryptionShare.decode(body["share"])
    elgamal.verify_decryption_share(
        eye.ciphertext, state.key_shares[record.seat], share, record.context
    )
    eye = replace(eye, tokens=eye.tokens + ((record.seat, share.share),))
    return replace(state, eyes=state.eyes[:-1] + (eye,))


def apply_mix(state: State, record: Played, body: Body) -> State:
    count = len(state.mixed)
    outputs = elgamal.decode_ciphertexts(body["cards"], count=count)
    proof = ShuffleProof.decode(body["proof"], count)
    mix.verify_mix(state.mixed, outputs, state.pk, proof, record.context)
    return replace(state, mixed=outputs, mixes=state.mixes + 1)


def apply_mission_shares(state: State, record: Played, body: Body) -> State:
    shares = _decode_shares(record, body["shares"], len(state.mixed))
    mix.verify_decryption_shares(
        state.mixed, state.key_shares[record.seat], shares, record.context
    )
    collected = state.mission_shares + (tuple(s.share for s in shares),)
    if len(collected) < state.n:
        return replace(state, mission_shares=collected)
    faces = mix.tally(state.mixed, collected, MISSION_FACES)
    fails = sum(1 for f in faces if f == R.FAIL)
    game = R.reveal_mission(state.game, len(faces) - fails, fails)
    state = replace(
        state,
        game=game,
        cards=(),
        spotlight_shares=(),
        mixed=(),
        mixes=0,
        mission_shares=(),
    )
    return state


def _audit(state: State) -> State:
    """Every role and every mission card, now that the key shares are open. A forfeiter's card
    is proven by the spy count only where it leaves no choice (``role_deal.roles_known``); the
    mission cards and spy tags need every key share, so a closed one leaves them unjudged
    (``engines.table``, "What a forfeiter owes")."""
    secrets = state.secrets
    final = role_deal.roles_known(state.deal, secrets)[: state.n]
    violations = list(state.violations)
    unjudged: list[Unjudged] = []
    closed = [seat for seat, secret in enumerate(secrets) if secret is None]
    if closed:
        needs = " and ".join(f"seat {seat}'s key share" for seat in closed)
        for played in state.played:
            if final[played.seat] != recognition.SPY:  # only a Resistance member's card is judged
                unjudged.append(Unjudged(played.seat, played.seq, "mission card", needs))
        if not state.game.blind_spies:
            for seat, seq in enumerate(state.tag_seqs):
                unjudged.append(Unjudged(seat, seq, "spy tag", needs))
        return replace(state, roles=final, violations=tuple(violations), unjudged=tuple(unjudged))
    key = scalar_sum(s for s in secrets if s is not None)
    for played in state.played:
        face = MISSION_FACES.label_of(elgamal.decrypt_with_secret(played.ciphertext, key))
        if face == R.FAIL and final[played.seat] == recognition.RESISTANCE:
            violations.append(Cheat(played.seat, played.seq, "a Resistance member played Fail"))
    if not state.game.blind_spies:
        spy_key = elgamal.decrypt_with_secret(
            recognition.spy_key_ciphertext(state.contributions), key
        )
        roles = tuple(r for r in final if r is not None)
        for seat in recognition.audit_tags(
            roles, spy_key, state.tags, recognition_context(state.table)
        ):
            violations.append(
                Cheat(seat, state.tag_seqs[seat], "the spy tag contradicts the role")
            )
    return replace(state, roles=final, violations=tuple(violations))


def _decode_shares(record: Record, value: object, count: int) -> tuple[DecryptionShare, ...]:
    if not isinstance(value, tuple) or len(value) != count:
        raise MalformedRecord(record.seat, record.seq, f"{count} decryption shares expected")
    return tuple(DecryptionShare.decode(v) for v in value)

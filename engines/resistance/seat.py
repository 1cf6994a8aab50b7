"""The private side of one Resistance seat: its key share, its role, and how it builds records.

Theory of operation: every secret comes from the seat's master secret (``SeatContext.secret``):
the key share, and one entropy stream per record (labelled by kind and seq), so a seat that
rebuilds a record after a crash produces the same bytes and never equivocates. The only private
choices that cannot be derived (a vote, a mission card) go to ``memo`` before the record that
commits to them is built. The seat does every protocol step itself and asks its agent only for
the decisions of rules section 9, with a ``SeatView`` of what it knows.

What the seat knows is recomputed from the public state and its secrets: its role (its own
token added to everyone else's for its card), the spies (its spy key and the tags), the roles
its plot looks showed (the token the seat looked at sealed to it, proven by every engine when it
was sealed, so it always opens) and the cards its Close Eye
showed (its own token added to the other seats' tokens of that card).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spycraft.crypto import elgamal, mix, recognition
from spycraft.crypto.commit import Commitment
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.seal import SealedShare, open_sealed_share, seal_share
from spycraft.engines.agent import Agent, Choice
from spycraft.engines.game import Build, KeyShareSeat, Rules
from spycraft.engines.protocols import role_deal
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.rules import MISSION_FACES, State, vote_purpose
from spycraft.engines.resistance.screen import card_title
from spycraft.engines.resistance.view import Knowledge, SeatView
from spycraft.engines.schema import Body
from spycraft.engines.screens import seat_list
from spycraft.engines.seat import SeatContext

PROMPTS = {
    "strong_leader": "Play Strong Leader and become the Leader?",
    "plot_deal": "Deal the drawn plot cards (never to yourself)",
    "overheard_target": "Overheard Conversation: whose role do you look at?",
    "open_up_viewer": "Open Up: who sees your role?",
    "propose": "Propose a mission and a team",
    "take_responsibility": "Take Responsibility: take a card?",
    "vote": "Approve this team?",
    "no_confidence": "Play No Confidence on the approved team?",
    "spotlight": "In the Spotlight: whose card is shown face up?",
    "mission_card": "Your mission card",
    "close_eye": "Keeping a Close Eye on You: whose card do you examine?",
}


def prompt(game: R.Game, kind: str, options: Sequence[Choice]) -> str:
    """The question of a decision; a Leader chooses the mission only under Targeting, else
    the team for the one mission that is next."""
    if kind == "propose" and not game.targeting:
        missions = sorted({o.mission for o in options})
        if len(missions) == 1:
            return f"Propose a team for mission {missions[0]}"
    return PROMPTS[kind]


def label(kind: str, option: Choice) -> str:
    if option is None:
        return "pass"
    if kind in ("strong_leader", "no_confidence"):
        return "play"
    if kind == "vote":
        return "approve" if option else "reject"
    if kind == "propose":
        return f"mission {option.mission}: {seat_list(option.team)}"
    if kind == "plot_deal":
        return ", ".join(f"{card_title(card)} to seat {seat}" for card, seat in option)
    if kind == "take_responsibility":
        return f"take {card_title(option[1])} from seat {option[0]}"
    if isinstance(option, int):  # a seat to look at, show, or put in the spotlight
        return f"seat {option}"
    return str(option)


class ResistanceSeat(KeyShareSeat[State, SeatView]):
    def __init__(self, context: SeatContext, rules: Rules[State]) -> None:
        super().__init__(context, rules)
        self.hand = role_deal.RoleHand(self.seat, self.key)  # this seat's side of the role deal
        self._seen: dict[tuple[int, SealedShare], bool] = {}  # by what was read, not its seq

    def entropy(self, kind: str, seq: int, place: tuple[str, ...] = ()) -> SeededEntropy:
        """The record's stream (``GameSeat.entropy``), but a spy tag's is its seq's alone: a
        non-spy's tag is 32 bytes of it, no nonce, and must repeat wherever a spy's repeats (a
        spy's is HMAC(KDF(S), seat), the same on every branch with the same S); drawn from each
        place's own stream, the tags of two branches told every seat's role (red team 19)."""
        return super().entropy(kind, seq, () if kind == "spy_tag" else place)

    # --- what this seat knows ----------------------------------------------------------------

    def reading(self, state: State) -> recognition.RoleReading | None:
        return self.hand.reading(state.deal)

    def view(self, state: State) -> SeatView:
        return SeatView(state.game, self.knowledge(state))

    def knowledge(self, state: State) -> Knowledge:
        reading = self.reading(state)
        spy = reading is not None and reading.role == recognition.SPY
        known = self.hand.known_marked(state.deal) if spy else ()
        seen_roles = []
        for look in state.role_looks:
            if look.viewer == self.seat:
                # kept by the look itself: after a rollback another branch may hold another
                # look at that seq (as Shady Agents' tools, red team 16)
                read = (look.subject, look.sealed)
                if read not in self._seen:
                    self._seen[read] = self._read_look(state, look.subject, look.sealed)
                seen_roles.append((look.subject, self._seen[read]))
        seen_cards = []
        for eye in state.eyes:
            if eye.examiner == self.seat and len(eye.tokens) == state.n - 1:
                own = eye.ciphertext.c1 * self.key
                face = MISSION_FACES.label_of(
                    elgamal.combine(eye.ciphertext, [own, *(t for _, t in eye.tokens)])
                )
                seen_cards.append((eye.round, eye.target, face))
        own_cards = tuple(
            (played.round, card)
            for played in state.played
            if played.seat == self.seat
            and (card := self._own_card(played.round, played.ciphertext)) is not None
        )
        return Knowledge(self.seat, spy, known, tuple(seen_roles), tuple(seen_cards), own_cards)

    def _own_card(self, round_: int, played: elgamal.Ciphertext) -> str | None:
        """The card this seat chose for the ciphertext it played on this chain, if it knows it."""
        entries = self._kept(f"card/{round_}")
        if not entries:
            return None
        played_bytes = b"".join(played.encode())  # encoded once, not once per entry
        for entry in entries:
            if len(entry) < 3 or bytes(entry[2]) == played_bytes:
                return str(entry[0])
        return None

    def _read_look(self, state: State, subject: int, sealed: SealedShare) -> bool:
        token = open_sealed_share(sealed, self.key)
        role = recognition.look(state.deck[subject], [*state.others_face_tokens(subject), token])
        return role == recognition.SPY

    def prompt(self, state: State, kind: str, options: Sequence[Choice]) -> str:
        return prompt(state.game, kind, options)

    def label(self, view: SeatView, kind: str, option: Choice) -> str:
        return label(kind, option)

    # --- building records (dispatched by the moves table, ``engines.game``) ------------------

    def build_look(self, state: State, b: Build) -> Body:
        look = state.pending_look()
        assert look is not None
        face = state.deck[self.seat][0]
        viewer = state.key_shares[look.viewer]
        sealed = seal_share(self.key, face.c1, viewer, b.context, b.entropy, self.public)
        return {"sealed": sealed.encode()}

    # A vote and a mission card are chosen before the record that hides them, and kept in the
    # memo with the place (prev) of that record: one entry per branch the seat wrote it on. A
    # seat whose table rolled back past that place is asked again there, never handed the other
    # branch's choice, and hides it under fresh secrets (a vote's nonce by ``_branch``, a card's
    # randomness by its record's stream, ``GameSeat.place_of``): with the nonce or the
    # randomness of a branch whose record every peer holds, its new one could be read. The
    # opening is the entry whose commitment is on this chain, so a return to the first branch
    # still opens what the seat committed there.

    def _kept(self, key: str) -> list[list[Any]]:
        """The entries under ``key``: [choice, prev, ...]; a bare choice (a seat file of an older
        version) is one entry of an unknown place, taken anywhere as it was."""
        kept = self.context.memo.get(key)
        if kept is None:
            return []
        return kept if isinstance(kept, list) else [[kept, None]]

    def _kept_here(self, key: str, choose: Callable[[], Any]) -> tuple[int, list[Any]]:
        """The entry for the place being built (made with ``choose`` the first time)."""
        entries = self._kept(key)
        for number, entry in enumerate(entries):
            if entry[1] is None or bytes(entry[1]) == self.context.prev:
                return number, entry
        entry = [choose(), self.context.prev]
        self.context.memo[key] = [*entries, entry]
        return len(entries), entry

    @staticmethod
    def _branch(number: int, entry: list[Any]) -> tuple[str, ...]:
        """The label that makes an entry's secrets its own: none for the first (so a game
        without a rollback is byte for byte what it was), its place for any later one."""
        return () if number == 0 else (bytes(entry[1]).hex(),)

    def _vote_key(self, state: State) -> str:
        return f"vote/{len(state.game.vote_log)}/{int(state.game.opinion_step)}"

    def _vote_commitment(self, state: State, key: str, number: int, entry: list[Any]
                         ) -> tuple[Commitment, bytes]:
        game = state.game
        purpose = vote_purpose(state.table, len(game.vote_log), game.opinion_step, self.seat)
        nonce = self.context.secret(key, *self._branch(number, entry))
        return Commitment.to(purpose, bool(entry[0]), nonce), nonce

    def build_vote_commit(self, state: State, b: Build) -> Body:
        key = self._vote_key(state)
        number, entry = self._kept_here(
            key, lambda: bool(self.ask(state, b.agent, "vote", (True, False))))
        return {"commitment": self._vote_commitment(state, key, number, entry)[0].digest}

    def build_vote_open(self, state: State, b: Build) -> Body:
        key = self._vote_key(state)
        ours = state.commits[len(state.opened)]  # the voters open in the order they committed
        for number, entry in enumerate(self._kept(key)):
            commitment, nonce = self._vote_commitment(state, key, number, entry)
            if commitment.digest == ours:
                return {"vote": bool(entry[0]), "nonce": nonce}
        raise RuntimeError(f"seat {self.seat} has no opening of its vote commitment {key}")

    def build_mission_card(self, state: State, b: Build) -> Body:
        key = f"card/{state.game.round}"

        def choose() -> str:
            reading = self.reading(state)
            spy = reading is not None and reading.role == recognition.SPY
            return str(self.ask(state, b.agent, "mission_card", R.mission_card_options(spy)))

        _, entry = self._kept_here(key, choose)  # b.entropy is this place's own (place_of)
        card = mix.contribute(state.pk, MISSION_FACES, str(entry[0]), b.context, b.entropy)
        if len(entry) < 3:  # which ciphertext it chose, so its view reads the card of this chain
            entry.append(b"".join(card.ciphertext.encode()))
        return {"card": card.encode()}

    def build_spotlight_shares(self, state: State, b: Build) -> Body:
        shown = [next(c for c in state.cards if c.seat == s) for s in state.game.spotlighted]
        shares = mix.decryption_shares(
            [c.ciphertext for c in shown], self.key, b.context, b.entropy
        )
        return {"shares": [s.encode() for s in shares]}

    def build_eye_token(self, state: State, b: Build) -> Body:
        eye = state.open_eye()
        assert eye is not None
        share = elgamal.decryption_share(
            eye.ciphertext, self.key, b.context, b.entropy, self.public
        )
        return {"share": share.encode()}

    def build_mix(self, state: State, b: Build) -> Body:
        outputs, proof = mix.mix(state.mixed, state.pk, b.context, b.entropy)
        return {"cards": elgamal.encode_ciphertexts(outputs), "proof": proof.encode()}

    def build_mission_shares(self, state: State, b: Build) -> Body:
        shares = mix.decryption_shares(state.mixed, self.key, b.context, b.entropy)
        return {"shares": [s.encode() for s in shares]}

    # --- decisions ---------------------------------------------------------------------------

    def _decide(self, state: State, agent: Agent) -> tuple[str, Choice]:
        point = R.decision(state.game)
        assert point is not None and self.seat in point.seats
        return point.kind, self.ask(state, agent, point.kind, point.options)

    def build_strong_leader(self, state: State, b: Build) -> Body:
        return {"play": self._decide(state, b.agent)[1] is True}

    def build_no_confidence(self, state: State, b: Build) -> Body:
        return {"play": self._decide(state, b.agent)[1] is True}

    def build_spotlight(self, state: State, b: Build) -> Body:
        return {"target": self._decide(state, b.agent)[1]}

    def build_close_eye(self, state: State, b: Build) -> Body:
        return {"target": self._decide(state, b.agent)[1]}

    def build_take_responsibility(self, state: State, b: Build) -> Body:
        choice = self._decide(state, b.agent)[1]
        return {"take": None if choice is None else list(choice)}

    def build_plot_deal(self, state: State, b: Build) -> Body:
        return {"deal": [list(pair) for pair in self._decide(state, b.agent)[1]]}

    def build_overheard(self, state: State, b: Build) -> Body:
        return {"target": self._decide(state, b.agent)[1]}

    def build_open_up(self, state: State, b: Build) -> Body:
        return {"viewer": self._decide(state, b.agent)[1]}

    def build_propose(self, state: State, b: Build) -> Body:
        proposal = self._decide(state, b.agent)[1]
        return {"mission": proposal.mission, "team": list(proposal.team)}

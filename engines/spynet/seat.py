"""The private side of one SpyNet seat: its deck key share, what it has seen, how it builds.

Theory of operation: every secret comes from the seat's master secret (``SeatContext.secret``):
the deck key share, and one entropy stream per record, so a seat that rebuilds a record after a
crash writes the same bytes. What the seat knows is derived from the public state and its secrets
(``deck_ops.DeckHand.peek``): the faces of its hand, of the pile cards it looked at, of the
cards it passed or drafted (``view.seat_view``, which also gives ``replay --as`` the same
view in hindsight). The seat answers every deck step itself and asks its agent only for
the decisions of rules §13, with a ``SeatView``. Deploy offers several record kinds at once; the
seat asks first and then writes the kind of the chosen option.
"""

from __future__ import annotations

from spycraft.crypto import proofs
from spycraft.crypto.elgamal import Ciphertext
from spycraft.engines.agent import Agent, Choice
from spycraft.engines.game import Build, KeyShareSeat, Rules
from spycraft.engines.protocols import deck_ops
from spycraft.engines.schema import Body
from spycraft.engines.seat import SeatContext
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.cards import PAPER_TRAIL_HAND_LIMIT, Branch
from spycraft.engines.spynet.labels import describe_option
from spycraft.engines.spynet.rules import (
    DECISION_KINDS,
    State,
    mission_faces,
    mission_points,
    mission_statement,
)
from spycraft.engines.spynet.view import SeatView, seat_view
from spycraft.engines.table import Turn

PROMPTS = {
    "draft_pick": "Draft: which card do you keep?",
    "turn_action": "Recruit or deploy?",
    "pile": "Take this pile?",
    "deploy": "Deploy: play a card, pass one, or end",
    "effect": "Use the effect of the special agent just played?",
    "paper_trail": "Paper Trail: discard a card",
}


class SpyNetSeat(KeyShareSeat[State, SeatView]):
    prompts = PROMPTS

    def __init__(self, context: SeatContext, rules: Rules[State]) -> None:
        super().__init__(context, rules)
        self.hand = deck_ops.DeckHand(self.seat, self.key)
        self._faces: dict[Ciphertext, str] = {}  # by the card, not its position

    # --- what this seat knows ----------------------------------------------------------------

    def face(self, state: State, position: int) -> str | None:
        """The face of the card at ``position`` if this seat may know it, kept by the card's
        ciphertext (another branch may hold another deck: red team 16)."""
        card = state.ops.deck.cards[position]
        if card not in self._faces:
            face = self.hand.peek(state.ops, position)
            if face is None:
                return None
            self._faces[card] = face
        return self._faces[card]

    def view(self, state: State) -> SeatView:
        return seat_view(state, self.seat, lambda position: self.face(state, position))

    def label(self, view: SeatView, kind: str, option: Choice) -> str:
        return describe_option(kind, option, view)

    # --- building records --------------------------------------------------------------------

    def kind_of(self, state: State, turn: Turn, agent: Agent) -> str:
        """Deploy offers several kinds at once: the player's choice says which is written."""
        if turn.kinds != DECISION_KINDS:
            return super().kind_of(state, turn, agent)
        kind: str = self.ask(state, agent, "deploy", self.deploy_options(state))[0]
        return kind

    def build_draft_pick(self, state: State, b: Build) -> Body:
        game = _game(state)
        return {"card": self.ask(state, b.agent, "draft_pick", game.draft)}

    def build_action(self, state: State, b: Build) -> Body:
        return {"recruit": bool(self.ask(state, b.agent, "turn_action", (True, False)))}

    def build_pile(self, state: State, b: Build) -> Body:
        return {"take": bool(self.ask(state, b.agent, "pile", (True, False)))}

    def build_deploy(self, state: State, b: Build) -> Body:
        """One of the deploy kinds: the choice was asked in ``build`` (same seq, memo)."""
        choice = self.ask(state, b.agent, "deploy", self.deploy_options(state))
        kind = choice[0]
        if kind == "play_agent":
            return {"card": choice[1], "branch": str(choice[2]), "funding": list(choice[3])}
        if kind == "play_mission":
            return {"card": choice[1], "branch": str(choice[2]),
                    "proof": self.mission_proof(state, choice[1], choice[2], b)}
        if kind == "pass_card":
            return {"card": choice[1]}
        return {}

    def mission_proof(self, state: State, position: int, branch: Branch, b: Build
                      ) -> list[list[bytes]] | None:
        """The proof that a face-down mission is a mission of ``branch``
        (``rules.mission_statement``); None under S03, where it is played face up."""
        statement = mission_statement(state, self.seat, position)
        face = self.face(state, position)
        if statement is None or face is None:
            return None
        base, residue = statement
        faces = mission_faces(branch)
        proof = proofs.prove_encrypts_one_of(
            base, self.public, residue, mission_points(branch), faces.index(face), self.key,
            b.context, b.entropy.child("mission"),
        )
        return proof.encode()

    def build_effect(self, state: State, b: Build) -> Body:
        chosen = self.ask(state, b.agent, "effect", self.effect_options(state))
        if chosen is None:
            return {"use": None}
        use, discard = chosen
        target = use.target
        destination = None if use.destination is None else str(use.destination)
        return {"use": [discard, target.seat, str(target.branch), target.depth, destination]}

    def build_paper_trail(self, state: State, b: Build) -> Body:
        game = _game(state)
        left = list(game.hands[self.seat])
        chosen: list[int] = []
        # one pick per card, each asked once: the memo keys them by seq * 100 + pick number
        for i in range(len(left) - PAPER_TRAIL_HAND_LIMIT):
            options = tuple(p for p in left if p not in chosen)
            chosen.append(self.ask(state, b.agent, "paper_trail", options, seq=b.seq * 100 + i))
        return {"cards": chosen}

    # --- the legal options of §13 ------------------------------------------------------------

    def hand_faces(self, state: State) -> list[tuple[int, str]]:
        game = _game(state)
        known = [(p, self.face(state, p)) for p in game.hands[self.seat]]
        return [(p, f) for p, f in known if f is not None]

    def deploy_options(self, state: State) -> tuple[Choice, ...]:
        return M.deploy_options(_game(state), self.seat, self.hand_faces(state))

    def effect_options(self, state: State) -> tuple[Choice, ...]:
        return M.effect_options(_game(state), self.seat, self.hand_faces(state))


def _game(state: State) -> M.Game:
    assert state.game is not None
    return state.game

"""The private side of one Shady Agents seat: its key share, its role, its tools and records.

Theory of operation: every secret comes from the seat's master secret (``SeatContext.secret``):
the key share of the role deal and one entropy stream per record, so a seat that rebuilds a
record after a crash produces the same bytes. A tool given is sealed to the receiver's key share
and kept under this seat's own (``crypto.seal.SealedChoice``), a discard is encrypted under its
own key share, and its round-2 record proves that all its tools add up to one Bullet and one
Medkit; the final reveal is its key share secret alone, which opens them all. The seat asks its
agent only for the decisions of rules §9 (``round_one``, ``answer``, ``round_two``), with a
``SeatView``; everything else is automatic.

What it knows is recomputed from the public state and its secrets: its team (its card, read with
its own token), and the kinds it gave, discarded and received, each read from the chain with its
key share (every engine checked each seal when it was made, so it always opens). The kinds it
used are read from the chain, never from a memo keyed by seq: after a rollback the chain it is
on may hold other records of its at those seqs than the ones it last built (red team: its
round-2 proof, built on a memo of the other branch, stated a falsehood every seat refused).
"""

from __future__ import annotations

from spycraft.crypto import elgamal
from spycraft.crypto.elgamal import Ciphertext
from spycraft.crypto.seal import SealedChoice, seal_choice
from spycraft.engines.agent import Choice
from spycraft.engines.game import Build, KeyShareSeat, Rules
from spycraft.engines.protocols import role_deal
from spycraft.engines.schema import Body
from spycraft.engines.seat import SeatContext
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.cards import Answer
from spycraft.engines.shady_agents.components import BULLET, MEDKIT, TOOLS, Tool
from spycraft.engines.shady_agents.rules import (
    BOTH_TOOLS,
    TOOL_POINTS,
    State,
    spent,
    team_of_face,
)
from spycraft.engines.shady_agents.view import TOOL, Knowledge, SeatView

PROMPTS = {
    "round_one": "Your round-1 turn: make a Move or call an Interrogation",
    "answer": "Your answer to the interrogation card",
    "round_two": "Your round-2 turn: give away every tool you hold",
}


def label(kind: str, option: Choice) -> str:
    if kind == "round_one":
        if option[0] == "move":
            return f"give a {TOOL[option[1]]} to seat {option[2]}"
        if option[1] is None:
            return "interrogate (free)"
        return f"discard a {TOOL[option[1]]} and interrogate"
    if kind == "round_two":
        if isinstance(option, tuple):
            return f"Bullet to seat {option[0]}, Medkit to seat {option[1]}"
        return f"to seat {option}"
    return str(option)


class ShadyAgentsSeat(KeyShareSeat[State, SeatView]):
    prompts = PROMPTS

    def __init__(self, context: SeatContext, rules: Rules[State]) -> None:
        super().__init__(context, rules)
        self.hand = role_deal.RoleHand(self.seat, self.key)
        self._opened: dict[Ciphertext, Tool] = {}

    # --- what this seat knows ----------------------------------------------------------------

    def knowledge(self, state: State) -> Knowledge:
        reading = self.hand.reading(state.deal)
        team = None if reading is None else team_of_face(reading.role)
        game = state.game
        given: list[tuple[int, int, Tool]] = []
        received: list[tuple[int, int, Tool | None]] = []
        for gift, sealed in zip(game.gifts, state.seals):
            if gift.giver == self.seat:
                given.append((gift.seq, gift.receiver, self._read(sealed.own)))
            elif gift.receiver == self.seat:
                received.append((gift.seq, gift.giver, self._read(_to_receiver(sealed))))
        discarded = next(
            (self._read(proven.ciphertext)
             for d, proven in zip(game.discards, state.discard_seals) if d.seat == self.seat),
            None,
        )
        return Knowledge(self.seat, team, tuple(given), tuple(received), discarded)

    def _read(self, tool: Ciphertext) -> Tool:
        """The tool ``tool`` encrypts under this seat's key share (kept by the ciphertext, not
        by its place in the chain: another branch has other records at those places)."""
        if tool not in self._opened:
            point = elgamal.decrypt_with_secret(tool, self.key)
            self._opened[tool] = TOOLS[TOOL_POINTS.index(point)]
        return self._opened[tool]

    def view(self, state: State) -> SeatView:
        return SeatView(state.game, self.knowledge(state))

    def label(self, view: SeatView, kind: str, option: Choice) -> str:
        return label(kind, option)

    # --- building records (dispatched by the moves table, ``engines.game``) ------------------

    def _seal(self, state: State, receiver: int, kind: Tool, b: Build, slot: int) -> SealedChoice:
        return seal_choice(
            TOOL_POINTS, TOOLS.index(kind), self.public, state.deal.key_shares[receiver],
            b.context, b.entropy.child(f"tool/{slot}"),
        )

    def round_one_options(self, state: State) -> tuple[Choice, ...]:
        holding = self.knowledge(state).holding
        others = [s for s in range(state.n) if s != self.seat]
        moves = tuple(("move", kind, r) for kind in holding for r in others)
        if self.seat == state.game.first:
            return moves + (("interrogate", None),)
        return moves + tuple(("interrogate", kind) for kind in holding)

    def build_round_one(self, state: State, b: Build) -> Body:
        choice = self.ask(state, b.agent, "round_one", self.round_one_options(state))
        if choice[0] == "move":
            sealed = self._seal(state, choice[2], choice[1], b, 0)
            return {"give": [choice[2], sealed.encode()], "discard": None}
        if choice[1] is None:
            return {"give": None, "discard": None}
        discard = elgamal.encrypt_one_of(
            self.public, TOOL_POINTS, TOOLS.index(choice[1]), b.context, b.entropy.child("discard")
        )
        return {"give": None, "discard": discard.encode()}

    def answer_options(self, state: State) -> tuple[Answer, ...]:
        asking = state.game.asking
        assert asking is not None and asking.snapshot is not None
        team = self.knowledge(state).team
        drawn = asking.drawn
        assert team is not None
        return cards.required_answers(
            drawn, self.knowledge(state).known_snapshot(asking.snapshot), self.seat, team
        )

    def build_answer(self, state: State, b: Build) -> Body:
        return {"answer": self.ask(state, b.agent, "answer", self.answer_options(state))}

    def round_two_options(self, state: State) -> tuple[Choice, ...]:
        holding = self.knowledge(state).holding
        others = [s for s in range(state.n) if s != self.seat]
        if len(holding) == 2:
            return tuple((x, y) for x in others for y in others if x != y)
        return tuple(others)

    def build_round_two(self, state: State, b: Build) -> Body:
        holding = self.knowledge(state).holding
        choice = self.ask(state, b.agent, "round_two", self.round_two_options(state))
        gifts: list[tuple[int, Tool]]
        if isinstance(choice, tuple):  # listed by receiver: the order tells nothing
            gifts = sorted([(choice[0], BULLET), (choice[1], MEDKIT)])
        else:
            gifts = [(choice, holding[0])]
        sealed = [self._seal(state, r, kind, b, slot) for slot, (r, kind) in enumerate(gifts)]
        tools = elgamal.ciphertext_sum(spent(state, self.seat) + [c.own for c in sealed])
        both = elgamal.prove_plaintext(
            tools, self.key, BOTH_TOOLS, b.context, b.entropy.child("both"), self.public
        )
        return {"gifts": [[r, c.encode()] for (r, _), c in zip(gifts, sealed)],
                "both": both.encode()}


def _to_receiver(sealed: SealedChoice) -> Ciphertext:
    """The receiver's column of a sealed tool: its tool encrypted under the receiver's key."""
    return Ciphertext(sealed.c1, sealed.to_receiver)

"""The private side of one Confusion seat: the types it assigned, its blindings, its records.

Theory of operation: a seat's only secrets are the 13 types it commits to for the opponent's
spies: their order in its ``assign`` record (a permutation drawn from ``secret("order")``, which
the record proves is one of the 13 types, without saying which) and one blinding scalar per
commitment (from ``secret("blinding", i)``). Both are derived from the
master secret, so a resumed seat rebuilds them without a memo. Once the beacon has placed the
commitments on the spies, the seat knows each enemy spy's type (§12) and never any of its own.

It writes itself whatever the rules force with no answer to give (every promotion statement, a
shown type, the final openings) and asks its agent for the rulebook's decisions: a token, a free
action, an announcement, and every answer: the Double Agent's with "yes" and "no", every other
one with the one answer its type forces. So a person is asked for each answer alike and a bot
that takes its time takes it for each (DESIGN §4: timing never tells who decided); that every
answer then leaves after the same delay is the client's job (the game's ``paced`` kinds in
``p2p.session``), and the record itself is the same either way. Every proof is a membership
proof of ``crypto.membership`` on its own commitment, bound to the record's context.
"""

from __future__ import annotations

from spycraft.crypto.entropy import SeededEntropy, below
from spycraft.crypto.group import Scalar
from spycraft.crypto.membership import Commitment, commit, prove_member, prove_permutation
from spycraft.engines.confusion import model, notebook
from spycraft.engines.confusion.board import SIDE_NAMES, SPIES, Side, line, opp, side_of
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import (
    TYPE_IDS,
    Announcement,
    announceable,
    answer_sets,
    forced_answer,
    promotion_sets,
    promotion_statement,
)
from spycraft.engines.confusion.rules import TYPE_DOMAIN, State
from spycraft.engines.confusion.screen import line_text, type_name
from spycraft.engines.confusion.view import SeatView
from spycraft.engines.game import Build, GameSeat, Rules
from spycraft.engines.schema import Body
from spycraft.engines.seat import SeatContext


def announce_options(g: Game) -> list[Announcement]:
    """§13 ``announce``: every announceable move, without spies already announced this turn."""
    return [a for a in announceable(g.board, g.turn) if a.spy not in g.moved]


def announce_menu(g: Game) -> tuple[list[Announcement], list[str]]:
    """The announce decision's options and labels: the moves the notebook knows would be
    refused come last and say why ("W-C moves forward 3 to f4 (refused before)",
    ``notebook.refusals``), so the first option, the one Enter takes, is a new try."""
    legal = announce_options(g)
    notes = notebook.refusals(g, legal)
    order = [i for i, n in enumerate(notes) if not n] + [i for i, n in enumerate(notes) if n]
    return ([legal[i] for i in order],
            [announce_label(g, legal[i]) + (f" ({notes[i]})" if notes[i] else "") for i in order])


# --- the options in words: spies by the names the board shows, squares as it writes them ------

MODE_WORDS = {
    "move": "moves",
    "leave": "leaves the briefcase and moves",
    "carry": "carries the briefcase",
    "throw": "throws the briefcase",
}


def _square(g: Game, spy: str) -> str:
    return str(g.board.position(spy))


def announce_label(g: Game, a: Announcement) -> str:
    """"W-C moves forward 2 to f5": the spy, how, the line from its owner's side and the square,
    so that "w-c moves forward 2" is already a unique prefix."""
    origin = g.board.position(a.spy)
    assert origin is not None
    move = line_text(line(side_of(a.spy), origin, a.to))
    return f"{a.spy} {MODE_WORDS[a.mode]} {move} to {a.to}"


def token_label(g: Game, token: str, spies: tuple[str, ...]) -> str:
    """One option of ``model.token_options`` (or resigning), in words."""
    if token == "none":
        return "no token"
    if token == "reveal":
        return f"reveal {spies[0]}'s type"
    if token == "double":
        return "double: two moves with two spies"
    if token == "swap":
        a, b = spies
        return f"swap {a} on {_square(g, a)} and {b} on {_square(g, b)}"
    return "resign"


def free_label(g: Game, action: str, spy: str | None) -> str:
    """One option of ``model.free_options``, in words."""
    if spy is None:
        return "no free action" if action == "none" else "resign"
    if action == "eliminate_own":
        return f"remove your own spy {spy} from {_square(g, spy)}"
    return f"eliminate {SIDE_NAMES[side_of(spy)]}'s Double Agent {spy} on {_square(g, spy)}"


def answer_question(g: Game, type_id: str) -> tuple[str, tuple[bool, ...]]:
    """The answer decision's prompt and options, for the pending announcement of a spy whose
    type (``type_id``) the answerer assigned. Every answer is asked, the forced ones with their
    one option, so that a person (or a bot that takes its time) spends its time on each alike
    (DESIGN §4: timing never tells)."""
    assert g.pending is not None and g.asked is not None
    spy = g.pending.spy
    forced = forced_answer(type_id, g.asked)
    enemy = SIDE_NAMES[g.turn]
    question = f"{enemy} announces {announce_label(g, g.pending)}."
    if forced is None:
        return (f"{question} {spy} is {enemy}'s Double Agent: answer yes or no, as you like",
                (True, False))
    name = type_name(type_id)
    article = "an" if name[0] in "AEIOU" else "a"
    return (f"{question} {spy} is {article} {name}: the answer is " + ("yes" if forced else "no"),
            (forced,))


class ConfusionSeat(GameSeat[State, SeatView]):
    def __init__(self, context: SeatContext, rules: Rules[State]) -> None:
        super().__init__(context, rules)
        self.side: Side = 0 if context.index == 0 else 1
        self.enemy: Side = opp(self.side)

    # --- secrets ----------------------------------------------------------------------------

    def order(self) -> tuple[str, ...]:
        """The types in the order of this seat's commitments (a secret permutation)."""
        stream = SeededEntropy(self.context.secret("order"))
        types = list(TYPE_IDS)
        for i in range(len(types) - 1, 0, -1):
            j = below(stream, i + 1)
            types[i], types[j] = types[j], types[i]
        return tuple(types)

    def blinding(self, index: int) -> Scalar:
        return Scalar.random(SeededEntropy(self.context.secret("blinding", index)))

    def kept_secrets(self) -> tuple[bytes, ...]:
        return tuple(self.blinding(i).encode() for i in range(len(TYPE_IDS)))

    def enemy_types(self, g: Game) -> dict[str, str]:
        """Each enemy spy's type (this seat assigned it), once the beacon placed them."""
        if not g.assigned[self.enemy]:
            return {}
        return model.types_of(g, self.enemy, self.order())

    def _index_of(self, g: Game, spy: str) -> int:
        return g.assigned[self.enemy][SPIES[self.enemy].index(spy)]

    def view(self, state: State) -> SeatView:
        g = state.game
        return SeatView(g, self.seat, tuple(self.enemy_types(g).items()))

    def _prove(self, g: Game, b: Build, spy: str, allowed: tuple[str, ...]) -> list[list[bytes]]:
        index = self._index_of(g, spy)
        type_id = self.order()[index]
        blinding = self.blinding(index)
        commitment = Commitment.decode(g.commitment_of(spy))
        return prove_member(commitment, TYPE_DOMAIN, type_id, blinding, allowed, b.context,
                            b.entropy).encode()

    # --- records ----------------------------------------------------------------------------

    def build_assign(self, state: State, b: Build) -> Body:
        order = self.order()
        blindings = [self.blinding(i) for i in range(len(order))]
        commitments = [commit(TYPE_DOMAIN, t, r) for t, r in zip(order, blindings)]
        proof = prove_permutation(commitments, TYPE_DOMAIN, TYPE_IDS, order, blindings,
                                  b.context, b.entropy)
        return {"commitments": [c.encode() for c in commitments], "proof": proof.encode()}

    def build_token(self, state: State, b: Build) -> Body:
        g = state.game
        options = model.token_options(g) + [("resign", ())]
        labels = [token_label(g, t, s) for t, s in options]
        prompt = f"{SIDE_NAMES[self.side]}: use a token?"
        token, spies = self.ask(state, b.agent, "token", options, prompt=prompt, labels=labels)
        return {"token": token, "spies": list(spies)}

    def build_show(self, state: State, b: Build) -> Body:
        g = state.game
        assert g.reveal is not None
        shown = self.enemy_types(g)[g.reveal]
        return {"type": shown, "proof": self._prove(g, b, g.reveal, (shown,))}

    def build_free(self, state: State, b: Build) -> Body:
        g = state.game
        da = next((s for s, t in self.enemy_types(g).items() if t == "DA"), None)
        options = model.free_options(g, da)
        labels = [free_label(g, a, s) for a, s in options]
        action, spy = self.ask(state, b.agent, "free_action", options, prompt="Free action?",
                               labels=labels)
        proof = None
        if action == "eliminate_opp_da":
            assert spy is not None  # the option names the opponent's Double Agent
            proof = self._prove(g, b, spy, ("DA",))
        return {"action": action, "spy": spy, "proof": proof}

    def build_announce(self, state: State, b: Build) -> Body:
        g = state.game
        options, labels = announce_menu(g)
        chosen = self.ask(state, b.agent, "announce", options, prompt="Announce a move",
                          labels=labels)
        return {"spy": chosen.spy, "mode": chosen.mode, "to": chosen.to.name}

    def build_answer(self, state: State, b: Build) -> Body:
        g = state.game
        assert g.pending is not None and g.asked is not None
        spy = g.pending.spy
        type_id = self.enemy_types(g)[spy]
        prompt, options = answer_question(g, type_id)
        yes = bool(self.ask(state, b.agent, "answer", options, prompt=prompt,
                            labels=tuple("yes" if o else "no" for o in options)))
        body: Body = {"yes": yes, "proof": self._prove(g, b, spy, answer_sets(g.asked)
                                                       .for_answer(yes)), "promotion": None}
        if yes and model.promotion_due(g):
            promoted = promotion_statement(type_id)
            body["promotion"] = [promoted, self._prove(g, b, spy, promotion_sets()
                                                       .for_answer(promoted))]
        return body

    def build_statement(self, state: State, b: Build) -> Body:
        g = state.game
        spy = g.statements[0]
        promoted = promotion_statement(self.enemy_types(g)[spy])
        proof = self._prove(g, b, spy, promotion_sets().for_answer(promoted))
        return {"promoted": promoted, "proof": proof}

    def build_final(self, state: State, b: Build) -> Body:
        return {"openings": [[t, self.blinding(i).encode()] for i, t in enumerate(self.order())]}

"""The private side of one Spies & Lies seat: its deployment, its nonces, its records.

Theory of operation: the seat asks its agent only for the rulebook's decisions (D1..D6, rules
§8) and builds every other record itself. Its two private choices, the deployment (D1) and the
Sergeant's token (D2), go into ``memo`` before the record that commits to them is returned, and
are read back from ``memo`` whenever present, so a resumed seat never decides them twice. Every
secret is derived from the seat's master secret: the blinding of a Mission card's commitment
from ``secret("deploy", day, mission)`` and the token layout's nonce from ``secret("tokens",
day)``. The tokens record carries, for each card, the membership proof that its rank is in the
hand and agrees with its token (``rules``): only a true statement has one, so a seat whose
deployment broke that rule could not write it.
"""

from __future__ import annotations

from collections.abc import Sequence

from spycraft.crypto import membership
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.group import Scalar
from spycraft.engines.agent import Agent, Choice
from spycraft.engines.game import Build, GameSeat, Rules
from spycraft.engines.schema import Body
from spycraft.engines.seat import SeatContext
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import SERGEANT, SIDES, Board, rank_label
from spycraft.engines.spies_and_lies.rules import (
    State,
    card_commitment,
    layout_commitment,
    mission_commitment,
    rank_domain,
    token_set,
)
from spycraft.engines.spies_and_lies.view import SeatView


def deployment_label(ranks: Sequence[int]) -> str:
    return "-".join(map(str, ranks))


def captain_label(copy: int) -> str:
    return "6 IP" if copy == 0 else f"copy {copy}"


PROMPTS = {
    "captain": "Captain: take 6 IP, or copy one of your exhausted soldiers",
    "marshal": "Marshal: 10 IP, or the opponent loses 5 IP and you gain 5",
}
YES_NO = {  # decision kind -> the words of True and False
    "sergeant": ("token", "no token"),
    "deceive": ("place", "pass"),
    "marshal": ("5 and -5", "10 IP"),
}


def label(kind: str, option: Choice) -> str:
    """One option of decision ``kind`` in words."""
    if kind == "deploy":
        return deployment_label(option)
    if kind == "guess":
        return rank_label(option)
    if kind == "captain":
        return captain_label(option)
    yes, no = YES_NO[kind]
    return yes if option else no


class SpiesAndLiesSeat(GameSeat[State, SeatView]):
    prompts = PROMPTS

    def __init__(self, context: SeatContext, rules: Rules[State]) -> None:
        super().__init__(context, rules)
        self.index = context.index

    # --- private choices, kept in memo -----------------------------------------------------

    def deployment(self, day: int) -> tuple[int, ...] | None:
        ranks = self.context.memo.get(f"deploy/{day}")
        return None if ranks is None else tuple(ranks)

    def sergeant_token(self, day: int) -> bool | None:
        token = self.context.memo.get(f"sergeant/{day}")
        return None if token is None else bool(token)

    def view(self, state: State) -> SeatView:
        board = state.game
        return SeatView(
            board, self.index, self.deployment(board.day), self.sergeant_token(board.day)
        )

    def prompt(self, state: State, kind: str, options: Sequence[Choice]) -> str:
        board = state.game
        question = self.question(board, kind)
        own = self.deployment(board.day)
        if own is None:
            return question
        # the shared text board is public: the prompt is where a human sees its own cards
        cards = ", ".join(f"M{i} {rank_label(r)}" for i, r in enumerate(own, start=1))
        return f"{question}\nYour cards: {cards}"

    def question(self, board: Board, kind: str) -> str:
        if kind == "deploy":
            return (f"Day {board.day}: deploy four soldiers under M1..M4 "
                    "(ranks other than 4 increasing)")
        if kind == "sergeant":
            mission = self._known_deployment(board).index(SERGEANT) + 1
            intel = self._intel(board)
            shows = "shows" if model.forced_token(SERGEANT, intel) else "does not show"
            return (f"Intel token on your Sergeant (M{mission})? "
                    f"The card {model.INTEL[intel].name} {shows} 4")
        if kind == "deceive":
            return f"Place a deception token on your M{model.target_index(board) + 1}?"
        if kind == "guess":
            where = f"{SIDES[model.defender(board)]}'s M{model.target_index(board) + 1}"
            return f"Guess the rank of {where}"
        return self.prompts[kind]

    def label(self, view: SeatView, kind: str, option: Choice) -> str:
        return label(kind, option)

    def _deploy(self, state: State, agent: Agent) -> tuple[int, ...]:
        board = state.game
        ranks = self.deployment(board.day)
        if ranks is None:
            options = model.legal_deployments(model.hand(board, self.index))
            ranks = self.ask(state, agent, "deploy", options)
            self.context.memo[f"deploy/{board.day}"] = list(ranks)
        return ranks

    def _known_deployment(self, board: Board) -> tuple[int, ...]:
        ranks = self.deployment(board.day)
        if ranks is None:
            raise RuntimeError(f"seat {self.index} lost its day {board.day} deployment")
        return ranks

    def _intel(self, board: Board) -> int:
        if board.current is None:
            raise RuntimeError("token layouts come after the Intel draw")
        return board.current

    def _tokens(self, state: State, agent: Agent) -> tuple[bool, ...]:
        board = state.game
        ranks = self._known_deployment(board)
        intel = self._intel(board)
        token = self.sergeant_token(board.day)
        if token is None and SERGEANT in ranks:
            token = self.ask(state, agent, "sergeant", (True, False))
            self.context.memo[f"sergeant/{board.day}"] = token
        return tuple(bool(token) if r == SERGEANT else model.forced_token(r, intel) for r in ranks)

    # --- records (dispatched by the moves table, ``engines.game``) ---------------------------

    def blinding(self, day: int, mission: int) -> Scalar:
        """The blinding of the commitment under M(mission) on ``day``."""
        return Scalar.random(SeededEntropy(self.context.secret("deploy", day, mission)))

    def build_deploy(self, state: State, b: Build) -> Body:
        board = state.game
        day = board.day
        commitments = [
            mission_commitment(self.index, day, m, r, self.blinding(day, m)).encode()
            for m, r in enumerate(self._deploy(state, b.agent), start=1)
        ]
        return {"missions": commitments}

    def build_layout(self, state: State, b: Build) -> Body:
        board = state.game
        tokens = self._tokens(state, b.agent)
        nonce = self.context.secret("tokens", board.day)
        return {"digest": layout_commitment(self.index, board.day, tokens, nonce).digest}

    def build_tokens(self, state: State, b: Build) -> Body:
        board = state.game
        tokens = self._tokens(state, b.agent)
        ranks = self._known_deployment(board)
        proofs = [
            membership.prove_member(
                card_commitment(board, self.index, i), rank_domain(self.index, board.day, i + 1),
                str(rank), self.blinding(board.day, i + 1), token_set(board, self.index, token),
                b.context, b.entropy).encode()
            for i, (rank, token) in enumerate(zip(ranks, tokens))
        ]
        return {"tokens": list(tokens), "nonce": self.context.secret("tokens", board.day),
                "proofs": proofs}

    def build_deceive(self, state: State, b: Build) -> Body:
        return {"place": self.ask(state, b.agent, "deceive", (True, False))}

    def build_guess(self, state: State, b: Build) -> Body:
        return {"rank": self.ask(state, b.agent, "guess", model.RANKS)}

    def build_reveal(self, state: State, b: Build) -> Body:
        board = state.game
        mission = model.target_index(board) + 1
        rank = self._known_deployment(board)[mission - 1]
        return {"rank": rank, "nonce": self.blinding(board.day, mission).encode()}

    def build_captain(self, state: State, b: Build) -> Body:
        board = state.game
        options = model.captain_options(board, self.index)
        return {"copy": self.ask(state, b.agent, "captain", options)}

    def build_marshal(self, state: State, b: Build) -> Body:
        return {"split": self.ask(state, b.agent, "marshal", (False, True))}

    def build_final(self, state: State, b: Build) -> Body:
        board = state.game
        ranks = self._known_deployment(board)
        cards = [
            [ranks[i], self.blinding(board.day, i + 1).encode()]
            for i in model.hidden_indices(board, self.index)
        ]
        return {"cards": cards}

"""Decision policies for SpyNet: a uniformly random legal bot, and the levels easy (a beginner),
normal (the heuristic) and expert (``expert``: determinised search over the heuristic).

Both answer ``Decision``s whose ``view`` is a ``SeatView`` (the public state plus this seat's
cards). The heuristic bot keeps no state of its own; at each decision it reads:

* the value of a card: a mission's stars (less when its condition looks far), an agent's power,
  a funding card's value; the piles are judged by the cards it has seen in them;
* the branches where its missions score: it places agents where it holds missions and does not
  dominate yet, with funding when it can, and plays a mission as soon as it dominates a branch
  the mission belongs to (the highest stars first);
* targeted effects go to the strongest opposing agent in reach, paying with its weakest agent;
* at four seats it passes its teammate a mission for a branch the teammate dominates and it
  does not.
It recruits while its hand holds nothing worth deploying, and deploys otherwise.

The easy bot plays as a beginner does, with habits a person can learn and exploit: it keeps the
first card of each draft, takes every pile it looks at, recruits only when its hand is nearly
empty, holds no agent, or its last turn's deployment played nothing, then plays what it can at
once, each mission as soon as it may, each agent on its first branch without funding, never uses
a special agent's effect, never passes a card to its teammate, and discards the first cards when
it must.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, cached_property
from typing import Any

from spycraft.crypto.entropy import Entropy
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.bots import levels
from spycraft.engines.spynet.cards import CARDS, Branch, Kind, card
from spycraft.engines.spynet.scoring import Board, agent_power, opponents, power, teammate
from spycraft.engines.spynet.view import SeatView


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def heuristic_bot(entropy: Entropy, seat: int) -> Agent:
    return HeuristicAgent(seat)


@cache
def value(face: str | None) -> float:
    """What a card is worth in hand, roughly in stars."""
    if face is None or face not in CARDS:
        return 1.0
    printed = CARDS[face]
    if printed.kind is Kind.MISSION:
        return printed.stars * (0.7 if printed.condition is not None else 1.0) + 1.0
    if printed.is_agent:
        return 0.5 + printed.power * 0.5 + (1.0 if printed.effect is not None else 0.0)
    if printed.kind is Kind.FUNDING:
        return 0.4 * printed.value
    return 0.0


class Powers:
    """Each seat's power in each branch of one board, a branch's row computed when first
    asked: one board's powers serve every decision taken on it (an expert's rollout asks many
    in a row on the same board)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.rows: dict[Branch, list[int]] = {}

    def of(self, seat: int, branch: Branch) -> int:
        row = self.rows.get(branch)
        if row is None:
            board = self.board
            row = self.rows[branch] = [power(board, s, branch) for s in range(board.players)]
        return row[seat]


class Reading:
    """What every option of one decision is scored against: the seat's view, and what the
    options share, each read once, when first asked: the faces it holds by position, the
    branches its missions want, each seat's power in a branch (``powers``, when they are of
    this view's board), the best rival's, the worth of deploying now, and the part of an agent
    play's score that its funding does not change."""

    def __init__(self, seat: int, view: SeatView, powers: Powers | None = None) -> None:
        game = view.game
        assert game is not None
        self.seat = seat
        self.view = view
        self.game = game
        if powers is None or powers.board is not game.board:
            powers = Powers(game.board)
        self.powers = powers
        self.rivals: dict[Branch, int] = {}
        self.plays: dict[tuple[int, Branch], tuple[float, bool]] = {}

    @cached_property
    def faces(self) -> dict[int, str]:
        """The face of every card the seat holds or drafts, by position (a hand's card before a
        draft card, as ``SeatView.face_of`` reads them)."""
        return dict(self.view.draft) | dict(self.view.hand)

    def face(self, position: int) -> str:
        """``SeatView.face_of``, from the faces read once."""
        return self.faces.get(position, "?")

    @cached_property
    def wanted(self) -> set[Branch]:
        """The branches of the missions the seat holds or has played."""
        view = self.view
        return {
            b
            for _, f in view.hand
            if card(f).kind is Kind.MISSION
            for b in card(f).branches
        } | {b for b, _ in view.missions}

    def power(self, seat: int, branch: Branch) -> int:
        return self.powers.of(seat, branch)

    def best_rival(self, branch: Branch) -> int:
        """The highest power in ``branch`` of any seat but the reader's (teammate included)."""
        best = self.rivals.get(branch)
        if best is None:
            best = self.rivals[branch] = max(
                (self.power(o, branch) for o in range(self.game.n) if o != self.seat), default=0
            )
        return best

    def dominated(self, seat: int, branch: Branch) -> bool:
        """``scoring.dominates``, from the powers read once."""
        own = self.power(seat, branch)
        return 0 < own and all(own > self.power(o, branch) for o in opponents(seat, self.game.n))

    @cached_property
    def deploy_worth(self) -> float:
        """What deploying now would play: 2 a mission in hand for a branch the reader
        dominates, 1 an agent in hand for a branch its missions want."""
        worth = 0.0
        for _, f in self.view.hand:
            printed = card(f)
            if printed.kind is Kind.MISSION and any(
                self.dominated(self.seat, b) for b in printed.branches
            ):
                worth += 2.0
            if printed.is_agent and any(b in self.wanted for b in printed.branches):
                worth += 1.0
        return worth


class HeuristicAgent:
    def __init__(self, seat: int) -> None:
        self.seat = seat

    def decide(self, decision: Decision) -> int:
        view = decision.view
        options = decision.options
        if not isinstance(view, SeatView) or len(options) == 1 or view.game is None:
            return 0
        scores = self.scores(decision.kind, options, view)
        return max(range(len(options)), key=lambda i: (scores[i], -i))

    def scores(self, kind: str, options: Sequence[Any], view: SeatView,
               powers: Powers | None = None) -> list[float]:
        """How much the heuristic likes each option (the highest is its choice); ``powers``:
        the seats' powers on the view's board, if they were read already."""
        reading = Reading(self.seat, view, powers)
        return [self.score(kind, option, reading) for option in options]

    def score(self, kind: str, option: Any, reading: Reading) -> float:
        view = reading.view
        game = reading.game
        hand = view.hand
        if kind == "draft_pick":
            return value(reading.face(option))
        if kind == "paper_trail":
            return -value(reading.face(option))
        if kind == "turn_action":
            plays = reading.deploy_worth
            wants = 1.0 if plays >= 2.0 or (game.final_turns is not None) else -1.0
            return -wants if option else wants
        if kind == "pile":
            pile = view.piles[game.looking - 1] if game.looking is not None else ()
            worth = sum(value(f) for f in pile) / (1 + 0.5 * len(hand) / 6)
            threshold = 2.0 + 0.5 * (3 - (game.looking or 3))
            return (worth - threshold) if option else 0.0
        if kind == "effect":
            if option is None:
                return 0.0
            use, _ = option
            t = use.target
            agent = game.board.tableaux[t.seat].stack(t.branch)[t.depth]
            gain = agent_power(agent, game.board.situation)
            cost = card(use.discard).power * 0.6 if use.discard is not None else 0.0
            return gain - cost
        return self._deploy_score(option, reading)

    def _deploy_score(self, option: Any, reading: Reading) -> float:
        game = reading.game
        what = option[0]
        if what == "end_deploy":
            return 0.0
        if what == "play_mission":
            printed = card(reading.face(option[1]))
            return 10.0 + printed.stars
        if what == "pass_card":
            mate = teammate(self.seat, game.n)
            printed = card(reading.face(option[1]))
            if mate is None or printed.kind is not Kind.MISSION:
                return -1.0
            helps = any(
                reading.dominated(mate, b) and not reading.dominated(self.seat, b)
                for b in printed.branches
            )
            return 3.0 if helps else -1.0
        _, position, branch, funding = option
        score, contested = self._agent_play(position, branch, reading)
        if contested:
            funds = sum(card(reading.face(p)).value for p in funding)
            score += 0.4 * funds
        else:
            score -= 0.3 * len(funding)
        return score

    def _agent_play(self, position: int, branch: Branch, reading: Reading
                    ) -> tuple[float, bool]:
        """An agent play's score before its funding, and whether the branch is contested (one
        the seat's missions want and where it does not lead): the same for every funding."""
        found = reading.plays.get((position, branch))
        if found is None:
            printed = card(reading.face(position))
            own = reading.power(self.seat, branch)
            best_rival = reading.best_rival(branch)
            score = 1.0 + printed.power * 0.3
            if branch in reading.wanted:
                score += 3.0 if own <= best_rival else 1.0
            if printed.effect is not None:
                score += 1.0
            found = reading.plays[(position, branch)] = (
                score, branch in reading.wanted and own <= best_rival)
        return found


EASY_RECRUIT = 3  # the easy bot recruits when it holds fewer cards than this


def easy_bot(entropy: Entropy, seat: int) -> Agent:
    return EasyAgent(seat)


class EasyAgent:
    """A beginner (see the module's docstring)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.idle = False  # its last deployment ended without playing a card

    def decide(self, decision: Decision) -> int:
        view = decision.view
        options = decision.options
        if not isinstance(view, SeatView) or len(options) == 1 or view.game is None:
            return 0
        kind = decision.kind
        if kind == "turn_action":
            agents = any(card(f).is_agent for _, f in view.hand)
            recruit = len(view.hand) < EASY_RECRUIT or not agents or self.idle
            self.idle = not recruit
            return options.index(recruit)
        if kind == "pile":
            return options.index(True)
        if kind == "effect":
            return options.index(None)
        if kind == "deploy":
            for wanted in ("play_mission", "play_agent"):
                for index, option in enumerate(options):
                    if option[0] == wanted and (wanted == "play_mission" or not option[3]):
                        self.idle = False
                        return index
            return options.index(("end_deploy",))
        return 0  # the first card of a draft; the first cards of a Paper Trail


def expert_bot(entropy: Entropy, seat: int, effort: int = 1) -> Agent:
    """The expert (``expert``), which searches with this module's heuristic: imported here,
    when a game seats one, since it imports the heuristic from this module."""
    from spycraft.engines.spynet.expert import ExpertAgent

    return ExpertAgent(entropy, seat, effort)


BOTS = levels(random=random_bot, easy=easy_bot, normal=heuristic_bot, expert=expert_bot)

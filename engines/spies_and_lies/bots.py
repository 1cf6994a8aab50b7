"""Decision policies for Spies & Lies: a uniform random bot, and the levels easy (a beginner),
normal (the heuristic) and expert (the heuristic with a belief over the opponent's deployment:
``ExpertBot``).

The easy bot plays as a beginner does, with habits a person can learn and exploit: it deploys
its strongest soldiers (the highest ranks it may), its Sergeant always tells the truth, it
spends its deception token on the first mission it can, it guesses the rank that fits the
opponent's hand and rank order most often and never reads the Intel tokens, and it always takes
the Captain's 6 IP and the Marshal's 10 IP.

The heuristic bot reasons only from its ``SeatView``: the public board and its own cards.

* Guess (D4): it lists the opponent's legal deployments that agree with every visible fact
  (hand, rank order, revealed ranks, forced tokens under the current Intel card; the Sergeant's
  token is free) and weighs each rank by how often it sits at the target times what a correct
  guess is worth: the points, the ability it denies (nothing when the card would be
  auto-retired anyway by a Spy, a Miner or a pending Bomb) and a DT that would not pay.
* Deploy (D1): it scores each legal deployment by the worth of its soldiers (DA moves count for
  more on early days) and picks at random among the near-best.
* Sergeant (D2) and deception (D3): it looks at its own cards through the opponent's eyes. The
  Sergeant's token is the one that leaves the opponent the least probability on the truth; a DT
  is placed when the opponent's probability on the true rank at the target is below one half.
* Captain (D5) and Marshal (D6): it plays each option on a copy of the board with the rules'
  own functions and takes the best position (flag, DA, markers, DTs).

Worth is counted in sixths of an IP so that everything stays an integer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.bots import SeatBot, levels
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import SERGEANT, Board, direction, other
from spycraft.engines.spies_and_lies.view import SeatView

WIN = 1_000_000
NEAR_BEST = 12  # deployments within two IP of the best are all fine
BASE_WORTH = {1: 18, 2: 18, 3: 24, 4: 30, 7: 12, 8: 54, 10: 60}


def worth(rank: int, board: Board, owner: int) -> int:
    """What activating ``rank`` is worth to its owner, in sixths of an IP."""
    if rank == 5:
        return 60 // board.day
    if rank == 9:
        return 120 // board.day
    if rank == 6:
        return max([36] + [worth(e, board, owner) for e in board.exhausted[owner] if e != 6])
    return BASE_WORTH[rank]


def candidates(board: Board, seat: int) -> tuple[tuple[int, ...], ...]:
    """The deployments of ``seat`` that everyone can still believe."""
    cards = board.cards[seat]
    return model.consistent(
        model.hand(board, seat), [c.rank for c in cards], [c.token for c in cards], board.current
    )


def evaluate(board: Board, seat: int) -> int:
    if board.captured_by is not None:
        return WIN if board.captured_by == seat else -WIN
    o = other(seat)
    return (
        60 * direction(seat) * board.da
        + 6 * (board.markers[seat] - board.markers[o])
        + 12 * board.dt[seat]
    )


class RandomBot:
    """Uniform among the legal options."""

    def __init__(self, entropy: Entropy, seat: int) -> None:
        self.agent = RandomAgent(entropy)

    def decide(self, decision: Decision) -> int:
        return self.agent.decide(decision)


class HeuristicBot(SeatBot[SeatView]):
    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        policy: dict[str, Callable[[Decision, SeatView], Sequence[int | Fraction]]] = {
            "deploy": self._deploy,
            "sergeant": self._sergeant,
            "deceive": self._deceive,
            "guess": self._guess,
            "captain": self._ability,
            "marshal": self._ability,
        }
        return self._best(policy[decision.kind](decision, view))

    def _best(self, scores: Sequence[int | Fraction]) -> int:
        top = max(scores)
        ties = [i for i, s in enumerate(scores) if s == top]
        return ties[below(self.entropy, len(ties))]

    def _deploy(self, decision: Decision, view: SeatView) -> list[int]:
        scores = [sum(worth(r, view.board, view.seat) for r in d) for d in decision.options]
        best = max(scores)
        return [1 if s >= best - NEAR_BEST else 0 for s in scores]

    def _exposure(
        self, view: SeatView, tokens: Sequence[bool | None], known: Sequence[int | None]
    ) -> list[Fraction]:
        """For each mission, the opponent's probability on this seat's true rank there."""
        ranks = view.deployment or ()
        seen = model.consistent(
            model.hand(view.board, view.seat), known, tokens, view.board.current
        )
        if not seen:
            return [Fraction(0)] * len(ranks)
        return [Fraction(sum(1 for d in seen if d[i] == r), len(seen)) for i, r in enumerate(ranks)]

    def _sergeant(self, decision: Decision, view: SeatView) -> list[Fraction]:
        ranks = view.deployment or ()
        intel = view.board.current
        scores = []
        for token in decision.options:
            tokens = [
                bool(token)
                if r == SERGEANT
                else (intel is not None and model.forced_token(r, intel))
                for r in ranks
            ]
            scores.append(-sum(self._exposure(view, tokens, [None] * 4), Fraction(0)))
        return scores

    def _deceive(self, decision: Decision, view: SeatView) -> list[int]:
        b = view.board
        cards = b.cards[view.seat]
        index = model.target_index(b)
        exposure = self._exposure(view, [c.token for c in cards], [c.rank for c in cards])
        place = exposure[index] < Fraction(1, 2) if index < len(exposure) else False
        return [1 if bool(option) == place else 0 for option in decision.options]

    def _guess(self, decision: Decision, view: SeatView) -> list[int]:
        b = view.board
        opponent = other(view.seat)
        index = model.target_index(b)
        counts = self._counts(b, opponent, index)
        flags = b.flags[view.seat]
        points = 6 * (4 if flags.scout else 2) + (24 if b.placed else 0) + (12 if flags.bomb else 0)
        scores = []
        for g in decision.options:
            auto = flags.bomb or (g == 10 and flags.spy) or (g == 7 and flags.miner)
            deny = 0 if auto else worth(g, b, opponent)
            scores.append(counts[g] * (points + deny))
        return scores

    def _counts(self, board: Board, opponent: int, index: int) -> Counter[int]:
        """How much each rank weighs at mission ``index``: here, the opponent's deployments
        that everyone can still believe, counted alike."""
        return Counter(d[index] for d in candidates(board, opponent))

    def _ability(self, decision: Decision, view: SeatView) -> list[int]:
        return [
            self._outcome(view.board, decision.kind, option, view.seat)
            for option in decision.options
        ]

    def _outcome(self, board: Board, kind: str, option: Any, seat: int) -> int:
        after = model.captain(board, option) if kind == "captain" else model.marshal(board, option)
        if after.stage == "marshal":
            return max(self._outcome(after, "marshal", split, seat) for split in (False, True))
        return evaluate(after, seat)


class EasyBot(SeatBot[SeatView]):
    """A beginner (see the module's docstring)."""

    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1:
            return 0
        kind = decision.kind
        if kind == "deploy":
            strength = [sum(d) for d in options]
            top = max(strength)
            ties = [i for i, s in enumerate(strength) if s == top]
            return ties[below(self.entropy, len(ties))]
        if kind == "sergeant":
            ranks = view.deployment or ()
            intel = view.board.current
            truth = intel is not None and SERGEANT in ranks and model.forced_token(SERGEANT, intel)
            return options.index(truth) if truth in options else 0
        if kind == "deceive":
            return options.index(True) if True in options else 0
        if kind == "guess":
            b = view.board
            opponent = other(view.seat)
            cards = b.cards[opponent]
            index = model.target_index(b)
            seen = model.consistent(model.hand(b, opponent), [c.rank for c in cards],
                                    [None] * len(cards), None)
            counts = Counter(d[index] for d in seen)
            top = max((counts[g] for g in options), default=0)
            ties = [i for i, g in enumerate(options) if counts[g] == top]
            return ties[below(self.entropy, len(ties))]
        return 0  # the Captain's 6 IP, the Marshal's 10 IP


STRONG_DEPLOYMENT = 16  # how much likelier the expert thinks a near-best deployment is


def deployment_weights(board: Board, seat: int,
                       deployments: Sequence[tuple[int, ...]]) -> list[int]:
    """How likely ``seat`` chose each of ``deployments`` today, up to a common factor: a
    deployment whose soldiers are worth nearly the best of its hand ``STRONG_DEPLOYMENT`` times
    as likely as another (players, and every level of bot, deploy strength; a weak deployment
    stays possible, never ruled out)."""
    legal = model.legal_deployments(model.hand(board, seat))
    best = max(sum(worth(r, board, seat) for r in d) for d in legal)
    return [STRONG_DEPLOYMENT if sum(worth(r, board, seat) for r in d) >= best - NEAR_BEST else 1
            for d in deployments]


class ExpertBot(HeuristicBot):
    """The heuristic, guessing with a belief over the opponent's deployment instead of counting
    every deployment alike: each one that everyone can still believe is weighed by how likely
    the opponent was to choose it (``deployment_weights``), so a guess goes where the opponent's
    soldiers most probably are. Integer weights: deterministic, the same on every machine."""

    def _counts(self, board: Board, opponent: int, index: int) -> Counter[int]:
        seen = candidates(board, opponent)
        counts: Counter[int] = Counter()
        for deployment, weight in zip(seen, deployment_weights(board, opponent, seen)):
            counts[deployment[index]] += weight
        return counts


BOTS: dict[str, Callable[[Entropy, int], Agent]] = levels(
    random=RandomBot, easy=EasyBot, normal=HeuristicBot, expert=ExpertBot)

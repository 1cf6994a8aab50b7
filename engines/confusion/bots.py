"""Decision policies for Confusion: a uniformly random bot, and the levels easy (a beginner),
normal (the heuristic) and expert (``expert``: a search over its own types sampled from its
notebook). The worth of a position they share is ``worth``.

The random bot picks uniformly among the legal options of each decision, except that it never
resigns (a bot that resigns at random ends most games on its first turns and tests nothing).
No bot draws from its entropy for a decision with one option (a forced answer), so a game
plays the same whether forced answers are asked or not.

The heuristic bot reads its ``SeatView`` only: the public game, its notebook (§11, from public
data) and the types it assigned to the enemy's spies. It scores each announcement by the value
of the position after a "yes" weighted by the chance of a "yes" (the share of the spy's
candidates that answer yes, the DA counting half), plus what the answer would teach it (the
split of the candidates: ``p * (1 - p)``), so known fast spies run at the briefcase and unknown
ones are probed where it matters. The position's value: a win or loss, who controls the
briefcase and how far it is from the goal row, how close the nearest own spy is to it, and the
spies left on each side. Free actions: the enemy's Double Agent moves only when this bot says yes,
so, as a person would, it usually keeps it on the board as a puppet it answers for, and eliminates
it (it assigned that type, so it knows where it is) when it holds the briefcase, when it is the
enemy's last spy (that wins), and otherwise on one turn in ``DA_WHIM`` at random; it eliminates its
own spy once the notebook proves it is its DA. As the enemy's Double Agent's answerer it says
whatever hurts the enemy more: "no" to a move that would help them, "yes" to one that would not
(misleading their notebook); a forced answer, its one option, is scored the same way (the same
work either way). Tokens: ``reveal`` on its most uncertain spy next to the briefcase,
``double`` from the sixth turn, ``swap`` when it wins at once.

The easy bot plays as a beginner does, with habits a person can learn and exploit: it announces
the move that would be best if the answer were yes, without weighing what its notebook says of
the spy's type (it only avoids a move of the same spy along a line that was already refused),
and on one turn in ``CARELESS`` it does not look at the board at all and announces any legal
move, so it often tries what its spy cannot do and loses the turn; it answers "yes" to every
announcement of the enemy's Double Agent, never takes a free action and never spends a token.
(Without the careless turns it played Red as well as the heuristic: seeds 51-350, normal - easy
+0.7 +- 7.7 points as Red, +14.0 +- 7.2 as White; with them, seeds 51-250, +13.0 +- 8.8 as Red
and +23.8 +- 9.2 as White.)
"""

from __future__ import annotations

from collections.abc import Callable

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.bots import SeatBot, levels
from spycraft.engines.confusion import notebook, worth
from spycraft.engines.confusion.board import Side, line, side_of
from spycraft.engines.confusion.expert import expert_bot
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import Announcement
from spycraft.engines.confusion.view import SeatView
from spycraft.engines.confusion.worth import WIN, after_yes, position_value, yes_share

DA_WHIM = 8  # on one turn in this many, the heuristic eliminates the enemy DA anyway
CARELESS = 3  # on one turn in this many, the easy bot announces any legal move


def _resigns(option: object) -> bool:
    return isinstance(option, tuple) and bool(option) and option[0] == "resign"


class RandomBot(SeatBot[SeatView]):
    """Uniform among the legal options (resigning left out)."""

    def decide(self, decision: Decision) -> int:
        if len(decision.options) == 1:
            return 0
        allowed = [i for i, o in enumerate(decision.options) if not _resigns(o)]
        return allowed[below(self.entropy, len(allowed))]


class HeuristicBot(SeatBot[SeatView]):
    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        policy: dict[str, Callable[[Decision, SeatView], list[float]]] = {
            "token": self._token,
            "free_action": self._free,
            "announce": self._announce,
            "answer": self._answer,
        }
        return self._best(policy[decision.kind](decision, view))

    def _best(self, scores: list[float]) -> int:
        if len(scores) == 1:
            return 0
        top = max(scores)
        ties = [i for i, s in enumerate(scores) if s >= top - 1e-9]
        return ties[below(self.entropy, len(ties))]

    def _side(self, view: SeatView) -> Side:
        return 0 if view.seat == 0 else 1

    def _announce(self, decision: Decision, view: SeatView) -> list[float]:
        g, side = view.game, self._side(view)
        page = notebook.page(g.log, side)
        spies, bc = dict(g.board.spies), g.board.briefcase
        now = position_value(spies, bc, side)
        scores = []
        for a in decision.options:
            if a.spy in g.board.promoted:
                p, teach = 1.0, 0.0
            else:
                p = yes_share(page.of(a.spy), line(side, spies[a.spy], a.to))
                teach = 8.0 * p * (1.0 - p)
            after, moved = after_yes(spies, bc, side, a)
            scores.append(p * position_value(after, moved, side) + (1.0 - p) * now + teach)
        return scores

    def _answer(self, decision: Decision, view: SeatView) -> list[float]:
        g, side = view.game, self._side(view)
        assert g.pending is not None
        spies, bc = dict(g.board.spies), g.board.briefcase
        after, moved = after_yes(spies, bc, g.turn, g.pending)
        helps = position_value(after, moved, side) < position_value(spies, bc, side)
        return [0.0 if bool(option) == (not helps) else 1.0 for option in decision.options]

    def _free(self, decision: Decision, view: SeatView) -> list[float]:
        g, side = view.game, self._side(view)
        page = notebook.page(g.log, side)
        scores = []
        for action, spy in decision.options:
            if action == "eliminate_opp_da":
                scores.append(3.0 if self._eliminate_da(g, spy) else 0.5)
            elif action == "eliminate_own" and spy is not None and page.of(spy) == ("DA",):
                scores.append(2.0)
            elif action == "none":
                scores.append(1.0)
            else:
                scores.append(0.0)
        return scores

    def _eliminate_da(self, g: Game, spy: str | None) -> bool:
        """Whether to remove the enemy's DA now (see the module's docstring)."""
        if spy is None:
            return False
        enemy = side_of(spy)
        if g.board.position(spy) == g.board.briefcase or len(g.spies_on_board(enemy)) == 1:
            return True
        return below(self.entropy, DA_WHIM) == 0

    def _token(self, decision: Decision, view: SeatView) -> list[float]:
        g, side = view.game, self._side(view)
        page = notebook.page(g.log, side)
        return worth.token_scores(g, decision.options, side, lambda spy: len(page.of(spy)))


class EasyBot(SeatBot[SeatView]):
    """A beginner (see the module's docstring)."""

    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1:  # a forced answer: no draw (see the module's docstring)
            return 0
        if decision.kind == "announce":
            return self._announce(options, view)
        if decision.kind == "answer":
            return options.index(True) if True in options else 0
        for index, option in enumerate(options):  # no free action, no token
            if isinstance(option, tuple) and option and option[0] == "none":
                return index
        return next(i for i, o in enumerate(options) if not _resigns(o))

    def _announce(self, options: tuple[Announcement, ...], view: SeatView) -> int:
        if below(self.entropy, CARELESS) == 0:
            return below(self.entropy, len(options))
        g: Game = view.game
        side: Side = 0 if view.seat == 0 else 1
        spies, bc = dict(g.board.spies), g.board.briefcase
        refused = {(o.spy, o.line) for o in g.log if o.kind == "no"}
        scores = []
        for a in options:
            after, moved = after_yes(spies, bc, side, a)
            tried = (a.spy, line(side, spies[a.spy], a.to)) in refused
            scores.append(position_value(after, moved, side) - (WIN if tried else 0.0))
        top = max(scores)
        ties = [i for i, score in enumerate(scores) if score >= top - 1e-9]
        return ties[below(self.entropy, len(ties))]


BOTS: dict[str, Callable[[Entropy, int], Agent]] = levels(
    random=RandomBot, easy=EasyBot, normal=HeuristicBot, expert=expert_bot)

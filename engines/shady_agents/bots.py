"""Decision policies for Shady Agents: a random legal bot, and the levels easy (a beginner),
normal (the heuristic) and expert (``expert``: the heuristic's plan amended, and at small
tables a search over worlds drawn from the seat's belief, played out by the heuristic), and a
heuristic team against a random one.

Both answer ``Decision``s whose ``view`` is a ``SeatView`` (the public game and this seat's
knowledge); the options offered are already the legal ones, answers included (a Corrupt seat is
offered only lies, rules §5).

The heuristic bot keeps no hidden state: at each decision it recomputes, for every other seat,
the probability that it is a friend (``belief.belief``: a posterior over who its friends are,
from the answers it can weigh and from where round-2 tools went). A tool's worth is what it does
to the difference of the team scores: a Medkit to a seat that is a friend with chance p is worth
2p - 1, a Bullet 1 - 2p. Blind, with fewer friends than enemies among the others, a Bullet is
worth a little and a Medkit a little less than nothing.

Plan (the model of play that ``belief`` assumes of every seat, since it is this bot's own):

- Round 1, the first ``BLIND_MOVERS`` seats (the first player's included): nothing is known
  yet and an interrogation now would find few seats to answer (the first player's free one
  none), so the seat gives its Bullet at once, at the likeliest enemy, preferring a seat that
  has received nothing yet. Its receiver's answers then depend on a kind it knows (and that
  the table can guess), and it keeps its Medkit for round 2, when more is known.
- Round 1, later seats: each choice is worth the tool it gives now plus the best use of the tool
  it keeps, given what it believes now; an interrogation is also worth ``INFO_VALUE`` (the
  answers it draws tell the table, its friends among them, who is who). So a seat interrogates
  and discards its Medkit unless it already sees a friend or an enemy clearly enough.
- Answers: a Law-abiding seat tells the truth (at random among true answers); a Corrupt one
  gives the lie that a table knowing none of its kinds finds likeliest from a Law-abiding seat,
  together with its earlier answers (it looks Law-abiding).
- Round 2: a Medkit to the likeliest friend, a Bullet to the likeliest enemy (the first player,
  with both, the pair that maximises the difference).

The easy bot plays as a beginner does, with habits a person can learn and exploit. It never
interrogates (the first player neither: it gives a tool like everyone) and ignores every answer:
it only trusts what was done to it. In round 1 it gives its Bullet at once: back at whoever has
already given it a Bullet, else at its left neighbour (the next seat clockwise, or the one after
if that seat gave it a Medkit). It keeps its Medkit for round 2 and gives it to the first seat
that gave it a Medkit, however thin that evidence, else to the nearest seat on its right that
neither shot it nor was shot by it. It answers with the first answer it may give, true or (when
Corrupt) false, so its answers repeat.

Why not the Medkit first, as it did until 2026-12-07: the heuristic's belief reads a round-1
Move from the first two seats as a Bullet (``belief.BLIND_BULLET``) and a tool given alone in
round 2 as the other kind of its giver's Move. A beginner who heals first is read backwards on
both: its receivers' true answers look like lies, and its round-2 Bullets look like Medkits to
a friend. It deceived the heuristic without meaning to, as the expert's short team does on
purpose with its blind Medkits, and did as well as normal at four seats
(benchmarks/README.md). Shooting first is what a beginner who wants to keep its Medkit for a
friend does anyway, and it is read right.

``TeamAgent`` plays the heuristic for the seats of one team and the random bot for the other,
to measure one against the other (the figure is in docs/rulings.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.bots import SeatBot, levels
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.belief import BLIND_MOVERS, answers_by, belief, likelihoods
from spycraft.engines.shady_agents.components import BULLET, LAW_ABIDING, MEDKIT
from spycraft.engines.shady_agents.view import Knowledge, SeatView

FRESH_TARGET = 0.3  # preference for a blind Bullet to a seat that has received nothing yet
INFO_VALUE = 0.5  # worth of an interrogation's answers, in points of score difference
NOISE = 1e-6  # random tie-breaks: far below any difference the belief makes


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def heuristic_bot(entropy: Entropy, seat: int) -> Agent:
    return HeuristicAgent(entropy, seat)


class HeuristicAgent(SeatBot[SeatView]):
    reads = SeatView

    def __init__(self, entropy: Entropy, seat: int,
                 believe: Callable[[M.Game, Knowledge], tuple[float, ...]] = belief,
                 info_value: float = INFO_VALUE) -> None:
        super().__init__(entropy, seat)
        self.believe = believe  # ``belief``, or the same answers remembered (``expert``)
        self.info_value = info_value  # ``INFO_VALUE``, or the expert's own

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1:
            return 0
        me = view.knowledge
        if decision.kind == "answer":
            if me.team == LAW_ABIDING:
                return below(self.entropy, len(options))
            return self._plausible_lie(view.game, options)
        chance = self.believe(view.game, me)
        if decision.kind == "round_two":
            if isinstance(options[0], tuple):
                scores = [self._friend(chance, m) - self._friend(chance, b) for b, m in options]
            else:
                sign = 1.0 if me.holding == (MEDKIT,) else -1.0
                scores = [sign * self._friend(chance, r) for r in options]
            return _best(scores)
        return _best(self._round_one(view.game, me, chance, options))

    def _friend(self, chance: tuple[float, ...], seat: int) -> float:
        """The chance that ``seat`` is a friend, with a random tie-break far below it."""
        return chance[seat] + NOISE * below(self.entropy, 1000)

    def _round_one(
        self, game: M.Game, me: Knowledge, chance: tuple[float, ...], options: tuple[Any, ...]
    ) -> list[float]:
        """The worth of each round-1 option: the tool given now and the best use of the one
        kept, plus ``info_value`` for an interrogation (see the plan above)."""
        others = [s for s in range(game.n) if s != me.seat]
        keep_bullet = max(1 - 2 * chance[s] for s in others)
        keep_medkit = max(2 * chance[s] - 1 for s in others)
        position = (me.seat - game.first) % game.n
        if position < BLIND_MOVERS and keep_medkit <= 0:
            # Nothing is known yet: a Bullet now is worth about as much as one kept, and it
            # makes its receiver's answers readable by this seat and by the table.
            got = {g.receiver for g in game.gifts}
            return [
                1 - self._friend(chance, o[2]) + FRESH_TARGET * (o[2] not in got)
                if o[0] == "move" and o[1] != MEDKIT else -10.0
                for o in options
            ]
        scores = []
        for option in options:
            if option[0] == "move":
                p = self._friend(chance, option[2])
                if option[1] == MEDKIT:
                    scores.append(2 * p - 1 + keep_bullet)
                else:
                    scores.append(1 - 2 * p + keep_medkit)
            elif option[1] is None:  # the first player's free interrogation keeps both
                scores.append(keep_bullet + keep_medkit + self.info_value)
            else:
                kept = keep_bullet if option[1] == MEDKIT else keep_medkit
                scores.append(kept + self.info_value)
        return scores

    def _plausible_lie(self, game: M.Game, options: tuple[cards.Answer, ...]) -> int:
        """The lie a table that knows none of this seat's kinds finds likeliest from a
        Law-abiding seat, given every answer this seat has given (ties at random)."""
        asking = game.asking
        if asking is None or asking.snapshot is None:
            return below(self.entropy, len(options))
        said = [item for item in answers_by(game, self.seat) if item[0] is not asking]
        observer = Knowledge(seat=-1, team=None)
        scores = []
        for option in options:
            as_law, as_corrupt = likelihoods(
                game, observer, self.seat, said + [(asking, self.seat, option)]
            )
            scores.append((as_law + 1e-6) / (as_corrupt + 1e-6) + below(self.entropy, 1000) / 1e9)
        return _best(scores)


def _best(scores: list[float]) -> int:
    return scores.index(max(scores))


def expert_bot(entropy: Entropy, seat: int, effort: int = 1) -> Agent:
    """The expert level (``expert``: search over worlds drawn from the seat's belief, each
    played out by this module's heuristic, hence the import here)."""
    from spycraft.engines.shady_agents.expert import ExpertAgent

    return ExpertAgent(entropy, seat, effort)


def easy_bot(entropy: Entropy, seat: int) -> Agent:
    return EasyAgent(seat)


class EasyAgent:
    """A beginner (see the module's docstring)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def decide(self, decision: Decision) -> int:
        view = decision.view
        options = decision.options
        if not isinstance(view, SeatView) or len(options) == 1 or decision.kind == "answer":
            return 0  # the first answer it may give
        me = view.knowledge
        healers = [giver for _, giver, kind in me.received if kind == MEDKIT]
        shooters = [giver for _, giver, kind in me.received if kind == BULLET]
        shot = [receiver for _, receiver, kind in me.given if kind == BULLET]
        enemy = shooters[0] if shooters else self._nearest(view.game.n, +1, set(healers))
        friend = (healers[0] if healers
                  else self._nearest(view.game.n, -1, {enemy, *shooters, *shot}))
        if decision.kind == "round_one":
            return options.index(("move", BULLET, enemy))
        if isinstance(options[0], tuple):  # both tools at once: (Bullet to, Medkit to)
            if friend == enemy:
                friend = self._nearest(view.game.n, -1, {enemy})
            return options.index((enemy, friend))
        return options.index(friend if me.holding == (MEDKIT,) else enemy)

    def _nearest(self, n: int, step: int, avoid: set[int]) -> int:
        """The nearest other seat in the direction ``step`` (+1 left, -1 right) not in
        ``avoid``; the neighbour that way if every seat is."""
        ahead = [(self.seat + step * j) % n for j in range(1, n)]
        return next((s for s in ahead if s not in avoid), ahead[0])


BOTS = levels(random=random_bot, easy=easy_bot, normal=heuristic_bot, expert=expert_bot)


class TeamAgent:
    """The heuristic policy for a seat on ``team``, the random one for any other seat: how a
    team of heuristic bots is measured against a team of random bots (the team is only known
    once the deal lets the seat read its card, which is before its first decision)."""

    def __init__(self, entropy: Entropy, seat: int, team: str) -> None:
        self.team = team
        self.heuristic = HeuristicAgent(entropy.child("heuristic"), seat)
        self.random = RandomAgent(entropy.child("random"))

    def decide(self, decision: Decision) -> int:
        view = decision.view
        mine = isinstance(view, SeatView) and view.knowledge.team == self.team
        return (self.heuristic if mine else self.random).decide(decision)


def team_bot(entropy: Entropy, seat: int, team: str) -> Agent:
    return TeamAgent(entropy, seat, team)

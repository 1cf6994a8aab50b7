"""Shady Agents' expert bot: the heuristic's plan, amended, and at small tables a determinised
search over worlds sampled from its seat's belief.

Theory of operation
-------------------
The plan is the heuristic bot's (``bots``: what each tool is worth, given ``belief``) with three
amendments: the first player calls its free interrogation (below), the short team of an odd
table gives Medkits where the table expects blind Bullets (below), and an interrogation is worth
only the tool it keeps (``info_value``) but to the long team of an odd table. At tables of more
than ``SEARCH_SEATS`` seats that plan is the decision. At smaller tables, at a decision with a real
choice, the bot keeps the plan's best ``CANDIDATES`` options (an answer keeps all its options),
plays each of them out in ``samples`` worlds drawn from what its own seat knows, and chooses the
one that wins most often:

* **a world** (``sample_world``) is everything the table hides, drawn from this seat's view
  alone: a set of friends drawn by its posterior weight (``belief.posterior``: the answers and
  the aims), so every seat's role; then the kind of every tool it cannot see, each round-1 Move
  and discard drawn from the belief's model of play (``kind_of_move``, ``DISCARDED_MEDKIT``)
  and kept in proportion to how well it explains every answer given the roles drawn (all
  assignments weighed exactly when there are few, else ``PROPOSALS`` drawn from that model);
  a round-2 tool is the one its giver still held, and a tool this seat received or gave has its
  known kind. The card draws to come are drawn uniformly, as the table's beacon draws them;
* **a play-out** (``simulation.Simulation``) plays the candidate, then the rest of the game with
  every seat, this one included, played by the heuristic bot with the knowledge that seat has in
  that world (its team, its tools): the model of the table the belief already assumes. The
  winner is scored as the final reveal would (a draw counts half);
* **paired**: every candidate is played in the same worlds with the same tie-breaks, so the
  comparison measures the candidate, not the luck of the draw; the heuristic's own choice keeps
  the decision unless another candidate wins more than ``MARGIN`` of the worlds more often.

As **the first player** it searches nothing in round 1: it calls its free interrogation (nobody
can answer it yet), so it gives nothing blind and keeps both tools for the game's very last turn,
when every round-1 answer and every round-2 aim is known (the heuristic gives a blind Bullet
there, and only three in five reach an enemy at six seats). Measured on the heuristic alone, the
first player's free interrogation is worth +9.5 to +15 points to its team at six and ten seats
(benchmarks/README.md), and the search, which plays out only the heuristic's best few options,
never had it among them.

On **the short team of an odd table** (the team of the leftover card: one seat fewer, +1 at the
end) its seats at the blind positions, the first player's and the next, give their Medkit at once
(the next seat to its likeliest friend, preferring one that has received nothing yet) where the
heuristic gives a blind Bullet and the expert's first player would interrogate. Every heuristic
seat reads a blind tool as a Bullet (``belief.BLIND_BULLET``), so the receiver's answers, true or
false, say the opposite of its team to every seat but its giver and itself: at seven seats (seeds
1-800, the short team playing this plan against normal) the long team's round-2 tools reached the
team their kind says 61 % of the time, against 96 % when its first player called the free
interrogation and the next seat gave the blind Bullet.
The short team's expert - normal at 7 and 9 seats (seeds 1-800): +23.9 and +29.6 points
with these Medkits, +6.5 and +12.9 with the free interrogation and the blind Bullet. The same
Medkits lose for the long team (the next seat's alone: -6.6 and -12.8, against +11.4 and +6.1)
and at an even table (six seats, both: +4.3, against +13.0; benchmarks/README.md). Our
reading: a score tie goes to the team whose members received more Medkits, nearly always the
long team (it has a seat more to heal), so the short team, which wins only on the score, loses
nothing by handing its enemies a Medkit's worth of tie-break, and the others do.

Work is bounded by a count, not a clock: ``WORK`` belief work per decision (times ``effort``),
shared among the candidates' play-outs, between ``MIN_SAMPLES`` and ``MAX_SAMPLES`` worlds each.
The work counts a belief by its groups of friends, which grow faster with the table than what
they cost: at eight to ten seats the budget bought a round-1 decision only 2-7 worlds (a choice
among four candidates decided by one world or two), for 80-200 ms of CPU; at least eight worlds
there cost 140-440 ms, within the budget (p99 1 s). Every draw comes from the bot's own entropy:
the first decides the seed of the play-outs' fast stream (``Stream``, splitmix64: the tie-breaks
of thousands of simulated decisions would cost more than the search itself through HKDF), so the
bot is deterministic from its seed and reads nothing but the decisions it is shown.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from math import comb
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Decision
from spycraft.engines.bots import SeatBot, Stream
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.belief import (
    BLIND_MOVERS,
    DISCARDED_MEDKIT,
    FLOOR,
    answers_by,
    belief,
    friend_count,
    kind_of_move,
    posterior,
)
from spycraft.engines.shady_agents.bots import FRESH_TARGET, INFO_VALUE, NOISE, HeuristicAgent
from spycraft.engines.shady_agents.components import (
    BULLET,
    LAW_ABIDING,
    MEDKIT,
    TOOLS,
    Discard,
    Gift,
    Team,
    Tool,
    other_team,
    other_tool,
)
from spycraft.engines.shady_agents.simulation import Simulation, World, outcome
from spycraft.engines.shady_agents.view import Knowledge, SeatView

CANDIDATES = 4  # options played out per decision: the heuristic's best few
WORK = 12_000  # belief work per decision (times effort), counted by ``Beliefs.work``
MIN_SAMPLES = 8
MAX_SAMPLES = 32
MARGIN = 0.05  # of the worlds: how much better another candidate must do than the heuristic's
PROPOSALS = 48  # kind assignments drawn from the model when too many to weigh them all
DECISION_COST = 2  # a simulated decision's own cost, in the same units
BELIEF_OVERHEAD = 10  # a belief's cost besides its groups, in the same units
ROLLOUT_JOINT = 3  # the play-outs' beliefs weigh fewer hidden kinds jointly (cheaper)
EXACT = 6  # hidden kinds that answers depend on, at most, to weigh every assignment
FREE_INTERROGATION = ("interrogate", None)  # the first player's round-1 option that keeps both
# What an interrogation's answers are worth to the expert (the heuristic's ``INFO_VALUE`` is
# 0.5): nothing beyond the tool it keeps (measured on the heuristic over 300 seeds, this is worth
# +2.2, +4.2, +8.2 points at 6, 8, 10 seats), but on the long team of an odd table. There, and
# there only, a seat that knows nothing finds every other seat a friend with chance exactly 1/2,
# so every Move is worth 0 as much as a discard: without the answers' worth it gives a tool at a
# coin's toss instead of interrogating (the long team at 0.0: -5.6 and -10.8 points at 7 and 9
# seats, against +11.4 and +6.1 at 0.5, seeds 1-800). Elsewhere a blind seat has fewer friends
# than enemies, a kept Bullet beats any Move and it interrogates anyway
INFO_VALUE_KEPT = 0.0
# The search runs at tables of at most this many seats. Above, the work budget buys about eight
# worlds a decision, and a candidate that wins one world more replaces the plan: measured with the
# two plan changes above, the plan alone beat the plan with the search at eight seats (+17.9 +- 2.3
# points over normal on 600 seeds, against +11.6 +- 6.0 on 110), matched it at six (+12.4 +- 2.3,
# against +10.0 +- 5.4), and the search cost a median 150-220 ms a decision at 8-10 seats; at five
# it gained (+19.2 +- 5.0 on 120 seeds with it, +8.5 +- 2.4 on 600 without)
SEARCH_SEATS = 5


class ExpertAgent(SeatBot[SeatView]):
    reads = SeatView

    def __init__(self, entropy: Entropy, seat: int, effort: int = 1) -> None:
        super().__init__(entropy, seat)
        self.effort = max(1, effort)
        self.heuristic = HeuristicAgent(entropy.child("heuristic"), seat)

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1 or view.knowledge.team is None:
            return 0
        game, me = view.game, view.knowledge
        if decision.kind == "round_one" and blind_short_team(game, me):
            return self._blind_medkit(game, me, options)
        if decision.kind == "round_one" and FREE_INTERROGATION in options:
            # The first player: its free interrogation keeps both tools for the game's very last
            # turn, given when every round-1 answer and every round-2 aim is known
            return options.index(FREE_INTERROGATION)
        self.heuristic.info_value = info_value(game, me)
        preferred = self.heuristic.decide(decision)
        if game.n > SEARCH_SEATS:
            return preferred
        candidates = self._candidates(decision, preferred)
        if len(candidates) == 1:
            return preferred
        stream = Stream(below(self.entropy, 1 << 62))
        wins = [0.0] * len(candidates)
        beliefs = Beliefs()
        weighed = posterior(game, me)
        samples = 0
        while samples < MAX_SAMPLES * self.effort and (
                samples < MIN_SAMPLES or beliefs.work < WORK * self.effort):
            world = sample_world(game, me, weighed, stream)
            seed = stream.below(1 << 62)
            for index, option in enumerate(candidates):
                wins[index] += play_out(world.play(options[option]), me.team, seed, beliefs)
            samples += 1
        best = max(range(len(candidates)), key=lambda i: (wins[i], candidates[i] == preferred))
        mine = wins[candidates.index(preferred)]
        if wins[best] - mine < max(1.0, MARGIN * samples):
            return preferred
        return candidates[best]

    def _blind_medkit(self, game: M.Game, me: Knowledge, options: tuple[Any, ...]) -> int:
        """The Medkit to the likeliest friend, preferring a seat that has received nothing yet
        (as the heuristic aims its blind Bullet at the likeliest enemy)."""
        chance = belief(game, me)
        got = {g.receiver for g in game.gifts}
        scores = [
            chance[o[2]] + FRESH_TARGET * (o[2] not in got) + NOISE * below(self.entropy, 1000)
            if o[0] == "move" and o[1] == MEDKIT else -10.0
            for o in options
        ]
        return scores.index(max(scores))

    def _candidates(self, decision: Decision, preferred: int) -> list[int]:
        """The options worth playing out, the heuristic's choice first."""
        options = decision.options
        if decision.kind == "answer":
            ranked = list(range(len(options)))
        else:
            scores = option_scores(decision)
            ranked = sorted(range(len(options)), key=lambda i: -scores[i])
        chosen = [preferred] + [i for i in ranked if i != preferred]
        return chosen[:CANDIDATES] if decision.kind != "answer" else chosen


def option_scores(decision: Decision) -> list[float]:
    """The heuristic's worth of each option (``bots.HeuristicAgent``), without its tie-breaks."""
    view = decision.view
    game, me = view.game, view.knowledge
    chance = belief(game, me)
    options = decision.options
    if decision.kind == "round_two":
        if isinstance(options[0], tuple):
            return [chance[m] - chance[b] for b, m in options]
        sign = 1.0 if me.holding == (MEDKIT,) else -1.0
        return [sign * chance[r] for r in options]
    return HeuristicAgent(Stream(0), me.seat, info_value=info_value(game, me))._round_one(
        game, me, chance, options)


def info_value(game: M.Game, me: Knowledge) -> float:
    """What an interrogation's answers are worth to the expert in ``me``'s seat."""
    long_team = game.leftover is not None and me.team != game.leftover
    return INFO_VALUE if long_team else INFO_VALUE_KEPT


def blind_short_team(game: M.Game, me: Knowledge) -> bool:
    """Whether ``me`` is on the short team of an odd table at a blind round-1 position (the
    first player's or the next), where it gives its Medkit at once."""
    return (game.leftover is not None and me.team == game.leftover
            and (me.seat - game.first) % game.n < BLIND_MOVERS)


def remaining_decisions(game: M.Game) -> int:
    """About how many decisions are left: the round-1 turns (each with some answers) and the
    round-2 turns."""
    if game.phase == M.ROUND2:
        return game.n - game.step
    if game.phase == M.ANSWERS:
        asking = game.asking
        assert asking is not None
        left = len(asking.answerers) - len(asking.answers)
        return left + 2 * (game.n - game.step - 1) + game.n
    return 2 * (game.n - game.step) + game.n


class Beliefs:
    """``belief`` remembered by its arguments: the play-outs of one decision ask it of the same
    public game and the same knowledge many times (the candidates of one world share every turn
    before theirs, the worlds share most kinds)."""

    def __init__(self) -> None:
        self.known: dict[tuple[M.Game, Knowledge], tuple[float, ...]] = {}
        self.work = 0  # the groups weighed so far (what a belief costs grows with them)

    def __call__(self, game: M.Game, me: Knowledge) -> tuple[float, ...]:
        key = (game, me)
        if key not in self.known:
            self.known[key] = belief(game, me, ROLLOUT_JOINT)
            self.work += comb(game.n - 1, friend_count(game, me)) + BELIEF_OVERHEAD
        return self.known[key]


def play_out(world: World, team: Team | None, seed: int, beliefs: Beliefs) -> float:
    """1, 0.5 or 0 for ``team``: the world played to its end by heuristic bots."""
    stream = Stream(seed)
    agents = [HeuristicAgent(stream.child(str(s)), s, beliefs) for s in range(world.game.n)]
    end = Simulation(world, agents).run()
    beliefs.work += DECISION_COST * (end.seq - world.seq)
    winner = outcome(end)
    return 0.5 if winner is None else 1.0 if winner == team else 0.0


# --- a world drawn from one seat's view ---------------------------------------------------------


def sample_world(game: M.Game, me: Knowledge, weighed: list[tuple[frozenset[int], float]],
                 stream: Stream) -> World:
    """Roles, hidden kinds and the draws to come, drawn from ``me``'s view (see above);
    ``weighed`` is ``belief.posterior(game, me)``."""
    assert me.team is not None
    total = sum(w for _, w in weighed)
    if total > 0:
        group = _pick([w for _, w in weighed], total, stream)
        friends = weighed[group][0]
    else:  # nothing the model explains: every set of friends alike
        friends = weighed[stream.below(len(weighed))][0]
    roles: tuple[Team, ...] = tuple(
        me.team if s == me.seat or s in friends else other_team(me.team) for s in range(game.n)
    )
    first_kinds, discard_kinds = _round_one_kinds(game, me, roles, stream)
    gift_kinds = _gift_kinds(game, me, first_kinds, discard_kinds)
    left = game.remaining
    draws = []
    for j in range(game.n - game.step):  # at most one draw per round-1 turn left
        if len(left) - j <= 0:
            break
        draws.append(stream.below(len(left) - j))
    seq = 1 + max([0] + [g.seq for g in game.gifts] + [d.seq for d in game.discards]
                  + [a.seq for a in game.interrogations]
                  + [s for a in game.interrogations for _, _, s in a.answers])
    return World(game, roles, gift_kinds, tuple(discard_kinds), tuple(draws), seq)


def _pick(weights: list[float], total: float, stream: Stream) -> int:
    point = (stream.below(1 << 53) / (1 << 53)) * total
    for index, weight in enumerate(weights):
        point -= weight
        if point < 0:
            return index
    return len(weights) - 1


def _round_one_kinds(
    game: M.Game, me: Knowledge, roles: tuple[Team, ...], stream: Stream
) -> tuple[list[Tool], list[Tool]]:
    """The kind of every round-1 Move (in order) and every discard: known ones as ``me`` knows
    them, hidden ones drawn from the model of play and weighed by the answers."""
    firsts = game.round_one_gifts()
    fixed: dict[int, Tool] = {}  # the round-1 kind by giver or discarder, where me knows it
    for _, _, mine in me.given[:1]:  # a round-1 Move, or else the discard below overrides it
        fixed[me.seat] = mine
    if me.discarded is not None:
        fixed[me.seat] = me.discarded
    got = {seq: kind for seq, _, kind in me.received}
    for gift in game.gifts:
        seen = got.get(gift.seq) if gift.receiver == me.seat else None
        if seen is None:
            continue
        kind: Tool = seen
        if gift.round == 1:
            fixed[gift.giver] = kind
        elif sum(1 for g in game.gifts if g.seq == gift.seq) == 1:
            fixed[gift.giver] = other_tool(kind)  # it held the other one
    # the seats whose round-1 kind is hidden, in the order of their round-1 acts
    actors = [g.giver for g in firsts] + [d.seat for d in game.discards]
    hidden = [s for s in actors if s not in fixed]
    answerers = {seat for asking in game.interrogations for seat, _, _ in asking.answers}
    said = [item for seat in sorted(answerers) for item in answers_by(game, seat)]

    def prior(seat: int, kind: Tool) -> float:
        if any(d.seat == seat for d in game.discards):
            return DISCARDED_MEDKIT if kind == MEDKIT else 1 - DISCARDED_MEDKIT
        bullet = kind_of_move(game, seat)
        return bullet if kind == BULLET else 1 - bullet

    def draw_one(seat: int) -> Tool:
        return BULLET if stream.below(1 << 30) < prior(seat, BULLET) * (1 << 30) else MEDKIT

    touching = [s for s in hidden if _touches(game, s, answerers)]
    free = [s for s in hidden if s not in touching]
    kinds = dict(fixed)
    for seat in free:
        kinds[seat] = draw_one(seat)
    if touching:
        if len(touching) <= EXACT:
            ways = [dict(zip(touching, way)) for way in product(TOOLS, repeat=len(touching))]
            weights = []
            for way in ways:
                weight = 1.0
                for seat, kind in way.items():
                    weight *= prior(seat, kind)
                weights.append(weight)
        else:
            ways = [{s: draw_one(s) for s in touching} for _ in range(PROPOSALS)]
            weights = [1.0] * len(ways)
        for i, way in enumerate(ways):
            weights[i] *= _explains(game, said, roles, {**kinds, **way})
        total = sum(weights)
        chosen = _pick(weights, total, stream) if total > 0 else stream.below(len(ways))
        kinds.update(ways[chosen])
    return [kinds[g.giver] for g in firsts], [kinds[d.seat] for d in game.discards]


def _touches(game: M.Game, seat: int, answerers: set[int]) -> bool:
    """Whether some answer may depend on ``seat``'s round-1 kind."""
    if seat in answerers:
        return True
    return any(g.giver == seat and g.receiver in answerers for g in game.round_one_gifts())


def _explains(game: M.Game, said: list[Any], roles: tuple[Team, ...],
              kinds: dict[int, Tool]) -> float:
    """P(every answer | the roles and the round-1 kinds)."""
    firsts = game.round_one_gifts()
    weight = 1.0
    for asking, seat, answer in said:
        public = asking.snapshot
        assert public is not None
        gifts = tuple(Gift(g.giver, g.receiver, kinds[g.giver])
                      for g in firsts[: len(public.gifts)])
        discards = tuple(Discard(d.seat, kinds[d.seat]) for d in public.discards)
        snapshot = replace(public, gifts=gifts, discards=discards)
        truth = cards.true_set(asking.drawn, snapshot, seat)
        if roles[seat] == LAW_ABIDING:
            weight *= 1 / len(truth) if answer in truth else FLOOR
        else:
            lies = len(cards.options(asking.drawn, snapshot, seat)) - len(truth)
            weight *= 1 / lies if answer not in truth and lies else FLOOR
    return weight


def _gift_kinds(game: M.Game, me: Knowledge, firsts: list[Tool],
                discards: list[Tool]) -> tuple[Tool, ...]:
    """The kind of every gift so far: a round-1 Move's drawn or known kind, a round-2 tool the
    one its giver still held (the first player's pair as ``me`` knows it, else drawn)."""
    acted = {g.giver: k for g, k in zip(game.round_one_gifts(), firsts)}
    acted.update({d.seat: k for d, k in zip(game.discards, discards)})
    got = {seq: kind for seq, _, kind in me.received}
    gave = {seq: kind for seq, _, kind in me.given}
    kinds: list[Tool] = []
    index = 0
    for gift in game.gifts:
        if gift.round == 1:
            kinds.append(firsts[index])
            index += 1
        elif gift.seq in gave or got.get(gift.seq) is not None:
            known = gave.get(gift.seq) or got[gift.seq]
            assert known is not None
            kinds.append(known)
        elif gift.giver in acted:
            kinds.append(other_tool(acted[gift.giver]))
        else:  # the first player's two tools (given last: never before a decision)
            pair = [g for g in game.gifts if g.seq == gift.seq]
            kinds.append(TOOLS[pair.index(gift)])
    return tuple(kinds)

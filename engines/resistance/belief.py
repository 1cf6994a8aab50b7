"""Who the spies are: a posterior over every possible set of spies, from one seat's view.

Theory of operation
-------------------
A *hypothesis* is one set of ``spies(n)`` seats, kept as a bit mask (at most C(10, 4) = 210 of
them, C(9, 3) = 84 at nine seats). ``Belief`` weighs every hypothesis by its prior (what the seat
knows for certain: its own role, the spies it recognised, the roles its plot looks showed, a Fail
its Close Eye saw) times the likelihood of everything public the game has shown so far, read in
the order it happened (``events``):

* **a proposal**: a spy Leader's team rarely holds a second spy besides himself (he puts
  trusted-looking Resistance members with him), and rarely leaves every spy off when he is off
  it himself; a Resistance Leader picks independently of who the spies are;
* **every vote on it**: a spy approves a team with a spy on it and tends to reject a clean one;
  a Resistance member approves the teams it is on, and others about half the time (the fifth
  proposal nearly always). Only the ratio between the two matters, since a Resistance member's
  vote says nothing about the spies it does not know;
* **No Confidence**: a spy plays it on clean teams, a Resistance member on teams it suspects;
* **the mission**: the number of Fail cards, given how many spies were on the team. Spies that
  can fail a mission usually do (nearly always when it wins or when a Success would lose; less
  on the first mission), one Fail where one is enough (two spies sometimes both fail), two
  where two are needed; a spy in the spotlight seldom shows a Fail. Cards the seat saw (its own,
  a Close Eye's) fix which spies failed: spies are exchangeable, so the chance that the seen
  ones played what was seen is hypergeometric.

The behaviour model is ``Behaviour``: a few probabilities, reasoned from how people and our bots
play, then set to the rates measured over games of every level (``benchmarks/bench_bots.py
resistance --fit`` prints them). No probability is 0 or 1, so a player who acts against the model
is only less likely, never ruled out; only the rules rule out (a Fail needs a spy).

Arithmetic: floats with the four operations only (correctly rounded everywhere, so a belief is the
same on every machine), renormalised after every event. The same events in the same order give
the same floats, which is what lets a ``Tracker`` keep the weights between decisions (the events
so far are a prefix of the next decision's) and still equal a belief computed from scratch.
``clean_table`` turns the weights into subset sums over all 2^n seat masks (one pass per seat),
after which the chance that a team holds fewer than one or two spies is one or a few lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations
from math import comb

from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game, MissionResult, VoteRecord
from spycraft.engines.resistance.view import Knowledge


@dataclass(frozen=True)
class Behaviour:
    """How spies and Resistance members act, as the belief assumes (every value in (0, 1))."""

    sabotage: float = 0.85  # spies able to fail a mission do
    sabotage_first: float = 0.7  # ... on the game's first mission
    sabotage_critical: float = 0.97  # ... when a Fail wins the game or a Success loses it
    double_fail: float = 0.15  # two spies where one Fail is enough: both fail
    lone_fail: float = 0.4  # a lone spy on a two-Fail mission fails anyway
    short_fail: float = 0.1  # two spies on a two-Fail mission: only one fails
    watched_fail: float = 0.1  # a spotlighted spy shows a Fail (when it decides nothing)
    spy_approves_dirty: float = 0.9  # a spy approves a team with a spy on it
    spy_approves_clean: float = 0.35  # ... a team without one
    spy_approves_clean_last: float = 0.4  # ... a clean fifth proposal
    resistance_approves_member: float = 0.9  # a Resistance member approves a team it is on
    resistance_approves_other: float = 0.5  # ... one it is not on
    resistance_approves_last: float = 0.95  # ... the fifth proposal
    spy_leader_alone: float = 0.85  # a spy Leader on his team puts no other spy with him
    spy_leader_off_clean: float = 0.25  # a spy Leader off his team proposes a clean one
    spy_no_confidence_clean: float = 2.0  # No Confidence: spy / Resistance odds, clean team
    spy_no_confidence_dirty: float = 0.4  # ... team with a spy

    def sabotage_chance(self, before: tuple[int, int], first: bool) -> float:
        """The chance that spies able to fail a mission do, at score (successes, failures)."""
        if critical(before):
            return self.sabotage_critical
        return self.sabotage_first if first else self.sabotage


def critical(before: tuple[int, int]) -> bool:
    """At this score (successes, failures) the next mission decides the game."""
    return R.WINS_NEEDED - 1 in before


BEHAVIOUR = Behaviour()


@cache
def hypotheses(n: int) -> tuple[int, ...]:
    """Every set of ``spies(n)`` seats as a bit mask, in ``combinations`` order."""
    return tuple(sum(1 << s for s in c) for c in combinations(range(n), R.spies(n)))


@cache
def members(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(c) for c in combinations(range(n), R.spies(n)))


def mask(seats: Sequence[int]) -> int:
    return sum(1 << s for s in set(seats))


def popcount(bits: int) -> int:
    return bits.bit_count()


# --- the events of a game, in the order they happened ------------------------------------------


@dataclass(frozen=True)
class Event:
    """A proposal with its vote, or a played mission, with the score before it."""

    vote: VoteRecord | None
    mission: MissionResult | None
    before: tuple[int, int]  # (successes, failures) before it
    track: int  # the vote track when the proposal was made
    first: bool  # the game's first mission (or a proposal for it)


def events(game: Game) -> list[Event]:
    """The proposals (with their votes) and the missions so far, in the order they happened."""
    results = sorted((r for r in game.results if r is not None), key=lambda r: r.round)
    out: list[Event] = []
    successes = failures = 0
    played = 0
    track = 0
    current = 0
    for record in game.vote_log:
        while played < len(results) and results[played].round < record.round:
            result = results[played]
            out.append(Event(None, result, (successes, failures), 0, played == 0))
            successes, failures = successes + (not result.failed), failures + result.failed
            played += 1
        if record.round != current:
            current, track = record.round, 0
        out.append(Event(record, None, (successes, failures), track, played == 0))
        if not record.approved or record.no_confidence is not None:
            track += 1
    for result in results[played:]:
        out.append(Event(None, result, (successes, failures), 0, played == 0))
        successes, failures = successes + (not result.failed), failures + result.failed
        played += 1
    return out


# --- likelihoods -------------------------------------------------------------------------------


def _vote_factors(n: int, event: Event, model: Behaviour) -> list[float]:
    """The likelihood of one proposal, its votes and any No Confidence, per hypothesis, up to a
    factor common to all of them."""
    record = event.vote
    assert record is not None
    team = mask(record.proposal.team)
    size = len(record.proposal.team)
    k = R.spies(n)
    last = event.track == R.MAX_REJECTIONS - 1
    leader = record.leader
    on_team = bool(team >> leader & 1)
    if on_team:  # a random choice of the others would be clean this often
        base = comb(n - k, size - 1) / comb(n - 1, size - 1)
        clean_odds, dirty_odds = model.spy_leader_alone, 1 - model.spy_leader_alone
    else:
        base = comb(n - k, size) / comb(n - 1, size)
        clean_odds, dirty_odds = model.spy_leader_off_clean, 1 - model.spy_leader_off_clean
    leader_clean = clean_odds / base if base > 0 else 1.0
    leader_dirty = dirty_odds / (1 - base) if base < 1 else 1.0
    dirty_ratio: list[float] = []
    clean_ratio: list[float] = []
    for seat, approve in enumerate(record.votes):
        if last:
            res = model.resistance_approves_last
            spy_dirty, spy_clean = model.spy_approves_dirty, model.spy_approves_clean_last
        else:
            res = (model.resistance_approves_member if team >> seat & 1
                   else model.resistance_approves_other)
            spy_dirty, spy_clean = model.spy_approves_dirty, model.spy_approves_clean
        if not approve:
            res, spy_dirty, spy_clean = 1 - res, 1 - spy_dirty, 1 - spy_clean
        dirty_ratio.append(spy_dirty / res)
        clean_ratio.append(spy_clean / res)
    objector = record.no_confidence
    factors = []
    for bits, spies in zip(hypotheses(n), members(n)):
        dirty = bits & team != 0
        ratio = dirty_ratio if dirty else clean_ratio
        f = 1.0
        for s in spies:
            f *= ratio[s]
        if bits >> leader & 1:
            others = bits & team & ~(1 << leader) if on_team else bits & team
            f *= leader_dirty if others else leader_clean
        if objector is not None and bits >> objector & 1:
            f *= model.spy_no_confidence_dirty if dirty else model.spy_no_confidence_clean
        factors.append(f)
    return factors


def _fail_chances(spies: int, need: int, chance: float, model: Behaviour) -> list[float]:
    """P(j hidden Fails | ``spies`` spies not in the spotlight on the team), j = 0..spies."""
    if spies == 0:
        return [1.0]
    if need == 1:
        if spies == 1:
            return [1 - chance, chance]
        out = [1 - chance, chance * (1 - model.double_fail)]
        return out + [chance * model.double_fail / (spies - 1)] * (spies - 1)
    if spies == 1:
        return [1 - model.lone_fail, model.lone_fail]
    both = chance * (1 - model.short_fail)
    if spies == 2:
        return [1 - chance, chance * model.short_fail, both]
    out = [1 - chance, chance * model.short_fail, both * (1 - model.double_fail)]
    return out + [both * model.double_fail / (spies - 2)] * (spies - 2)


def _mission_factors(n: int, event: Event, me: Knowledge, model: Behaviour) -> list[float]:
    """The likelihood of one mission's counts and of the cards this seat saw, per hypothesis."""
    result = event.mission
    assert result is not None
    need = R.fails_needed(n, result.mission)
    chance = model.sabotage_chance(event.before, event.first)
    shown = dict(result.spotlight)
    hidden_fails = result.fails - sum(1 for c in shown.values() if c == R.FAIL)
    hidden = mask([s for s in result.team if s not in shown])
    known: dict[int, str] = {seat: card for rnd, seat, card in me.seen_cards
                             if rnd == result.round and seat not in shown}
    if me.seat in result.team and me.seat not in shown:
        for rnd, card in me.own_cards:
            if rnd == result.round:
                known[me.seat] = card
    shown_fail = mask([s for s, c in shown.items() if c == R.FAIL])
    shown_success = [s for s, c in shown.items() if c == R.SUCCESS]
    deciding = critical(event.before)
    factors = []
    table: dict[int, list[float]] = {}
    for bits in hypotheses(n):
        if shown_fail & ~bits:  # a Fail shown by a Resistance member: not these spies
            factors.append(0.0)
            continue
        on = bits & hidden
        m = popcount(on)
        if hidden_fails > m:
            factors.append(0.0)
            continue
        if m not in table:
            table[m] = _fail_chances(m, need, chance, model)
        f = table[m][hidden_fails]
        known_fails = known_spies = 0
        for seat, card in known.items():
            if bits >> seat & 1:
                known_spies += 1
                known_fails += card == R.FAIL
            elif card == R.FAIL:
                f = 0.0
        if f and known_spies:
            f *= comb(m - known_spies, hidden_fails - known_fails) / comb(m, hidden_fails)
        for seat in shown_success:
            if bits >> seat & 1 and not deciding:
                f *= 1 - model.watched_fail
        factors.append(f)
    return factors


def prior(n: int, me: Knowledge) -> list[float]:
    """1 for every hypothesis that agrees with what ``me`` knows for certain, else 0."""
    spy_known: set[int] = set()
    clean_known: set[int] = set()
    if me.seat >= 0:
        (spy_known if me.spy else clean_known).add(me.seat)
    if me.known_spies:
        spy_known |= set(me.known_spies)
        clean_known |= set(range(n)) - set(me.known_spies)
    for seat, spy in me.seen_roles:
        (spy_known if spy else clean_known).add(seat)
    for _, seat, card in me.seen_cards:
        if card == R.FAIL:
            spy_known.add(seat)
    must, never = mask(sorted(spy_known)), mask(sorted(clean_known))
    return [1.0 if bits & must == must and not bits & never else 0.0 for bits in hypotheses(n)]


def _normalised(weights: list[float]) -> list[float]:
    total = 0.0
    for w in weights:
        total += w
    if total <= 0.0:
        return weights
    return [w / total for w in weights]


class Tracker:
    """The likelihood of the events so far, kept between decisions of one seat (or of the
    public, ``seat = -1``): each decision reads only the events that are new since the last.

    Spies do not all vote alike, so the votes are weighed under each of ``styles`` (by default
    spies who vote for their side, and spies who vote as a Resistance member would), each with
    its own likelihood and the evidence it has gathered (the product of its normalisers), and
    mixed evenly before any vote: the game's votes soon tell which kind of spies the table has.
    ``reads_votes`` False weighs the missions alone (the belief of a table that ignores who
    proposed and who voted what); ``before[i]`` is the likelihood before event ``i``."""

    def __init__(self, n: int, model: Behaviour = BEHAVIOUR, reads_votes: bool = True,
                 styles: Sequence[Behaviour] | None = None) -> None:
        self.n = n
        self.model = model
        self.styles = tuple(styles) if styles is not None else (model, covering(model))
        self.reads_votes = reads_votes
        self._reset()

    def _reset(self) -> None:
        count = len(hypotheses(self.n))
        self.seen: list[Event] = []
        self.before: list[list[float]] = []
        self.each = [[1.0] * count for _ in self.styles]
        self.evidence = [1.0] * len(self.styles)
        self.likelihood = [1.0] * count

    def update(self, game: Game, me: Knowledge) -> list[float]:
        """The likelihood of ``game``'s events per hypothesis (renormalised after each)."""
        now = events(game)
        if len(now) < len(self.seen) or now[: len(self.seen)] != self.seen:
            self._reset()
        for event in now[len(self.seen):]:
            self.before.append(self.likelihood)
            if event.vote is None:
                factors = _mission_factors(self.n, event, me, self.model)
                self._weigh([factors] * len(self.styles))
            elif self.reads_votes:
                self._weigh([_vote_factors(self.n, event, style) for style in self.styles])
            self.seen.append(event)
        return self.likelihood

    def _weigh(self, factors: Sequence[Sequence[float]]) -> None:
        for k, style_factors in enumerate(factors):
            weights = [w * f for w, f in zip(self.each[k], style_factors)]
            total = 0.0
            for w in weights:
                total += w
            if total > 0.0:
                self.each[k] = [w / total for w in weights]
            self.evidence[k] *= total
        top = max(self.evidence)
        if top > 0.0:
            self.evidence = [e / top for e in self.evidence]
        mixed = [0.0] * len(self.likelihood)
        for k, weights in enumerate(self.each):
            share = self.evidence[k]
            for i, w in enumerate(weights):
                mixed[i] += share * w
        self.likelihood = _normalised(mixed)


def covering(model: Behaviour) -> Behaviour:
    """Spies who vote as a Resistance member would, a little kinder to teams with a spy."""
    return replace(model, spy_approves_dirty=0.6, spy_approves_clean=0.5,
                   spy_approves_clean_last=0.9)


@dataclass(frozen=True)
class Belief:
    """The posterior over the hypotheses of an ``n``-seat game: ``weights`` sum to 1."""

    n: int
    weights: tuple[float, ...]

    @staticmethod
    def of(game: Game, me: Knowledge, tracker: Tracker | None = None) -> Belief:
        """From scratch, or with ``tracker`` (the same result, faster)."""
        tracker = tracker if tracker is not None else Tracker(game.n)
        return Belief.weigh(game.n, me, tracker.update(game, me))

    @staticmethod
    def weigh(n: int, me: Knowledge, likelihood: Sequence[float]) -> Belief:
        """The posterior from a likelihood and what ``me`` knows for certain."""
        start = prior(n, me)
        weights = _normalised([p * w for p, w in zip(start, likelihood)])
        if sum(weights) <= 0.0:  # nothing the model allows: what is certain, evenly
            weights = _normalised(start)
        if sum(weights) <= 0.0:
            weights = _normalised([1.0] * len(start))
        return Belief(n, tuple(weights))

    def given_clean(self, seat: int) -> Belief:
        """The belief of someone who also knows that ``seat`` is Resistance."""
        kept = [0.0 if bits >> seat & 1 else w for bits, w in zip(hypotheses(self.n), self.weights)]
        if sum(kept) <= 0.0:
            return self
        return Belief(self.n, tuple(_normalised(kept)))

    def spy_chance(self) -> tuple[float, ...]:
        """P(seat is a spy), per seat."""
        chance = [0.0] * self.n
        for spies, w in zip(members(self.n), self.weights):
            for s in spies:
                chance[s] += w
        return tuple(chance)

    def clean_table(self) -> list[float]:
        """For every seat mask U: the chance that every spy is in U (subset sums: one pass per
        seat, each mask with that seat adding the mask without it, taken by list slices: as
        strides where the seat's bit is low, as blocks where it is high)."""
        size = 1 << self.n
        table = [0.0] * size
        for bits, w in zip(hypotheses(self.n), self.weights):
            table[bits] += w
        for seat in range(self.n):
            half = 1 << seat
            step = 2 * half
            if half <= size // step:
                for r in range(half, step):
                    table[r::step] = [a + b for a, b in zip(table[r::step],
                                                            table[r - half::step])]
            else:
                for start in range(0, size, step):
                    high = start + half
                    table[high:high + half] = [a + b for a, b in zip(table[high:high + half],
                                                                     table[start:high])]
        return table


def spies_at_most(table: list[float], n: int, team: int, most: int) -> float:
    """P(at most ``most`` spies on ``team``) (``most`` 0 or 1), from a ``clean_table``."""
    full = (1 << n) - 1
    outside = full & ~team
    clean = table[outside]
    if most == 0:
        return clean
    total = clean
    for seat in range(n):
        if team >> seat & 1:
            total += table[outside | 1 << seat] - clean
    return total

"""The Resistance's expert bot: belief over every set of spies, and play that uses it.

Theory of operation
-------------------
At each decision the bot weighs every possible set of spies by what its seat knows and what the
table did (``belief``), twice: its own belief (its role, its recognition, its looks) and the
public one (what anyone at the table can infer, the seat's own role left out), which is how a
spy sees himself through the Resistance's eyes. Both are kept by ``Tracker``s between decisions,
so a decision reads only what happened since the last one. Every choice is then a comparison of
chances computed from the belief:

* **success(team)**: the chance that a team's mission succeeds, P(fewer spies than the mission's
  Fails need) plus, for a team with enough, the chance that its spies still play Success;
* **a Leader's worth**: what the next proposal is worth if this one is rejected: with the chance
  that its Leader is Resistance, his best team (his own seat certainly clean), else a spy's team.

As **Resistance** the bot proposes its best team (ties at random), approves a team unless the
next Leader is expected to do clearly better (the margin grows with the vote track; the fifth
proposal is always approved), plays No Confidence on a team clearly worse than that, Strong
Leader on a Leader it expects to do clearly worse than itself, and spends its looks where the
belief is least sure (Overheard, Close Eye), its spotlight on the likeliest spy of the team, Take
Responsibility on the best card of the likeliest spy, and deals plot cards to the seats it trusts.

As a **spy** it hides: it votes as a Resistance member in its seat would (the public belief with
its own seat clean), except where its vote is likely to decide the team or the mission would end
the game (cover is worth nothing after the last mission), and then for its side;
off a team with enough spies to fail it, the spies approve only as many as the team needs to
pass (the likelier spies first, an order every spy computes alike), since an approval of a team
that then fails marks every approver off it;
it proposes the team with enough spies on it that the table is likeliest to approve (the least
suspected spy, trusted-looking Resistance members); it fails a mission when that decides the game,
or when the spies who fail stay hidden enough afterwards (the public belief after the Fail; on
the first mission a bound that grows with the number of spies, since an exposed spy costs the
spies his share of them), and
the spies on a team agree without talking on who fails: the most suspected of them (he has the
least to lose), by public belief then seat, so one Fail is played where one is enough. It plays
No Confidence on teams that would succeed, Strong Leader over a Resistance Leader, spotlights
itself when another spy on the team can fail for it, takes the Resistance's best cards, and deals
plot cards to its fellow spies. Under Blind Spies it knows only itself, and reasons from its own
belief instead.

Work per decision is bounded by the game (at most 210 hypotheses, 252 teams, 504 plot deals), not
by a clock; ``effort`` widens the teams it compares where a search could be cut short. Random
draws (ties, the first team) come from the bot's own entropy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, TypeVar

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Decision
from spycraft.engines.bots import SeatBot
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.belief import (
    BEHAVIOUR,
    Behaviour,
    Belief,
    Event,
    Tracker,
    _mission_factors,
    critical,
    hypotheses,
    mask,
)
from spycraft.engines.resistance.model import Game, MissionResult, Proposal
from spycraft.engines.resistance.view import Knowledge, SeatView

T = TypeVar("T")
PUBLIC = Knowledge(seat=-1, spy=False)  # someone who knows only what is public
# Where a vote read and a vote ignored predict different votes: how often the vote cast is the
# one predicted by reading the votes, by a member who reads them (reasoned: our own rule, less
# what a person adds) and by one who does not (measured: the heuristic bot, over 100 7-seat games)
READER_MATCH = 0.9
NAIVE_MATCH = 0.36
MAX_ODDS = 1000.0

# What a plot card is worth in a Resistance member's hand (and, for a spy, in his own)
RESISTANCE_CARD = {
    R.STRONG_LEADER: 3.0, R.NO_CONFIDENCE: 3.0, R.OPINION_MAKER: 1.5, R.CLOSE_EYE: 2.0,
    R.SPOTLIGHT: 2.0, R.OVERHEARD: 1.5, R.ESTABLISH_CONFIDENCE: 1.5, R.OPEN_UP: 1.0,
    R.TAKE_RESPONSIBILITY: 2.0,
}
SPY_CARD = {
    R.STRONG_LEADER: 3.0, R.NO_CONFIDENCE: 3.5, R.OPINION_MAKER: 1.0, R.CLOSE_EYE: 0.5,
    R.SPOTLIGHT: 1.0, R.OVERHEARD: 1.0, R.ESTABLISH_CONFIDENCE: 1.0, R.OPEN_UP: 1.0,
    R.TAKE_RESPONSIBILITY: 2.0,
}


@dataclass(frozen=True)
class Style:
    """How boldly the bot plays (the parameters its benchmark settled)."""

    slack: tuple[float, ...] = (0.02, 0.05, 0.1, 0.2)  # vote: tolerance below the next Leader
    no_confidence: float = 0.2  # play it on a team this much worse than the next Leader's
    strong_leader: float = 0.15  # play it when this much better than the Leader
    take: float = 0.6  # Take Responsibility: least worth of a take
    pivotal: float = 1.01  # a spy votes for his side when his vote decides this often
    pivotal_last: float = 1.01  # ... on the fifth proposal
    hidden: float = 1.0  # a spy fails when the failers look no more suspect than this after
    hidden_first: float = 0.45  # ... on the first mission, with two spies (more: in proportion)
    approval_sure: float = 0.85  # how surely a predicted vote is cast as predicted
    reader_odds: float = 1.0  # the odds, before any vote, that the Resistance reads votes
    hide_vote: float = 0.5  # spies off a team they will fail approve it only until it passes
    # this surely


STYLE = Style()


def expert_bot(entropy: Entropy, seat: int, effort: int = 1) -> ExpertAgent:
    return ExpertAgent(entropy, seat, effort)


class Reading:
    """One belief made ready to answer questions about teams."""

    def __init__(self, belief: Belief, game: Game, model: Behaviour) -> None:
        self.belief = belief
        self.game = game
        self.n = game.n
        self.model = model
        self.chance = belief.spy_chance()
        self.table = belief.clean_table()
        self.full = (1 << self.n) - 1
        first = not any(r is not None for r in game.results)
        self.sabotage = model.sabotage_chance((game.successes, game.failures), first)
        self._worth: dict[tuple[int, int, int, int], float] = {}
        self._teams: dict[tuple[int, int | None, int], list[int]] = {}

    def clean(self, seats: int) -> float:
        """P(no spy among ``seats``)."""
        return self.table[self.full & ~seats]

    def success(self, team: int, mission: int, given: int = 0) -> float:
        """P(the mission succeeds with ``team``), knowing that the seats of ``given`` are clean."""
        need = R.fails_needed(self.n, mission)
        table = self.table
        outside = self.full & ~team & ~given
        ok = table[outside]
        if need == 2:
            for seat in range(self.n):
                bit = 1 << seat
                if team & bit and not given & bit:
                    ok += table[outside | bit] - table[outside]
        base = self.clean(given) if given else 1.0
        if base <= 0.0:
            return 0.0
        ok = min(1.0, ok / base)
        return ok + (1.0 - ok) * (1.0 - self.sabotage)

    def teams(self, size: int, include: int | None, effort: int) -> list[int]:
        """The teams of ``size`` (with seat ``include``) a Leader would choose among: all of
        them where they are few, else those made of the seats least likely spies."""
        key = (size, include, effort)
        if key not in self._teams:
            self._teams[key] = self._choose_teams(size, include, effort)
        return self._teams[key]

    def _choose_teams(self, size: int, include: int | None, effort: int) -> list[int]:
        others = [s for s in range(self.n) if s != include]
        pick = size - (include is not None)
        pool_size = min(len(others), pick + 3 + 2 * effort)
        if len(others) > pool_size:
            others = sorted(others, key=lambda s: (self.chance[s], s))[:pool_size]
        base = 0 if include is None else 1 << include
        return [base | mask(c) for c in combinations(sorted(others), pick)]

    def best(self, mission: int, include: int | None, effort: int,
             given: int = 0) -> tuple[float, list[int]]:
        """The best success chance of a team for ``mission`` (with ``include``), and every team
        that reaches it."""
        size = R.team_size(self.n, mission)
        top, chosen = -1.0, []
        for team in self.teams(size, include, effort):
            p = self.success(team, mission, given)
            if p > top + 1e-12:
                top, chosen = p, [team]
            elif p >= top - 1e-12:
                chosen.append(team)
        return top, chosen

    def leader_worth(self, leader: int, mission: int, effort: int, given: int = 0) -> float:
        """What a proposal by ``leader`` is worth: his best team if he is Resistance (he knows
        he is clean), a spy's team otherwise."""
        key = (leader, mission, effort, given)
        if key not in self._worth:
            self._worth[key] = self._leader_worth(leader, mission, effort, given)
        return self._worth[key]

    def _leader_worth(self, leader: int, mission: int, effort: int, given: int) -> float:
        base = self.clean(given) if given else 1.0
        clean = self.clean(given | 1 << leader) / base if base > 0 else 0.0
        honest, _ = self.best(mission, leader, effort, given | 1 << leader)
        return clean * honest + (1.0 - clean) * (1.0 - self.sabotage)


def mission_of(game: Game) -> int:
    """The mission a proposal now would be for (the round's, or the likeliest under
    Targeting: the lowest available)."""
    available = game.available_missions()
    return game.round if game.round in available else available[0]


class ExpertAgent(SeatBot[SeatView]):
    reads = SeatView

    def __init__(self, entropy: Entropy, seat: int, effort: int = 1,
                 model: Behaviour = BEHAVIOUR, style: Style = STYLE) -> None:
        super().__init__(entropy, seat)
        self.effort = max(1, effort)
        self.model = model
        self.style = style
        self.own: Tracker | None = None
        self.public: Tracker | None = None
        self.naive: Tracker | None = None
        self._readings: dict[str, tuple[tuple[int, Knowledge], Reading]] = {}
        self.judged = 0  # events whose votes were read for the Resistance's style
        self.reader_odds = style.reader_odds

    # --- beliefs -------------------------------------------------------------------------------

    def _beliefs(self, game: Game, me: Knowledge) -> tuple[Reading, Reading]:
        if self.own is None or self.own.n != game.n:
            self.own, self.public = Tracker(game.n, self.model), Tracker(game.n, self.model)
            self.naive = Tracker(game.n, self.model, reads_votes=False)
        assert self.public is not None
        mine = self._cached("own", game, me, self.own)
        seen = self._cached("public", game, PUBLIC, self.public)
        return mine, seen

    def _cached(self, name: str, game: Game, me: Knowledge, tracker: Tracker) -> Reading:
        """The reading of ``tracker`` now, kept while no event and no knowledge is new (a
        seat decides several times between two events: each vote step, every window)."""
        likelihood = tracker.update(game, me)
        key = (len(tracker.seen), me)
        kept = self._readings.get(name)
        if kept is not None and kept[0] == key and kept[1].game.results == game.results:
            return kept[1]
        reading = Reading(Belief.weigh(game.n, me, likelihood), game, self.model)
        self._readings[name] = (key, reading)
        return reading

    def _readers(self, game: Game, me: Knowledge) -> tuple[float, Reading]:
        """How likely the Resistance reads votes and proposals (rather than the missions
        alone), from how its members voted so far; and the belief of a table that does not.

        Each past vote of a Resistance member is predicted twice, by this bot's own voting rule
        with the public belief of that moment, with and without the votes before it; where the
        two differ, the vote cast counts for the one it matches. A spy who does not know the
        spies (Blind Spies) cannot tell the Resistance's votes from the spies', and stays at
        even odds."""
        assert self.public is not None and self.naive is not None
        naive = self._cached("naive", game, PUBLIC, self.naive)
        if not me.known_spies:
            return 0.5, naive
        seen = self.public.seen
        if self.judged > len(seen):
            self.judged, self.reader_odds = 0, self.style.reader_odds
        for index in range(self.judged, len(seen)):
            event = seen[index]
            record = event.vote
            if record is None:
                continue
            past = _as_voted(game, event)
            full = Reading(Belief.weigh(game.n, PUBLIC, self.public.before[index]), past,
                           self.model)
            blind = Reading(Belief.weigh(game.n, PUBLIC, self.naive.before[index]), past,
                            self.model)
            for seat, vote in enumerate(record.votes):
                if seat in me.known_spies:
                    continue
                reads, ignores = self._vote(past, full, seat), self._vote(past, blind, seat)
                if reads != ignores:
                    self.reader_odds *= (READER_MATCH / NAIVE_MATCH if vote == reads
                                         else (1 - READER_MATCH) / (1 - NAIVE_MATCH))
            self.reader_odds = min(MAX_ODDS, max(1 / MAX_ODDS, self.reader_odds))
        self.judged = len(seen)
        return self.reader_odds / (1.0 + self.reader_odds), naive

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1:
            return 0
        game, me = view.game, view.knowledge
        mine, seen = self._beliefs(game, me)
        spy = me.spy
        kind = decision.kind
        if kind == "vote":
            approve = (self._spy_vote(game, me, mine, seen) if spy
                       else self._vote(game, mine, self.seat))
            return 0 if approve else 1
        if kind == "mission_card":
            return options.index(R.FAIL) if spy and self._fail(game, me, mine, seen) else 0
        if kind == "propose":
            return self._propose(game, me, mine, seen, options)
        if kind == "plot_deal":
            return self._deal(me, mine, options)
        if kind == "overheard_target":
            return self._most_uncertain(mine, list(options), options)
        if kind == "open_up_viewer":
            return self._open_up(game, me, mine, options)
        if kind == "strong_leader":
            return 1 if self._strong_leader(game, me, mine, seen) else 0
        if kind == "no_confidence":
            return 1 if self._no_confidence(game, me, mine) else 0
        if kind == "spotlight":
            return self._spotlight(game, me, mine, options)
        if kind == "close_eye":
            if spy and not game.blind_spies:
                return 0
            return self._most_uncertain(mine, list(options[1:]), options)
        if kind == "take_responsibility":
            return self._take(me, mine, options)
        return below(self.entropy, len(options))

    def _pick(self, choices: Sequence[T]) -> T:
        return choices[0] if len(choices) == 1 else choices[below(self.entropy, len(choices))]

    # --- as Resistance (and a spy's cover) -----------------------------------------------------

    def _vote(self, game: Game, reading: Reading, seat: int, given: int = 0) -> bool:
        """How a Resistance member at ``seat`` votes with this belief (``given``: seats it knows
        are clean besides itself, for a belief that does not yet know it)."""
        assert game.proposal is not None
        if game.vote_track == R.MAX_REJECTIONS - 1:
            return True
        known = given | 1 << seat
        mission = game.proposal.mission
        p = reading.success(mask(game.proposal.team), mission, known)
        following = (game.leader + 1) % game.n
        if following == seat:
            alternative, _ = reading.best(mission_of(game), seat, self.effort, known)
        else:
            alternative = reading.leader_worth(following, mission_of(game), self.effort, known)
        slack = self.style.slack[min(game.vote_track, len(self.style.slack) - 1)]
        return p >= alternative - slack

    def _propose(self, game: Game, me: Knowledge, mine: Reading, seen: Reading,
                 options: tuple[Any, ...]) -> int:
        missions = sorted({p.mission for p in options})
        if me.spy:
            return options.index(self._spy_proposal(game, me, mine, seen, missions))
        best: tuple[float, list[Proposal]] = (-1.0, [])
        for mission in missions:
            p, teams = mine.best(mission, self.seat, self.effort)
            p += self._mission_bonus(game, mission)
            proposals = [Proposal(mission, _seats(t)) for t in teams]
            if p > best[0] + 1e-12:
                best = (p, proposals)
            elif p >= best[0] - 1e-12:
                best = (best[0], best[1] + proposals)
        return options.index(self._pick(best[1]))

    def _mission_bonus(self, game: Game, mission: int) -> float:
        """Under Targeting: the easy missions first (small teams, one Fail needed)."""
        if len(game.available_missions()) == 1:
            return 0.0
        return -0.01 * R.team_size(game.n, mission) + 0.02 * (R.fails_needed(game.n, mission) - 1)

    def _no_confidence(self, game: Game, me: Knowledge, mine: Reading) -> bool:
        assert game.proposal is not None
        team = mask(game.proposal.team)
        mission = game.proposal.mission
        if me.spy:
            if game.blind_spies:
                return mine.success(team, mission) > 0.8
            spies = sum(1 for s in game.proposal.team if s in me.known_spies)
            return spies < R.fails_needed(game.n, mission)
        if game.vote_track == R.MAX_REJECTIONS - 1:
            return False
        p = mine.success(team, mission, 1 << self.seat)
        following = (game.leader + 1) % game.n
        if following == self.seat:
            alternative, _ = mine.best(mission_of(game), self.seat, self.effort)
        else:
            alternative = mine.leader_worth(following, mission_of(game), self.effort)
        return p < alternative - self.style.no_confidence

    def _strong_leader(self, game: Game, me: Knowledge, mine: Reading, seen: Reading) -> bool:
        mission = mission_of(game)
        if me.spy:
            known = me.is_known_spy(game.leader)
            return known is False or (known is None and mine.chance[game.leader] < 0.5)
        mine_best, _ = mine.best(mission, self.seat, self.effort)
        theirs = mine.leader_worth(game.leader, mission, self.effort)
        return mine_best >= theirs + self.style.strong_leader

    def _most_uncertain(self, reading: Reading, seats: list[int],
                        options: tuple[Any, ...]) -> int:
        """The seat whose role the belief is least sure of (a look there teaches the most)."""
        def doubt(s: int) -> float:
            return reading.chance[s] * (1.0 - reading.chance[s])

        top = max(doubt(s) for s in seats)
        if top <= 1e-9:
            return 0 if options[0] is None else options.index(self._pick(seats))
        return options.index(self._pick([s for s in seats if doubt(s) >= top - 1e-12]))

    def _open_up(self, game: Game, me: Knowledge, mine: Reading, options: tuple[Any, ...]) -> int:
        seats = list(options)
        if me.spy:
            mates = [s for s in seats if s in me.known_spies]
            if mates:
                return options.index(self._pick(mates))
            return options.index(max(seats, key=lambda s: (mine.chance[s], -s)))
        order = R.priority_order((game.leader + 1) % game.n, game.n)
        return options.index(min(seats, key=lambda s: (round(mine.chance[s], 6), order.index(s))))

    def _spotlight(self, game: Game, me: Knowledge, mine: Reading, options: tuple[Any, ...]) -> int:
        team = list(options[1:])
        if me.spy:
            spies = [s for s in game.team if s in me.known_spies and s not in game.spotlighted]
            assert game.proposal is not None
            need = R.fails_needed(game.n, game.proposal.mission)
            if self.seat in team and len([s for s in spies if s != self.seat]) >= need:
                return options.index(self.seat)
            return 0
        top = max(mine.chance[s] for s in team)
        if top <= 1e-6:
            return 0
        return options.index(self._pick([s for s in team if mine.chance[s] >= top - 1e-12]))

    def _take(self, me: Knowledge, mine: Reading, options: tuple[Any, ...]) -> int:
        values = SPY_CARD if me.spy else RESISTANCE_CARD
        best, score = 0, self.style.take
        for index, option in enumerate(options[1:], start=1):
            holder, card = option
            if me.spy:
                against = 0.0 if me.is_known_spy(holder) else 1.0
            else:
                against = mine.chance[holder]
            worth = values[R.card_type(card)] * against
            if worth > score + 1e-12:
                best, score = index, worth
        return best

    def _deal(self, me: Knowledge, mine: Reading, options: tuple[Any, ...]) -> int:
        def worth(deal: tuple[tuple[str, int], ...]) -> float:
            total = 0.0
            for card, seat in deal:
                kind = R.card_type(card)
                if me.spy and not me.known_spies:
                    friend = mine.chance[seat]
                elif me.spy:
                    friend = 1.0 if seat in me.known_spies else 0.0
                else:
                    friend = 1.0 - mine.chance[seat]
                value = SPY_CARD[kind] if me.spy else RESISTANCE_CARD[kind]
                total += value * friend
            return total

        scores = [worth(d) for d in options]
        top = max(scores)
        return self._pick([i for i, s in enumerate(scores) if s >= top - 1e-9])

    # --- as a spy ------------------------------------------------------------------------------

    def _spies(self, me: Knowledge) -> set[int]:
        """The spies as this spy knows them (under Blind Spies: himself)."""
        return set(me.known_spies) if me.known_spies else {self.seat}

    def _table(self, game: Game, me: Knowledge, seen: Reading) -> Onlookers:
        readers, naive = self._readers(game, me)
        return Onlookers(readers, seen, naive)

    def _predicted_approvals(self, game: Game, team: tuple[int, ...], me: Knowledge,
                             table: Onlookers) -> list[float]:
        """For each seat but this one: the chance it approves ``team`` (a Resistance member as
        the table's belief with its own seat clean makes it vote, a spy for his side; a vote
        already cast as it was)."""
        spies = self._spies(me)
        mission = game.proposal.mission if game.proposal is not None else mission_of(game)
        need = R.fails_needed(game.n, mission)
        dirty = sum(1 for s in team if s in spies) >= need
        trial = game if game.proposal is not None and game.proposal.team == team else _with(
            game, Proposal(mission, team))
        sure = self.style.approval_sure
        out = []
        for seat in range(game.n):
            if seat == self.seat:
                continue
            cast = trial.votes[seat] if trial.votes else None
            if cast is not None:
                out.append(1.0 if cast else 0.0)
            elif seat in spies:
                out.append(sure if dirty else 1 - sure)
            else:
                reads = self._vote(trial, table.reading, seat)
                ignores = self._vote(trial, table.naive, seat)
                chance = table.readers * reads + (1.0 - table.readers) * ignores
                out.append(1 - sure + (2 * sure - 1) * chance)
        return out

    def _spy_vote(self, game: Game, me: Knowledge, mine: Reading, seen: Reading) -> bool:
        """Vote as a Resistance member would here, unless the vote is likely to decide the
        team: then for the spies (against a table that does not read votes, always)."""
        assert game.proposal is not None
        team = game.proposal.team
        need = R.fails_needed(game.n, game.proposal.mission)
        if me.known_spies:
            wanted = sum(1 for s in team if s in me.known_spies) >= need
        else:
            wanted = self.seat in team or mine.success(mask(team), game.proposal.mission) < 0.5
        if me.known_spies and _ends_game(game, wanted):
            return wanted  # this mission ends the game his side's way or the other's: no cover
        table = self._table(game, me, seen)
        last = game.vote_track == R.MAX_REJECTIONS - 1
        approve = self._spy_side_vote(game, me, seen, table, wanted)
        if (approve and wanted and me.known_spies and self.seat not in team
                and self.seat != game.leader and not last):
            return self._approval_needed(game, me, table, team)
        return approve

    def _spy_side_vote(self, game: Game, me: Knowledge, seen: Reading, table: Onlookers,
                       wanted: bool) -> bool:
        assert game.proposal is not None
        team = game.proposal.team
        last = game.vote_track == R.MAX_REJECTIONS - 1
        cover = self._vote(game, seen, self.seat)
        if cover == wanted:
            return wanted
        others = self._predicted_approvals(game, team, me, table)
        decides = _pivotal(others, R.approvals_needed(game.n))
        threshold = table.readers * (self.style.pivotal_last if last else self.style.pivotal)
        return wanted if decides >= threshold else cover

    def _approval_needed(self, game: Game, me: Knowledge, table: Onlookers,
                         team: tuple[int, ...]) -> bool:
        """Whether this spy, off a team with enough spies to fail it, approves it: only when the
        team needs it. An approval of a team that then fails marks every approver off it, so
        the spies off the team approve only as many as the team needs to pass (the likelier
        spies first: they have the least to lose), in an order every spy computes alike."""
        spies = self._spies(me)
        off = sorted((s for s in spies if s not in team and s != game.leader),
                     key=lambda s: (-round(table.chance(s), 9), s))
        chances = self._predicted_approvals(game, team, me, table)
        others = [s for s in range(game.n) if s != self.seat]
        fixed = [p for s, p in zip(others, chances) if s not in off]
        if self.seat not in off:
            return True
        needed = R.approvals_needed(game.n)
        for count in range(len(off) + 1):
            if _at_least(fixed + [1.0] * count, needed) >= self.style.hide_vote:
                return off.index(self.seat) < count
        return True

    def _spy_proposal(self, game: Game, me: Knowledge, mine: Reading, seen: Reading,
                      missions: list[int]) -> Proposal:
        """The team with enough spies that the table is likeliest to approve: the spies it
        suspects least, with the Resistance members it trusts most."""
        spies = self._spies(me)
        table = self._table(game, me, seen)
        candidates: list[tuple[float, Proposal]] = []
        for mission in missions:
            size = R.team_size(game.n, mission)
            need = R.fails_needed(game.n, mission)
            resistance = sorted((s for s in range(game.n) if s not in spies),
                                key=lambda s: (table.chance(s), s))
            # fewer spies known than the mission needs (Blind Spies): all it knows go
            fewest = min(need, len(spies), size)
            for count in range(fewest, min(size, len(spies)) + 1):
                for chosen in combinations(sorted(spies), count):
                    rest = resistance[: size - count]
                    if len(rest) < size - count:
                        continue
                    team = tuple(sorted(chosen + tuple(rest)))
                    approvals = self._predicted_approvals(game, team, me, table)
                    approvals.append(1.0)  # the Leader approves his own team
                    p = _at_least(approvals, R.approvals_needed(game.n))
                    p -= 0.05 * max(0, count - need)  # a spy more than needed gives one away
                    candidates.append((p + self._mission_bonus(game, mission), Proposal(
                        mission, team)))
        top = max(p for p, _ in candidates)
        return self._pick([prop for p, prop in candidates if p >= top - 1e-9])

    def _fail(self, game: Game, me: Knowledge, mine: Reading, seen: Reading) -> bool:
        """Whether this spy plays Fail. The spies of one team agree without talking: the most
        suspected of them fail (by the public belief, which every spy computes alike), as many
        as the mission needs; they fail when that decides the game, or when they will not look
        much more suspect afterwards than the table can bear."""
        assert game.proposal is not None
        mission = game.proposal.mission
        need = R.fails_needed(game.n, mission)
        watched = set(game.spotlighted)
        team_spies = [s for s in game.team if s in self._spies(me)]
        hidden = [s for s in team_spies if s not in watched]
        order = sorted(hidden, key=lambda s: (-round(seen.chance[s], 9), s))
        order += sorted((s for s in team_spies if s in watched),
                        key=lambda s: (-round(seen.chance[s], 9), s))
        failers = order[:need]
        if len(failers) < need and me.known_spies:
            return False  # not enough spies to fail it: a Fail would only give one away
        if self.seat not in failers:
            return False
        if critical((game.successes, game.failures)):
            return True
        if any(s in watched for s in failers):
            return False
        table = self._table(game, me, seen)
        exposure = (table.readers * self._exposure(game, seen, failers, need, mission)
                    + (1 - table.readers) * self._exposure(game, table.naive, failers, need,
                                                           mission))
        first = not any(r is not None for r in game.results)
        # an exposed spy costs the spies his share of them: the first mission's limit is set
        # for two spies, and grows with their number
        limit = (self.style.hidden_first * R.spies(game.n) / 2 if first
                 else self.style.hidden)
        already = min(table.chance(s) for s in failers)
        return exposure <= limit or already >= 0.8

    def _exposure(self, game: Game, seen: Reading, failers: list[int], need: int,
                  mission: int) -> float:
        """How likely a table with belief ``seen`` will think the failers are spies after they
        fail (the likeliest of them)."""
        result = MissionResult(mission, game.round, game.leader, game.team,
                               len(game.team) - need, need, True, game.spotlight_cards)
        first = not any(r is not None for r in game.results)
        event = Event(None, result, (game.successes, game.failures), 0, first)
        factors = _mission_factors(game.n, event, PUBLIC, self.model)
        weights = [w * f for w, f in zip(seen.belief.weights, factors)]
        total = sum(weights)
        if total <= 0.0:
            return 1.0
        worst = 0.0
        for seat in failers:
            bit = 1 << seat
            p = sum(w for bits, w in zip(hypotheses(game.n), weights) if bits & bit) / total
            worst = max(worst, p)
        return worst


@dataclass(frozen=True)
class Onlookers:
    """How the table sees the spies: the public belief (votes and proposals read), the belief
    from the missions alone, and how likely its Resistance members read the votes."""

    readers: float
    reading: Reading
    naive: Reading

    def chance(self, seat: int) -> float:
        return (self.readers * self.reading.chance[seat]
                + (1.0 - self.readers) * self.naive.chance[seat])


def _seats(team: int) -> tuple[int, ...]:
    return tuple(s for s in range(team.bit_length()) if team >> s & 1)


def _as_voted(game: Game, event: Event) -> Game:
    """The public game as it stood when ``event``'s proposal was voted on (what a voter's rule
    reads of it: the score, the missions played, the Leader, the vote track, the team)."""
    from dataclasses import replace

    record = event.vote
    assert record is not None
    results = tuple(r if r is not None and r.round < record.round else None for r in game.results)
    return replace(game, round=record.round, leader=record.leader, vote_track=event.track,
                   proposal=record.proposal, votes=(None,) * game.n, results=results)


def _with(game: Game, proposal: Proposal) -> Game:
    """``game`` as if ``proposal`` were up for the vote (to predict the votes on it)."""
    from dataclasses import replace

    return replace(game, proposal=proposal, votes=(None,) * game.n)


def _distribution(chances: Sequence[float]) -> list[float]:
    """The distribution of the number of approvals, each voter independent."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1.0 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return dist


def _at_least(chances: Sequence[float], needed: int) -> float:
    dist = _distribution(chances)
    return sum(dist[needed:])


def _pivotal(chances: Sequence[float], needed: int) -> float:
    """P(the others' approvals fall exactly one short of ``needed``: one vote decides)."""
    dist = _distribution(chances)
    return dist[needed - 1] if 0 <= needed - 1 < len(dist) else 0.0


def _ends_game(game: Game, wanted: bool) -> bool:
    """Whether the proposed mission, if approved, ends the game as the spies expect: a team the
    spies can fail when they need one more failure, one they cannot when the Resistance needs
    one more success (a vote's cover is worth nothing after the last mission)."""
    wins = game.failures if wanted else game.successes
    return wins == R.WINS_NEEDED - 1

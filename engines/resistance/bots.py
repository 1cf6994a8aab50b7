"""Decision policies for The Resistance: a random legal bot, and the levels easy (a beginner),
normal (the heuristic) and expert (``expert``: a belief over every set of spies).

All answer ``Decision``s whose ``view`` is a ``SeatView`` (public game + this seat's knowledge).

The easy bot plays as a beginner does, with habits a person can read and exploit: as Resistance
it suspects only the seats of failed missions and forgets that suspicion as soon as a seat is on
a mission that succeeds, ignores the votes, proposes itself with the next seats clockwise that it
does not suspect, and approves a team it is on or one without a suspect (the fifth proposal
always). As a spy it votes the same way, so it lets clean teams through, fails every mission it
is on (spotlighted or not, however many spies are on it) and proposes itself with the next
seats clockwise, spies or not. It never plays a plot card it holds, deals the
drawn cards to the next seats, looks at its left neighbour and shows its role to the next seat.

The heuristic bot keeps a suspicion score per seat, recomputed from the public record at each
decision (so it has no hidden state to persist): every Fail in a failed or spotlighted mission
is spread over the team members it could have come from; certain knowledge (own role, spy
recognition, plot looks, Close Eye) overrides the score. Resistance proposes and approves the
least suspicious teams and spends its plot cards on the most suspicious seats. A spy approves
teams with a spy on them, rejects the fifth proposal, and fails a mission only when it pays:
just enough spies fail to reach the mission's need (the lowest spy seats on the team, so two
spies do not double-fail), never when spotlighted unless the fail wins the game, and the first
two-person mission is failed only half the time, since it exposes the failing spy cheaply.
"""

from __future__ import annotations

from fractions import Fraction

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.bots import SeatBot, levels
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.expert import expert_bot
from spycraft.engines.resistance.model import Game, Proposal
from spycraft.engines.resistance.view import Knowledge, SeatView


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def heuristic_bot(entropy: Entropy, seat: int) -> Agent:
    return HeuristicAgent(entropy, seat)


def suspicion(game: Game, me: Knowledge) -> tuple[Fraction, ...]:
    """How likely each seat looks to be a spy, from this seat's point of view (higher = worse)."""
    score = [Fraction(0)] * game.n
    for result in game.results:
        if result is None:
            continue
        shown = dict(result.spotlight)
        for seat, card in shown.items():
            if card == R.FAIL:
                score[seat] += 10
        hidden = [s for s in result.team if s not in shown and me.is_known_spy(s) is not True]
        unexplained = result.fails - sum(1 for c in shown.values() if c == R.FAIL)
        suspects = [s for s in hidden if me.is_known_spy(s) is None]
        if unexplained > 0 and suspects:
            for seat in suspects:
                score[seat] += Fraction(3 * unexplained, len(suspects))
        if not result.failed:
            for seat in result.team:
                score[seat] -= Fraction(1, 2)
    for record in game.vote_log:
        mission = game.results[record.proposal.mission - 1]
        if mission is not None and mission.failed and record.approved:
            for seat, approve in enumerate(record.votes):
                if approve and seat not in record.proposal.team:
                    score[seat] += Fraction(1, 2)
    for _, seat, card in me.seen_cards:
        if card == R.FAIL:
            score[seat] += 100
    for seat in range(game.n):
        known = me.is_known_spy(seat)
        if known is True:
            score[seat] += 1000
        elif known is False:
            score[seat] = Fraction(-1000)
    return tuple(score)


class HeuristicAgent(SeatBot[SeatView]):
    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        if len(decision.options) == 1:
            return 0
        game, me = view.game, view.knowledge
        scores = suspicion(game, me)
        spy = me.spy
        options = decision.options
        kind = decision.kind

        def worst(seats: list[int]) -> int:
            return max(seats, key=lambda s: (scores[s], -s))

        def best(seats: list[int]) -> int:
            return min(seats, key=lambda s: (scores[s], s))

        if kind == "mission_card":
            return options.index(R.FAIL) if self._should_fail(game, me) else 0
        if kind == "vote":
            return 0 if self._approve(game, me, scores) else 1
        if kind == "propose":
            return self._propose(game, me, scores, options)
        if kind == "plot_deal":
            # Resistance trusts the least suspicious; a spy deals to spies when he knows them.
            def rank(deal: tuple[tuple[str, int], ...]) -> Fraction:
                total = Fraction(0)
                for _, s in deal:
                    total += (-1000 if s in me.known_spies else scores[s]) if spy else scores[s]
                return total

            return min(range(len(options)), key=lambda i: (rank(options[i]), i))
        if kind == "overheard_target":
            return options.index(worst(list(options)))
        if kind == "open_up_viewer":
            if spy and me.known_spies:
                mates = [s for s in options if s in me.known_spies]
                if mates:
                    return options.index(mates[0])
            return options.index(best(list(options)))
        plays = list(options[1:])
        if kind in ("strong_leader", "no_confidence"):
            return 1 if self._play_card(game, me, scores, kind) else 0
        if kind in ("spotlight", "close_eye"):
            if spy:
                return 0
            return options.index(worst(plays))
        if kind == "take_responsibility":
            if spy:
                return 1 + below(self.entropy, len(plays)) if below(self.entropy, 3) == 0 else 0
            return options.index(max(plays, key=lambda p: (scores[p[0]], p[1])))
        return below(self.entropy, len(options))

    def _team_spies(self, game: Game, me: Knowledge, team: tuple[int, ...]) -> list[int]:
        return [s for s in team if me.is_known_spy(s)]

    def _should_fail(self, game: Game, me: Knowledge) -> bool:
        assert game.proposal is not None
        mission = game.proposal.mission
        need = R.fails_needed(game.n, mission)
        winning = game.failures == R.WINS_NEEDED - 1
        if me.known_spies:
            mates = sorted(
                s for s in game.team if s in me.known_spies and s not in game.spotlighted
            )
            if self.seat in game.spotlighted:
                return winning and len(mates) < need
            if self.seat not in mates[:need]:
                return False
        elif self.seat in game.spotlighted and not winning:
            return False
        if winning or need > 1:
            return True
        if game.round == 1 and len(game.team) == 2:
            return below(self.entropy, 2) == 0
        return True

    def _approve(self, game: Game, me: Knowledge, scores: tuple[Fraction, ...]) -> bool:
        assert game.proposal is not None
        team = game.proposal.team
        if me.spy:
            if game.vote_track == R.MAX_REJECTIONS - 1:
                return False
            if me.known_spies:
                return any(s in me.known_spies for s in team) or game.round == 1
            return self.seat in team or game.round == 1
        if game.vote_track == R.MAX_REJECTIONS - 1:
            return True
        if any(me.is_known_spy(s) for s in team):
            return False
        others = sorted(scores[s] for s in range(game.n) if s != self.seat)
        cutoff = others[len(team) - 1] if len(team) - 1 < len(others) else others[-1]
        members = [s for s in team if s != self.seat]
        if self.seat not in team and len(team) >= game.n // 2:
            return game.vote_track >= 2 and all(scores[s] <= cutoff for s in members)
        return all(scores[s] <= cutoff for s in members)

    def _propose(
        self, game: Game, me: Knowledge, scores: tuple[Fraction, ...], options: tuple[object, ...]
    ) -> int:
        missions = sorted({p.mission for p in options if isinstance(p, Proposal)})
        mission = game.round if game.round in missions else missions[0]
        if 5 in missions and game.successes >= 2:
            mission = 5 if me.spy else mission
        size = R.team_size(game.n, mission)
        others = [s for s in range(game.n) if s != self.seat]
        if me.spy:
            # one spy (himself) plus the seats that look most trustworthy
            pool = sorted(others, key=lambda s: (s in me.known_spies, scores[s], s))
        else:
            pool = sorted(others, key=lambda s: (scores[s], s))
        team = tuple(sorted([self.seat] + pool[: size - 1]))
        return options.index(Proposal(mission, team))

    def _play_card(
        self, game: Game, me: Knowledge, scores: tuple[Fraction, ...], kind: str
    ) -> bool:
        if kind == "strong_leader":
            if me.spy:
                return me.is_known_spy(game.leader) is not True
            return scores[game.leader] > scores[self.seat] + 1
        team = game.team
        if me.spy:
            return game.vote_track == R.MAX_REJECTIONS - 1 or not any(
                me.is_known_spy(s) for s in team
            )
        return any(me.is_known_spy(s) for s in team) or max(scores[s] for s in team) >= 3


def easy_bot(entropy: Entropy, seat: int) -> Agent:
    return EasyAgent(entropy, seat)


def suspects(game: Game) -> set[int]:
    """A beginner's suspects: the seats of failed missions that no successful mission has
    cleared since (whoever was on a successful mission is trusted)."""
    suspected: set[int] = set()
    for result in sorted((r for r in game.results if r is not None), key=lambda r: r.round):
        if result.failed:
            suspected |= set(result.team)
        else:
            suspected -= set(result.team)
    return suspected


class EasyAgent(SeatBot[SeatView]):
    """A beginner (see the module's docstring)."""

    reads = SeatView

    def decide(self, decision: Decision) -> int:
        view = self.view_of(decision)
        options = decision.options
        if len(options) == 1:
            return 0
        game, me = view.game, view.knowledge
        kind = decision.kind
        if kind == "mission_card":
            return options.index(R.FAIL) if me.spy else 0
        if kind == "vote":
            assert game.proposal is not None
            team = game.proposal.team
            mistrusted = suspects(game) - {self.seat}
            fine = self.seat in team or not mistrusted & set(team)
            return 0 if fine or game.vote_track == R.MAX_REJECTIONS - 1 else 1
        if kind == "propose":
            missions = sorted({p.mission for p in options if isinstance(p, Proposal)})
            mission = game.round if game.round in missions else missions[0]
            size = R.team_size(game.n, mission)
            order = list(R.priority_order(self.seat, game.n))
            mistrusted = set() if me.spy else suspects(game) - {self.seat}
            chosen = [s for s in order if s not in mistrusted][:size]
            chosen += [s for s in order if s not in chosen][: size - len(chosen)]
            return options.index(Proposal(mission, tuple(sorted(chosen))))
        if kind == "open_up_viewer":
            return options.index((self.seat + 1) % game.n)
        return 0  # pass every plot card window; the first deal; the left neighbour


BOTS = levels(random=random_bot, easy=easy_bot, normal=heuristic_bot, expert=expert_bot)

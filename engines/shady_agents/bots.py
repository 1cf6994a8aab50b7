"""Decision policies for Shady Agents: a random legal bot and a heuristic one per team.

Both answer ``Decision``s whose ``view`` is a ``SeatView`` (the public game and this seat's
knowledge); the options offered are already the legal ones, answers included (a Corrupt seat is
offered only lies, rules §5).

The heuristic bot keeps no hidden state: at each decision it recomputes, for every other seat,
the probability that it is a friend (``belief``). The prior is the team sizes; a seat's answers
move it by a likelihood ratio: over the kinds its answers depend on that this seat does not
know (taken as uniform), how likely are they from a Law-abiding seat (which must answer true)
and from a Corrupt one (which must lie)? An answer whose truth this seat can settle (it gave
or received the tool the card asks about) is proof. A tool received in round 2 is
weak evidence (its giver aimed it: a Medkit for a friend, a Bullet for an enemy); one received
in round 1 is not (it was mostly given blind).

Policy: information comes from answers this seat can judge, and it can judge mostly the seats
it gave a tool to. So the first player and the next two seats in round 1 (who know nothing yet)
give their Bullet at once, to a seat that has received nothing if they can (its answers are
then fully judgeable), and keep the Medkit for round 2, aimed at the likeliest friend; the
first player's free interrogation on turn 1 would find nobody eligible. Later seats make a Move
only when some seat is more likely a friend than not; otherwise they discard the Medkit to
interrogate (a Medkit given blind helps an enemy more often than a friend, a seat having fewer
friends than enemies), which makes the early givers' answers count, and keep the Bullet for
round 2, aimed at the likeliest enemy. A Law-abiding seat answers truly, at random among true
answers; a Corrupt one (offered only lies) gives the lie a table that knows none of its kinds
finds likeliest from a Law-abiding seat, together with its earlier answers.

``TeamAgent`` plays the heuristic for the seats of one team and the random bot for the other,
to measure one against the other (the figure is in the issue note and docs/rulings.md).
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import LAW_ABIDING, MEDKIT, TOOLS
from spycraft.engines.shady_agents.scoring import team_sizes
from spycraft.engines.shady_agents.view import Knowledge, SeatView

EARLY_MOVERS = 2  # round-1 positions after the first player's that Move their Bullet blind
FRESH_TARGET = 0.3  # preference for a blind Bullet to a seat that has received nothing yet
ROUND_TWO_SIGNAL = 2.0  # odds factor of a round-2 Medkit received (its inverse for a Bullet)


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def heuristic_bot(entropy: Entropy, seat: int) -> Agent:
    return HeuristicAgent(entropy, seat)


def belief(game: M.Game, me: Knowledge) -> tuple[float, ...]:
    """The probability that each seat is on ``me``'s team (1.0 for itself).

    Each seat's answers are weighed together: over every assignment of the kinds they depend on
    that ``me`` does not know (the seat's own gifts, receipts and discard, uniform, as a blind
    giver chooses), how likely are these answers from a Law-abiding seat (a uniform pick in T
    each time) and from a Corrupt one (a pick in O \\ T)? Their ratio moves the prior (the team
    sizes).
    """
    n = game.n
    if me.team is None:
        return tuple(0.5 for _ in range(n))
    law, corrupt = team_sizes(n, game.leftover)
    friends = (law if me.team == LAW_ABIDING else corrupt) - 1
    chances = [friends / max(1, n - 1)] * n
    for seat in range(n):
        said = [
            (asking, answer)
            for asking in game.interrogations
            for who, answer, _ in asking.answers
            if who == seat and asking.snapshot is not None
        ]
        if seat == me.seat or not said:
            continue
        as_law, as_corrupt = _likelihoods(said, me, seat)
        if as_law + as_corrupt == 0:
            continue
        ratio = (as_law + 1e-6) / (as_corrupt + 1e-6)
        odds = friends / max(1, n - 1 - friends) * (ratio if me.team == LAW_ABIDING else 1 / ratio)
        chances[seat] = odds / (1 + odds)
    # A round-2 gift is aimed (the giver has seen all of round 1): a Medkit says its giver takes
    # this seat for a friend, a Bullet for an enemy. Round-1 gifts are mostly blind: no weight.
    late = {g.seq for g in game.gifts if g.round == 2}
    for seat in range(n):
        if seat == me.seat:
            continue
        odds = chances[seat] / max(1e-9, 1 - chances[seat])
        for seq, giver, kind in me.received:
            if giver == seat and kind is not None and seq in late:
                odds *= ROUND_TWO_SIGNAL if kind == MEDKIT else 1 / ROUND_TWO_SIGNAL
        chances[seat] = odds / (1 + odds)
    chances[me.seat] = 1.0
    return tuple(chances)


def _likelihoods(
    said: list[tuple[M.Interrogation, cards.Answer]], me: Knowledge, seat: int
) -> tuple[float, float]:
    """P(these answers | Law-abiding), P(these answers | Corrupt), the unknown kinds of the
    answerer's own gifts, receipts and discard taken as uniform."""
    last = said[-1][0].snapshot
    assert last is not None
    known = me.known_snapshot(last)  # every earlier snapshot is a prefix of the last one
    open_gifts = [
        i for i, g in enumerate(known.gifts) if g.kind is None and seat in (g.giver, g.receiver)
    ]
    open_discards = [i for i, d in enumerate(known.discards) if d.kind is None and d.seat == seat]
    slots = len(open_gifts) + len(open_discards)
    as_law = as_corrupt = 0.0
    for bits in range(1 << slots):
        kinds = [TOOLS[(bits >> j) & 1] for j in range(slots)]
        gifts = list(known.gifts)
        for i, kind in zip(open_gifts, kinds):
            gifts[i] = replace(gifts[i], kind=kind)
        discards = list(known.discards)
        for i, kind in zip(open_discards, kinds[len(open_gifts):]):
            discards[i] = replace(discards[i], kind=kind)
        p_law = p_corrupt = 1.0
        for asking, answer in said:
            public = asking.snapshot
            assert public is not None
            snapshot = replace(
                public,
                gifts=tuple(gifts[: len(public.gifts)]),
                discards=tuple(discards[: len(public.discards)]),
            )
            truth = cards.true_set(asking.drawn, snapshot, seat)
            lies = [o for o in cards.options(asking.drawn, snapshot, seat) if o not in truth]
            p_law *= 1 / len(truth) if answer in truth else 0.0
            p_corrupt *= 1 / len(lies) if answer not in truth and lies else 0.0
        as_law += p_law
        as_corrupt += p_corrupt
    return as_law, as_corrupt


class HeuristicAgent:
    def __init__(self, entropy: Entropy, seat: int) -> None:
        self.entropy = entropy
        self.seat = seat

    def decide(self, decision: Decision) -> int:
        view = decision.view
        options = decision.options
        if not isinstance(view, SeatView) or len(options) == 1:
            return 0
        me = view.knowledge
        chance = belief(view.game, me)

        def friend(seat: int) -> float:
            return chance[seat] + below(self.entropy, 1000) / 1e6

        if decision.kind == "answer":
            if me.team == LAW_ABIDING:
                return below(self.entropy, len(options))
            return self._plausible_lie(view.game, options)
        if decision.kind == "round_two":
            if isinstance(options[0], tuple):
                scores = [friend(m) - friend(b) for b, m in options]
            else:
                kind = me.holding[0] if me.holding else MEDKIT
                sign = 1.0 if kind == MEDKIT else -1.0
                scores = [sign * friend(r) for r in options]
            return scores.index(max(scores))
        # Round one. The first player and the next EARLY_MOVERS seats give their Bullet now;
        # later, a seat makes a Move when some seat is more likely a friend than not (a Medkit
        # to it, or a Bullet to the likeliest enemy, whichever is surer); otherwise it discards
        # its Medkit (one given blind helps an enemy more often than a friend) and keeps its
        # Bullet for round 2.
        others = [s for s in range(view.game.n) if s != me.seat]
        best = max(chance[s] for s in others)
        position = (me.seat - view.game.first) % view.game.n
        if position <= EARLY_MOVERS and best <= 0.5:
            # Early in round 1 nothing is known yet: a Bullet given now is worth as much as one
            # given blind in round 2, and it makes its receiver judgeable by this seat in every
            # later interrogation, which aims the Medkit kept for round 2.
            got = {g.receiver for g in view.game.gifts}
            scores = [
                1 - friend(o[2]) + FRESH_TARGET * (o[2] not in got)
                if o[0] == "move" and o[1] != MEDKIT else -10.0
                for o in options
            ]
            return scores.index(max(scores))
        scores = []
        for option in options:
            if option[0] == "move":
                if best <= 0.5:
                    scores.append(-10.0)
                elif option[1] == MEDKIT:
                    scores.append(2 * friend(option[2]) - 1)
                else:
                    scores.append(1 - 2 * friend(option[2]))
            elif option[1] is None:
                scores.append(10.0)
            else:
                scores.append(0.0 if option[1] == MEDKIT else -1.0)
        return scores.index(max(scores))


    def _plausible_lie(self, game: M.Game, options: tuple[cards.Answer, ...]) -> int:
        """The lie a table that knows none of this seat's kinds finds likeliest from a
        Law-abiding seat, given every answer this seat has given (ties at random)."""
        asking = game.asking
        if asking is None or asking.snapshot is None:
            return below(self.entropy, len(options))
        said = [
            (earlier, answer)
            for earlier in game.interrogations[:-1]
            for who, answer, _ in earlier.answers
            if who == self.seat and earlier.snapshot is not None
        ]
        observer = Knowledge(seat=-1, team=None)
        scores = []
        for option in options:
            as_law, as_corrupt = _likelihoods(said + [(asking, option)], observer, self.seat)
            scores.append((as_law + 1e-6) / (as_corrupt + 1e-6) + below(self.entropy, 1000) / 1e9)
        return scores.index(max(scores))


BOTS = {"random": random_bot, "heuristic": heuristic_bot}


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

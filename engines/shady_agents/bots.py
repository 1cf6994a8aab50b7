"""Decision policies for Shady Agents: a random legal bot and a heuristic one per team.

Both answer ``Decision``s whose ``view`` is a ``SeatView`` (the public game and this seat's
knowledge); the options offered are already the legal ones, answers included (a Corrupt seat is
offered only lies, rules §5).

The heuristic bot keeps no hidden state: at each decision it recomputes a belief over teams from
what it can check. An answer whose true set depends only on kinds this seat knows (usually
because it gave the answerer the tool the card asks about) proves the answerer's team: a true
answer is Law-abiding, a false one Corrupt. A tool received is weak evidence (a Medkit from a
friend, a Bullet from an enemy). It aims its Bullet at the likeliest enemy and its Medkit at the
likeliest friend; it answers as the rules force (the options offered to a Corrupt seat are only
lies), picking among them at random so a lie looks like any answer.
"""

from __future__ import annotations

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision, RandomAgent
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import (
    BULLET,
    LAW_ABIDING,
    MEDKIT,
    HiddenKind,
)
from spycraft.engines.shady_agents.view import Knowledge, SeatView


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def heuristic_bot(entropy: Entropy, seat: int) -> Agent:
    return HeuristicAgent(entropy, seat)


def belief(game: M.Game, me: Knowledge) -> tuple[float, ...]:
    """How friendly each seat looks to ``me`` (+1 proven friend, -1 proven enemy)."""
    score = [0.0] * game.n
    if me.team is None:
        return tuple(score)
    for asking in game.interrogations:
        if asking.snapshot is None:
            continue
        for seat, said, _ in asking.answers:
            truth = _judge(asking, me, seat)
            if truth is None:
                continue
            honest = said in truth
            same = honest == (me.team == LAW_ABIDING)
            score[seat] += 1.0 if same else -1.0
    for _, giver, kind in me.received:
        # a gift received is weak evidence: a Medkit from a friend, a Bullet from an enemy
        if kind == MEDKIT:
            score[giver] += 0.3
        elif kind == BULLET:
            score[giver] -= 0.3
    score[me.seat] = 10.0
    return tuple(score)


def _judge(asking: M.Interrogation, me: Knowledge, seat: int) -> tuple[object, ...] | None:
    """The answerer's true set if every kind it depends on is one ``me`` knows, else None."""
    assert asking.snapshot is not None
    try:
        return cards.true_set(asking.drawn, me.known_snapshot(asking.snapshot), seat)
    except HiddenKind:
        return None


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
        trust = belief(view.game, me)
        lean = 0.1 if me.team == LAW_ABIDING else -0.1

        def friend(seat: int) -> float:
            return trust[seat] + lean + below(self.entropy, 1000) / 1e5

        if decision.kind == "answer":
            return below(self.entropy, len(options))
        if decision.kind == "round_two":
            if isinstance(options[0], tuple):
                scores = [-friend(b) + friend(m) for b, m in options]
            else:
                kind = me.holding[0] if me.holding else MEDKIT
                sign = 1.0 if kind == MEDKIT else -1.0
                scores = [sign * friend(r) for r in options]
            return scores.index(max(scores))
        # round one
        scores = []
        known = sum(1 for s in range(view.game.n) if s != me.seat and abs(trust[s]) >= 1.0)
        for option in options:
            if option[0] == "move":
                sign = 1.0 if option[1] == MEDKIT else -1.0
                value = sign * friend(option[2])
                if option[1] == BULLET and trust[option[2]] > -1.0:
                    value -= 0.5
                scores.append(value)
            elif option[1] is None:
                scores.append(0.05)  # the first player's free interrogation keeps both tools
            else:
                useful = me.received and known == 0
                scores.append((0.4 if useful else -1.0) + (0.1 if option[1] == BULLET else 0.0))
        return scores.index(max(scores))


BOTS = {"random": random_bot, "heuristic": heuristic_bot}

"""A scripted Shady Agents game on the engine's public model, with the kinds kept beside it.

The worked examples of rules §10 are written as scripts: ``Table`` applies each action through
``engines.shady_agents.model`` (the same functions the protocol calls), draws the named card by
its index in the sorted deck, and keeps the hidden kinds the final reveal would open, so a test
can call ``model.judge`` and ``scoring.score`` exactly as the protocol does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spycraft.engines.shady_agents import cards, scoring
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.cards import Answer
from spycraft.engines.shady_agents.components import (
    CORRUPT,
    LAW_ABIDING,
    Discard,
    Gift,
    Team,
    Tool,
)


def roles(players: int, law_abiding: set[int]) -> tuple[Team, ...]:
    return tuple(LAW_ABIDING if s in law_abiding else CORRUPT for s in range(players))


@dataclass
class Table:
    players: int
    first: int
    roles: tuple[Team, ...]
    leftover: Team | None = None
    game: M.Game = field(init=False)
    gift_kinds: list[Tool] = field(default_factory=list)
    discard_kinds: list[Tool] = field(default_factory=list)
    seq: int = 100

    def __post_init__(self) -> None:
        self.game = M.set_first(M.new_game(self.players, self.leftover), self.first)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def move(self, seat: int, receiver: int, kind: Tool) -> None:
        self.game = M.move(self.game, seat, receiver, self._next())
        self.gift_kinds.append(kind)

    def ask(self, seat: int, discard: Tool | None, card: str) -> tuple[int, ...]:
        """Call an interrogation and draw ``card``: the eligible answerers, in order."""
        self.game = M.interrogate(self.game, seat, discard is not None, self._next())
        if discard is not None:
            self.discard_kinds.append(discard)
        self.game = M.draw_card(self.game, sorted(self.game.remaining).index(card))
        return self.game.interrogations[-1].answerers

    def required(self, seat: int) -> tuple[Answer, ...]:
        """What the rules let ``seat`` answer now, judged with every kind known."""
        asking = self.game.asking
        assert asking is not None
        snapshot = M.full_snapshot(
            self.game, asking, tuple(self.gift_kinds), tuple(self.discard_kinds)
        )
        return cards.required_answers(asking.drawn, snapshot, seat, self.roles[seat])

    def answer(self, seat: int, said: Answer) -> int:
        seq = self._next()
        self.game = M.answer(self.game, seat, said, seq)
        return seq

    def give(self, seat: int, *gifts: tuple[int, Tool]) -> int:
        seq = self._next()
        self.game = M.give_all(self.game, seat, tuple(r for r, _ in gifts), seq)
        self.gift_kinds.extend(kind for _, kind in gifts)
        return seq

    def judge(self) -> tuple[M.Cheat, ...]:
        found, unjudged = M.judge(
            self.game, tuple(self.gift_kinds), tuple(self.discard_kinds), self.roles
        )
        assert not unjudged, "a scripted table opens everything: all of it is judged"
        return found

    def score(self) -> scoring.Score:
        gifts = tuple(
            Gift(g.giver, g.receiver, k) for g, k in zip(self.game.gifts, self.gift_kinds)
        )
        discards = tuple(
            Discard(d.seat, k) for d, k in zip(self.game.discards, self.discard_kinds)
        )
        facts = scoring.FinalFacts(self.players, self.roles, self.leftover, gifts, discards)
        return scoring.score(facts)

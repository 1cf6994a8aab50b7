"""A tiny game for testing the table on its own: matching pennies with commitments.

Each round both seats commit to a coin (seat 0 then seat 1), a beacon draw decides which seat
wins on a match, then both open. Two rounds; the seat with more points wins.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.commit import Commitment
from spycraft.crypto.errors import BadOpening, IllegalAction, MalformedRecord
from spycraft.crypto.hashing import uniform_from
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import Draw, Over, Result, Turn
from spycraft.engines.viewmodel import Event, Fact, Screen


@dataclass(frozen=True)
class Pennies:
    round: int = 1
    commits: tuple[bytes, ...] = ()
    drawn: int | None = None
    coins: tuple[int, ...] = ()
    points: tuple[int, int] = (0, 0)
    forfeited: tuple[int, ...] = ()


class PenniesRules:
    name = "pennies"
    seat_counts = (2,)
    sides = ("seat0", "seat1")

    def check_options(self, options: Any, seats: int) -> None:
        if options:
            raise ValueError("pennies has no options")

    def initial(self, genesis: Any) -> Pennies:
        return Pennies()

    def next(self, s: Pennies) -> Any:
        if s.forfeited:
            return Over(None)
        if s.round > 2:
            a, b = s.points
            return Over(Result(None if a == b else f"seat{0 if a > b else 1}", "points"))
        if len(s.commits) < 2:
            return Turn(len(s.commits), ("coin",))
        if s.drawn is None:
            return Draw("match")
        return Turn(len(s.coins), ("open",))

    def apply(self, s: Pennies, record: Any) -> Pennies:
        body = record.body
        if record.kind == "coin":
            if not isinstance(body, dict) or not isinstance(body.get("commit"), bytes):
                raise MalformedRecord(record.seat, record.seq, "coin needs a commit")
            return replace(s, commits=s.commits + (body["commit"],))
        coin, nonce = body.get("coin"), body.get("nonce")
        if coin not in (0, 1):
            raise IllegalAction(record.seat, record.seq, "a coin is 0 or 1")
        if not Commitment(s.commits[record.seat], "coin").opens_to(coin, nonce):
            raise BadOpening(record.seat, record.seq, "the coin does not open the commitment")
        coins = s.coins + (coin,)
        if len(coins) < 2:
            return replace(s, coins=coins)
        match = coins[0] == coins[1]
        winner = s.drawn if match else 1 - (s.drawn or 0)
        points = tuple(p + (1 if i == winner else 0) for i, p in enumerate(s.points))
        return Pennies(s.round + 1, points=(points[0], points[1]))

    def on_draw(self, s: Pennies, seed: bytes) -> Pennies:
        return replace(s, drawn=uniform_from(seed, 0, 2))

    def forfeit(self, s: Pennies, seat: int, seq: int, reason: str) -> Pennies:
        return replace(s, forfeited=s.forfeited + (seat,))

    def side_of(self, s: Pennies, seat: int) -> str:
        return f"seat{seat}"

    def seen_secret(self, s: Pennies, seat: int) -> None:
        return None

    def public_opponents(self, s: Pennies, seat: int) -> frozenset[int]:
        return frozenset()


class PenniesSeat:
    def __init__(self, context: Any) -> None:
        self.context = context

    def view(self, state: Pennies) -> Pennies:
        return state

    def build(self, state: Pennies, turn: Turn, agent: Any) -> tuple[str, Any]:
        key = f"coin/{state.round}"
        nonce = self.context.secret("coin", state.round)
        if turn.kinds == ("coin",):
            if key not in self.context.memo:
                d = Decision(
                    turn.seat, "coin", "heads or tails?", (0, 1), ("heads", "tails"), state
                )
                self.context.memo[key] = agent.decide(d)
            return "coin", {"commit": Commitment.to("coin", self.context.memo[key], nonce).digest}
        return "open", {"coin": self.context.memo[key], "nonce": nonce}


GAME = GameDefinition(
    name="pennies",
    title="Matching pennies",
    rules=PenniesRules(),
    seat=PenniesSeat,
    bots={"random": lambda entropy, seat: RandomAgent(entropy)},
    screen=lambda table, seat, view: Screen("Matching pennies", (Fact("State", repr(table.game)),)),
    story=lambda before, record, after: Event(record.seq, record.kind),
    hindsight=lambda states, seat: list(states),
)

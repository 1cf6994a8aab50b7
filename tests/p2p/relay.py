"""A tiny n-seat game for testing the peer protocol on its own: a relay race of numbers.

Seats take turns in seat order, ``laps`` times round the table, each writing a ``leg`` record
with a number from 0 to 3 that its agent picks. The highest total wins; a tie has no winner.
Nothing is hidden, so every rule of the session (not of a game) is what a test exercises.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.errors import IllegalAction, MalformedRecord
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import Over, Result, Turn


@dataclass(frozen=True)
class Race:
    seats: int
    laps: int
    legs: tuple[int, ...] = ()
    out: tuple[int, ...] = ()  # seats that forfeited

    def runner(self) -> int | None:
        """The seat whose leg comes next (skipping those who forfeited), or None at the end."""
        position = len(self.legs)
        while position < self.seats * self.laps:
            if position % self.seats not in self.out:
                return position % self.seats
            position += 1
        return None


class RelayRules:
    name = "relay"
    seat_counts = tuple(range(2, 11))
    sides = tuple(f"seat{i}" for i in range(10))

    def check_options(self, options: Any, seats: int) -> None:
        if set(options) - {"laps"}:
            raise ValueError("relay has one option, laps")

    def initial(self, genesis: Any) -> Race:
        return Race(len(genesis.seats), genesis.options.get("laps", 2))

    def next(self, s: Race) -> Any:
        seat = s.runner()
        if seat is not None and len(s.out) < s.seats - 1:
            return Turn(seat, ("leg",))
        totals = [0] * s.seats
        for position, value in enumerate(s.legs):
            totals[position % s.seats] += value
        standing = [i for i in range(s.seats) if i not in s.out]
        best = max(totals[i] for i in standing)
        leaders = [i for i in standing if totals[i] == best]
        winner = f"seat{leaders[0]}" if len(leaders) == 1 else None
        return Over(None if s.out else Result(winner, "points"))

    def apply(self, s: Race, record: Any) -> Race:
        body = record.body
        if not isinstance(body, dict) or set(body) != {"value"} or isinstance(body["value"], bool):
            raise MalformedRecord(record.seat, record.seq, "a leg is {value: 0..3}")
        if body["value"] not in (0, 1, 2, 3):
            raise IllegalAction(record.seat, record.seq, "a leg goes 0 to 3")
        legs = s.legs
        while len(legs) % s.seats != record.seat:  # the skipped legs of seats that forfeited
            legs += (0,)
        return replace(s, legs=legs + (body["value"],))

    def on_draw(self, s: Race, seed: bytes) -> Race:
        return s

    def forfeit(self, s: Race, seat: int, seq: int, reason: str) -> Race:
        return replace(s, out=s.out + (seat,))

    def side_of(self, s: Race, seat: int) -> str:
        return f"seat{seat}"

    def seen_secret(self, s: Race, seat: int) -> None:
        return None


class RelaySeat:
    def __init__(self, context: Any) -> None:
        self.context = context

    def build(self, state: Race, turn: Turn, agent: Any) -> tuple[str, Any]:
        key = f"leg/{len(state.legs)}"
        if key not in self.context.memo:
            decision = Decision(
                turn.seat, "leg", "how far?", (0, 1, 2, 3), ("0", "1", "2", "3"), state
            )
            self.context.memo[key] = agent.decide(decision)
        return "leg", {"value": self.context.memo[key]}


GAME = GameDefinition(
    name="relay",
    title="Relay race",
    rules=RelayRules(),
    seat=RelaySeat,
    bots={"random": lambda entropy, seat: RandomAgent(entropy)},
    options=lambda **kw: {},
    render=lambda state, seat: repr(state),
    narrate=lambda before, record, after: record.kind,
)

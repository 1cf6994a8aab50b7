"""A tiny n-seat game for testing the peer protocol on its own: a relay race of numbers.

Seats take turns in seat order, ``laps`` times round the table, each writing a ``leg`` record
with a number from 0 to 3 that its agent picks. The highest total wins; a tie has no winner.
With ``teams`` (four seats) seats 0+2 and 1+3 run as two public teams, as in SpyNet at four: each
team's total counts, and one team's votes against the other are only a claim.
Nothing is hidden, so every rule of the session (not of a game) is what a test exercises.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.errors import IllegalAction, MalformedRecord
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import Over, Result, Turn
from spycraft.engines.viewmodel import Event, Fact, Screen


@dataclass(frozen=True)
class Race:
    seats: int
    laps: int
    teams: bool = False
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
    sides = (*(f"seat{i}" for i in range(10)), "team 0+2", "team 1+3")

    def check_options(self, options: Any, seats: int) -> None:
        if set(options) - {"laps", "teams"}:
            raise ValueError("relay has two options, laps and teams")
        if options.get("teams") and seats != 4:
            raise ValueError("relay teams are for four seats")

    def initial(self, genesis: Any) -> Race:
        options = genesis.options  # laps may be text, as a table's ad carries its options
        return Race(len(genesis.seats), int(options.get("laps", 2)), bool(options.get("teams")))

    def next(self, s: Race) -> Any:
        seat = s.runner()
        if seat is not None and len(s.out) < s.seats - 1:
            return Turn(seat, ("leg",))
        totals = [0] * s.seats
        for position, value in enumerate(s.legs):
            totals[position % s.seats] += value
        if s.teams:
            totals = [totals[i] + totals[(i + 2) % 4] for i in range(4)]
        standing = [i for i in range(s.seats) if i not in s.out]
        best = max(totals[i] for i in standing)
        leaders = sorted({self.side_of(s, i) for i in standing if totals[i] == best})
        winner = leaders[0] if len(leaders) == 1 else None
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
        return ("team 0+2", "team 1+3")[seat % 2] if s.teams else f"seat{seat}"

    def public_opponents(self, s: Race, seat: int) -> frozenset[int]:
        return frozenset({(seat + 1) % 4, (seat + 3) % 4}) if s.teams else frozenset()

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
    screen=lambda table, seat, view: Screen("Relay race", (Fact("State", repr(table.game)),)),
    story=lambda before, record, after: Event(record.seq, record.kind),
    hindsight=lambda states, seat: list(states),
)

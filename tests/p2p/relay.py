"""A tiny n-seat game for testing the peer protocol on its own: a relay race of numbers.

Seats take turns in seat order, ``laps`` times round the table, each writing a ``leg`` record
with a number from 0 to 3 that its agent picks. The highest total wins; a tie has no winner.
With ``teams`` (four seats) seats 0+2 and 1+3 run as two public teams, as in SpyNet at four: each
team's total counts, and one team's votes against the other are only a claim.
Nothing is hidden, so every rule of the session (not of a game) is what a test exercises.

It is written on the kit like every game (``engines.game``: a ``Rules`` subclass, a
``GameSeat`` subclass, one ``Move`` for its one record kind, ``registry.declare``), with two
liberties a toy may take: its options are checked here (``laps`` is an integer, which the
command line's ``Option`` does not declare, and both options may be left out), and a leg's
value is any non-boolean in the body's schema, so that a leg of 7 (or of "x") is the writer's
illegal act rather than a malformed record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spycraft.crypto.errors import IllegalAction, MalformedValue
from spycraft.crypto.records import Genesis
from spycraft.engines.about import About
from spycraft.engines.agent import RandomAgent
from spycraft.engines.evolve import evolve
from spycraft.engines.game import Build, GameSeat, Move, Played, Rules, moves
from spycraft.engines.registry import declare
from spycraft.engines.schema import Body, Shape, body
from spycraft.engines.table import GameNeed, Over, Result, Turn
from spycraft.engines.viewmodel import Event, Fact, Screen

ABOUT = About(name="relay", title="Relay race", seat_counts=tuple(range(2, 11)))
PROMPTS = {"leg": "how far?"}


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


class Leg(Shape):
    """A leg's value as the schema sees it: anything but a boolean (the rules judge the rest)."""

    def check(self, value: object, seats: int, path: str) -> None:
        if isinstance(value, bool):
            raise MalformedValue(f"{path} must be a number, not {value!r}")

    def describe(self) -> str:
        return "a number"


class RelayRules(Rules[Race]):
    about = ABOUT
    sides = (*(f"seat{i}" for i in range(10)), "team 0+2", "team 1+3")

    def check_options(self, options: Any, seats: int) -> None:
        if set(options) - {"laps", "teams"}:
            raise ValueError("relay has two options, laps and teams")
        if options.get("teams") and seats != 4:
            raise ValueError("relay teams are for four seats")

    def seats_of(self, state: Race) -> int:
        return state.seats

    def initial(self, genesis: Genesis) -> Race:
        options = genesis.options  # laps may be text, as a table's ad carries its options
        return Race(len(genesis.seats), int(options.get("laps", 2)), bool(options.get("teams")))

    def next(self, s: Race) -> GameNeed:
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

    def on_draw(self, s: Race, seed: bytes) -> Race:
        return s

    def forfeit(self, s: Race, seat: int, seq: int, reason: str,
                held: tuple[int, ...] = (),
                confirm: tuple[int, ...] = ()) -> Race:  # nothing is left to open
        return evolve(s, out=s.out + (seat,))

    def side_of(self, s: Race, seat: int) -> str:
        return ("team 0+2", "team 1+3")[seat % 2] if s.teams else f"seat{seat}"

    def public_opponents(self, s: Race, seat: int) -> frozenset[int]:
        return frozenset({(seat + 1) % 4, (seat + 3) % 4}) if s.teams else frozenset()

    def seen_secret(self, s: Race, seat: int) -> None:
        return None


def apply_leg(s: Race, record: Played, body: Body) -> Race:
    if body["value"] not in (0, 1, 2, 3):
        raise IllegalAction(record.seat, record.seq, "a leg goes 0 to 3")
    legs = s.legs
    while len(legs) % s.seats != record.seat:  # the skipped legs of seats that forfeited
        legs += (0,)
    return evolve(s, legs=legs + (body["value"],))


class RelaySeat(GameSeat[Race, Race]):
    prompts = PROMPTS

    def view(self, state: Race) -> Race:
        return state  # nothing is hidden: the race is what a seat knows

    def build_leg(self, state: Race, b: Build) -> Body:
        return {"value": self.ask(state, b.agent, "leg", (0, 1, 2, 3))}


RULES = RelayRules(moves(Move("leg", body(value=Leg()), apply_leg, RelaySeat.build_leg, "leg")))
GAME = declare(
    ABOUT, RULES, RelaySeat,
    {"random": lambda entropy, seat: RandomAgent(entropy)},
    lambda table, seat, view: Screen("Relay race", (Fact("State", repr(table.game)),)),
    lambda before, record, after: Event(record.seq, record.kind),
    lambda states, seat: list(states),
)

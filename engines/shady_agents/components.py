"""Shady Agents' components and table conventions as data (rules/shady-agents.md §0-§1).

Theory of operation
-------------------
Everything the other modules of this game share lives here, in the rulebook's words: the two
teams (Law-abiding ``L`` and Corrupt ``C``), the two tools (Bullet ``B`` and Medkit ``M``), a
tool given (``Gift``: giver, receiver, kind) and a tool discarded to call an interrogation
(``Discard``), and the seat geometry of §0 (left and right neighbours, seat distance, the
position of a seat in round 1).

A kind may be ``None``: the tool is face down and whoever built the value does not know its
kind. The public view of the table holds only such gifts and discards; a seat knows the kinds it
gave, received and discarded; the final reveal knows them all. Code that needs a hidden kind
raises ``HiddenKind`` instead of guessing, so a public computation can never depend on one.

The codes are short strings because they go into CBOR records as they are; ``TEAM_NAMES`` and
``TOOL_NAMES`` give the rulebook's names for people.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Team = Literal["L", "C"]
Tool = Literal["B", "M"]

LAW_ABIDING: Team = "L"
CORRUPT: Team = "C"
TEAMS: tuple[Team, Team] = (LAW_ABIDING, CORRUPT)
TEAM_NAMES: tuple[tuple[Team, str], ...] = ((LAW_ABIDING, "Law-abiding"), (CORRUPT, "Corrupt"))

BULLET: Tool = "B"
MEDKIT: Tool = "M"
TOOLS: tuple[Tool, Tool] = (BULLET, MEDKIT)
TOOL_NAMES: tuple[tuple[Tool, str], ...] = ((BULLET, "Bullet"), (MEDKIT, "Medkit"))

MIN_PLAYERS = 4
MAX_PLAYERS = 10


class HiddenKind(LookupError):
    """A computation asked for the kind of a face-down tool that its input does not know."""


def other_team(team: Team) -> Team:
    return CORRUPT if team == LAW_ABIDING else LAW_ABIDING


def other_tool(tool: Tool) -> Tool:
    return MEDKIT if tool == BULLET else BULLET


def check_players(players: int) -> None:
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Shady Agents is played by 4 to 10 players, not {players!r}")


def left(players: int, seat: int) -> int:
    """The next seat clockwise (§0)."""
    return (seat + 1) % players


def right(players: int, seat: int) -> int:
    """The previous seat clockwise (§0)."""
    return (seat - 1) % players


def dist(players: int, a: int, b: int) -> int:
    """Seats between a and b the short way round the table (§0)."""
    return min((a - b) % players, (b - a) % players)


def turn(players: int, first: int, seat: int) -> int:
    """A seat's position in round 1, 0 for the first player (§3)."""
    return (seat - first) % players


def round_one_order(players: int, first: int) -> tuple[int, ...]:
    """f, f+1, ..., f+n-1 (§3)."""
    return tuple((first + j) % players for j in range(players))


def round_two_order(players: int, first: int) -> tuple[int, ...]:
    """f-1, f-2, ..., f: reverse order, ending with the first player (§4)."""
    return tuple((first - j) % players for j in range(1, players + 1))


@dataclass(frozen=True)
class Gift:
    """A Move or a round-2 gift: ``giver`` passed a tool face down to ``receiver``."""

    giver: int
    receiver: int
    kind: Tool | None

    def known(self) -> Tool:
        if self.kind is None:
            raise HiddenKind(f"the kind of the tool seat {self.giver} gave seat {self.receiver}")
        return self.kind


@dataclass(frozen=True)
class Discard:
    """``seat`` discarded a tool face down to call an interrogation (§3)."""

    seat: int
    kind: Tool | None

    def known(self) -> Tool:
        if self.kind is None:
            raise HiddenKind(f"the kind of the tool seat {self.seat} discarded")
        return self.kind

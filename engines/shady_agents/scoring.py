"""Shady Agents' role deck and end-of-game scoring as pure functions (rules §2, §7).

Theory of operation
-------------------
``role_deck(n)`` is the deck before the shuffle (§2 step 1): n/2 of each team for even n,
(n+1)/2 of each for odd n, Law-abiding cards first. For odd n the card left over after the deal
is revealed; its team is the **short team** (``short_team``), one player short and +1 at the end.
``team_sizes`` gives the table of §2.

At the end every role, gift and discard is open, and ``score`` takes exactly those facts
(``FinalFacts``): each player's value is Medkits received minus Bullets received, a team's score
is the sum over its members plus the short team's bonus, the higher score wins, a tie goes to the
team whose members received more Medkits, and a tie there too is a draw (§7.2-7.3).

``tool_accounting`` is the audit's count (§7.4): the seats that did not give or discard exactly
their one Bullet and one Medkit, or gave a tool to themselves. ``verdict`` puts cheating first:
a team with a cheater loses, and cheaters on both teams leave no winner (§7.4); only an honest
game goes by the score. Which seats cheated is the audit's business (``cards.audit_answer``,
``tool_accounting`` and the protocol's openings); this module only takes their teams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from spycraft.engines.shady_agents.components import (
    BULLET,
    CORRUPT,
    LAW_ABIDING,
    MEDKIT,
    TEAMS,
    Discard,
    Gift,
    Team,
    Tool,
    check_players,
    other_team,
)

Reason = Literal["score", "medkits", "draw", "cheating", "no winner"]


def role_deck(players: int) -> tuple[Team, ...]:
    """The role cards before the shuffle: two equal sets, one card more than players if odd."""
    check_players(players)
    each = (players + 1) // 2
    return (LAW_ABIDING,) * each + (CORRUPT,) * each


def needs_leftover(players: int) -> bool:
    """Odd player counts deal n+1 cards, and the one left over is revealed (§2 step 2)."""
    check_players(players)
    return players % 2 == 1


def short_team(players: int, leftover: Team | None) -> Team | None:
    """The team of the revealed leftover card, which has one player fewer (odd n only)."""
    if needs_leftover(players) != (leftover is not None):
        raise ValueError(f"{players} players deal {'a' if players % 2 else 'no'} leftover card")
    if leftover is not None and leftover not in TEAMS:
        raise ValueError(f"no team is called {leftover!r}")
    return leftover


def team_sizes(players: int, leftover: Team | None) -> tuple[int, int]:
    """(Law-abiding players, Corrupt players), the table of §2."""
    short = short_team(players, leftover)
    deck = role_deck(players)
    return (
        deck.count(LAW_ABIDING) - (short == LAW_ABIDING),
        deck.count(CORRUPT) - (short == CORRUPT),
    )


def bonus(players: int, leftover: Team | None, team: Team) -> int:
    """+1 for the short team when n is odd (§7.2)."""
    return 1 if short_team(players, leftover) == team else 0


@dataclass(frozen=True)
class FinalFacts:
    """Everything the final reveal opens: roles by seat, the leftover card, gifts and discards.

    ``gifts`` are all gifts of both rounds in the order they were made, every kind known.
    """

    players: int
    roles: tuple[Team, ...]
    leftover: Team | None
    gifts: tuple[Gift, ...]
    discards: tuple[Discard, ...]

    def __post_init__(self) -> None:
        sizes = team_sizes(self.players, self.leftover)
        if len(self.roles) != self.players or (
            (self.roles.count(LAW_ABIDING), self.roles.count(CORRUPT)) != sizes
        ):
            raise ValueError(f"roles {self.roles} are not a deal of {self.players} players")
        for gift in self.gifts:
            if not (0 <= gift.giver < self.players and 0 <= gift.receiver < self.players):
                raise ValueError(f"a gift between seats that are not at the table: {gift}")
            gift.known()
        for discard in self.discards:
            discard.known()


@dataclass(frozen=True)
class Score:
    """§7.2-7.3: each player's value, and per team (Law-abiding, Corrupt) score and Medkits."""

    values: tuple[int, ...]
    team_scores: tuple[int, int]
    medkits: tuple[int, int]
    winner: Team | None
    reason: Reason

    def team_score(self, team: Team) -> int:
        return self.team_scores[TEAMS.index(team)]

    def team_medkits(self, team: Team) -> int:
        return self.medkits[TEAMS.index(team)]


def received(facts: FinalFacts, seat: int, kind: Tool) -> int:
    return sum(1 for g in facts.gifts if g.receiver == seat and g.known() == kind)


def value(facts: FinalFacts, seat: int) -> int:
    """Medkits received minus Bullets received (§7.2)."""
    return received(facts, seat, MEDKIT) - received(facts, seat, BULLET)


def members(roles: Sequence[Team | None], team: Team) -> tuple[int, ...]:
    return tuple(seat for seat, role in enumerate(roles) if role == team)


def score(facts: FinalFacts) -> Score:
    values = tuple(value(facts, s) for s in range(facts.players))

    def team_score(team: Team) -> int:
        own = sum(values[s] for s in members(facts.roles, team))
        return own + bonus(facts.players, facts.leftover, team)

    def team_medkits(team: Team) -> int:
        return sum(received(facts, s, MEDKIT) for s in members(facts.roles, team))

    team_scores = (team_score(LAW_ABIDING), team_score(CORRUPT))
    medkits = (team_medkits(LAW_ABIDING), team_medkits(CORRUPT))
    winner, reason = _better(team_scores, "score")
    if winner is None:
        winner, reason = _better(medkits, "medkits")
    return Score(values, team_scores, medkits, winner, reason)


def _better(pair: tuple[int, int], reason: Reason) -> tuple[Team | None, Reason]:
    if pair[0] == pair[1]:
        return None, "draw"
    return (LAW_ABIDING if pair[0] > pair[1] else CORRUPT), reason


def tool_accounting(
    players: int, gifts: tuple[Gift, ...], discards: tuple[Discard, ...]
) -> tuple[int, ...]:
    """The seats whose gifts and discards are not exactly one Bullet and one Medkit, each gift
    to another player (§7.4), in seat order."""
    check_players(players)
    wrong: list[int] = []
    for seat in range(players):
        used = sorted(
            [g.known() for g in gifts if g.giver == seat]
            + [d.known() for d in discards if d.seat == seat]
        )
        to_self = any(g.giver == seat == g.receiver for g in gifts)
        if used != sorted((BULLET, MEDKIT)) or to_self:
            wrong.append(seat)
    return tuple(wrong)


@dataclass(frozen=True)
class Verdict:
    winner: Team | None
    reason: Reason


def verdict(result: Score, cheating_teams: tuple[Team, ...]) -> Verdict:
    """Cheating first (§7.4): a cheater's team loses; cheaters on both teams, no winner."""
    caught = sorted(set(cheating_teams))
    if len(caught) == 2:
        return Verdict(None, "no winner")
    if caught:
        return Verdict(other_team(caught[0]), "cheating")
    return Verdict(result.winner, result.reason)

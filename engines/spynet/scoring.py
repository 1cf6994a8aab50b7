"""SpyNet's seats and teams, power, dominance and the final score (rules/spynet.md §1, §3, §9).

Theory of operation
-------------------
A ``Board`` is a frozen picture of the cards in play at one moment: every seat's ``Tableau``
(four agent stacks and four mission piles, in ``BRANCHES`` order) and the situation in play, if
any. Nothing here knows about hands, piles, the deck or records; every function is a pure
function of a board, so the engine can ask "who dominates OPS now?" in the middle of a turn and
the final score at the end with the same code.

* ``agent_power`` is §3's power of one agent: printed power, the S01/S05 bonus and its attached
  funding (each counting 1 under S02). ``power(board, s, b)`` sums a stack.
* ``dominates`` is §3's strict test against ``opponents``; partners never count against each
  other. ``may_play_mission`` is §7.2's test, which S04 loosens to "no opponent higher".
* ``condition_holds`` evaluates a mission's §2.5 condition for its owner in the pile it lies in;
  ``score`` adds the stars that count, per seat and per team, and breaks a tie on the funding
  cards in the team's tableaux (§9.4). Conditions are read at the end of the game only, but
  they are functions of the board like the rest.

Seats and teams (§1): at four seats the partners sit opposite, {0, 2} and {1, 3}; at two or
three every seat is a team of one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache

from spycraft.engines.spynet.cards import (
    AUSTERITY,
    BRANCHES,
    COLD_STANDOFF,
    MERCENARY_MARKET,
    TECHNOLOGY_RACE,
    Branch,
    Condition,
    Kind,
    card,
)

PLAYER_COUNTS = (2, 3, 4)
GRAND_BRANCHES = 3
"""``grand``: the owner must dominate at least this many branches."""
DEEP_AGENTS = 3
FUNDS_CARDS = 2
CELL_MISSIONS = 2


# --- seats and teams (§1) --------------------------------------------------------------------


@cache
def teams(players: int) -> tuple[tuple[int, ...], ...]:
    """The teams, each a tuple of seats, in order of their lowest seat."""
    if players == 4:
        return ((0, 2), (1, 3))
    return tuple((seat,) for seat in range(players))


@cache
def team_of(seat: int, players: int) -> tuple[int, ...]:
    """The team ``seat`` plays in (itself alone at two or three seats)."""
    return next(team for team in teams(players) if seat in team)


@cache
def teammate(seat: int, players: int) -> int | None:
    """The partner sitting opposite at four seats; ``None`` at two or three."""
    partners = [other for other in team_of(seat, players) if other != seat]
    return partners[0] if partners else None


@cache
def opponents(seat: int, players: int) -> tuple[int, ...]:
    """Every seat of the other team(s), in seat order."""
    team = team_of(seat, players)
    return tuple(other for other in range(players) if other not in team)


# --- the cards in play ------------------------------------------------------------------------


@dataclass(frozen=True)
class StackedAgent:
    """An agent in a stack with its attached funding, in attachment order (§3, §7.1)."""

    card: str
    funding: tuple[str, ...] = ()


def _four_empty() -> tuple[tuple[StackedAgent, ...], ...]:
    return ((),) * len(BRANCHES)


def _four_empty_piles() -> tuple[tuple[str, ...], ...]:
    return ((),) * len(BRANCHES)


@dataclass(frozen=True)
class Tableau:
    """One seat's cards in play: ``stacks[i]`` and ``missions[i]`` belong to ``BRANCHES[i]``.

    Stacks and mission piles are ordered bottom to top; the last agent is the top agent.
    """

    stacks: tuple[tuple[StackedAgent, ...], ...] = field(default_factory=_four_empty)
    missions: tuple[tuple[str, ...], ...] = field(default_factory=_four_empty_piles)

    def stack(self, branch: Branch) -> tuple[StackedAgent, ...]:
        return self.stacks[BRANCHES.index(branch)]

    def mission_pile(self, branch: Branch) -> tuple[str, ...]:
        return self.missions[BRANCHES.index(branch)]

    def agents(self) -> Iterator[StackedAgent]:
        for stack in self.stacks:
            yield from stack

    def funding_cards(self) -> int:
        """Funding cards in this tableau, counted as cards (§9.4, ``funds``): S02 does not
        matter."""
        return sum(len(agent.funding) for agent in self.agents())


@dataclass(frozen=True)
class Board:
    """Every seat's tableau, in seat order, and the situation in play (``None`` for off)."""

    tableaux: tuple[Tableau, ...]
    situation: str | None = None

    @property
    def players(self) -> int:
        return len(self.tableaux)


# --- power and dominance (§3) ----------------------------------------------------------------


@lru_cache(maxsize=8192)
def agent_power(agent: StackedAgent, situation: str | None) -> int:
    """Printed power + situation bonus + attached funding (each counts 1 under S02)."""
    printed = card(agent.card)
    bonus = 0
    if situation == TECHNOLOGY_RACE and printed.branches == (Branch.TEC,):
        bonus = 1  # printed TEC only: a mercenary belongs to all four branches
    elif situation == MERCENARY_MARKET and printed.kind is Kind.MERCENARY:
        bonus = 1
    if situation == AUSTERITY:
        funding = len(agent.funding)
    else:
        funding = sum(card(f).value for f in agent.funding)
    return printed.power + bonus + funding


def power(board: Board, seat: int, branch: Branch) -> int:
    """``pw(s, b)``: the powers of the agents in ``seat``'s stack ``branch``; 0 when empty."""
    return stack_power(board.tableaux[seat].stack(branch), board.situation)


@lru_cache(maxsize=8192)
def stack_power(stack: tuple[StackedAgent, ...], situation: str | None) -> int:
    """The powers of the agents in ``stack`` (a stack is met again and again: the expert bot
    asks for dominance thousands of times a decision, on boards that differ in a stack or two)."""
    return sum(agent_power(agent, situation) for agent in stack)


def dominates(board: Board, seat: int, branch: Branch) -> bool:
    """``pw(s, b) > 0`` and above every opponent's (a teammate never counts against you)."""
    own = power(board, seat, branch)
    rivals = (power(board, o, branch) for o in opponents(seat, board.players))
    return own > 0 and all(own > rival for rival in rivals)


def dominators(board: Board, branch: Branch) -> tuple[int, ...]:
    """The seats that dominate ``branch``, in seat order."""
    return tuple(s for s in range(board.players) if dominates(board, s, branch))


def may_play_mission(board: Board, seat: int, branch: Branch) -> bool:
    """§7.2's dominance test; under S04 only "power > 0 and no opponent's is higher"."""
    if board.situation != COLD_STANDOFF:
        return dominates(board, seat, branch)
    own = power(board, seat, branch)
    rivals = (power(board, o, branch) for o in opponents(seat, board.players))
    return own > 0 and all(own >= rival for rival in rivals)


# --- missions and the final score (§2.5, §9) -------------------------------------------------


def condition_holds(board: Board, seat: int, branch: Branch, mission: str) -> bool:
    """Whether ``mission``, lying in ``seat``'s pile ``branch``, meets its condition (if any)."""
    printed = card(mission)
    tableau = board.tableaux[seat]
    match printed.condition:
        case None:
            return True
        case Condition.DOM:
            return dominates(board, seat, branch)
        case Condition.NET:
            return all(tableau.stack(b) for b in BRANCHES)
        case Condition.DEEP:
            return len(tableau.stack(branch)) >= DEEP_AGENTS
        case Condition.FUNDS:
            return tableau.funding_cards() >= FUNDS_CARDS
        case Condition.CELL:
            return len(tableau.mission_pile(branch)) >= CELL_MISSIONS
        case Condition.PAIR:
            return all(tableau.stack(b) for b in printed.branches)
        case Condition.GRAND:
            return sum(dominates(board, seat, b) for b in BRANCHES) >= GRAND_BRANCHES


@dataclass(frozen=True)
class MissionScore:
    """One mission at the final reveal: where it lies, whether its condition held, its points."""

    seat: int
    branch: Branch
    mission: str
    holds: bool
    points: int


@dataclass(frozen=True)
class Score:
    """§9's outcome. ``teams[i]`` scored ``points[i]`` and owns ``funding[i]`` funding cards.

    ``winners`` are the teams that share the win: the highest score, then the most funding
    cards among the tied teams; more than one only when both still tie.
    """

    missions: tuple[MissionScore, ...]
    seat_points: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    funding: tuple[int, ...]
    winners: tuple[tuple[int, ...], ...]


def mission_scores(board: Board) -> tuple[MissionScore, ...]:
    """Every mission in play, by seat, branch and pile order, with what it scores."""
    scored: list[MissionScore] = []
    for seat, tableau in enumerate(board.tableaux):
        for branch in BRANCHES:
            for mission in tableau.mission_pile(branch):
                holds = condition_holds(board, seat, branch, mission)
                points = card(mission).stars if holds else 0
                scored.append(MissionScore(seat, branch, mission, holds, points))
    return tuple(scored)


def misplaced_missions(board: Board) -> tuple[MissionScore, ...]:
    """Missions lying in a branch they do not belong to: fraud at the reveal (§9.2)."""
    return tuple(m for m in mission_scores(board) if not card(m.mission).belongs_to(m.branch))


def score(board: Board) -> Score:
    """Points per seat and team, the tie-break and the winners (§9.3, §9.4)."""
    missions = mission_scores(board)
    seat_points = tuple(
        sum(m.points for m in missions if m.seat == seat) for seat in range(board.players)
    )
    sides = teams(board.players)
    points = tuple(sum(seat_points[s] for s in team) for team in sides)
    funding = tuple(sum(board.tableaux[s].funding_cards() for s in team) for team in sides)
    best = max(points)
    tied = [i for i, p in enumerate(points) if p == best]
    most_funding = max(funding[i] for i in tied)
    winners = tuple(sides[i] for i in tied if funding[i] == most_funding)
    return Score(missions, seat_points, sides, points, funding, winners)

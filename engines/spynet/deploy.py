"""SpyNet's deploy arithmetic and special effects on a board (rules/spynet.md §7, §8, §13).

Theory of operation
-------------------
The pure rule math of a Deploy, with no hands, records or secrets:

* ``Counters`` are §7's per-turn agent plays: ``full`` plays may carry funding, ``bare`` plays
  may not. ``Counters().play(agent, funding)`` pays for one agent play (a bare play uses
  ``bare`` first) and then adds what the agent grants (A24 and A25: one full play, A28: two
  bare plays), or raises ``Illegal``.
* ``place_agent`` puts a played agent on top of a stack with its funding attached (§7.1).
* ``effect_uses`` lists §13's legal uses of a targeted special just played, in canonical order
  (discarded card, target seat, stack, depth, destination); ``decline`` is always legal besides.
  Thresholds use the full power of §3 at that moment, S08 widens "top agent" to any agent, and
  a teammate's agents are never targets.
* ``apply_effect`` carries out one use: the special discard goes to the discard pile first,
  then a removed agent and its funding in attachment order; a flipped agent keeps its funding
  and goes on top of the user's stack of its printed branch (a mercenary: the chosen branch).
  It returns the new board and the cards that reached the discard pile, in order.

The board is ``scoring.Board``; the engine keeps hands and the discard pile itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from spycraft.engines.errors import Illegal
from spycraft.engines.spynet.cards import (
    BRANCHES,
    DEEP_INFILTRATION,
    Branch,
    Card,
    Effect,
    Kind,
    Verb,
    card,
)
from spycraft.engines.spynet.scoring import (
    Board,
    StackedAgent,
    Tableau,
    agent_power,
    opponents,
)


@dataclass(frozen=True)
class Counters:
    """§7's agent plays left this turn: ``full`` may carry funding, ``bare`` may not."""

    full: int = 1
    bare: int = 0

    def play(self, agent: str, funding: Sequence[str] = ()) -> Counters:
        """Pay for playing ``agent`` with ``funding`` attached, then add what it grants."""
        if funding:
            if self.full <= 0:
                raise Illegal(f"no agent play that may carry funding is left for {agent}")
            paid = replace(self, full=self.full - 1)
        elif self.bare > 0:
            paid = replace(self, bare=self.bare - 1)
        elif self.full > 0:
            paid = replace(self, full=self.full - 1)
        else:
            raise Illegal(f"no agent play is left for {agent}")
        effect = card(agent).effect
        if effect is None:
            return paid
        return Counters(paid.full + effect.full, paid.bare + effect.bare)


def _agent_card(card_id: str) -> Card:
    printed = card(card_id)
    if not printed.is_agent:
        raise Illegal(f"{card_id} is not an agent")
    return printed


def _with_stack(tableau: Tableau, branch: Branch, stack: tuple[StackedAgent, ...]) -> Tableau:
    i = BRANCHES.index(branch)
    return replace(tableau, stacks=tableau.stacks[:i] + (stack,) + tableau.stacks[i + 1 :])


def _with_tableau(board: Board, seat: int, tableau: Tableau) -> Board:
    return replace(board, tableaux=board.tableaux[:seat] + (tableau,) + board.tableaux[seat + 1 :])


def place_agent(
    board: Board, seat: int, agent: str, branch: Branch, funding: Sequence[str] = ()
) -> Board:
    """§7.1: ``agent`` goes face up on top of ``seat``'s stack ``branch`` with ``funding``."""
    printed = _agent_card(agent)
    if not printed.belongs_to(branch):
        raise Illegal(f"{agent} cannot be played into {branch}")
    if len(set(funding)) != len(funding) or any(card(f).kind is not Kind.FUNDING for f in funding):
        raise Illegal(f"{agent} can carry only distinct funding cards, not {list(funding)}")
    tableau = board.tableaux[seat]
    stack = tableau.stack(branch) + (StackedAgent(agent, tuple(funding)),)
    return _with_tableau(board, seat, _with_stack(tableau, branch, stack))


@dataclass(frozen=True)
class Target:
    """An agent in a tableau: ``seat``'s stack ``branch``, ``depth`` from the bottom (0)."""

    seat: int
    branch: Branch
    depth: int


@dataclass(frozen=True)
class EffectUse:
    """One legal ``effect`` decision (§13): special discard (if any), target, flip destination."""

    target: Target
    discard: str | None = None
    destination: Branch | None = None


def _effect_of(special: str) -> Effect:
    effect = _agent_card(special).effect
    if effect is None or not effect.targeted:
        raise Illegal(f"{special} has no targeted effect")
    return effect


def _reachable(board: Board, seat: int, effect: Effect) -> tuple[Target, ...]:
    """Opposing agents the effect's stack and top-agent rules allow, thresholds aside."""
    deep = board.situation == DEEP_INFILTRATION
    targets: list[Target] = []
    for opponent in opponents(seat, board.players):
        for branch in BRANCHES if effect.stack is None else (effect.stack,):
            stack = board.tableaux[opponent].stack(branch)
            if not stack:
                continue
            depths = range(len(stack)) if deep else (len(stack) - 1,)
            targets.extend(Target(opponent, branch, depth) for depth in depths)
    return tuple(targets)


def _agent_at(board: Board, target: Target) -> StackedAgent:
    return board.tableaux[target.seat].stack(target.branch)[target.depth]


def _destinations(effect: Effect, agent: StackedAgent) -> tuple[Branch | None, ...]:
    if effect.verb is not Verb.FLIP:
        return (None,)
    return _agent_card(agent.card).branches


def effect_uses(
    board: Board, seat: int, special: str, hand: Sequence[str]
) -> tuple[EffectUse, ...]:
    """Every legal use of ``special``'s effect by ``seat``, who holds ``hand`` (§13)."""
    effect = _effect_of(special)
    if effect.special_discard:
        discards: tuple[str | None, ...] = tuple(sorted({c for c in hand if card(c).is_agent}))
    else:
        discards = (None,)
    uses: list[EffectUse] = []
    for discard in discards:
        if effect.threshold_from_discard and discard is not None:
            limit: int | None = card(discard).power
        else:
            limit = effect.max_power
        for target in _reachable(board, seat, effect):
            agent = _agent_at(board, target)
            if limit is not None and agent_power(agent, board.situation) > limit:
                continue
            uses.extend(
                EffectUse(target, discard, destination)
                for destination in _destinations(effect, agent)
            )
    return tuple(uses)


def apply_effect(
    board: Board, seat: int, special: str, hand: Sequence[str], use: EffectUse
) -> tuple[Board, tuple[str, ...]]:
    """Carry out ``use``; returns the board and the cards put on the discard pile, in order."""
    if use not in effect_uses(board, seat, special, hand):
        raise Illegal(f"{special} cannot be used that way: {use}")
    effect = _effect_of(special)
    target = use.target
    victim = board.tableaux[target.seat]
    stack = victim.stack(target.branch)
    agent = stack[target.depth]
    board = _with_tableau(
        board,
        target.seat,
        _with_stack(victim, target.branch, stack[: target.depth] + stack[target.depth + 1 :]),
    )
    discarded = () if use.discard is None else (use.discard,)
    if effect.verb is Verb.REMOVE:
        return board, discarded + (agent.card,) + agent.funding
    if use.destination is None:
        raise Illegal(f"a flip by {special} names the stack it goes to")
    own = board.tableaux[seat]
    flipped = _with_stack(own, use.destination, own.stack(use.destination) + (agent,))
    return _with_tableau(board, seat, flipped), discarded

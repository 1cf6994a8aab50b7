"""Builders for the tests: round-1 snapshots from the rules' notation, and random legal games."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from spycraft.engines.shady_agents.cards import Snapshot
from spycraft.engines.shady_agents.components import (
    TOOLS,
    Discard,
    Gift,
    Team,
    Tool,
    other_tool,
    round_one_order,
    round_two_order,
)
from spycraft.engines.shady_agents.scoring import role_deck


@dataclass(frozen=True)
class Move:
    """A Move, written "A→B: kind" in the rules."""

    kind: Tool
    to: int


@dataclass(frozen=True)
class Ask:
    """Call an Interrogation; ``discard`` is None for the first player's free one."""

    discard: Tool | None = None


Action = Move | Ask


def snapshot(players: int, first: int, actions: list[Action]) -> Snapshot:
    """Round 1 from seat ``first`` on, one action per seat; the last action is the draw's Ask."""
    assert actions and isinstance(actions[-1], Ask)
    order = round_one_order(players, first)
    gifts: list[Gift] = []
    discards: list[Discard] = []
    for seat, action in zip(order, actions, strict=False):
        if isinstance(action, Move):
            gifts.append(Gift(seat, action.to, action.kind))
        elif action.discard is not None:
            discards.append(Discard(seat, action.discard))
    return Snapshot(players, first, order[len(actions) - 1], tuple(gifts), tuple(discards))


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """Any legal round 1 up to some interrogation's draw."""
    players = draw(st.integers(4, 10))
    first = draw(st.integers(0, players - 1))
    caller_turn = draw(st.integers(0, players - 1))
    order = round_one_order(players, first)
    actions: list[Action] = []
    for j in range(caller_turn):
        seat = order[j]
        if seat == first and draw(st.booleans()):
            actions.append(Ask())
        elif seat != first and draw(st.integers(0, 3)) == 0:
            actions.append(Ask(draw(st.sampled_from(TOOLS))))
        else:
            to = draw(st.integers(0, players - 2))
            actions.append(Move(draw(st.sampled_from(TOOLS)), to + (to >= seat)))
    actions.append(Ask(None if order[caller_turn] == first else draw(st.sampled_from(TOOLS))))
    return snapshot(players, first, actions)


@dataclass(frozen=True)
class Game:
    """A whole legal game: roles, leftover, every gift of both rounds and every discard."""

    players: int
    first: int
    roles: tuple[Team, ...]
    leftover: Team | None
    gifts: tuple[Gift, ...]
    discards: tuple[Discard, ...]


@st.composite
def games(draw: st.DrawFn) -> Game:
    players = draw(st.integers(4, 10))
    first = draw(st.integers(0, players - 1))
    deck = list(draw(st.permutations(role_deck(players))))
    leftover = deck.pop() if players % 2 else None
    held = {seat: list(TOOLS) for seat in range(players)}
    gifts: list[Gift] = []
    discards: list[Discard] = []

    def someone_else(seat: int, besides: tuple[int, ...] = ()) -> int:
        return draw(st.sampled_from([s for s in range(players) if s != seat and s not in besides]))

    for seat in round_one_order(players, first):
        kind = draw(st.sampled_from(TOOLS))
        if draw(st.booleans()):
            gifts.append(Gift(seat, someone_else(seat), kind))
            held[seat].remove(kind)
        elif seat != first:
            discards.append(Discard(seat, kind))
            held[seat].remove(kind)
    for seat in round_two_order(players, first):
        taken: tuple[int, ...] = ()
        for kind in sorted(held[seat]):
            receiver = someone_else(seat, taken)
            gifts.append(Gift(seat, receiver, kind))
            taken += (receiver,)
        assert len(held[seat]) == 1 or other_tool(held[seat][0]) == held[seat][1]
    return Game(players, first, tuple(deck), leftover, tuple(gifts), tuple(discards))


def every_snapshot(players: int, first: int) -> list[Snapshot]:
    """Every legal round 1 up to some interrogation's draw, every kind included."""
    order = round_one_order(players, first)
    found: list[Snapshot] = []

    def choices(seat: int) -> list[Action]:
        moves: list[Action] = [Move(k, to) for k in TOOLS for to in range(players) if to != seat]
        asks: list[Action] = [Ask()] if seat == first else [Ask(k) for k in TOOLS]
        return moves + asks

    def extend(actions: list[Action]) -> None:
        seat = order[len(actions)]
        for action in choices(seat):
            if isinstance(action, Ask):
                found.append(snapshot(players, first, [*actions, action]))
            if len(actions) + 1 < players:
                extend([*actions, action])

    extend([])
    return found

"""What one seat knows of Shady Agents: live during the game, and in hindsight after it.

``Knowledge`` is everything a seat knows privately (rules §8): its team, the kinds of the tools
it gave, received and discarded, and the kinds it still holds. The seat builds it from its
secrets (``seat``); after the game, ``hindsight`` rebuilds it from the opened transcript for
``replay --as``. The screen (``screen``) shows it; what one record did is told by
``screen.story``, never a kind before the final reveal opened it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spycraft.engines.game import SETUP
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.cards import Snapshot
from spycraft.engines.shady_agents.components import (
    TOOL_NAMES,
    TOOLS,
    Discard,
    Gift,
    Team,
    Tool,
)
from spycraft.engines.shady_agents.rules import State

TOOL = dict(TOOL_NAMES)


@dataclass(frozen=True)
class Knowledge:
    seat: int
    team: Team | None  # None until the deal lets this seat read its card
    given: tuple[tuple[int, int, Tool], ...] = ()  # (seq, receiver, kind) this seat gave
    received: tuple[tuple[int, int, Tool | None], ...] = ()  # (seq, giver, kind) given to it
    discarded: Tool | None = None

    @property
    def holding(self) -> tuple[Tool, ...]:
        used = [kind for _, _, kind in self.given]
        if self.discarded is not None:
            used.append(self.discarded)
        return tuple(t for t in TOOLS if t not in used)

    def known_snapshot(self, public: Snapshot) -> Snapshot:
        """An interrogation's public snapshot with the kinds this seat knows filled in.

        Snapshots are of round 1, where a seat gives at most once: its earliest gift, and the
        earliest tool from each giver, are the round-1 ones.
        """
        gave = self.given[0][2] if self.given else None
        got: dict[int, Tool | None] = {}
        for _, giver, kind in self.received:
            got.setdefault(giver, kind)
        gifts = tuple(
            Gift(
                g.giver,
                g.receiver,
                gave if g.giver == self.seat else got.get(g.giver) if g.receiver == self.seat
                else None,
            )
            for g in public.gifts
        )
        discards = tuple(
            Discard(d.seat, self.discarded if d.seat == self.seat else None)
            for d in public.discards
        )
        return Snapshot(public.players, public.first, public.caller, gifts, discards)


@dataclass(frozen=True)
class SeatView:
    """What a decision shows its agent: the public game and this seat's private knowledge."""

    game: M.Game
    knowledge: Knowledge


def hindsight(states: Sequence[State], seat: int) -> list[SeatView | None]:
    """What ``seat`` knew at each state, from the opened transcript (None where it knew
    nothing of its own yet, or the transcript did not open enough to tell)."""
    final = states[-1]
    opened = tuple(kind for kind in final.gift_kinds if kind is not None)
    if not final.roles or None in final.roles or len(opened) < len(final.gift_kinds):
        return [None] * len(states)
    views: list[SeatView | None] = []
    for state in states:
        if state.act == SETUP and not state.deal.reads_role(seat):
            views.append(None)
            continue
        game: M.Game = state.game
        given = tuple(
            (g.seq, g.receiver, opened[i])
            for i, g in enumerate(game.gifts)
            if g.giver == seat
        )
        received = tuple(
            (g.seq, g.giver, opened[i])
            for i, g in enumerate(game.gifts)
            if g.receiver == seat
        )
        discarded = next(
            (final.discard_kinds[i] for i, d in enumerate(game.discards) if d.seat == seat), None
        )
        views.append(SeatView(game, Knowledge(seat, final.roles[seat], given, received, discarded)))
    return views

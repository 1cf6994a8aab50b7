"""What one SpyNet seat knows: its ``SeatView``, live during the game and in hindsight after it.

Theory of operation
-------------------
A seat's private knowledge is the face of every card the deck revealed to it or to everyone
(``deck_ops.DeckOps.knows``, which follows the visibility table of rules §12): its hand (the
draft cards it received, what it drew, the piles it took, a card its teammate passed it), the
pile cards it has looked at since they arrived, its own face-down missions, and the draft cards
it holds; bots, the seat's labels and the screen (``screen``) read it. ``seat_view`` builds the
``SeatView`` from the public state and a function that gives the face of a position the seat
knows (``None`` where it does not), so the live view and the view in hindsight are one picture:

* live, the seat's ``face`` reads a card with its own key share (``DeckHand.peek``);
* in hindsight (``spycraft replay --as SEAT``), a finished game's transcript holds every key
  share and the engine opened every card (``State.faces``); the seat knew a card at record t
  exactly when the deck had revealed it to the seat (or publicly) by then. A game that ended
  before every seat opened its share (a forfeit) cannot be read: hindsight then gives the
  public states.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.cards import BRANCHES, Branch
from spycraft.engines.spynet.rules import State


@dataclass(frozen=True)
class SeatView:
    state: Any  # the rules' State; the rules model's Table in simulation and expert rollouts
    seat: int
    hand: tuple[tuple[int, str], ...]  # (position, face)
    piles: tuple[tuple[str | None, ...], ...]  # per pile, the faces this seat has seen
    missions: tuple[tuple[Branch, str], ...]  # own face-down missions
    draft: tuple[tuple[int, str], ...]

    @property
    def game(self) -> M.Game | None:
        game: M.Game | None = self.state.game
        return game

    def face_of(self, position: int) -> str:
        return next((f for p, f in self.hand + self.draft if p == position), "?")


Face = Callable[[int], str | None]


def seat_view(state: State, seat: int, face: Face) -> SeatView:
    """``seat``'s view of ``state``; ``face(position)`` is a card's face if the seat knows it."""
    game = state.game
    if game is None:
        return SeatView(state, seat, (), ((), (), ()), (), ())
    hand = tuple((p, face(p) or "?") for p in game.hands[seat])
    piles = tuple(tuple(face(p) for p in pile) for pile in game.piles)
    missions = tuple(
        (b, face(m.position) or "?")
        for b, pile in zip(BRANCHES, game.missions[seat])
        for m in pile
    )
    draft = tuple((p, face(p) or "?") for p in game.draft)
    return SeatView(state, seat, hand, piles, missions, draft)


def hindsight(states: Sequence[State], seat: int) -> list[SeatView] | list[State]:
    """What ``seat`` knew at each of a finished game's states (one view per state); the
    public states themselves where the final reveal opened no card, since nobody's
    knowledge can be read then."""
    faces = states[-1].faces
    if not faces:
        return list(states)

    def view(state: State) -> SeatView:
        ops = state.ops
        return seat_view(state, seat, lambda p: faces[p] if ops.knows(seat, p) else None)

    return [view(state) for state in states]

"""What one seat knows of The Resistance: live during the game, and in hindsight after it.

``Knowledge`` is everything a seat knows privately (its role, the spies if it is one and the
game is not Blind Spies, what its looks showed, its own mission cards). The seat builds it from
its secrets; bots and the screen (``screen``) read it through ``SeatView``.

In hindsight (``spycraft replay --as SEAT``) the seat's secrets are gone, but a transcript
after the final reveal holds every key share, so each role and each mission card can be read
(``mission_cards``); the seat's knowledge at record t is then what the rules let it know by
then: its own role (and the spies, for a recognised spy), the roles and cards its plot looks
showed it, and its own mission cards (``hindsight``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spycraft.crypto import elgamal, recognition
from spycraft.crypto.group import scalar_sum
from spycraft.engines.resistance.model import Game
from spycraft.engines.resistance.rules import MISSION_FACES, State


@dataclass(frozen=True)
class Knowledge:
    seat: int
    spy: bool
    known_spies: tuple[int, ...] = ()  # every spy seat, for a recognised spy (self included)
    seen_roles: tuple[tuple[int, bool], ...] = ()  # (seat, is spy) from plot looks
    seen_cards: tuple[tuple[int, int, str], ...] = ()  # (round, seat, card) from Close Eye
    own_cards: tuple[tuple[int, str], ...] = ()  # (round, card) this seat played

    def is_known_spy(self, seat: int) -> bool | None:
        """True/False when this seat knows ``seat``'s role, None when it does not."""
        if seat == self.seat:
            return self.spy
        if self.known_spies:
            return seat in self.known_spies
        for subject, spy in self.seen_roles:
            if subject == seat:
                return spy
        return None


@dataclass(frozen=True)
class SeatView:
    """What a decision shows its agent: the public game and this seat's private knowledge."""

    game: Game
    knowledge: Knowledge


def mission_cards(final: State) -> dict[tuple[int, int], str] | None:
    """Every mission card of the game by (round, seat), once the final reveal opened every key
    share (None before, or when a seat that forfeited kept its share closed)."""
    if len(final.roles) != final.n or any(s is None for s in final.secrets):
        return None
    key = scalar_sum(s for s in final.secrets if s is not None)
    return {
        (p.round, p.seat): MISSION_FACES.label_of(elgamal.decrypt_with_secret(p.ciphertext, key))
        for p in final.played
    }


def hindsight(states: Sequence[State], seat: int) -> list[SeatView | None]:
    """One view per state; None where the seat knew nothing of its own yet (its role is not
    dealt) or the final reveal did not open enough to tell."""
    final = states[-1]
    cards = mission_cards(final)
    if cards is None:
        return [None] * len(states)
    spies = tuple(i for i, role in enumerate(final.roles) if role == recognition.SPY)
    spy = seat in spies
    views: list[SeatView | None] = []
    for state in states:
        if state.stage in ("keys", "recognition", "shuffle", "deal"):
            views.append(None)
            continue
        recognised = spy and not state.game.blind_spies and len(state.tags) == state.n
        seen_roles = tuple(
            (look.subject, look.subject in spies)
            for look in state.game.looks
            if look.viewer == seat and look.what == "role"
        )
        seen_cards = tuple(
            (look.round, look.subject, cards.get((look.round, look.subject), "?"))
            for look in state.game.looks
            if look.viewer == seat and look.what == "mission_card"
        )
        own = tuple((p.round, cards[(p.round, p.seat)]) for p in state.played if p.seat == seat)
        knowledge = Knowledge(seat, spy, spies if recognised else (), seen_roles, seen_cards, own)
        views.append(SeatView(state.game, knowledge))
    return views

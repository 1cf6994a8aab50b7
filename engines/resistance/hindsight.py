"""What one seat knew at each point of a finished game, rebuilt from its transcript alone.

``spycraft replay --as SEAT`` needs the seat's private knowledge at every record, but a
transcript holds no seat's secrets. After the final reveal it holds every key share, so each
role and each mission card can be read; the seat's knowledge at record t is then what the rules
let it know by then: its own role (and the spies, for a recognised spy), the roles and cards its
plot looks showed it, and its own mission cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spycraft.crypto import elgamal, recognition
from spycraft.crypto.group import scalar_sum
from spycraft.engines.resistance.protocol import MISSION_FACES, State
from spycraft.engines.resistance.view import Knowledge, SeatView


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


def hindsight(states: Sequence[State], seat: int) -> list[Any]:
    """One view per state; the bare game where the final reveal did not open enough."""
    final = states[-1]
    cards = mission_cards(final)
    if cards is None:
        return [state.game for state in states]
    spies = tuple(i for i, role in enumerate(final.roles) if role == recognition.SPY)
    spy = seat in spies
    views: list[Any] = []
    for state in states:
        if state.stage in ("keys", "recognition", "shuffle", "deal"):
            views.append(state.game)
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

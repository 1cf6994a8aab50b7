"""``replay --as SEAT``: what a seat knew at each record, rebuilt after the game from the final
reveal, is exactly the view the seat had while it played (``view.hindsight``)."""

from __future__ import annotations

from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.local import new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.rules import TIE_BREAK
from spycraft.engines.spynet.view import SeatView, hindsight
from spycraft.engines.table import SHARED

PLAYERS = 4


def picture(view: SeatView) -> tuple[Any, ...]:
    return (view.seat, view.hand, view.piles, view.missions, view.draft)


def test_hindsight_at_every_record_is_the_view_each_seat_had_during_the_game() -> None:
    entropy = SeededEntropy(7)
    local = new_local_table(GAME, {"situation": "off"}, PLAYERS, entropy)
    agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(PLAYERS)]
    states = [local.state.game]
    live: list[list[tuple[Any, ...]]] = [[picture(s.game.view(states[0]))] for s in local.seats]
    kinds: list[str] = []

    def seen(signed: Any, state: Any) -> None:
        states.append(state.game)
        kinds.append(signed.record.kind)
        for seat in local.seats:
            live[seat.index].append(picture(seat.game.view(state.game)))

    final = local.run(agents, on_record=seen)
    assert final.result is not None and final.result.reason in ("score", TIE_BREAK, SHARED)
    assert {"pass_card", "play_mission", "pile"} <= set(kinds), "a game without what we test"
    first_reveal = kinds.index("reveal") + 1
    for seat in range(PLAYERS):
        views = hindsight(states, seat)
        assert len(views) == len(states)
        assert all(v.state is s for v, s in zip(views, states))
        assert [picture(v) for v in views] == live[seat]
        # before the reveal, the seat reads every card of its hand and of its own missions
        before = views[first_reveal - 1]
        assert before.hand and all(face != "?" for _, face in before.hand + before.missions)
        private = GAME.screen(final, seat, views[-1]).private
        assert any(fact.label == "Your hand" for fact in private)
        # a game whose cards were never opened (it stopped before the final reveal): the
        # public states, since nobody's knowledge can be read
        unopened = states[:first_reveal]
        assert not unopened[-1].faces and hindsight(unopened, seat) == unopened


"""One sentence per event (issue 20, item 3): the lobby's and the session's events are typed
(``p2p.events``), each that a person reads says itself, and line mode and the full-screen table
both show that sentence (they used to write each one twice, and told a cheat two ways)."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.run import LanFeed
from spycraft.cli.lan import Narrator
from spycraft.engines import registry
from spycraft.p2p import events

SAID = [
    events.SeatTaken("ada\x1b[2J", "K7QF-2MZD"),
    events.SeatFreed("bea", "X2AB-CCDD"),
    events.Seating(3, 5),
    events.Cheated("equivocation", "seat 2 signed two different records for record 9"),
    events.Muted(1, "talks too fast"),
    events.LinkClosed("seat 1 (bea)", "a record that does not check"),
    events.Stuck("seat 0's tokens do not open"),
    events.DeclaredAbsent("you were declared absent at record 10"),
    events.Alone("no seat of this table has been linked for 18 s"),
    events.Unconfirmed("the game ended at record 40 on a claim that seat 1 (bea) was absent"),
    events.Waiting("the game is over, but a claim declared seat 1 absent"),
]


@pytest.mark.parametrize("event", SAID, ids=lambda e: type(e).__name__)
def test_line_mode_and_the_table_show_the_same_sentence(event: Any,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    definition = registry.load("resistance")
    Narrator(definition)(event)
    printed = " ".join(capsys.readouterr().out.split())
    bridge = Bridge()
    LanFeed(bridge, definition)(event)
    shown = [e.text for e in bridge._events] + list(bridge._chat)
    assert "\x1b" not in event.text  # what a peer wrote is printable before anyone shows it
    if isinstance(event, events.LinkClosed):
        assert shown == [event.text]  # a spectator's line mode prints it (cli.watch)
        return
    assert event.text in printed
    assert any(event.text in line for line in shown), shown
    assert [e.tone for e in bridge._events] == ([] if isinstance(event, events.Muted) else
                                                ["bad" if event.bad else "muted"])

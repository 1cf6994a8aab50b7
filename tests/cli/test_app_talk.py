"""Table talk in the full-screen table, read from the drawn screen: ``/say TEXT`` at the
decision line says it as line mode does (and leaves the decision open), a spectator sees the
seats' lines without a line to type in, and a SpyNet seat is told in words that talk is off."""

from __future__ import annotations

import threading

from prompt_toolkit.input import create_pipe_input

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.run import talk_panel
from spycraft.cli.app.table import TableApp
from spycraft.engines import registry
from spycraft.engines.agent import Decision
from tests.cli.screen import Terminal, wait_for_screen

CARDS = Decision(0, "guess", "Which rank do you name?", (1, 2), ("rank 1", "rank 2"), None)


def running(bridge: Bridge, pipe) -> tuple[TableApp, threading.Thread]:
    app = TableApp(bridge, "spies-and-lies", pipe, Terminal())
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    return app, thread


def asking(bridge: Bridge) -> tuple[list[int], threading.Thread]:
    chosen: list[int] = []
    thread = threading.Thread(target=lambda: chosen.append(bridge.ask(CARDS)), daemon=True)
    thread.start()
    return chosen, thread


def test_say_at_the_decision_line_talks_to_the_table_and_the_decision_stays_open():
    bridge = Bridge(0, ("ada", "bob"))
    said: list[str] = []
    bridge.talk = talk_panel(registry.load("spies-and-lies"), 0)
    bridge.say = lambda text: said.append(text) or bridge.chat(f"ada (seat 0): {text}")
    with create_pipe_input() as pipe:
        app, thread = running(bridge, pipe)
        chosen, asked = asking(bridge)
        wait_for_screen(app, lambda s: "rank 2" in s and "/say TEXT and Enter" in s)
        pipe.send_text("/say is it you?")  # a "?" in the words opens no help
        wait_for_screen(app, lambda s: "Enter says it to the table" in s)
        assert not app.help_open
        pipe.send_text("\r")
        screen = wait_for_screen(app, lambda s: "ada (seat 0): is it you?" in s)
        assert said == ["is it you?"] and not chosen and bridge.view().decision is CARDS
        assert "no option matches" not in screen
        pipe.send_text("/say\r")  # a bare /say explains itself, as in line mode
        wait_for_screen(app, lambda s: "/say TEXT says TEXT to the table" in s)
        pipe.send_text("rank 2\r")
        asked.join(5)
        assert chosen == [1]
        app.stop()
        thread.join(5)


def test_a_spectator_sees_the_seats_talk_and_has_no_line_to_type_in():
    bridge = Bridge(None, ("ada", "bob"))
    bridge.talk = talk_panel(registry.load("spies-and-lies"), None)
    with create_pipe_input() as pipe:
        app, thread = running(bridge, pipe)
        app.watching = True
        wait_for_screen(app, lambda s: "without a seat you listen" in s)
        bridge.chat("bob (seat 1): good luck")
        screen = wait_for_screen(app, lambda s: "bob (seat 1): good luck" in s)
        assert "say:" not in screen
        app.stop()
        thread.join(5)


def test_a_spynet_seat_is_told_that_talk_is_off_while_the_game_runs():
    bridge = Bridge(0, ("ada", "bob"))
    bridge.talk = talk_panel(registry.load("spynet"), 0)  # and no say: the feed offers none
    with create_pipe_input() as pipe:
        app, thread = running(bridge, pipe)
        chosen, asked = asking(bridge)
        screen = wait_for_screen(app, lambda s: "Table talk is off in this game" in s)
        assert "say:" not in screen
        pipe.send_text("/say psst\r")
        wait_for_screen(app, lambda s: "not said: Table talk is off in this game" in s)
        assert not chosen
        pipe.send_text("\r")
        asked.join(5)
        assert chosen == [0]
        app.stop()
        thread.join(5)

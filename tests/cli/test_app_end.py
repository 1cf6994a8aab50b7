"""The final screen of the full-screen table, read from the drawn screen: it shows the end and
nothing left over from the game (issue 19.7)."""

from __future__ import annotations

import threading

from prompt_toolkit.input import create_pipe_input

from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.table import TableApp
from tests.cli.screen import Terminal, wait_for_screen


def test_the_end_panel_shows_only_the_end_not_the_last_typed_filter():
    bridge = Bridge(0, ("ada", "bob"))
    with create_pipe_input() as pipe:
        app = TableApp(bridge, "spies-and-lies", pipe, Terminal())
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        wait_for_screen(app, lambda s: "waiting" in s)
        pipe.send_text("mission 2 zzz")
        wait_for_screen(app, lambda s: "mission 2 zzz" in s)
        bridge.finish(("result: you won, playing Red: Red won (flag captured)",
                       "audit: VALID (spies-and-lies: 57 records after genesis)"))
        screen = wait_for_screen(app, lambda s: "Enter or q: close the table" in s)
        assert "result: you won" in screen
        assert "mission 2 zzz" not in screen
        pipe.send_text("q")
        thread.join(5)
        assert not thread.is_alive()

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


def test_play_again_on_the_final_screen_opens_a_new_offline_game_with_the_same_options(
        tmp_path, monkeypatch):
    import time

    from spycraft.cli import local_play
    from spycraft.cli.main import build_parser
    from spycraft.crypto.transcript import Transcript

    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path))
    apps: list[TableApp] = []
    real = TableApp.__init__

    def remember(self, *args, **kwargs):
        real(self, *args, **kwargs)
        apps.append(self)

    monkeypatch.setattr(TableApp, "__init__", remember)
    args = build_parser().parse_args(["play", "resistance", "--offline", "--name", "ada",
                                      "--players", "5", "--targeting"])
    ends: list[str] = []
    with create_pipe_input() as pipe:
        def person() -> None:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and len(ends) < 2:
                if not apps:
                    time.sleep(0.01)
                    continue
                app, view = apps[-1], apps[-1].bridge.view()
                if view.closing is not None and len(ends) < len(apps):
                    screen = wait_for_screen(app, lambda s: "a: play again" in s)
                    ends.append(screen)
                    pipe.send_text("a" if len(ends) == 1 else "q")
                elif view.decision is not None:
                    pipe.send_text("\r")
                time.sleep(0.01)

        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        assert local_play.play(args, terminal=(pipe, Terminal())) == 0
        thread.join(5)
    assert len(apps) == 2 and len(ends) == 2
    games = [Transcript.from_bytes(p.read_bytes()).genesis.genesis
             for p in sorted((tmp_path / "data" / "offline").glob("*.cbor"))]
    assert len(games) == 2 and games[0].table != games[1].table
    assert games[0].options == games[1].options
    assert games[0].options["targeting"] is True and len(games[0].seats) == 5
    assert [s.name for s in games[0].seats] == [s.name for s in games[1].seats]
    assert games[0].seats[0].name == "ada"

"""The full-screen table of a person on a real LAN table, in this process on a pipe, read from
the screen it draws: what a joiner is shown of the table's own settings."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from tests.net.test_loopback import LO, host

pytestmark = pytest.mark.network


def join_on_a_pipe(table: str, tmp: Path, monkeypatch, look) -> dict:
    """``spycraft join TABLE`` (its own default turn timeout) in the full-screen table; at the
    first decision ``look(screen)`` reads the screen, then Ctrl-C leaves."""
    from prompt_toolkit.input import create_pipe_input

    from spycraft.cli import lan
    from spycraft.cli.app.run import LanUi
    from spycraft.cli.app.table import attached
    from spycraft.cli.main import build_parser
    from tests.cli.screen import Terminal, screen_text

    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp / "home-joiner"))
    args = build_parser().parse_args(["join", table, "--interface", LO, "--wait", "30"])
    seen: dict = {}
    with create_pipe_input() as pipe:
        ui = LanUi((pipe, Terminal()))
        args.ui = ui

        def person() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not ui.bridge.closed.is_set():
                if ui.bridge.view().decision is not None:
                    time.sleep(0.3)  # a redraw or two
                    seen.update(look(screen_text(ui.app)))
                    pipe.send_text("\x03")
                    return
                time.sleep(0.02)

        threading.Thread(target=person, daemon=True).start()
        with pytest.raises(KeyboardInterrupt), attached(ui.app):
            lan._run_trio(lan.join, args)
    return seen


def test_a_joiner_is_shown_the_tables_turn_timer_not_its_own_default(tmp_path, monkeypatch):
    h = host(tmp_path, "spies-and-lies", "--bots", "1", timeout="20")
    table = h.table_id()

    def timer(screen: str) -> dict:
        # The status line counts the table's timer ("turn timer 0:19"); on the person's own
        # turn it warns ("0:19 left") and the decision's title says "Your decision: 19 s left".
        clock = re.search(r"(?:turn timer )?(\d+):(\d\d)(?: left)", screen) or \
            re.search(r"turn timer (\d+):(\d\d)", screen)
        title = re.search(r"Your decision: (\d+) s left", screen)
        left = int(clock.group(1)) * 60 + int(clock.group(2)) if clock else None
        if title is not None:
            left = min(left if left is not None else 10**9, int(title.group(1)))
        return {"left": left, "screen": screen}

    seen = join_on_a_pipe(table, tmp_path, monkeypatch, timer)
    assert seen.get("left") is not None, seen.get("screen")
    assert seen["left"] <= 20, seen["screen"]  # the table's 20 s, not the joiner's 300


def test_play_again_reopens_the_table_and_bot_peers_with_again_take_their_seats(
        tmp_path, monkeypatch):
    """Issue 19.7: "play again" on the opener's final screen opens a new table with the same
    game and options; a ``bots --again`` peer that played the first game follows its opener
    (by fingerprint, proven by the handshake) to the second, and stops when no third comes."""
    from prompt_toolkit.input import create_pipe_input

    from spycraft.cli import lan
    from spycraft.cli.app.table import TableApp
    from spycraft.cli.main import build_parser
    from spycraft.crypto.transcript import Transcript
    from tests.cli.screen import Terminal, wait_for_screen
    from tests.net.harness import Proc, audit

    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path / "home-person"))
    apps: list[TableApp] = []
    real = TableApp.__init__

    def remember(self, *args, **kwargs):
        real(self, *args, **kwargs)
        apps.append(self)

    monkeypatch.setattr(TableApp, "__init__", remember)
    args = build_parser().parse_args(["play", "spies-and-lies", "--interface", LO, "--name",
                                      "ada", "--turn-timeout", "30"])
    peers: list[Proc] = []
    ends: list[str] = []
    with create_pipe_input() as pipe:
        args.terminal = (pipe, Terminal())

        def person() -> None:
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline and len(ends) < 2:
                if not apps:
                    time.sleep(0.02)
                    continue
                view = apps[-1].bridge.view()
                if not peers:
                    opened = [e.text for e in view.events if " open on " in e.text]
                    if opened:
                        table = re.search(r"table ([0-9a-f]{32}) open on", opened[0]).group(1)
                        peers.append(Proc("again", [
                            "bots", "--again", "--out", str(tmp_path / "again"), "--interface",
                            LO, "--table", table, "--wait", "15", "--turn-timeout", "30"],
                            tmp_path))
                if view.closing is not None and len(ends) < len(apps):
                    ends.append(wait_for_screen(apps[-1], lambda s: "a: play again" in s))
                    pipe.send_text("a" if len(ends) == 1 else "q")
                elif view.decision is not None:
                    pipe.send_text("\r")
                time.sleep(0.02)

        thread = threading.Thread(target=person, daemon=True)
        thread.start()
        assert lan._run(lan.play, args, person=True) == 0
        thread.join(5)
    assert len(ends) == 2, ends
    assert peers and peers[0].wait(60) == 0, peers[0].output()
    said = peers[0].output()
    assert said.count("bot 0 (seat 1): winner") + said.count("bot 0 (seat 1): no winner") == 2
    assert "no next table came; 2 games played" in said, said
    files = sorted((tmp_path / "again").glob("*.cbor"))
    tables = {Transcript.from_bytes(f.read_bytes()).genesis.genesis.table for f in files}
    assert len(files) == 2 and len(tables) == 2
    for f in files:
        checked = audit(f)
        assert checked.returncode == 0 and checked.stdout.startswith("VALID"), checked.stdout
    mine = sorted((tmp_path / "home-person" / "data" / "games").glob("*-seat0"))
    assert len(mine) == 2

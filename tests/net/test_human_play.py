"""The README's first command, with a person at the keyboard (typed lines on standard input)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest

from tests.cli.person import unwrapped
from tests.net.harness import ROOT, audit

pytestmark = pytest.mark.network


@pytest.mark.parametrize(
    "game,extra", [("spies-and-lies", []), ("resistance", ["--players", "5", "--plot"])]
)
def test_a_person_plays_a_lan_table_against_bot_peers_to_the_end(tmp_path, game, extra):
    bots = "1" if game == "spies-and-lies" else "4"
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-m", "spycraft", "play", game, *extra, "--bots", bots,
         "--interface", "127.0.0.1", "--name", "ada"],
        cwd=ROOT, env=env, input="/say gl hf\x1b[31m all\n/say\n" + "#1\n" * 400,
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "the table is full; the game starts" in done.stdout
    assert "  > ada (seat 0): gl hf [31m all" in done.stdout  # said at the first prompt, shown
    assert not re.search(r"> \[\d+\] ada", done.stdout)  # no record number before a line
    assert "/say TEXT says TEXT to the table" in done.stdout  # a bare /say explains itself
    assert "\x1b" not in done.stdout
    assert "(you)" in done.stdout or "You are seat 0" in done.stdout  # the board shows the player
    assert re.search(r"^at the table: seat 0 ada \(you\), seat 1 bot-\w{4}\b", done.stdout,
                     flags=re.MULTILINE)  # every bot's name beside its seat
    assert re.search(r"^result: (you won|you lost|no winner)", done.stdout, flags=re.MULTILINE)
    for noise in ("key_share", "vote_commit", "mission_shares", "spy_tag", "_"):
        narrated = [line for line in done.stdout.splitlines() if line.startswith("  ")
                    and not line.startswith("  #")]
        assert not any(noise in line for line in narrated), noise
    stored = list((tmp_path / "home" / "data" / "games").glob("*/transcript.cbor"))
    assert len(stored) == 1
    checked = audit(stored[0])
    assert checked.returncode == 0
    assert "chat: VALID, 1 chat line" in checked.stdout  # chat.cbor beside the transcript


def test_in_spynet_say_answers_that_talk_is_off_while_the_game_runs(tmp_path):
    """SpyNet's rules §11: no channel between players while the game runs. The start says so
    instead of offering /say, and /say answers it in words; nothing is said or stored."""
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-m", "spycraft", "play", "spynet", "--bots", "1",
         "--interface", "127.0.0.1", "--name", "ada"],
        cwd=ROOT, env=env, input="/say partner, I hold a mission\n" + "#1\n" * 800,
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    off = "table talk is off in this game while it runs: SpyNet's rules allow no word " \
          "between players until the result"
    said = unwrapped(done.stdout)  # the line mode wraps at 80 columns
    assert f"  ({off})" in said  # at the start, instead of the /say hint
    assert f"not said: {off}" in said
    assert "ada (seat 0): partner" not in done.stdout
    assert not list((tmp_path / "home" / "data" / "games").glob("*/chat.cbor"))


def test_a_person_lists_the_tables_and_joins_one_by_its_id(tmp_path):
    from tests.net.harness import Proc

    opener = Proc("host", ["host", "spies-and-lies", "--bots", "1", "--interface", "127.0.0.1",
                           "--out", str(tmp_path / "host.cbor")], tmp_path)
    table = opener.table_id()
    chosen = choose_in_the_lobby(table)  # a real browse of the real table, chosen with Enter
    assert chosen == ("join", table, "--interface", "127.0.0.1")
    listed = subprocess.run(
        [sys.executable, "-m", "spycraft", "tables", "--interface", "127.0.0.1", "--seconds", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert f"+ {table}  spies-and-lies" in listed.stdout
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "me"))
    joined = subprocess.run(
        [sys.executable, "-m", "spycraft", *chosen, "--name", "grace"],
        cwd=ROOT, env=env, input="#1\n" * 200, capture_output=True, text=True, timeout=240,
        check=False,
    )
    assert joined.returncode == 0, joined.stdout[-3000:] + joined.stderr[-3000:]
    assert f"joining Stratego: Spies & Lies table {table}" in joined.stdout
    assert opener.wait(60) == 0, opener.output()
    mine = next((tmp_path / "me" / "data" / "games").glob("*/transcript.cbor")).read_bytes()
    assert mine == (tmp_path / "host.cbor").read_bytes()


def choose_in_the_lobby(table: str) -> tuple[str, ...]:
    """The lobby on a pipe, browsing 127.0.0.1: once ``table`` is listed (with its options,
    seats and opener), move to it and press Enter; the command line the lobby chose."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from spycraft.cli.app.lobby import LobbyApp

    with create_pipe_input() as pipe:
        lobby = LobbyApp("127.0.0.1", "loopback", pipe, DummyOutput())

        def drive() -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                labels = lobby.labels()
                row = next((i for i, label in enumerate(labels) if label.endswith(table[:8])),
                           None)
                if row is not None and re.match(r"Stratego: Spies & Lies · no options · "
                                                r"[01]/2 seats · opened by \[", labels[row]):
                    pipe.send_text("\x1b[B" * row + "\r")
                    return
                time.sleep(0.05)
            pipe.send_text("\x04")  # never listed: leave (the test fails)

        threading.Thread(target=drive, daemon=True).start()
        return lobby.run()


def test_a_person_joins_the_table_of_the_opener_named_by_its_fingerprint(tmp_path):
    """``join --opener FINGERPRINT`` (any case, dashes or none) takes a seat only at that
    player's table; the fingerprint is checked against the key the opener proves."""
    from tests.net.harness import Proc

    opener = Proc("host", ["host", "spies-and-lies", "--bots", "1", "--interface", "127.0.0.1",
                           "--out", str(tmp_path / "host.cbor")], tmp_path)
    opener.table_id()
    fingerprint = re.search(r"your fingerprint ([A-Z0-9-]+)", opener.output()).group(1)
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "home"))

    def join(who: str, wait: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "spycraft", "join", "--opener", who, "--interface",
             "127.0.0.1", "--wait", wait, "--name", "ada"], cwd=ROOT, env=env,
            input="#1\n" * 300, capture_output=True, text=True, timeout=180, check=False)

    stranger = join("AAAA-BBBB-CCCC-DDDD-EEEE", "3")
    assert stranger.returncode == 1 and "no open table found" in stranger.stderr
    done = join(fingerprint.replace("-", "").lower(), "30")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"(opened by {fingerprint})" in done.stdout
    assert re.search(r"^result: (you won|you lost|no winner)", done.stdout, flags=re.MULTILINE)
    assert opener.wait(60) == 0

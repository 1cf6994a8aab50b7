"""The README's first command, with a person at the keyboard (typed lines on standard input)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.net.harness import ROOT, audit

pytestmark = pytest.mark.network


@pytest.mark.parametrize("game,extra", [("spies-and-lies", []), ("resistance", ["--players", "5", "--plot"])])
def test_a_person_plays_a_lan_table_against_bot_peers_to_the_end(tmp_path, game, extra):
    bots = "1" if game == "spies-and-lies" else "4"
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-m", "spycraft", "play", game, *extra, "--bots", bots,
         "--interface", "127.0.0.1", "--name", "ada"],
        cwd=ROOT, env=env, input="#1\n" * 400, capture_output=True, text=True, timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "the table is full; the game starts" in done.stdout
    assert "(you)" in done.stdout or "You are seat 0" in done.stdout  # the board shows the player
    assert "result: winner" in done.stdout or "result: no winner" in done.stdout
    stored = list((tmp_path / "home" / "data" / "games").glob("*/transcript.cbor"))
    assert len(stored) == 1
    assert audit(stored[0]).returncode == 0

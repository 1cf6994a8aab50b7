"""``--level``, as a person types it: every command that starts bots takes a level (one for all,
or one per bot seat), a level the game does not have or a list of the wrong length is a one-line
usage error (exit 2), never a traceback, the seats are named with their level, and the lobby's
form asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spycraft.cli.main import main
from tests.cli.person import ROOT, unwrapped
from tests.cli.test_lobby import DOWN, ENTER, asking, lobby_choice, showing


def spycraft(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SPYCRAFT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("argv,says", [
    (["selfplay", "resistance", "--level", "wizard"],
     ("spycraft selfplay: --level: wizard is not a level of this game; the levels are easy, "
     "normal, expert")),
    (["selfplay", "spynet", "--level", "master"],
     ("spycraft selfplay: --level: master is not a level of this game; the levels are easy, "
     "normal, expert")),
    (["selfplay", "resistance", "--players", "5", "--level", "easy,expert"],
     ("spycraft selfplay: --level: give one level for all 5 bot seats, or one per seat "
     "(5, not 2)")),
    (["play", "confusion", "--offline", "--level", "hard"],
     ("spycraft play: --level: hard is not a level of this game; the levels are easy, normal, "
      "expert")),
    (["bots", "--table", "ab", "--count", "2", "--level", "hard", "--interface", "lo"],
     ("spycraft bots: --level: hard is not a level of any game; the levels are easy, normal, "
     "expert")),
    (["host", "confusion", "--bots", "1", "--level", "wizard", "--interface", "lo"],
     ("spycraft host: --level: wizard is not a level of this game; the levels are easy, "
      "normal, expert")),
])
def test_a_level_the_game_has_not_is_a_one_line_usage_error(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPYCRAFT_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == says
    assert not (tmp_path / "data").exists()  # nothing was opened or stored


def test_selfplay_plays_a_level_per_seat_and_prints_no_traceback(tmp_path: Path) -> None:
    done = spycraft(tmp_path, "selfplay", "resistance", "--players", "5", "--seed", "2",
                    "--level", "easy,normal,expert,expert,easy", "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stdout.strip()


def test_offline_play_names_each_bot_seat_with_its_level(tmp_path: Path) -> None:
    done = spycraft(tmp_path, "play", "resistance", "--offline", "--line", "--players", "5",
                    "--name", "ada", "--level", "easy,normal,expert,expert",
                    stdin="1\n#1\n" * 300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ("at the table: seat 0 ada (you), seat 1 bot 1 (easy), seat 2 bot 2 (normal), "
            "seat 3 bot 3 (expert), seat 4 bot 4 (expert)") in unwrapped(done.stdout)


def test_the_lobby_form_asks_how_strong_the_bots_play() -> None:
    argv = lobby_choice([
        (showing("Play offline against bots"), DOWN + ENTER),
        (asking("game"), DOWN + ENTER),                         # The Resistance
        (asking("players"), ENTER),                             # 5
        (asking("option:plot"), ENTER),
        (asking("option:targeting"), ENTER),
        (asking("option:blind_spies"), ENTER),
        (asking("level"), DOWN + DOWN + ENTER),                 # normal, easy, expert
    ])
    assert argv == ("play", "resistance", "--players", "5", "--offline", "--level", "expert")


def test_a_lan_table_without_bots_is_not_asked_a_level() -> None:
    argv = lobby_choice([
        (showing("Open a new table"), ENTER),
        (asking("game"), ENTER),                                # Spies & Lies
        (asking("players"), ENTER),
        (asking("bots"), ENTER),                                # no bots
    ])
    assert argv == ("play", "spies-and-lies", "--players", "2", "--bots", "0", "--interface",
                    "lo-test")

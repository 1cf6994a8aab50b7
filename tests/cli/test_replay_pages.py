"""``spycraft replay`` for a person: a round a page in a terminal, everything into a pipe, and a
reader that stops early (``| head``) is no error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cli.person import ROOT, Person


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "g.cbor"
    subprocess.run([sys.executable, "-m", "spycraft", "selfplay", "spies-and-lies", "--seed", "7",
                    "--out", str(path), "--quiet"], cwd=ROOT, check=True, capture_output=True)
    return path


def test_replay_into_head_ends_without_a_broken_pipe_traceback(game):
    shell = f"{sys.executable} -m spycraft replay {game} | head -3"
    done = subprocess.run(["sh", "-c", shell], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stdout.startswith("Stratego: Spies & Lies, table")
    assert len(done.stdout.splitlines()) == 3
    assert done.stderr == ""


def test_replay_into_a_pipe_prints_everything_at_once(game):
    done = subprocess.run([sys.executable, "-m", "spycraft", "replay", str(game)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    assert "Enter" not in done.stdout
    assert "result: winner" in done.stdout


def test_replay_in_a_terminal_shows_a_round_and_waits_for_enter(game, tmp_path):
    person = Person(["replay", str(game)], tmp_path / "me", terminal=True)
    try:
        person.wait_for("-- Enter: next round, q: stop --", 30)
        first = person.output()
        assert "result:" not in first
        assert len(first.splitlines()) < 100  # not the 830 lines of the whole game
        person.type("\n")
        person.wait_for("Step 1:", 30)
        person.type("q\n")
        assert person.finish(15) == 0
        assert "result:" not in person.output()
        assert "Traceback" not in person.output()
    finally:
        person.kill()


def test_replay_all_in_a_terminal_does_not_wait(game, tmp_path):
    person = Person(["replay", str(game), "--all"], tmp_path / "me", terminal=True)
    try:
        person.wait_for("result: winner", 30)
        assert person.finish(15) == 0
        assert "Enter: next round" not in person.output()
    finally:
        person.kill()

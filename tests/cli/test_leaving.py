"""Leaving a command as a person does: Ctrl-C (SIGINT, or the key in a terminal) and the end of
input. Each ends at once with one line and no traceback; Ctrl-C exits 130."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.cli.person import ROOT, Person, one_line_exit, unwrapped

pytestmark = pytest.mark.network

LOOPBACK = ["--interface", "127.0.0.1"]


@pytest.fixture
def people():
    started: list[Person] = []
    yield started
    for person in started:
        person.kill()


def start(people: list[Person], home, *args: str, terminal: bool = False) -> Person:
    person = Person(list(args), home, terminal=terminal)
    people.append(person)
    return person


def test_end_of_input_at_the_offline_prompt_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "spycraft", "play", "spies-and-lies",
                           "--offline"], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True,
                          env=dict(os.environ, SPYCRAFT_HOME=str(tmp_path)),
                          text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert re.fullmatch(r"spycraft play: left, end of input; the game is saved: `spycraft "
                        r"resume [0-9a-f]{32}-offline` continues it", done.stderr.strip()), \
        done.stderr


def test_end_of_input_at_a_lan_prompt_ends_play_at_once(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "spies-and-lies", "--bots", "1", *LOOPBACK)
    person.wait_for("deploy> ")
    person.end_input()
    assert person.finish(30) == 1
    last = one_line_exit(person)
    assert last.startswith("spycraft play: left, end of input; the game is saved")
    assert "spycraft resume" in last


@pytest.mark.parametrize("command", [["tables"], ["join"], ["bots", "--table", "00"],
                                     ["host", "spies-and-lies"]])
def test_ctrl_c_while_waiting_on_the_lan_is_one_line_and_exit_130(tmp_path, people, command):
    person = start(people, tmp_path / "me", *command, *LOOPBACK)
    person.wait_for({"host": "open on"}.get(command[0], "Ctrl-C to stop"), 30)
    person.pause()
    person.interrupt()
    assert person.finish(15) == 130
    assert one_line_exit(person) == f"spycraft {command[0]}: left, interrupted (Ctrl-C)"


def test_ctrl_c_at_a_lan_prompt_works_the_first_time_and_keeps_the_game(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "spies-and-lies", "--bots", "1", *LOOPBACK)
    person.wait_for("deploy> ")
    person.interrupt()
    assert person.finish(15) == 130
    last = one_line_exit(person)
    assert last.startswith("spycraft play: left, interrupted (Ctrl-C); the game is saved")
    folder = last.split("spycraft resume ")[1].split("`")[0]
    assert (tmp_path / "me" / "data" / "games" / folder / "seat.cbor").exists()


def test_ctrl_c_during_the_resistance_setup_is_one_line(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "resistance", "--players", "5", "--bots",
                   "4", *LOOPBACK)
    person.wait_for("the table is full", 60)
    person.interrupt()
    assert person.finish(15) == 130
    assert one_line_exit(person).startswith("spycraft play: left, interrupted (Ctrl-C)")


def test_the_ctrl_c_key_at_a_terminal_prompt_leaves_at_once(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "spies-and-lies", "--bots", "1", *LOOPBACK,
                   terminal=True)
    person.wait_for("deploy> ", 60)
    person.pause()
    person.type("\x03")
    assert person.finish(15) == 130
    assert "Traceback" not in person.output()
    assert "left, interrupted (Ctrl-C)" in person.output()


def test_the_ctrl_d_key_at_the_offline_terminal_prompt_is_one_line(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "spies-and-lies", "--offline",
                   terminal=True)
    person.wait_for("deploy> ", 60)
    person.pause()
    person.type("\x04")
    assert person.finish(15) == 1
    assert "Traceback" not in person.output()
    assert "left, end of input" in person.output()
    # at a terminal the line is set in words for its 80 columns, its command whole
    said = person.output()[person.output().index("spycraft play: left"):]
    assert all(len(line) <= 80 for line in said.splitlines()), said
    assert re.search(r"`spycraft resume [0-9a-f]{32}-offline` continues it", unwrapped(said)), said


def test_a_game_left_with_ctrl_c_resumes_with_its_bot_peers_and_ends(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "spies-and-lies", "--bots", "1", *LOOPBACK)
    person.wait_for("deploy> ")
    person.interrupt()
    assert person.finish(15) == 130
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "me"))
    back = subprocess.run([sys.executable, "-m", "spycraft", "resume", *LOOPBACK], cwd=ROOT,
                          env=env, input="#1\n" * 300, capture_output=True, text=True,
                          timeout=180, check=False)
    assert back.returncode == 0, back.stdout[-2000:] + back.stderr[-2000:]
    assert "resuming table" in back.stdout
    assert "result: you " in back.stdout


def test_the_ctrl_c_key_at_the_offline_terminal_prompt_is_one_line(tmp_path, people):
    person = start(people, tmp_path / "me", "play", "resistance", "--players", "5", "--offline",
                   terminal=True)
    person.wait_for("> ", 60)
    person.pause()
    person.type("\x03")
    assert person.finish(15) == 130
    assert "Traceback" not in person.output()
    assert "spycraft play: left, interrupted (Ctrl-C)" in person.output()

"""Commands as a newcomer types them: a bare ``bots`` says what to pass instead of joining a
stranger's table, and the README's commands run as printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.person import ROOT, unwrapped


def spycraft(home, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SPYCRAFT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.network
def test_a_bare_bots_joins_no_table_and_says_what_to_pass(tmp_path):
    opener = subprocess.Popen(
        [sys.executable, "-m", "spycraft", "host", "spies-and-lies", "--interface", "127.0.0.1"],
        cwd=ROOT, env=dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "host")),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert opener.stdout is not None
        assert "open on" in opener.stdout.readline()  # a table is open on this LAN
        done = spycraft(tmp_path / "bots", "bots", "--interface", "127.0.0.1", "--wait", "5")
    finally:
        opener.kill()
        opener.wait()
    assert done.returncode == 2
    assert done.stderr.strip().startswith("spycraft bots: name the table to join with --table")
    assert not (tmp_path / "bots" / "data" / "games").exists()  # it sat down nowhere


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines()
            if line.strip()]


def test_the_readme_says_how_to_reach_the_spycraft_command_after_the_install_line():
    text = (ROOT / "README.md").read_text()
    assert ". .venv/bin/activate" in text
    commands = readme_commands()
    install = next(i for i, c in enumerate(commands) if "pip install -e ." in c)
    later = [c for c in commands[install + 1:] if c.startswith("spycraft ")]
    assert later, commands
    activate = next(i for i, c in enumerate(commands) if c.startswith(". .venv/bin/activate"))
    first_bare = next(i for i, c in enumerate(commands) if c.startswith("spycraft "))
    assert activate < first_bare


def test_the_readme_offline_commands_run_as_printed_in_the_activated_venv(tmp_path):
    commands = [c for c in readme_commands()
                if c.startswith(("spycraft selfplay", "spycraft audit", "spycraft replay"))]
    assert len(commands) >= 4
    bin_folder = Path(sys.executable).parent  # the activated venv's: it holds `spycraft`
    assert (bin_folder / "spycraft").exists()
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path / "home"),
               PATH=f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    for command in commands:
        done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("game,extra", [("spies-and-lies", []),
                                        ("resistance", ["--players", "5", "--plot"])])
def test_an_offline_game_names_the_seats_and_ends_with_the_result_from_your_side(
    tmp_path, game, extra,
):
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "spycraft", "play", game, *extra, "--offline",
                           "--name", "ada"], cwd=ROOT, env=env, input="1\n#1\n" * 300,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "at the table: seat 0 ada (you), seat 1 bot 1 (normal)" in done.stdout
    last = unwrapped(done.stdout.strip()).splitlines()[-1]  # the result may wrap at 80
    assert re.match(r"result: (you won|you lost), playing \w+: \w+ won \([a-z ]+\)$", last), last


def test_the_audit_fails_a_spynet_chat_file_that_holds_talk_from_before_the_result(tmp_path):
    """SpyNet's talk is off until the result: a chat file beside its transcript that holds a
    line tied to a record of play (only a client that broke the rule could have kept it) fails
    the audit, naming the line; a line tied to the result itself is fine."""
    from spycraft.crypto.chat import ChatMessage, sign_chat
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.engines import registry
    from spycraft.engines.local import new_local_table

    spynet = registry.load("spynet")
    entropy = SeededEntropy(5)
    local = new_local_table(spynet, spynet.genesis_options(2), 2, entropy.child("table"))
    local.run([spynet.bots["heuristic"](entropy.child(f"bot{i}"), i) for i in range(2)])
    path = tmp_path / "g.cbor"
    path.write_bytes(local.transcript.to_bytes())
    table, end = local.genesis.genesis.table, len(local.records)
    after = sign_chat(ChatMessage(table, 0, 1, end, "good game"), local.seats[0].identity)
    (tmp_path / "g.chat.cbor").write_bytes(after.raw)
    fine = spycraft(tmp_path, "audit", str(path))
    assert fine.returncode == 0 and "chat: VALID, 1 chat line" in fine.stdout, fine.stdout
    during = sign_chat(ChatMessage(table, 1, 1, 12, "pass me Finance"), local.seats[1].identity)
    (tmp_path / "g.chat.cbor").write_bytes(during.raw + after.raw)
    broken = spycraft(tmp_path, "audit", str(path))
    assert broken.returncode == 1, broken.stdout
    assert "chat message 1 of seat 1: said while table talk is off in SpyNet (tied to record " \
           "12, before the result)" in broken.stdout


def test_out_takes_a_file_or_a_folder_and_an_unwritable_one_is_one_line(tmp_path):
    """Issue 19.7: ``--out DIR/`` (made if missing) or an existing folder puts the transcript
    in it by a name of its own; a file is written as named; a place that cannot be written is
    said in one line, never a traceback."""
    into = spycraft(tmp_path, "selfplay", "spies-and-lies", "--seed", "2", "--quiet",
                    "--out", str(tmp_path / "new" / "folder") + "/")
    assert into.returncode == 0, into.stderr
    made = tmp_path / "new" / "folder" / "spies-and-lies-seed2.cbor"
    assert f"transcript: {made} (" in into.stdout and made.exists()
    (tmp_path / "there").mkdir()
    existing = spycraft(tmp_path, "selfplay", "spies-and-lies", "--seed", "2", "--quiet",
                        "--out", str(tmp_path / "there"))
    assert existing.returncode == 0, existing.stderr
    assert (tmp_path / "there" / "spies-and-lies-seed2.cbor").read_bytes() == made.read_bytes()
    named = spycraft(tmp_path, "selfplay", "spies-and-lies", "--seed", "2", "--quiet",
                     "--out", str(tmp_path / "sub" / "g.cbor"))
    assert named.returncode == 0 and (tmp_path / "sub" / "g.cbor").exists(), named.stderr
    (tmp_path / "file").write_text("x")
    blocked = spycraft(tmp_path, "selfplay", "spies-and-lies", "--seed", "2", "--quiet",
                       "--out", str(tmp_path / "file" / "g.cbor"))
    assert blocked.returncode == 1 and "Traceback" not in blocked.stderr
    assert blocked.stderr.strip().startswith(f"spycraft: cannot write {tmp_path}/file/g.cbor")


@pytest.mark.network
def test_a_host_writes_into_a_folder_given_to_out(tmp_path):
    done = spycraft(tmp_path / "home", "host", "spies-and-lies", "--bots", "2", "--interface",
                    "127.0.0.1", "--out", str(tmp_path / "games") + "/", timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    (written,) = (tmp_path / "games").glob("*.cbor")
    assert re.fullmatch(r"[0-9a-f]{32}\.cbor", written.name)
    assert f"transcript: {written} (" in done.stdout
    checked = spycraft(tmp_path, "audit", str(written))
    assert checked.returncode == 0 and checked.stdout.startswith("VALID"), checked.stdout


def test_a_file_that_is_no_transcript_is_said_so_in_words(tmp_path):
    (tmp_path / "empty.cbor").write_bytes(b"")
    (tmp_path / "map.cbor").write_bytes(bytes([0xA1, 1, 2]))  # CBOR, but no genesis
    for path, what in ((ROOT / "README.md", "it is a text file"),
                       (tmp_path / "empty.cbor", "the file is empty"),
                       (tmp_path / "map.cbor", "it does not begin with a table's signed genesis")):
        for command, prefix in (("audit", "UNREADABLE "), ("replay", "spycraft replay: ")):
            done = spycraft(tmp_path, command, str(path))
            assert done.returncode == 2, done.stdout
            said = done.stdout.strip()
            assert said.startswith(f"{prefix}{path} is not a spycraft transcript: {what}"), said
            assert "COSE" not in said and "tag 98" not in said and "Traceback" not in said


def test_the_default_name_is_the_persons_and_two_root_laptops_differ():
    from spycraft.cli.config import player_name

    assert player_name(("ada", "Ada Lovelace,,,"), "lab1") == "Ada Lovelace"
    assert player_name(("ada", "ada"), "lab1") == "ada"
    assert player_name(("ada", ""), "lab1") == "ada"
    # root (or any login many machines share) sits down as its machine
    one, two = player_name(("root", "root"), "alice-laptop"), player_name(("root", ""), "bob.lan")
    assert (one, two) == ("alice-laptop", "bob")
    assert player_name(("root", "root"), "localhost") == "root"  # nothing better to go on
    assert player_name(("x", "\x1b[31mEve" + "e" * 80), "h") == ("[31mEve" + "e" * 80)[:64]


def test_an_offline_game_without_a_name_sits_the_person_down_by_the_default_name(tmp_path):
    from spycraft.cli.config import player_name

    done = spycraft(tmp_path, "play", "spies-and-lies", "--offline", timeout=60)
    assert f"seat 0 {player_name()} (you)" in done.stdout, done.stdout[:500]


def test_a_mistyped_flag_prints_that_commands_usage_and_the_flag_it_was_meant_to_be(tmp_path):
    for words, command, flag in ((["play", "resistance", "--ofline"], "play", "--offline"),
                                 (["selfplay", "spies-and-lies", "--sead", "3"], "selfplay",
                                  "--seed"),
                                 (["watch", "--wiat", "2"], "watch", "--wait")):
        done = spycraft(tmp_path, *words)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert lines[0].startswith(f"usage: spycraft {command} "), lines[0]
        assert lines[-1].startswith(f"spycraft {command}: error: unrecognized arguments: ")
        assert lines[-1].endswith(f"(did you mean {flag}?)"), lines[-1]


COMMAND_LINES = (
    ["selfplay", "resistance", "--players", "7", "--plot", "--seed", "4", "--quiet"],
    ["audit", "game.cbor"],
    ["replay", "game.cbor", "--as", "1", "--brief"],
    ["play", "spies-and-lies", "--offline", "--name", "ada", "--variant", "blind-spies"],
    ["host", "confusion", "--bots", "3", "--turn-timeout", "60"],
    ["join", "AB12", "--wait", "5", "--line"],
    ["join", "--opener", "k7qf2mzdxh4a7tnbc3pw"],
    ["bots", "--table", "ab12", "--count", "2", "--again"],
    ["tables", "--seconds", "1"],
    ["resume", "--list"],
    ["watch", "ab12", "--seat", "2"],
    ["doctor", "--peers", "1"],
    ["rules", "spynet", "--all"],
)


@pytest.mark.parametrize("words", COMMAND_LINES, ids=lambda words: words[0])
def test_a_command_line_reads_the_same_with_only_its_own_command_declared(words):
    # main() declares only the arguments of the command it runs (cli.main._Commands)
    from spycraft.cli.main import COMMANDS, NAMES, build_parser, chosen_command

    every = build_parser()
    assert set(COMMANDS) == NAMES
    assert chosen_command(words) == words[0]
    assert build_parser(chosen_command(words)).parse_args(words) == every.parse_args(words)


BAD_VALUES = (
    (["selfplay", "spies-and-lies", "--seed", "-5"], "--seed", "a whole number, 0 or more"),
    (["host", "resistance", "--turn-timeout", "nan"], "--turn-timeout", "from 1 to 86400"),
    (["host", "resistance", "--turn-timeout", "inf"], "--turn-timeout", "from 1 to 86400"),
    (["play", "resistance", "--turn-timeout", "0.5"], "--turn-timeout", "from 1 to 86400"),
    (["play", "confusion", "--answer-delay", "-1"], "--answer-delay", "0 or more"),
    (["play", "spynet", "--offline", "--effort", "0"], "--effort", "a whole number, 1 or more"),
    (["host", "resistance", "--bots", "-2"], "--bots", "a whole number, 0 or more"),
    (["join", "--wait", "-1"], "--wait", "a number of seconds, 0 or more"),
    (["bots", "--table", "ab", "--count", "0"], "--count", "a whole number, 1 or more"),
    (["bots", "--table", "ab", "--think", "x"], "--think", "'x' is not a number of seconds"),
    (["bots", "--table", "ab", "--wait", "1e400"], "--wait", "0 or more (not 1e400)"),
    (["tables", "--seconds", "-1"], "--seconds", "0 or more"),
    (["watch", "--seat", "-1"], "--seat", "a whole number, 0 or more"),
    (["doctor", "--peers", "2.5"], "--peers", "'2.5' is not a whole number"),
    (["join", "zz"], "table", "a table id is hex digits"),
    (["watch", "12345678901234567890123456789012a"], "table", "a table id is hex digits"),
    (["bots", "--table", "q1"], "--table", "a table id is hex digits"),
    (["join", "--opener", "ZZZZ"], "--opener", "a fingerprint is 20 letters and digits 2-7"),
    (["join", "--opener", "K7QF-2MZD-XH4A-9TNB-C3PW"], "--opener", "not 'K7QF-2MZD-XH4A-9TNB"),
)


@pytest.mark.parametrize("words, flag, why", BAD_VALUES, ids=lambda x: " ".join(x)
                         if isinstance(x, list) else None)
def test_a_value_out_of_its_range_or_form_is_a_one_line_usage_error(words, flag, why, capsys):
    """A negative wait, a turn timeout of nan or below a second, no bots at all, a table id or
    a fingerprint no table can have: each used to start (some to end in a traceback where the
    clock was set, or a game whose genesis quietly held another timeout, or a search that could
    find nothing); now the command's usage error names the flag."""
    from spycraft.cli.main import build_parser, chosen_command

    with pytest.raises(SystemExit) as stopped:
        build_parser(chosen_command(words)).parse_args(words)
    assert stopped.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith(f"spycraft {words[0]}: error: argument {flag}: "), said
    assert why in said, said


def test_a_wait_below_zero_stops_the_real_command_with_its_usage_not_a_traceback(tmp_path):
    done = spycraft(tmp_path, "join", "--wait", "-1")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "spycraft join: error: argument --wait: a number of seconds, 0 or more (not -1)")


def test_the_turn_timeouts_the_parser_takes_are_those_a_genesis_holds():
    from spycraft.cli.commands import TURN_TIMEOUT_SECONDS
    from spycraft.crypto.records import MAX_TURN_TIMEOUT_MS
    from spycraft.p2p.seating import MIN_TURN_TIMEOUT_MS

    assert TURN_TIMEOUT_SECONDS == (MIN_TURN_TIMEOUT_MS // 1000, MAX_TURN_TIMEOUT_MS // 1000)

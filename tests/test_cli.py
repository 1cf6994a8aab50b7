"""The commands as a user runs them: selfplay, audit, replay, and the identity on first run."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def spycraft(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env["SPYCRAFT_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_selfplay_with_one_seed_writes_byte_identical_transcripts_that_audit_valid(tmp_path):
    one, two = tmp_path / "one.cbor", tmp_path / "two.cbor"
    for out in (one, two):
        done = spycraft("selfplay", "spies-and-lies", "--seed", "7", "--out", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        assert "result:" in done.stdout
    assert one.read_bytes() == two.read_bytes()
    checked = spycraft("audit", str(one))
    assert checked.returncode == 0
    assert checked.stdout.startswith("VALID spies-and-lies")


def test_an_edited_byte_fails_the_audit_and_a_missing_file_is_unreadable(tmp_path):
    game = tmp_path / "g.cbor"
    spycraft("selfplay", "spies-and-lies", "--seed", "7", "--out", str(game), "--quiet")
    data = bytearray(game.read_bytes())
    data[len(data) // 2] ^= 0x01
    edited = tmp_path / "edited.cbor"
    edited.write_bytes(bytes(data))
    checked = spycraft("audit", str(edited))
    assert checked.returncode == 1
    assert checked.stdout.startswith("INVALID")
    assert "seat" in checked.stdout and "record" in checked.stdout
    assert spycraft("audit", str(tmp_path / "missing.cbor")).returncode == 2
    (tmp_path / "noise").write_bytes(os.urandom(300))
    assert spycraft("audit", str(tmp_path / "noise")).returncode in (1, 2)


def test_the_resistance_with_ten_players_and_the_plot_audits_valid(tmp_path):
    game = tmp_path / "r.cbor"
    done = spycraft("selfplay", "resistance", "--players", "10", "--plot", "--seed", "3",
                    "--out", str(game), "--quiet")
    assert done.returncode == 0, done.stderr
    checked = spycraft("audit", str(game))
    assert checked.returncode == 0, checked.stdout
    assert "VALID resistance" in checked.stdout


def test_replay_shows_a_seat_its_own_hidden_cards_and_the_public_view_does_not(tmp_path):
    game = tmp_path / "g.cbor"
    spycraft("selfplay", "spies-and-lies", "--seed", "7", "--out", str(game), "--quiet")
    public = spycraft("replay", str(game))
    private = spycraft("replay", str(game), "--as", "0")
    assert public.returncode == private.returncode == 0
    # the seat's own ranks on its face-down cards ("your 5 Lieutenant, face down")
    assert re.search(r"your \d+ [A-Z][a-z]+, face down", private.stdout)
    assert not re.search(r"your \d+ [A-Z][a-z]+", public.stdout)


def test_the_identity_is_created_once_with_mode_0600(tmp_path):
    code = (
        "from spycraft.cli.config import load_identity, config_dir;"
        "print(load_identity().fingerprint); print(config_dir())"
    )
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path))
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0]
    key = Path(runs[0][1]) / "identity.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(key.read_bytes()) == 32


def test_selfplay_refuses_a_player_count_the_game_does_not_have():
    done = spycraft("selfplay", "resistance", "--players", "4")
    assert done.returncode != 0
    assert "5 to 10 players" in done.stderr + done.stdout

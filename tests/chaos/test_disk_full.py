"""A laptop whose disk fills in the middle of a game (issue 22): its seat stops at once with one
line that says what could not be written, why and how to go on; nothing half-written is kept;
once there is room again ``spycraft resume`` continues, and the table ends as if nothing had
happened. Real processes on loopback; the seat's data folder is a small tmpfs (root)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spycraft.crypto.encoding import read_sequence
from spycraft.crypto.transcript import Transcript
from tests.chaos.disk import fill, small_disk
from tests.net.harness import ROOT, Proc, audit, wait_all
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network


def test_a_seat_whose_disk_fills_stops_in_one_line_and_resumes_once_there_is_room(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home-bob"
    with small_disk(home / "data", size=1 << 20) as disk:
        h = host(tmp_path, timeout="30")
        table = h.table_id()
        alice = bots(tmp_path, "alice", table, 1, "--think", "0.1", timeout="30")
        bob = bots(tmp_path, "bob", table, 1, "--think", "0.1", timeout="30")
        deadline = time.monotonic() + 60
        while bob.records_stored() < 10:
            assert time.monotonic() < deadline, bob.output()
            time.sleep(0.1)
        filler = fill(disk)
        assert bob.wait(60) == 1, bob.output()
        said = bob.output()
        assert "Traceback" not in said, said
        assert "spycraft bots: stopped: cannot write " in said, said
        assert "No space left on device (nothing half-written was kept)" in said, said
        assert "`spycraft resume` continues the game" in said, said
        folder = bob.stored_transcripts()[0].parent
        for name in ("transcript.cbor", "own.cbor"):
            _, cut = read_sequence((folder / name).read_bytes())
            assert cut is None, f"{name} holds a torn item: {cut}"
        assert not list(folder.glob("*.tmp"))
        stopped_at = bob.records_stored()

        filler.unlink()
        resumed = Proc("bob-resumed", ["resume", "--interface", LO], tmp_path, home=home)
        wait_all([h, alice, resumed], 120)
        assert "resuming table" in resumed.output()
        final = (tmp_path / "host.cbor").read_bytes()
        assert (folder / "transcript.cbor").read_bytes() == final
        assert next((tmp_path / "alice").glob("*.cbor")).read_bytes() == final
        checked = audit(tmp_path / "host.cbor")
        assert checked.returncode == 0 and "VALID spies-and-lies" in checked.stdout, checked.stdout
        transcript = Transcript.from_bytes(final)
        assert len(transcript.records) > stopped_at
        assert not [r for r in transcript.records if r.record.kind in ("abandon", "fraud")]


def test_a_game_played_offline_whose_disk_fills_stops_in_one_line_and_resumes(
    tmp_path: Path,
) -> None:
    """Found running it as a person: ``play --offline`` on a full disk ended in a traceback
    (the LAN commands said it in one line; the offline game's save was not caught)."""
    home = tmp_path / "home"
    env = dict(os.environ, SPYCRAFT_HOME=str(home), PYTHONUNBUFFERED="1")
    answers = "#1\n" * 400  # the first choice, asked again where it is not a legal one
    with small_disk(home / "data") as disk:
        person = subprocess.Popen(
            [sys.executable, "-m", "spycraft", "play", "--offline", "--line", "spies-and-lies"],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not list((disk / "games").glob("*-offline/seat.cbor")):
            assert time.monotonic() < deadline and person.poll() is None, "never saved"
            time.sleep(0.1)
        filler = fill(disk)
        _, said = person.communicate(answers, timeout=120)
        assert person.returncode == 1, said
        assert "Traceback" not in said, said
        (folder,) = (disk / "games").glob("*-offline")
        line = (f"spycraft play: stopped: cannot write the seat's secrets to {folder}/seat.cbor: "
                f"No space left on device (nothing half-written was kept); once the disk has "
                f"room again, `spycraft resume {folder.name}` continues the game")
        assert said.strip().splitlines() == [line], said

        filler.unlink()
        resumed = subprocess.run(
            [sys.executable, "-m", "spycraft", "resume", folder.name, "--line"], cwd=ROOT,
            env=env, input=answers, capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in resumed.stderr, resumed.stderr
        assert "deploy" in resumed.stdout or "result:" in resumed.stdout, resumed.stdout[-2000:]

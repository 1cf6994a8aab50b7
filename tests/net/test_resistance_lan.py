"""The Resistance with The Plot Thickens on loopback: a host and five bot peers in two processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.net.harness import audit, wait_all
from tests.net.test_loopback import bots, host

pytestmark = pytest.mark.network

GAME_WAIT = 120  # seconds; a game takes about 10-15 s here, 25 s with the machine busy


def test_five_bot_peers_in_two_processes_play_the_plot_thickens_to_identical_audited_ends(
    tmp_path: Path,
) -> None:
    h = host(tmp_path, "resistance", "--players", "5", "--plot", timeout="30")
    table = h.table_id(30)
    two = bots(tmp_path, "two", table, 2, timeout="30")
    three = bots(tmp_path, "three", table, 3, timeout="30")
    wait_all([h, two, three], GAME_WAIT)

    mine = {name: sorted((tmp_path / name).glob("*.cbor")) for name in ("two", "three")}
    assert [len(mine["two"]), len(mine["three"])] == [2, 3], mine
    seats = sorted(int(f.stem.rsplit("seat", 1)[1]) for files in mine.values() for f in files)
    assert seats == [0, 1, 2, 3, 4], "every seat is played by exactly one bot peer"
    final = (tmp_path / "host.cbor").read_bytes()
    differing = [f.name for files in mine.values() for f in files if f.read_bytes() != final]
    assert not differing, f"transcripts differ from the host's: {differing}"

    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "VALID resistance" in checked.stdout, checked.stdout
    transcript = Transcript.from_bytes(final)
    assert transcript.genesis.genesis.options["plot"] is True
    assert len(transcript.genesis.genesis.seats) == 5
    kinds = {r.record.kind for r in transcript.records}
    assert "plot_deal" in kinds, f"no plot card was dealt: {sorted(kinds)}"

"""SpyNet on loopback: four bot seats (two teams) in two processes, and a host that opens it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.net.harness import audit, wait_all
from tests.net.test_loopback import bots, host

pytestmark = pytest.mark.network

GAME_WAIT = 180  # seconds; about 500 records


def test_four_bot_seats_in_two_processes_end_with_identical_audited_transcripts(
    tmp_path: Path,
) -> None:
    h = host(tmp_path, "spynet", "--players", "4", timeout="30")
    table = h.table_id(30)
    left = bots(tmp_path, "left", table, 2, timeout="30")
    right = bots(tmp_path, "right", table, 2, timeout="30")
    wait_all([h, left, right], GAME_WAIT)

    mine = {name: sorted((tmp_path / name).glob("*.cbor")) for name in ("left", "right")}
    assert [len(mine["left"]), len(mine["right"])] == [2, 2], mine
    final = (tmp_path / "host.cbor").read_bytes()
    differing = [f.name for files in mine.values() for f in files if f.read_bytes() != final]
    assert not differing, f"transcripts differ from the host's: {differing}"
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "VALID spynet" in checked.stdout, checked.stdout
    transcript = Transcript.from_bytes(final)
    assert len(transcript.genesis.genesis.seats) == 4
    kinds = {r.record.kind for r in transcript.records}
    assert {"deck_shuffle", "deck_tokens", "reveal", "result"} <= kinds

"""Shady Agents on loopback: a host and five bot peers in two processes, identical audited ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.net.harness import audit, wait_all
from tests.net.test_loopback import bots, host

pytestmark = pytest.mark.network

GAME_WAIT = 120  # seconds


def test_five_bot_peers_in_two_processes_end_with_identical_audited_transcripts(
    tmp_path: Path,
) -> None:
    h = host(tmp_path, "shady-agents", "--players", "5", timeout="30")
    table = h.table_id(30)
    two = bots(tmp_path, "two", table, 2, timeout="30")
    three = bots(tmp_path, "three", table, 3, timeout="30")
    wait_all([h, two, three], GAME_WAIT)

    mine = {name: sorted((tmp_path / name).glob("*.cbor")) for name in ("two", "three")}
    assert [len(mine["two"]), len(mine["three"])] == [2, 3], mine
    final = (tmp_path / "host.cbor").read_bytes()
    differing = [f.name for files in mine.values() for f in files if f.read_bytes() != final]
    assert not differing, f"transcripts differ from the host's: {differing}"
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "VALID shady-agents" in checked.stdout, checked.stdout
    transcript = Transcript.from_bytes(final)
    kinds = [r.record.kind for r in transcript.records]
    assert kinds.count("reveal") == 5 and kinds.count("round_two") == 5

    # the stored session folders: a peer keeps its own seats' secrets and never another's
    secrets: dict[int, list[bytes]] = {}
    for signed in transcript.records:
        if signed.record.kind == "reveal":
            body = signed.record.body
            kept = [body["secret"], *(o[1] for o in body["openings"]),
                    *(o[2] for o in body["openings"])]
            if body["discard"] is not None:
                kept.append(body["discard"][1])
            secrets[signed.record.seat] = kept
    for proc, name in ((two, "two"), (three, "three")):
        own = {int(f.stem.rsplit("seat", 1)[1]) for f in mine[name]}
        stored = [
            f.read_bytes() for f in proc.home.rglob("*")
            if f.is_file() and f.name != "transcript.cbor"
        ]
        assert stored, f"{name} stored nothing"
        for seat, values in secrets.items():
            if seat not in own:
                assert not any(v in blob for v in values for blob in stored), (name, seat)

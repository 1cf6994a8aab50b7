"""Shady Agents on loopback: a host and five bot peers in two processes, identical audited ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.net.test_loopback import bot_peers_play

pytestmark = pytest.mark.network

GAME_WAIT = 120  # seconds


def test_five_bot_peers_in_two_processes_end_with_identical_audited_transcripts(
    tmp_path: Path,
) -> None:
    final, mine, procs = bot_peers_play(tmp_path, "shady-agents", ("--players", "5"),
                                 {"two": 2, "three": 3}, GAME_WAIT)
    transcript = Transcript.from_bytes(final)
    kinds = [r.record.kind for r in transcript.records]
    assert kinds.count("reveal") == 5 and kinds.count("round_two") == 5

    # the stored session folders: a peer keeps its own seats' secrets and never another's
    secrets: dict[int, list[bytes]] = {}
    for signed in transcript.records:
        if signed.record.kind == "reveal":
            secrets[signed.record.seat] = [signed.record.body["secret"]]
    for name, proc in procs.items():
        own = {int(f.stem.rsplit("seat", 1)[1]) for f in mine[name]}
        stored = [
            f.read_bytes() for f in proc.home.rglob("*")
            if f.is_file() and f.name != "transcript.cbor"
        ]
        assert stored, f"{name} stored nothing"
        for seat, values in secrets.items():
            if seat not in own:
                assert not any(v in blob for v in values for blob in stored), (name, seat)

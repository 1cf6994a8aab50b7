"""Confusion on the LAN: real spycraft processes on loopback (discovery by multicast DNS, play
over TCP), two random bot peers; every transcript byte-identical and audited."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.net.harness import Proc, audit

pytestmark = pytest.mark.network
LO = "127.0.0.1"


def test_two_bot_peers_play_confusion_and_end_with_identical_audited_transcripts(
        tmp_path: Path) -> None:
    host = Proc("host", ["host", "confusion", "--tokens", "--out", str(tmp_path / "host.cbor"),
                         "--interface", LO, "--turn-timeout", "30"], tmp_path)
    table = host.table_id()
    peers = [
        Proc(name, ["bots", "--count", "1", "--out", str(tmp_path / name), "--interface", LO,
                    "--table", table, "--turn-timeout", "30", "--bot", "random"], tmp_path)
        for name in ("alice", "bob")
    ]
    for p in (host, *peers):
        assert p.wait(240) == 0, p.output()
    files = [tmp_path / "host.cbor", *sorted((tmp_path / "alice").glob("*.cbor")),
             *sorted((tmp_path / "bob").glob("*.cbor"))]
    assert len(files) == 3
    first = files[0].read_bytes()
    assert all(f.read_bytes() == first for f in files)
    checked = audit(files[0])
    assert checked.returncode == 0, checked.stdout
    assert "VALID confusion" in checked.stdout

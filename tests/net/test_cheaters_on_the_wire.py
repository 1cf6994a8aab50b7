"""Modified clients on loopback: each lie is caught, attributed, and the honest peers agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.engines.audit import audit_transcript
from tests.net.harness import Proc, audit
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network


def play_against(tmp: Path, mode: str, timeout: str = "20") -> tuple[int, Proc, Proc, Proc]:
    h = host(tmp, timeout=timeout)
    table = h.table_id()
    cheater = Proc("cheater", [mode, LO, str(tmp / "cheater.cbor"), table], tmp,
                   module="tests.net.cheater")
    honest = bots(tmp, "honest", table, timeout=timeout)
    cheater.wait_for("seat ", 30)
    seat = int(re.search(r"seat (\d)", cheater.output()).group(1))
    return seat, h, honest, cheater


def finish(h: Proc, honest: Proc, cheater: Proc) -> Transcript:
    try:
        assert h.wait(90) == 0, h.output()
        assert honest.wait(90) == 0, honest.output()
    finally:
        cheater.kill()
    mine = next((h.home.parent / "honest").glob("*.cbor")).read_bytes()
    assert mine == (h.home.parent / "host.cbor").read_bytes(), "the honest peers disagree"
    return Transcript.from_bytes(mine)


def test_an_equivocating_peer_is_proven_a_cheater_and_forfeits(tmp_path):
    seat, h, honest, cheater = play_against(tmp_path, "equivocate")
    transcript = finish(h, honest, cheater)
    report = audit_transcript(transcript)
    assert report.result.forfeits == (seat,)
    assert any("equivocation" in f and f"by seat {seat}" in f for f in report.frauds), report.frauds
    assert audit(tmp_path / "host.cbor").returncode == 1


def test_a_false_opening_on_the_wire_is_turned_into_a_fraud_record(tmp_path):
    seat, h, honest, cheater = play_against(tmp_path, "lie")
    transcript = finish(h, honest, cheater)
    report = audit_transcript(transcript)
    assert report.result.forfeits == (seat,)
    assert any("false opening" in f for f in report.frauds), report.frauds
    fraud = [r for r in transcript.records if r.record.kind == "fraud"]
    assert len(fraud) == 1 and fraud[0].seat == 1 - seat
    assert "rejected record" in honest.output()


def test_a_stalled_peer_is_declared_absent_and_forfeits(tmp_path):
    seat, h, honest, cheater = play_against(tmp_path, "stall", timeout="2")
    transcript = finish(h, honest, cheater)
    report = audit_transcript(transcript)
    assert report.valid, report.describe()
    assert report.result.forfeits == (seat,)
    assert report.result.reason == "abandoned"
    assert any(r.record.kind == "abandon" for r in transcript.records)


def test_a_record_for_another_seat_is_refused_and_its_sender_disconnected(tmp_path):
    _seat, h, honest, cheater = play_against(tmp_path, "forge")
    transcript = finish(h, honest, cheater)
    assert "forged" in cheater.output()
    assert "bad signature" in honest.output() or "bad signature" in h.output()
    assert audit_transcript(transcript).error is None
    assert all(r.record.body != {"forged": True} for r in transcript.records)

"""Red team 17 on the LAN (real processes, loopback in the test's namespace): a Confusion loser
that resigned, so that play fixed its loss, tries to turn it into "abandoned, no winner" in the
final reveal, by stalling at its own ``final`` or by claiming the winner absent at the
winner's. The win of play stands, the honest peers agree, and the audit says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.engines.audit import audit_transcript
from spycraft.engines.confusion.board import SIDE_NAMES
from tests.net.harness import Proc, audit, wait_all

pytestmark = pytest.mark.network
LO = "127.0.0.1"


def sore_loser(tmp_path: Path, mode: str) -> tuple[int, Transcript, Proc]:
    h = Proc("host", ["host", "confusion", "--out", str(tmp_path / "host.cbor"),
                      "--interface", LO, "--turn-timeout", "3"], tmp_path)
    table = h.table_id()
    honest = Proc("honest", ["bots", "--count", "1", "--out", str(tmp_path / "honest"),
                             "--interface", LO, "--table", table, "--turn-timeout", "3",
                             "--answer-delay", "0"], tmp_path)
    h.wait_for("sat down", 30)
    loser = Proc("loser", [mode, LO, table, str(tmp_path / "loser.cbor"), "--turn-timeout", "3"],
                 tmp_path, module="tests.sore_losers.peers")
    try:
        loser.wait_for("seat ", 30)
        wait_all([h, honest], 90)
    finally:
        loser.kill()
    seat = int(re.search(r"seat (\d)", loser.output()).group(1))  # type: ignore[union-attr]
    mine = next((tmp_path / "honest").glob("*.cbor")).read_bytes()
    assert mine == (tmp_path / "host.cbor").read_bytes(), "the honest peers disagree"
    # at two seats the end is a claim either way (the honest seat's of the loser, or the
    # loser's of the winner on the way): the host waits for the claim's accused, which may
    # outrank it, and says how that wait ended; both accused here are online and get the end
    # (the staller keeps reading), at once or after a wait
    said = " ".join(h.output().split())
    accused = seat if mode == "stall" else 1 - seat
    assert re.search(rf"seat {accused} \([^)]*\)+, declared absent by a claim, holds this end",
                     said), h.output()
    assert "never confirmed" not in said, h.output()
    return seat, Transcript.from_bytes(mine), loser


def assert_the_win_of_play_stands(seat: int, transcript: Transcript, tmp_path: Path) -> None:
    report = audit_transcript(transcript)
    result = report.result
    assert result is not None, report.describe()
    assert (result.winner, result.reason) == (SIDE_NAMES[1 - seat], "resignation"), \
        report.describe()
    assert report.valid, report.describe()
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID confusion" in checked.stdout, checked.stdout
    assert "claimed" not in checked.stdout, checked.stdout


def test_a_loser_stalling_at_its_final_opening_leaves_the_win_of_play(tmp_path: Path) -> None:
    seat, transcript, loser = sore_loser(tmp_path, "stall")
    assert "stalling at record" in loser.output(), loser.output()
    abandons = [r for r in transcript.records if r.record.kind == "abandon"]
    assert len(abandons) == 1 and abandons[0].record.body["seat"] == seat
    assert_the_win_of_play_stands(seat, transcript, tmp_path)
    assert audit_transcript(transcript).result.forfeits == (seat,)  # type: ignore[union-attr]


def test_a_loser_claiming_the_winner_absent_at_once_leaves_the_win_of_play(
        tmp_path: Path) -> None:
    seat, transcript, loser = sore_loser(tmp_path, "claim")
    assert "claimed seat" in loser.output(), loser.output()
    assert_the_win_of_play_stands(seat, transcript, tmp_path)

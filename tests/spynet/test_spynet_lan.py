"""SpyNet on loopback: four bot seats (two teams) in two processes, and a host that opens it; a
table where one seat is a modified client that seals garbage for a card it passes on; and a
two-seat table where one real process stops answering.

The game's stored session folders (``games/<table>-seat<N>`` of each bot process, the host's
``games/<table>-host``) are then scanned for leaks: nothing a seat stored before the final
reveal (its transcript up to there, its own records in ``own.cbor``, ``seat.cbor`` with its
memo, any other file) may open a card it was not shown (``tests.spynet.leaks``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from spycraft.crypto.encoding import decode_own
from spycraft.crypto.errors import EncodingError
from spycraft.crypto.transcript import Transcript
from spycraft.engines.audit import audit_transcript
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.rules import State
from spycraft.p2p.storage import GameStore, SeatFile
from tests.net.harness import Proc, audit, kill_all, wait_all
from tests.net.test_loopback import LO, bot_peers_play, bots, host, watch
from tests.spynet.leaks import forbidden, mates_missions, scan, texts

pytestmark = pytest.mark.network

GAME_WAIT = 180  # seconds; about 500 records


@pytest.fixture(autouse=True)
def no_stray_processes():
    """As in tests/net: no process outlives its test, pass or fail."""
    yield
    kill_all()


def test_four_bot_seats_in_two_processes_end_with_identical_audited_transcripts(
    tmp_path: Path,
) -> None:
    final, _, _ = bot_peers_play(tmp_path, "spynet", ("--players", "4"),
                                 {"left": 2, "right": 2}, GAME_WAIT)
    transcript = Transcript.from_bytes(final)
    assert len(transcript.genesis.genesis.seats) == 4
    kinds = {r.record.kind for r in transcript.records}
    assert {"deck_shuffle", "deck_tokens", "reveal", "result"} <= kinds

    folders = sorted(tmp_path.glob("home-*/data/games/*"))
    assert len(folders) == 5, folders  # four seats and the host's
    no_leak_in_the_stored_folders(transcript, folders)


def no_leak_in_the_stored_folders(transcript: Transcript, folders: list[Path]) -> None:
    table = GAME.table()
    state = table.start(transcript.genesis)
    for signed in transcript.records:
        state = table.apply(state, signed)
    final: State = state.game
    kinds = [r.record.kind for r in transcript.records]
    cutoff = transcript.records[kinds.index("reveal")].seq
    files = {f: SeatFile.from_cbor(decode_own((f / "seat.cbor").read_bytes())) for f in folders}
    masters = [next(s.master for s in files.values() if s.seat == i) for i in range(final.n)]
    hidden_missions = 0
    for folder, seat_file in files.items():
        store = GameStore(folder)
        stored = Transcript.from_bytes(store.transcript_path.read_bytes())
        blobs = [stored.genesis.raw]
        blobs += [r.raw for r in stored.records if r.record.seq < cutoff]
        own, memo = store.load_own()
        blobs += [raw for (seq, _), raw in own.items() if seq < cutoff]
        words = list(texts(memo))
        for path in sorted(folder.iterdir()):
            if path in (store.transcript_path, store.own_path):
                continue
            data = path.read_bytes()
            blobs.append(data)  # seat.cbor and anything else, whole
            try:
                words += texts(decode_own(data))  # a file the peer wrote itself
            except EncodingError:
                pass  # not one CBOR item: scanned as bytes only
        what = forbidden(final, seat_file.seat, masters)
        result = scan(what, blobs, words)
        assert not result.leaks, (folder.name, result.leaks)
        assert result.hidden and result.controls == len(what.public), folder.name
        if seat_file.seat is not None:
            assert own and memo, folder.name
            hidden_missions += mates_missions(final, what)
    assert hidden_missions, "no teammate's face-down mission was hidden from a seat"


def test_a_seat_that_seals_garbage_for_a_passed_card_forfeits_at_that_record(
    tmp_path: Path,
) -> None:
    """The honest peers refuse the record, prove it with a fraud record, finish the game
    without the sender and end with identical transcripts whose audit (in process and
    ``spycraft audit``) is FRAUD naming the sender at the record that carried the seal."""
    h = host(tmp_path, "spynet", "--players", "4", timeout="30")
    table = h.table_id(30)
    cheater = Proc("cheater", ["garbage-seal", LO, str(tmp_path / "cheater.cbor"), table,
                               "--game", "spynet", "--turn-timeout", "30"], tmp_path,
                   module="tests.net.cheater")
    honest = bots(tmp_path, "honest", table, 3, timeout="30")
    try:
        cheater.wait_for("seat ", 60)
        seat = int(re.search(r"seat (\d)", cheater.output()).group(1))
        wait_all([h, honest], GAME_WAIT)
    finally:
        cheater.kill()
    found = re.search(r"sealed garbage at record (\d+)", cheater.output())
    assert found, cheater.output()
    seq = int(found.group(1))
    final = (tmp_path / "host.cbor").read_bytes()
    mine = sorted((tmp_path / "honest").glob("*.cbor"))
    assert len(mine) == 3 and all(f.read_bytes() == final for f in mine), "honest peers differ"
    transcript = Transcript.from_bytes(final)
    report = audit_transcript(transcript)
    named = f"invalid proof by seat {seat}, record {seq}"
    assert report.result is not None and report.result.forfeits == (seat,), report.describe()
    assert report.result.evidence == (seq,)
    assert any(named in f for f in report.frauds), report.frauds
    fraud = [r for r in transcript.records if r.record.kind == "fraud"]
    assert len(fraud) == 1 and fraud[0].seq == seq and fraud[0].seat != seat
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 1 and named in checked.stdout, checked.stdout


def test_a_two_seat_abandon_between_real_processes_is_claimed_never_fraud(tmp_path: Path) -> None:
    """Issue 17, attack 1, with real processes: a seat that has sealed tokens stops answering;
    its opponent alone declares it absent. Its seals once counted as its fraud; a forfeiter owes
    nothing, so both honest transcripts end "abandoned, claimed by seat N" and ``spycraft audit``
    says VALID (exit 0), with no fraud record and no rule violation."""
    timeout = "3"
    h = host(tmp_path, "spynet", "--players", "2", timeout=timeout)
    table = h.table_id(30)
    cheater = Proc("cheater", ["stall", LO, str(tmp_path / "cheater.cbor"), table,
                               "--game", "spynet", "--turn-timeout", timeout,
                               "--stall-at", "action"],
                   tmp_path, module="tests.net.cheater")
    h.wait_for("sat down", 30)
    honest = bots(tmp_path, "honest", table, 1, timeout=timeout)
    cheater.wait_for("seat ", 30)
    absent = int(re.search(r"seat (\d)", cheater.output()).group(1))
    try:
        cheater.wait_for("stalling", 90)
        wait_all([h, honest], 90)
    finally:
        cheater.kill()
    final = (tmp_path / "host.cbor").read_bytes()
    (mine,) = sorted((tmp_path / "honest").glob("*.cbor"))
    assert mine.read_bytes() == final, "the honest seat's transcript differs from the host's"
    transcript = Transcript.from_bytes(final)
    kinds = [r.record.kind for r in transcript.records]
    assert "fraud" not in kinds and kinds.count("abandon") == 1
    abandon = transcript.records[kinds.index("abandon")]
    assert abandon.record.body["seat"] == absent and abandon.record.seat == 1 - absent
    sealed = [r.seq for r in transcript.records[: kinds.index("abandon")]
              if r.record.kind == "deck_tokens" and r.record.seat == absent
              and any(x is not None for x in r.record.body["sealed"])]
    assert sealed, "the absent seat had sealed no token: not the attack"
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("VALID spynet"), checked.stdout
    claim = f"result: abandoned, claimed by seat {1 - absent}: no winner, no fraud"
    assert claim in checked.stdout and "rule violation" not in checked.stdout, checked.stdout
    report = audit_transcript(transcript)
    assert report.result is not None
    assert (report.result.forfeits, report.result.evidence) == ((absent,), (abandon.seq,))
def test_table_talk_during_play_is_dropped_and_counted_at_every_honest_peer_never_shown(
    tmp_path: Path,
) -> None:
    """Rules §11 on a real table: a seatless host, two honest bot seats (one of them asked to
    ``--say`` something), a spectator and a modified client that talks during play anyway
    (``tests.net.cheater talker``). Every honest peer drops each of its lines unread, names
    the speaker once and counts the lines at the end; no honest peer shows or stores a word of
    it, and the game ends as it would have, VALID."""
    from tests.net.cheater import TALK_TEXT, TALKS

    h = host(tmp_path, "spynet", "--players", "3", timeout="30")
    table = h.table_id(30)
    honest = bots(tmp_path, "honest", table, 2, "--think", "0.05", "--say", "hello partner",
                  timeout="30")
    deadline = time.monotonic() + 30
    while h.output().count("sat down") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    cheater = Proc("cheater", ["talker", LO, str(tmp_path / "cheater.cbor"), table,
                               "--game", "spynet", "--turn-timeout", "30", "--observers", "2"],
                   tmp_path, module="tests.net.cheater")
    cheater.wait_for("seat ", 30)
    seat = int(cheater.output().split("seat ", 1)[1].split()[0])
    w = watch(tmp_path, table)
    wait_all([h, honest, w, cheater], GAME_WAIT)

    said = cheater.output()
    assert said.count("talked during play") == TALKS, said
    final = (tmp_path / "host.cbor").read_bytes()
    assert (tmp_path / "watch.cbor").read_bytes() == final
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID spynet" in checked.stdout, checked.stdout
    assert "forfeit" not in checked.stdout

    counted = f"seat {seat} {TALKS} lines"
    for p in (h, honest, w):
        out = p.output()
        assert TALK_TEXT not in out, p.name  # never shown
        assert "hello partner" not in out.replace("--say", ""), p.name
        assert re.search(rf"seat {seat}:? spoke while table talk is off \(SpyNet allows none "
                         rf"until the result\)", out), (p.name, out[-2000:])
        assert f"table talk said while it was off, dropped unread: {counted}" in out, \
            (p.name, out[-2000:])
    assert honest.output().count("says nothing: table talk is off in this game") == 2
    assert not list(tmp_path.glob("*.chat.cbor")) and not list(tmp_path.glob("**/chat.cbor")), \
        "nobody stored a word"

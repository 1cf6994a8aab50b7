"""A laptop that sleeps past the turn timeout (issue 22): its seat's process is stopped
(SIGSTOP, as a closed lid) while the game needs it, the others declare it absent, and when it
wakes it takes the abandon as every peer holds it (the votes against it stand: nothing is
rolled back, it signs nothing twice), is told so plainly, and follows the game to the same
transcript as everyone. A peer that comes back to find nobody left stops in bounded time and
says why. Real processes on loopback."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.transcript import Transcript
from spycraft.p2p.storage import GameStore
from tests.net.harness import Proc, audit, wait_all
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network
TIMEOUT = "6"


def abandoned(host: Proc) -> bool:
    """Whether the host's copy of the game holds an abandon."""
    paths = host.stored_transcripts()
    try:
        records = Transcript.from_bytes(paths[0].read_bytes()).records if paths else []
    except SpycraftError:
        return False  # caught mid-append: look again later
    return any(r.record.kind == "abandon" for r in records)


def test_a_laptop_that_sleeps_past_the_timeout_wakes_to_its_abandon_and_is_told_plainly(
    tmp_path: Path,
) -> None:
    h = host(tmp_path, "spynet", "--players", "3", timeout=TIMEOUT)
    table = h.table_id()
    peers = [bots(tmp_path, name, table, 1, "--think", "0.1", timeout=TIMEOUT)
             for name in ("alice", "bob", "carol")]
    sleeper = peers[1]
    deadline = time.monotonic() + 90
    while sleeper.records_stored() < 8:
        assert time.monotonic() < deadline, sleeper.output()
        time.sleep(0.1)
    sleeper.process.send_signal(signal.SIGSTOP)  # the lid closes
    # it sleeps until the others have declared it absent, and wakes while they still wait for it
    # to confirm the end (a turn timeout): woken later, it would find them gone and could only
    # say so, which the next test is about (what its sockets held by then is the kernel's luck)
    while not abandoned(h):
        assert time.monotonic() < deadline + 60, h.output()
        time.sleep(0.05)
    sleeper.process.send_signal(signal.SIGCONT)
    wait_all([h, *peers], 180)

    folder = sleeper.stored_transcripts()[0].parent
    final = (tmp_path / "host.cbor").read_bytes()
    assert (folder / "transcript.cbor").read_bytes() == final
    for name in ("alice", "carol"):
        assert next((tmp_path / name).glob("*.cbor")).read_bytes() == final
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID spynet" in checked.stdout, checked.stdout
    seat = int(folder.name.rsplit("seat", 1)[1])
    abandons = [r for r in Transcript.from_bytes(final).records if r.record.kind == "abandon"]
    assert [r.record.body["seat"] for r in abandons] == [seat], abandons
    said = sleeper.output()
    assert f"you were declared absent at record {abandons[0].seq}: no record of yours reached " \
           f"seats " in said, said
    assert "that stands (" in said and "Traceback" not in said, said
    own, _ = GameStore(folder).load_own()
    places = {}
    for (seq, prev), raw in own.items():
        assert places.setdefault((seq, prev), raw) == raw  # one record per place, ever


def test_a_seat_resumed_after_everyone_left_stops_in_bounded_time_and_says_why(
    tmp_path: Path,
) -> None:
    h = host(tmp_path, "spynet", "--players", "3", timeout="3")
    table = h.table_id()
    peers = [bots(tmp_path, name, table, 1, "--think", "0.1", timeout="3")
             for name in ("alice", "bob", "carol")]
    deadline = time.monotonic() + 90
    while peers[1].records_stored() < 6:
        assert time.monotonic() < deadline, peers[1].output()
        time.sleep(0.1)
    for p in (*peers, h):  # the evening is over: every laptop shut at once
        p.kill()
    before = peers[1].stored_transcripts()[0].read_bytes()
    started = time.monotonic()
    resumed = Proc("bob-resumed", ["resume", "--interface", LO, "--turn-timeout", "3"],
                   tmp_path, home=peers[1].home)
    assert resumed.wait(60) == 1, resumed.output()
    assert time.monotonic() - started < 40
    said = resumed.output()
    assert "no seat of this table has been linked for 1" in said, said  # 10 s and more
    assert "the others may have finished or left while this peer was away" in said, said
    assert "`spycraft resume` tries again" in said and "Traceback" not in said, said
    # what it held is kept (it may have written its own turn meanwhile: no one to send it to)
    assert peers[1].stored_transcripts()[0].read_bytes().startswith(before)


def test_a_joiner_asleep_while_the_genesis_is_signed_stops_the_table_in_one_line(
    tmp_path: Path,
) -> None:
    """Found by the chaos run (a host's link down while its seat signed): the opener waited
    60 s for the signature and ended in a traceback."""
    h = host(tmp_path, timeout=TIMEOUT)
    table = h.table_id()
    alice = bots(tmp_path, "alice", table, 1, timeout=TIMEOUT)
    h.wait_for("sat down", 60)
    alice.process.send_signal(signal.SIGSTOP)  # asleep before the roster comes
    bob = bots(tmp_path, "bob", table, 1, timeout=TIMEOUT)
    try:
        assert h.wait(120) == 1, h.output()
    finally:
        alice.process.send_signal(signal.SIGCONT)
    said = h.output()
    assert "Traceback" not in said, said
    assert "did not sign the genesis (no answer in 60 s): the table did not start" in said, said
    for peer in (alice, bob):  # what a joiner does next is the lobby's (docs/rulings.md)
        peer.kill()
        assert "Traceback" not in peer.output(), peer.output()

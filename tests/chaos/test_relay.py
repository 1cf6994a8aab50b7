"""A faulty relay between two seats (issue 22): a frame cut in the middle, as a flaky cable or
access point does, costs the link and a redial, never a forfeit or a fork. The resumed seat's
roster points at ``damaging_relay.py``, so its link to the other seat runs through it, and the
link it dials back after the cut goes through the relay again (which lets it pass). A seat that
cut a link for a bad frame and never dialed it again would leave two reachable seats each
waiting out the other, and both would claim the game."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.p2p.storage import GameStore
from tests.net.harness import Proc, audit, wait_all
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LO, 0))
        return int(probe.getsockname()[1])


def seat_of(proc: Proc) -> int | None:
    paths = proc.stored_transcripts()
    return int(paths[0].parent.name.rsplit("seat", 1)[1]) if paths else None


def test_a_frame_cut_by_a_faulty_relay_costs_a_redial_not_a_forfeit(tmp_path: Path) -> None:
    h = host(tmp_path, timeout="20")
    table = h.table_id()
    peers = [bots(tmp_path, name, table, 1, "--think", "0.1", timeout="20")
             for name in ("alice", "bob")]
    deadline = time.monotonic() + 60
    while min(p.records_stored() for p in peers) < 10:
        assert time.monotonic() < deadline, [p.output() for p in peers]
        time.sleep(0.1)
    higher = next(p for p in peers if seat_of(p) == 1)
    higher.kill()
    store = GameStore(higher.stored_transcripts()[0].parent)
    seat_file = store.load_seat()
    lower = seat_file.roster[0]
    relay = Proc("relay", ["--host", LO, "--to", f"{lower['host']}:{lower['port']}",
                           "--mode", "cut", "--rate", "0", "--direction", "from-target",
                           "--at", "3000"], tmp_path, module="tests.chaos.damaging_relay")
    relay.wait_for("listen ", 20)
    port = int(re.search(r"listen (\d+) ->", relay.output()).group(1))
    seat_file.roster[0] = dict(lower, host=LO, port=port)  # its dial now goes through the relay
    # and it listens elsewhere, so the lower seat's redial to its old port cannot link the two
    # first (it did, under load: the resumed seat found its link made and never dialed)
    seat_file.listen_port = free_port()
    store.save_seat(seat_file)

    resumed = Proc("resumed", ["resume", "--interface", LO], tmp_path, home=higher.home)
    others = [p for p in peers if p is not higher]
    wait_all([h, *others, resumed], 120)
    assert "cut conn 1 from-target at byte 3000" in relay.output(), relay.output()
    said = resumed.output()
    assert "bad frame: connection closed inside a frame" in said, said
    final = (tmp_path / "host.cbor").read_bytes()
    assert store.transcript_path.read_bytes() == final
    assert next((tmp_path / others[0].name).glob("*.cbor")).read_bytes() == final
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID spies-and-lies" in checked.stdout, checked.stdout
    kinds = {r.record.kind for r in Transcript.from_bytes(final).records}
    assert not kinds & {"abandon", "fraud"}, "a seat that stayed reachable forfeited"

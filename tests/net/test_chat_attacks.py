"""Table talk and spectators under attack, by real processes on loopback (issue 12).

One Spies & Lies game: a watching host, one honest bot seat and the ``chatter`` cheater seat
(``tests.net.cheater``), which lies in table talk (a chat equivocation, a burst over every
bucket, an over-long line, an escape sequence, a line in the other seat's name) and feeds every
observer linked to it a record forged in the other seat's name. Beside them a ``spycraft
watch`` spectator that dials the cheater first, and the ``spectator`` cheater, which has no
seat and tries to write a record, a chat message and an absence vote. The game must end as if
nothing had happened, the spectator must name the cheater and still follow the game to the
same audited transcript, and no escape byte may reach anyone's terminal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spycraft.crypto.chat import check_chat_log
from spycraft.crypto.transcript import Transcript
from tests.cli.person import unwrapped
from tests.net.harness import Proc, audit, wait_all
from tests.net.test_loopback import LO, bots, host, watch

pytestmark = pytest.mark.network

ESC = "\x1b"


def test_lies_in_table_talk_and_spectators_that_write_change_nothing_and_are_named(
    tmp_path: Path,
) -> None:
    h = host(tmp_path)
    table = h.table_id()
    seat = 1  # seats go in the order players sit down: the honest bot first
    w = watch(tmp_path, table, "--seat", str(seat))
    honest = bots(tmp_path, "honest", table, 1, "--think", "0.1")
    h.wait_for("sat down", 30)
    cheater = Proc("cheater", ["chatter", LO, str(tmp_path / "cheater.cbor"), table,
                               "--turn-timeout", "20"], tmp_path, module="tests.net.cheater")
    cheater.wait_for("seat ", 30)
    assert f"seat {seat}" in cheater.output()
    intruder = Proc("intruder", ["spectator", LO, str(tmp_path / "intruder.cbor"), table],
                    tmp_path, module="tests.net.cheater")
    wait_all([h, honest, w, intruder], 120)

    final = (tmp_path / "host.cbor").read_bytes()
    mine = next((tmp_path / "honest").glob("*[0-9].cbor"))
    assert mine.read_bytes() == final == (tmp_path / "watch.cbor").read_bytes()
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0, checked.stdout
    assert "VALID spies-and-lies" in checked.stdout and "forfeit" not in checked.stdout

    said = cheater.output()
    for attack in ("two things under one counter", "30 lines at once", "281-character line",
                   "escape sequence", "another seat's name", "fed an observer"):
        assert attack in said, said
    for p in (h, honest, w):
        assert ESC not in p.output(), p.name
    assert "chat equivocation" in h.output()
    seated = honest.output()  # a bot peer logs what it refused
    assert f"chat of seat {seat}: talks faster than every peer shows" in seated
    assert f"disconnecting seat {seat} (cheater-chatter): bad chat: chat message 30 of seat " \
           f"{seat}: the text is longer than 280 characters" in seated
    assert f"chat message 40 of seat {seat}: the text holds control characters" in seated
    assert f"chat message 50 of seat {1 - seat}: it is signed with seat {seat}'s key" in seated

    spectator = unwrapped(w.output())  # the line mode wraps at 80 columns
    assert re.search(rf"!! seat {seat} \(cheater-chatter\) sent what does not check "
                     rf"\(.*record \d+.*seat {1 - seat}", spectator), spectator
    assert "audit: VALID spies-and-lies" in spectator

    for frame in ("record", "chat", "absent"):
        assert f"{frame} frame: bye (an observer sends no {frame} frame" in intruder.output(), \
            intruder.output()

    genesis = Transcript.from_bytes(final).genesis.genesis
    for talk in (tmp_path / "host.chat.cbor", next((tmp_path / "honest").glob("*.chat.cbor"))):
        report = check_chat_log(talk.read_bytes(), genesis, len(Transcript.from_bytes(final)
                                                                 .records))
        assert report.valid, report.describe()
        assert [(a.seat, a.counter) for a, _ in report.equivocations] == [(seat, 10)]
        assert all(line.seat == seat for line in report.lines)

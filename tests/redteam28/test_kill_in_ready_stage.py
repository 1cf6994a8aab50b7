"""Red team 28: real ``kill -9`` at chosen moments of the forfeit path, then ``spycraft resume``.

Each seat of a 5-seat Resistance is its own ``bots`` process, run through
``tests.redteam28.killpoint`` (spycraft unchanged, which kills itself at one moment of its own
I/O). The seat named at a place after record 20 is frozen (SIGSTOP, past the turn timeout) so
the others abandon it; the victim, a voter that does not write the abandon, is killed -9 when
it is asked for its ``ready`` (before it signs it), or right after its ``ready`` is durable in
own.cbor but before any frame of it leaves; it resumes ``DELAY`` seconds later. These held on
the current code (no break): every honest transcript ends byte-identical, audits VALID, and no
process shows a traceback. Kept as coverage of the crash paths the earlier reviews reasoned
about only.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.transcript import Transcript
from spycraft.engines import registry
from tests.net.harness import Proc, audit
from tests.net.test_loopback import LO, host

pytestmark = pytest.mark.network

N = 5
T = "4"


def _seat(p: Proc) -> int | None:
    for d in p.home.glob("data/games/*-seat*"):
        return int(d.name.rsplit("seat", 1)[1])
    return None


def _state(p: Proc):
    paths = p.stored_transcripts()
    if not paths:
        return None, None
    try:
        t = Transcript.from_bytes(paths[0].read_bytes())
    except SpycraftError:
        return None, None
    table = registry.load(t.genesis.genesis.game).table()
    state = table.start(t.genesis)
    for r in t.records:
        state = table.apply(state, r)
    return table, state


def _run(tmp: Path, point: str, delay: float) -> None:
    h = host(tmp, "resistance", "--players", str(N), timeout=T)
    table = h.table_id(30)
    procs = []
    for i in range(N):
        env_point = point if i == 2 else ""
        os.environ["RT_POINT"] = env_point
        os.environ["RT_ACTION"] = "kill"
        procs.append(Proc(f"b{i}", ["bots", "--count", "1", "--out", str(tmp / f"b{i}"),
                                    "--interface", LO, "--table", table, "--turn-timeout", T,
                                    "--think", "0.4"], tmp, module="tests.redteam28.killpoint"))
    os.environ.pop("RT_POINT", None)
    victim = procs[2]
    frozen = None
    try:
        by_seat: dict[int, Proc] = {}
        deadline = time.monotonic() + 60
        while len(by_seat) < N:
            assert time.monotonic() < deadline
            for p in procs:
                s = _seat(p)
                if s is not None:
                    by_seat[s] = p
            time.sleep(0.1)
        vseat = _seat(victim)
        watcher = next(by_seat[s] for s in range(N) if s != vseat)
        deadline = time.monotonic() + 60
        while frozen is None:
            assert time.monotonic() < deadline, "no place to freeze a seat at"
            t, st = _state(watcher)
            if st is not None and st.seq >= 20:
                turn = t.expect(st)
                if (turn.kinds[0] != "beacon" and turn.seat not in (vseat, (vseat - 1) % N)
                        and by_seat[turn.seat] is not watcher):
                    frozen = by_seat[turn.seat]
                    frozen.process.send_signal(signal.SIGSTOP)
            time.sleep(0.01)
        victim.wait(60)
        assert "killpoint" in victim.output(), victim.output()
        time.sleep(delay)
        resumed = Proc("resumed", ["resume", "--interface", LO, "--turn-timeout", T], tmp,
                       home=victim.home)
        honest = [h, resumed, *(p for p in procs if p is not victim and p is not frozen)]
        for p in honest:
            assert p.wait(90) == 0, p.output()
        final = (tmp / "host.cbor").read_bytes()
        for p in honest[1:]:
            assert p.stored_transcripts()[0].read_bytes() == final, p.name
        checked = audit(tmp / "host.cbor")
        assert checked.returncode == 0 and "VALID resistance" in checked.stdout, checked.stdout
        for p in honest:
            assert "Traceback" not in p.output(), p.output()
    finally:
        if frozen is not None:
            frozen.process.send_signal(signal.SIGCONT)


@pytest.mark.parametrize("point, delay", [("ready:before", 1.0), ("ready:remembered", 1.0)])
def test_a_voter_killed_at_its_ready_resumes_and_the_table_agrees(tmp_path, point, delay):
    _run(tmp_path, point, delay)

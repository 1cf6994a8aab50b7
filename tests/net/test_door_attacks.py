"""Issue 18's attacks at the door, each by a real process at a real table on loopback.

The cheater of ``tests.net.door`` either sits at a 5-player Resistance (a watching host, the
cheater first, so seat 0, then four honest bot seats) or knocks at the seats of one as a
stranger. Every test asserts what ``p2p.wire``, ``p2p.handshake`` and ``p2p.session`` promise:
the honest peers finish with byte-identical transcripts that ``spycraft audit`` accepts, the
result is one of play (the cheater gains nothing: nobody forfeits, nobody is blamed), and, for
the memory attacks, an honest process grows by less than a stated bound.
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Self

import pytest

from spycraft.crypto.transcript import Transcript
from spycraft.engines.audit import AuditReport, audit_transcript
from tests.net.harness import Proc, audit, vm_rss, wait_all
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network

PLAYERS = 5
GAME_WAIT = 90
TIMEOUT = "5"


def _wait_seated(h: Proc, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while h.output().count("sat down") < count:
        assert time.monotonic() < deadline, h.output()
        time.sleep(0.05)


def seated_door(tmp: Path, mode: str, timeout: str = TIMEOUT,
                think: str = "0") -> tuple[Proc, list[Proc], Proc]:
    """A watching host, the cheater in seat 0, four honest bot seats in two processes (whose
    bots take ``think`` seconds a decision)."""
    h = host(tmp, "resistance", "--players", str(PLAYERS), timeout=timeout)
    table = h.table_id(30)
    cheater = Proc("door", [mode, LO, str(tmp / "door.cbor"), table, "--turn-timeout", timeout],
                   tmp, module="tests.net.door")
    _wait_seated(h, 1)
    honest = [bots(tmp, "honest-a", table, 2, "--think", think, timeout=timeout)]
    _wait_seated(h, 3)
    honest.append(bots(tmp, "honest-b", table, 2, "--think", think, timeout=timeout))
    cheater.wait_for("seat 0", 30)
    return h, honest, cheater


def finish(
    tmp: Path, everyone: list[Proc], cheater: Proc, limit: float = GAME_WAIT, *,
    players: int = PLAYERS, forfeits: tuple[int, ...] = (),
) -> tuple[Transcript, AuditReport]:
    """The honest peers end in time with one transcript, which the audit accepts, and a result
    of play: nobody forfeited (but the cheater's own seat, where ``forfeits`` allows it), so the
    cheater gained nothing."""
    try:
        wait_all(everyone, limit)
    finally:
        cheater.kill()
    files = [tmp / "host.cbor", *sorted(tmp.glob("honest-*/*.cbor"))]
    assert len(files) == players, files
    final = files[0].read_bytes()
    differing = [f.name for f in files if f.read_bytes() != final]
    assert not differing, f"honest transcripts differ from the host's: {differing}"
    checked = audit(files[0])
    assert checked.returncode == 0 and "VALID resistance" in checked.stdout, checked.stdout
    transcript = Transcript.from_bytes(final)
    report = audit_transcript(transcript)
    assert report.result is not None
    assert set(report.result.forfeits) <= set(forfeits), report.result.describe()
    if not report.result.forfeits:
        assert report.result.winner in ("resistance", "spies"), report.result.describe()
    for signed in transcript.records:
        if signed.record.kind in ("abandon", "fraud"):
            assert signed.record.kind == "abandon" and signed.record.body["seat"] in forfeits
    logs = "\n".join(p.output() for p in everyone)
    assert "Traceback" not in logs, logs
    return transcript, report


# --- 1. a relayed handshake ----------------------------------------------------------------


def test_a_relayed_handshake_opens_no_link_and_the_relayed_seat_plays_on(tmp_path: Path) -> None:
    h, honest, cheater = seated_door(tmp_path, "relay")
    cheater.wait_for("relays done", 60)
    out = cheater.output()
    relays = re.findall(r"relayed seat 1's hello to seat (\d): (.*)", out)
    assert sorted(int(seat) for seat, _ in relays) == [2, 3, 4], out
    assert not [outcome for _, outcome in relays if "ACCEPTED" in outcome], out
    finish(tmp_path, [h, *honest], cheater)
    logs = "\n".join(p.output() for p in honest)
    assert "connected again" not in logs, logs
    assert "no record from seat 1" not in logs, "the relayed seat was voted absent"


# --- 6. a stranger's CBOR --------------------------------------------------------------------


def _stranger(tmp: Path, mode: str, table: str, *extra: str) -> Proc:
    return Proc(mode, [mode, LO, str(tmp / f"{mode}.cbor"), table, *extra], tmp,
                module="tests.net.door")


def _until_done_or_over(attacker: Proc, done: str, honest: list[Proc], timeout: float) -> None:
    """Until the attacker says it is done, or the game is over (the attack ends with it)."""
    deadline = time.monotonic() + timeout
    while done not in attacker.output() and any(p.process.poll() is None for p in honest):
        assert time.monotonic() < deadline, attacker.output()
        time.sleep(0.1)

def honest_table(tmp: Path, timeout: str = TIMEOUT, think: str = "0.05") -> tuple[Proc, list[Proc]]:
    """A watching host and five honest bot seats (in two processes) that take their time."""
    h = host(tmp, "resistance", "--players", str(PLAYERS), timeout=timeout)
    table = h.table_id(30)
    honest = [bots(tmp, "honest-a", table, 3, "--think", think, timeout=timeout),
              bots(tmp, "honest-b", table, 2, "--think", think, timeout=timeout)]
    return h, honest


class Sampler:
    """The resident memory of some processes, sampled from /proc every 50 ms."""

    def __init__(self, procs: list[Proc]) -> None:
        self.procs = procs
        self.samples: dict[str, list[tuple[float, int]]] = defaultdict(list)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            for p in self.procs:
                rss = vm_rss(p.process.pid)
                if rss is not None:
                    self.samples[p.name].append((time.monotonic(), rss))
            time.sleep(0.05)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)

    def growth(self, since: float) -> dict[str, int]:
        """Per process: its peak after ``since`` minus its peak before, in bytes."""
        out = {}
        for name, series in self.samples.items():
            before = [rss for at, rss in series if at < since]
            after = [rss for at, rss in series if at >= since]
            assert before and after, (name, len(series))
            out[name] = max(after) - max(before)
            print(f"{name}: VmRSS {max(before) >> 20} MiB before, peak {max(after) >> 20} MiB "
                  f"after (+{out[name] / (1 << 20):.1f} MiB)")
        return out


def test_a_strangers_cbor_bombs_are_refused_cheaply_and_the_game_plays_on(tmp_path: Path) -> None:
    """Volleys of 24 connections to every seat, each opening with a 1 MiB array of a million
    empty maps (or a 1 MiB hello, or a header announcing 4 GiB): each is refused by its size
    before the handshake, so no seat's loop stalls and nobody is voted absent."""
    h, honest = honest_table(tmp_path)
    table = h.table_id(30)
    stranger = _stranger(tmp_path, "bomb", table, "--volleys", "2")
    stranger.wait_for("bombs done", 120)
    assert "found 5 seats in play" in stranger.output(), stranger.output()
    finish(tmp_path, [h, *honest], stranger, players=PLAYERS + 1)
    logs = "\n".join(p.output() for p in honest)
    assert "no record from seat" not in logs, logs
    assert re.search(r"refused a connection: frame of \d+ bytes exceeds the limit of \d+", logs), \
        logs


def test_a_seated_peers_cbor_bombs_cost_a_bounded_decode_and_its_link(tmp_path: Path) -> None:
    """After the handshake: a frame of a million empty maps and a record whose payload is one
    are refused by their item count before a value is built; the sender's links are closed and
    play goes on (the bomber itself may be voted absent while it is cut off)."""
    h, honest, cheater = seated_door(tmp_path, "bomb-seated")
    _until_done_or_over(cheater, "bombs done", [h, *honest], 90)
    assert "volley 1: sent every seat linked 12 x a record" in cheater.output(), cheater.output()
    finish(tmp_path, [h, *honest], cheater, forfeits=(0,))
    logs = "\n".join(p.output() for p in honest)
    assert "more CBOR items than" in logs, logs
    assert not re.search(r"no record from seat [1-4]", logs), logs


# --- 7. memory ---------------------------------------------------------------------------------


NO_READ_BOUND = 64 << 20
"""Growth of an honest process's resident memory while a peer asks and never reads, in bytes."""


def test_a_seat_that_never_reads_its_resends_grows_no_honest_process_beyond_a_bound(
    tmp_path: Path,
) -> None:
    h, honest, cheater = seated_door(tmp_path, "no-read", think="0.3")
    with Sampler([h, *honest]) as sampler:
        cheater.wait_for("not reading", 60)
        since = time.monotonic()
        _until_done_or_over(cheater, "no-read done", [h, *honest], 120)
    growth = sampler.growth(since)
    finish(tmp_path, [h, *honest], cheater, forfeits=(0,))
    assert all(g < NO_READ_BOUND for g in growth.values()), growth


def test_spectators_that_never_read_grow_no_seat_beyond_a_bound(tmp_path: Path) -> None:
    h, honest = honest_table(tmp_path, think="0.3")
    table = h.table_id(30)
    stranger = _stranger(tmp_path, "spectators", table)
    with Sampler([h, *honest]) as sampler:
        stranger.wait_for("found 5 seats", 60)
        since = time.monotonic()
        _until_done_or_over(stranger, "spectator links let in", [h, *honest], 120)
    growth = sampler.growth(since)
    finish(tmp_path, [h, *honest], stranger, players=PLAYERS + 1)
    assert all(g < NO_READ_BOUND for g in growth.values()), growth


# --- 8. the turn timeout is the table's ----------------------------------------------------


def test_every_joiner_waits_the_tables_turn_timeout_not_its_own(tmp_path: Path) -> None:
    """The host opens a table with a 3 s turn timeout; every joiner asks for 300 s of its own.
    Seat 0 stalls at its first team vote: the others vote it absent after the table's 3 s (with
    their own 300 s, the game could not end in time), and the audit names the table's value."""
    h = host(tmp_path, "resistance", "--players", str(PLAYERS), timeout="3")
    table = h.table_id(30)
    staller = Proc("door", ["stall", LO, str(tmp_path / "door.cbor"), table,
                            "--turn-timeout", "300"], tmp_path, module="tests.net.door")
    _wait_seated(h, 1)
    honest = [bots(tmp_path, "honest-a", table, 2, timeout="300")]
    _wait_seated(h, 3)
    honest.append(bots(tmp_path, "honest-b", table, 2, timeout="300"))
    staller.wait_for("stalling", 60)
    transcript, report = finish(tmp_path, [h, *honest], staller, 60, forfeits=(0,))
    assert report.result is not None and report.result.forfeits == (0,)
    assert transcript.genesis.genesis.turn_timeout_ms == 3_000
    logs = "\n".join(p.output() for p in honest)
    assert "no record from seat 0 in 3 s: voting it absent" in logs, logs
    checked = audit(tmp_path / "host.cbor")
    assert "turn timeout: 3 s (the table's, in the genesis)" in checked.stdout, checked.stdout

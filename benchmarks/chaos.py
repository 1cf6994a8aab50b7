"""Chaos on the LAN lab: every game played by bot peers across network-namespace hosts while a
seeded schedule of faults hits them, with every check of issue 22 made on every game.

    nice -n 10 .venv/bin/python benchmarks/chaos.py --seed 1 --faults 200
    .venv/bin/python benchmarks/chaos.py --seed 3 --faults 5 --turn-timeout 8     (a short run)
    .venv/bin/python benchmarks/chaos.py --seed 1 --faults 12 --plan              (the plan only)
    .venv/bin/python benchmarks/chaos.py --soak 50 --games spies-and-lies

It needs root (network namespaces, tmpfs mounts) and exits 0 exactly when every check held.

Theory of operation
-------------------
* **The lab.** ``tests/lab/netns-lab.sh`` builds ``--hosts`` hosts (network namespaces on one
  bridge) under a prefix of our own, ``chaos<pid>-``, on ``--net``; it is taken down in a
  ``finally``, and labs left by a runner that died are swept at the next start.
* **The plan** comes from ``--seed`` alone (``--plan`` prints it): rounds of one, two or five
  tables played at once on the same LAN; the tables take the games in turn, and each carries one
  to three faults drawn from a shuffled cycle of the kinds (so every kind comes round), each with
  its moment, target and duration. A seed reproduces the faults and when they strike; the games'
  secrets are fresh every run, as at a real table.
* **A table** is ``spycraft host GAME`` (a seatless opener, which keeps its own copy of the
  transcript) and one ``spycraft bots --count 1`` process per seat, spread over the hosts, each
  with its own ``SPYCRAFT_HOME``. The runner reads the host's stored transcript as it grows
  (records parsed, not checked) to know the phase of the game, and each home to know which seat
  each process got.
* **The faults** (``KINDS``): ``kill`` (SIGKILL at a moment: during genesis, a shuffle, a sealed
  step, the final reveal, while lingering, or any record; then ``spycraft resume`` after a down
  time under the turn timeout); ``torn`` (SIGKILL, then the transcript and ``own.cbor`` end with
  half an item, as a crash inside an append leaves them; resume); ``link-short``/``link-long``
  (a host's eth0 down for less / more than the turn timeout); ``pause-short``/``pause-long`` (a
  laptop that sleeps: every spycraft process of a host SIGSTOPped, then SIGCONT); ``shape`` (a
  host's link limited to 128 kbit/s - 1 Mbit/s, tbf); ``relay-flip``/``relay-cut`` (SIGKILL a
  seat and resume it with its roster pointing at a damaging relay on its own host,
  ``tests/chaos/damaging_relay.py``, which flips a bit in, or cuts, its first connection to
  each peer and half the later ones); ``disk-full`` (the seat's data folder is a small tmpfs
  from the start; at the moment a filler takes its free space, so an append fails with ENOSPC;
  the space comes back later and the seat is resumed if it stopped); ``version-lobby`` (a peer
  of the next protocol version, ``tests/chaos/other_version.py``, looks for the table while it
  is open) and ``version-resume`` (a killed seat resumed first by a spycraft of the next
  version, which must refuse and stop, then by the right one). Two and five tables at once
  are rounds of the plan.
* **The checks**, on every table: no traceback in any log, no process left running at the
  table's deadline (a hang), every exit as expected; the honest peers' stored transcripts are
  byte-identical and ``spycraft audit`` says VALID; a seat forfeits only if it was unreachable
  (killed, its host's link down, asleep, stopped by a full disk, refused for its version) while
  the place it was declared absent at was open; whatever a killed seat had in ``own.cbor`` at
  the kill is still there after, byte for byte, the final transcript holds that very record at
  each such place, and no ``own.cbor`` holds two records for one place; every process's
  resident memory stays under ``--max-rss``; a peer of another version never sits, names both
  versions and stops by itself. The table of faults and outcomes follows, then each failure.
* **Meeting again.** A table whose copies differ at its end while more than one of them is
  still open (an end on a claim its accused never confirmed stays open: docs/rulings.md) has
  every open copy resumed at once, as people who meet again would; it passes only if the copies
  are then one and the faults prove that the sides could not have met before (``meet``,
  ``proven_apart``). ``--rounds 7`` replays a round of the seed's plan on the same lab hosts.
* **Soak** (``--soak N``): N games in a row of one game by the same seats, each seat one
  long-lived process that plays them all (``chaos_soak.py``: the product's lobby and session,
  as ``spycraft bots`` runs them, in a loop), with memory and open files per process at the
  start and the end, and the data folder's size per game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.encoding import decode, read_sequence
from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.records import parse_record
from spycraft.engines import registry
from spycraft.p2p.storage import GameStore

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
LAB_SCRIPT = ROOT / "tests" / "lab" / "netns-lab.sh"
OTHER = ROOT / "tests" / "chaos" / "other_version.py"  # spycraft of another protocol version
RELAY = ROOT / "tests" / "chaos" / "damaging_relay.py"
PREFIX = "chaos"

GAMES: dict[str, int] = {  # game -> seats at its tables here
    "spies-and-lies": 2,
    "confusion": 2,
    "spynet": 4,
    "shady-agents": 4,
    "resistance": 5,
}
TYPICAL_RECORDS = {"spies-and-lies": 80, "confusion": 55, "spynet": 450, "shady-agents": 40,
                   "resistance": 140}
"""About how long each game's transcript is (selfplay), for faults placed at a fraction of it."""
BASE_SECONDS = {"spies-and-lies": 90, "confusion": 120, "spynet": 300, "shady-agents": 120,
                "resistance": 180}
"""A generous bound on a table without faults on a loaded machine (the hang deadline adds the
faults' own time and some turn timeouts to it)."""

KINDS = ("kill", "torn", "link-short", "link-long", "pause-short", "pause-long", "shape",
         "relay-flip", "relay-cut", "disk-full", "version-lobby", "version-resume")
KILL_MOMENTS = ("genesis", "shuffle", "sealed", "reveal", "linger", "any")
PHASES = {
    "shuffle": {"shuffle", "deck_shuffle", "mix", "assign", "recognition", "key_share",
                "deck_key"},
    "sealed": {"deal_tokens", "deck_tokens", "vote_commit", "mission_card", "deploy", "layout",
               "pile", "round_one", "round_two", "answer", "spy_tag", "tokens", "play_mission",
               "draft_pick", "end_deploy", "mission_shares"},
    "reveal": {"reveal", "final"},
}
RATES = ("128kbit", "256kbit", "512kbit", "1mbit")
DISK_BYTES = 4 << 20
OTHER_VERSION = PROTOCOL_VERSION + 1
ALONE = "no seat of this table has been linked for"
"""What a peer says when it stops because nobody is left to link (``p2p.session``)."""
DISK_STOP = "No space left on device (nothing half-written was kept)"
"""What a peer says when it stops for a full disk (``cli.lan``): if the table ends before the
disk has room again, that is where its copy stays."""


def now() -> float:
    return time.monotonic()


# --- the lab ------------------------------------------------------------------------------------


class Lab:
    """The hosts, by number 1..hosts; the switch is ``sw``."""

    def __init__(self, hosts: int, tmp: Path, net: str) -> None:
        self.hosts = hosts
        self.net = net
        self.prefix = f"{PREFIX}{os.getpid()}-"
        self.env = dict(os.environ, LAB_PREFIX=self.prefix, LAB_NET=net, LAB_QUIET="1",
                        LAB_LOCK=str(tmp / "lab.lock"))

    def script(self, *args: str, prefix: str | None = None) -> subprocess.CompletedProcess[str]:
        env = dict(self.env, LAB_PREFIX=prefix) if prefix else self.env
        return subprocess.run(["bash", str(LAB_SCRIPT), *args], env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    def up(self) -> None:
        self.sweep()
        made = self.script("up", str(self.hosts))
        if made.returncode != 0:
            raise SystemExit(f"chaos: netns-lab.sh up {self.hosts} failed:\n{made.stderr}")

    def down(self) -> None:
        self.script("down")

    def sweep(self) -> None:
        """Take down labs of earlier runners whose process is gone."""
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                                check=False).stdout
        dead = set()
        for line in listed.splitlines():
            found = re.match(rf"^{PREFIX}(\d+)-(sw|h\d+)\b", line)
            if found and not alive(int(found.group(1))):
                dead.add(found.group(1))
        for pid in sorted(dead):
            self.script("down", prefix=f"{PREFIX}{pid}-")

    def ns(self, host: int) -> str:
        return f"{self.prefix}h{host}"

    def addr(self, host: int) -> str:
        return f"{self.net}.{host}"

    def run(self, host: int, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", self.ns(host), *command],
                              capture_output=True, text=True, timeout=60, check=False)

    def link(self, host: int, up: bool) -> None:
        self.run(host, "ip", "link", "set", "eth0", "up" if up else "down")
        if up:  # taking a link down drops its routes; the lab's multicast route comes back too
            self.run(host, "ip", "route", "replace", "224.0.0.0/4", "dev", "eth0")

    def shape(self, host: int, rate: str | None) -> None:
        if rate is None:
            self.run(host, "tc", "qdisc", "del", "dev", "eth0", "root")
        else:
            self.run(host, "tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", rate,
                     "burst", "32kbit", "latency", "500ms")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- processes ----------------------------------------------------------------------------------


@dataclass
class Sample:
    rss: int  # bytes
    fds: int


class Proc:
    """One process in a lab host, its log in the run's folder, its memory sampled."""

    def __init__(self, lab: Lab, host: int, name: str, command: list[str], log: Path,
                 home: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.host = host
        self.log = log
        full_env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        if home is not None:
            full_env["SPYCRAFT_HOME"] = str(home)
        with open(log, "ab") as out:
            self.popen = subprocess.Popen(["ip", "netns", "exec", lab.ns(host), *command],
                                          cwd=ROOT, env=full_env, stdin=subprocess.DEVNULL,
                                          stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)
        self.started = now()
        self.ended: float | None = None
        self.code: int | None = None
        self.killed = False  # by us, on purpose
        self.paused = False
        self.samples: list[Sample] = []
        self.printed: dict[str, float] = {}  # a line we wait for -> when we first saw it

    @property
    def pid(self) -> int:
        return self.popen.pid

    def poll(self) -> int | None:
        if self.code is None:
            code = self.popen.poll()
            if code is not None:
                self.code, self.ended = code, now()
        return self.code

    @property
    def running(self) -> bool:
        return self.poll() is None

    def signal(self, sig: int) -> None:
        if self.running:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        if self.running:
            self.killed = True
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGKILL)
            self.popen.wait(timeout=30)
            self.poll()

    def sample(self) -> None:
        if not self.running or self.paused:
            return
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
            fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        if found:
            self.samples.append(Sample(int(found.group(1)) * 1024, fds))

    @property
    def max_rss(self) -> int:
        return max((s.rss for s in self.samples), default=0)

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""


def spycraft_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "spycraft", *args]


# --- the plan -----------------------------------------------------------------------------------


@dataclass
class Fault:
    kind: str
    target: int  # index of the seat process at the table (its seat number is known later)
    moment: str  # genesis | shuffle | sealed | reveal | linger | any | open
    fraction: float  # for "any": where in the game's typical length
    duration: float  # seconds down, asleep, shaped, full, or before the resume
    rate: str | None = None  # for shape
    # what happened (filled in as it runs)
    state: str = "planned"  # planned -> active -> done | skipped
    started: float | None = None
    ended: float | None = None
    records: int | None = None  # the host's records when it struck
    next_kind: str = ""
    seat: int | None = None
    host: int | None = None
    note: str = ""
    victim: Seat | None = None
    tried: bool = False  # version-resume: the other version's resume has run

    def describe(self) -> str:
        where = self.moment if self.moment != "any" else f"at {self.fraction:.0%}"
        extra = f" {self.rate}" if self.rate else ""
        return f"{self.kind}{extra} {where} {self.duration:.1f}s"


@dataclass
class TablePlan:
    game: str
    players: int
    faults: list[Fault]


def make_plan(seed: int, faults: int, games: list[str], timeout: float, clean: int,
              kinds: tuple[str, ...], at_once: list[int] | None, per_table: int = 3,
              seats: dict[str, int] | None = None) -> list[list[TablePlan]]:
    """Rounds of tables from the seed alone (see the module docstring); each table carries one
    to ``per_table`` faults; ``seats`` overrides a game's seats (``GAMES``)."""
    rng = random.Random(seed)
    players = dict(GAMES, **(seats or {}))
    cycle: list[str] = []
    tables: list[TablePlan] = []
    for game in games:  # a table of each game without faults, for the wall time without them
        for _ in range(clean):
            tables.append(TablePlan(game, players[game], []))
    left = faults
    turn = 0
    while left > 0:
        game = games[turn % len(games)]
        turn += 1
        count = min(left, per_table, rng.choice((1, 2, 2, 3)))
        chosen: list[Fault] = []
        for _ in range(count):
            if not cycle:
                cycle = list(kinds)
                rng.shuffle(cycle)
            chosen.append(make_fault(rng, cycle.pop(), players[game], timeout))
        left -= count
        tables.append(TablePlan(game, players[game], chosen))
    rounds: list[list[TablePlan]] = []
    sizes = list(at_once) if at_once else []
    while tables:
        if sizes:
            size = sizes.pop(0)
        else:
            size = rng.choices((1, 2, 5), weights=(6, 3, 1))[0]
        rounds.append(tables[:size])
        tables = tables[size:]
    return rounds


def make_fault(rng: random.Random, kind: str, players: int, timeout: float) -> Fault:
    target = rng.randrange(players)
    fraction = rng.uniform(0.05, 0.95)
    short, long = rng.uniform(0.2, 0.6) * timeout, rng.uniform(1.3, 2.0) * timeout
    if kind == "kill":
        moment = rng.choice(KILL_MOMENTS)
        return Fault(kind, target, moment, fraction, rng.uniform(0.0, 0.5) * timeout)
    if kind in ("torn", "relay-flip", "relay-cut", "version-resume"):
        return Fault(kind, target, "any", fraction, rng.uniform(0.0, 0.3) * timeout)
    if kind in ("link-short", "pause-short"):
        return Fault(kind, target, "any", fraction, short)
    if kind in ("link-long", "pause-long"):
        return Fault(kind, target, "any", fraction, long)
    if kind == "shape":
        return Fault(kind, target, "any", fraction, rng.uniform(0.5, 1.5) * timeout,
                     rate=rng.choice(RATES))
    if kind == "disk-full":
        return Fault(kind, target, "any", fraction, rng.uniform(0.3, 1.0) * timeout)
    if kind == "version-lobby":
        return Fault(kind, target, "open", 0.0, 0.0)
    raise ValueError(kind)


# --- reading what a peer stored -----------------------------------------------------------------


class TranscriptReader:
    """A transcript file as it grows: the kind and seat of each record, read incrementally."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.offset = 0
        self.genesis = False
        self.records: list[tuple[str, int]] = []  # (kind, seat)
        self.seen_at: list[float] = []  # when we first saw each record

    def read(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        if len(data) == 0 or self.path.stat().st_size < self.offset:
            if self.path.exists() and self.path.stat().st_size < self.offset:
                self.offset, self.genesis, self.records, self.seen_at = 0, False, [], []
            return
        items, _ = read_sequence(data)
        for raw in items:
            self.offset += len(raw)
            if not self.genesis:
                self.genesis = True
                continue
            try:
                signed = parse_record(raw)
            except (SpycraftError, ValueError):
                continue
            self.records.append((signed.record.kind, signed.seat))
            self.seen_at.append(now())

    @property
    def count(self) -> int:
        return len(self.records)

    @property
    def finished(self) -> bool:
        return bool(self.records) and self.records[-1][0] == "result"


def own_entries(path: Path) -> list[tuple[int, bytes, bytes]]:
    """(seq, prev, raw) of every whole item of an ``own.cbor`` (a torn tail is left out)."""
    if not path.exists():
        return []
    items, _ = read_sequence(path.read_bytes())
    entries = []
    for item in items:
        try:
            seq, prev, raw = decode(item)[:3]  # then the memo's change (p2p.storage)
        except (SpycraftError, ValueError, TypeError):
            break
        entries.append((seq, prev, raw))
    return entries


# --- a seat, a table ----------------------------------------------------------------------------


@dataclass
class Outage:
    """A stretch of time a seat could not be reached (its end: when it was back)."""

    start: float
    end: float | None
    why: str


@dataclass(eq=False)
class Seat:
    """A seat's processes in turn (the first, then each resume), its home and what befell it."""

    index: int  # among the table's seat processes
    host: int
    home: Path
    role: str = "seat"  # or "host"
    procs: list[Proc] = field(default_factory=list)
    reader: TranscriptReader = field(default_factory=lambda: TranscriptReader())
    own_before: list[list[tuple[int, bytes, bytes]]] = field(default_factory=list)
    disk: Path | None = None  # the tmpfs of its data folder
    filler: Path | None = None
    gone: bool = False  # nothing to resume: it never stored the genesis
    cut_off: bool = False  # away when the others finished: its copy stops short (it says so)
    expected_stop: str = ""  # why its last process may end otherwise than with 0

    @property
    def proc(self) -> Proc:
        return self.procs[-1]

    def outages(self, end: float) -> list[Outage]:
        """When this seat had no process in the game: from one process's end (killed, or
        stopped by itself) to the moment the next printed ``resuming table`` (or its end), and
        from a last process that stopped unfinished to ``end``."""
        found = []
        for before, after in zip(self.procs, self.procs[1:]):
            if before.ended is not None:
                back = after.printed.get("resuming table", after.ended or end)
                found.append(Outage(before.ended, back, "killed" if before.killed else
                                    "stopped"))
        last = self.procs[-1] if self.procs else None
        if last is not None and last.ended is not None and (last.killed or last.code != 0):
            found.append(Outage(last.ended, end, "stopped for good"))
        return found

    def folder(self, table: str | None) -> Path | None:
        if table is None:
            return None
        games = self.home / "data" / "games"
        if not games.is_dir():
            return None
        for folder in sorted(games.iterdir()):
            if folder.name.startswith(table) and (folder / "transcript.cbor").exists():
                return folder
        return None

    def seat_number(self, table: str | None) -> int | None:
        folder = self.folder(table)
        if folder is None:
            return None
        found = re.search(r"-seat(\d+)$", folder.name)
        return int(found.group(1)) if found else None


class Table:
    def __init__(self, run: Runner, number: int, plan: TablePlan, first_host: int) -> None:
        self.run = run
        self.number = number
        self.game = plan.game
        self.players = plan.players
        self.faults = plan.faults
        self.dir = run.tmp / f"t{number:03d}-{plan.game}"
        self.dir.mkdir(parents=True)
        hosts = run.lab.hosts
        self.host = Seat(-1, first_host, self.dir / "home-host", role="host")
        self.seats = [Seat(i, (first_host + i) % hosts + 1, self.dir / f"home-{i}")
                      for i in range(plan.players)]
        self.table_id: str | None = None
        self.reader = self.host.reader  # the host's copy: the phase of the game
        self.first_seen: list[float] = []  # when any peer first held k + 1 records
        self.started = now()
        self.ended: float | None = None
        self.deadline = self.started + BASE_SECONDS[plan.game] + sum(
            f.duration for f in plan.faults) + 6 * run.args.turn_timeout
        self.failures: list[str] = []
        self.notes: list[str] = []
        self.extra: list[Proc] = []  # version peers, relays
        self.result = ""
        self.started_game = False
        self.met = False  # the meeting again (``meet``) was considered
        self.meeting: list[Proc] = []  # the parties resumed to meet again
        self.apart = ""  # why the parties could not meet before (proven by the faults)
        self.parted: list[str] = []  # the copies that differed before the meeting

    # --- running ------------------------------------------------------------------------

    def net_args(self, verbose: bool = True) -> list[str]:
        """The options every peer gets (``-v``: its log tells the story; a version peer runs
        without, so what it says is what a person would see)."""
        a = self.run.args
        return ["--interface", "eth0", "--turn-timeout", f"{a.turn_timeout:g}",
                "--answer-delay", f"{a.answer_delay:g}", *(["-v"] if verbose else [])]

    def start(self) -> None:
        for seat in self.seats:
            if any(f.kind == "disk-full" and f.target == seat.index for f in self.faults):
                self.run.mount_tmpfs(seat)
        self.host.procs.append(Proc(
            self.run.lab, self.host.host, f"t{self.number}-host",
            spycraft_command("host", self.game, "--players", str(self.players),
                             "--out", str(self.dir / "host.cbor"), *self.net_args()),
            self.dir / "host.log", home=self.host.home))

    def open(self) -> bool:
        """Once the host printed its table id: the seats (and any version-lobby peer) start."""
        if self.table_id is not None:
            return True
        found = re.search(r"table ([0-9a-f]{32}) open on", self.host.proc.output())
        if not found:
            return False
        self.table_id = found.group(1)
        for fault in self.faults:
            if fault.kind == "version-lobby":
                self.strike(fault)
        for seat in self.seats:
            seat.procs.append(Proc(
                self.run.lab, seat.host, f"t{self.number}-p{seat.index}",
                spycraft_command("bots", "--count", "1", "--game", self.game,
                                 "--table", self.table_id, "--out", str(self.dir / "out"),
                                 "--think", f"{self.run.args.think:g}", "--wait", "60",
                                 *self.net_args()),
                self.dir / f"p{seat.index}.log", home=seat.home))
            time.sleep(0.05)
        return True

    def everyone(self) -> list[Seat]:
        return [self.host, *self.seats]

    def procs(self) -> list[Proc]:
        return [p for s in self.everyone() for p in s.procs] + self.extra

    def busy(self) -> bool:
        if any(f.state == "active" for f in self.faults):
            return True
        return any(p.running for s in self.everyone() for p in s.procs[-1:]) or any(
            p.running for p in self.extra if p.name.endswith("-version"))

    def tick(self) -> None:
        for seat in self.everyone():
            for proc in seat.procs:
                proc.poll()  # so each process's end is known to the tick
            if seat.reader.path is None:
                folder = seat.folder(self.table_id)
                if folder is not None:
                    seat.reader.path = folder / "transcript.cbor"
            seat.reader.read()
            while len(self.first_seen) < seat.reader.count:
                self.first_seen.append(now())
            if seat.reader.genesis:
                self.started_game = True
        for fault in self.faults:
            if fault.state == "planned" and self.due(fault):
                self.strike(fault)
            elif fault.state == "active":
                self.heal_if_due(fault)
        game_over = not any(p.running for s in self.everyone() for p in s.procs[-1:])
        if game_over:
            for fault in self.faults:
                if fault.state == "planned":
                    fault.state = "skipped"
                    fault.note = "the game ended first"

    def meet(self) -> bool:
        """The table is over but the copies differ and more than one of them is still open (a
        peer whose end rests on a claim its accused never confirmed keeps it open, and one cut
        off before the end stops unfinished: docs/rulings.md): the people meet again and run
        ``spycraft resume`` on every machine that holds an open copy, all at once. Whether they
        could have met before is judged from the faults alone (``apart``); the checks then
        hold the copies after the meeting. True if a meeting started."""
        if self.met or self.table_id is None:
            return False
        self.met = True
        files = self.final_transcripts()
        if len(set(files.values())) <= 1:
            return False
        open_ = [seat for seat in files if not self.marked_finished(seat)]
        if len({files[seat] for seat in open_}) < 2:
            return False  # one side's copies are closed: a meeting would find nobody
        groups: dict[bytes, list[Seat]] = defaultdict(list)
        for seat, data in files.items():
            groups[data].append(seat)
        self.parted = [f"{', '.join(self.who(s) for s in seats)}: {records_in(data)} records"
                       for data, seats in groups.items()]
        self.apart = self.proven_apart(list(groups.values()))
        for seat in open_:
            self.resume(seat, None)
            self.meeting.append(seat.proc)
        self.deadline = max(self.deadline, now() + 6 * self.run.args.turn_timeout)
        return True

    def marked_finished(self, seat: Seat) -> bool:
        folder = seat.folder(self.table_id)
        try:
            return folder is not None and GameStore(folder).load_seat().finished
        except (OSError, SpycraftError, ValueError, KeyError):
            return False

    def proven_apart(self, groups: list[list[Seat]]) -> str:
        """Why the holders of two copies could not have met before now, from the faults alone:
        for some pair of copies, the last seat holding one of them left while every party
        holding the other was unreachable (asleep, off the LAN, killed, stopped), so nobody
        could have told it anything (only a seat counts as the one that left: a seatless host
        sends no records, so a seat cannot learn another branch from it). "" if no pair is so
        proven (the peers could have met and agreed: a failure, whatever the meeting brings)."""
        t_end = now()
        for here in groups:
            seats = [s for s in here if s.role == "seat"]
            if not seats:
                continue
            left = max((s.proc.ended or t_end) for s in seats)
            for there in groups:
                if there is here:
                    continue
                away = {self.who(s): self.unreachable(s, left - 0.5, left + 0.5) for s in there}
                if all(away.values()):
                    return (f"the last of {', '.join(self.who(s) for s in seats)} left at "
                            f"{left - self.started:.1f} s, while " + "; ".join(
                                f"{who} was away ({', '.join(why)})"
                                for who, why in away.items()))
        return ""

    def due(self, fault: Fault) -> bool:
        r = self.reader
        if fault.moment == "open":
            return False  # struck in open()
        if fault.moment == "genesis":
            return any(s.folder(self.table_id) is not None for s in self.everyone())
        if fault.moment == "linger":
            return r.finished
        if r.finished:
            return False
        if fault.moment in PHASES:  # the phase began: the runner may see it only after a poll
            return any(record[0] in PHASES[fault.moment] for record in r.records)  # that missed it
        return r.count >= max(1, int(fault.fraction * TYPICAL_RECORDS[self.game]))

    def victim(self, fault: Fault) -> Seat:
        """The seat a fault strikes: for a phase, the one likely to write next; else its target."""
        if fault.moment == "genesis":
            waiting = [s for s in self.seats if s.folder(self.table_id) is None]
            if waiting:
                return waiting[fault.target % len(waiting)]
        if fault.moment in PHASES and self.reader.records:
            after = (self.reader.records[-1][1] + 1) % self.players
            for seat in self.seats:
                if seat.seat_number(self.table_id) == after:
                    return seat
        return self.seats[fault.target]

    def strike(self, fault: Fault) -> None:
        seat = self.victim(fault)
        fault.target = seat.index
        t = now()
        fault.state, fault.started, fault.records = "active", t, self.reader.count
        fault.seat, fault.host = seat.seat_number(self.table_id), seat.host
        run, lab = self.run, self.run.lab
        kind = fault.kind
        fault.victim = seat
        if kind in ("kill", "torn", "relay-flip", "relay-cut", "version-resume"):
            self.kill(seat, fault)
            if kind == "torn":
                fault.note = self.tear(seat)
        elif kind.startswith("link"):
            lab.link(seat.host, up=False)
            run.host_outage(seat.host, t, kind)
        elif kind.startswith("pause"):
            for proc in run.procs_on(seat.host):
                proc.paused = True
                proc.signal(signal.SIGSTOP)
            run.host_outage(seat.host, t, kind)
        elif kind == "shape":
            lab.shape(seat.host, fault.rate)
        elif kind == "disk-full":
            fault.note = run.fill(seat)
        elif kind == "version-lobby":
            fault.host = seat.host
            self.extra.append(Proc(
                lab, seat.host, f"t{self.number}-version",
                [sys.executable, str(OTHER), "bots", "--count", "1",
                 "--game", self.game, "--table", str(self.table_id), "--wait", "20",
                 *self.net_args(verbose=False)],
                self.dir / "version.log", home=self.dir / "home-version",
                env={"CHAOS_PROTOCOL_VERSION": str(OTHER_VERSION)}))
            fault.state, fault.ended = "done", t

    def kill(self, seat: Seat, fault: Fault) -> None:
        proc = seat.proc
        if not proc.running:
            fault.note = "already ended"
            return
        proc.kill()
        folder = seat.folder(self.table_id)
        seat.own_before.append(own_entries(folder / "own.cbor") if folder else [])
        fault.seat = seat.seat_number(self.table_id)
        if folder is None:
            fault.note = "killed before it stored the genesis"

    def tear(self, seat: Seat) -> str:
        """The files a crash inside an append leaves: half an item at the end of each."""
        folder = seat.folder(self.table_id)
        if folder is None:
            return "nothing stored to tear"
        torn = []
        host_items, _ = read_sequence(self.reader.path.read_bytes()) if self.reader.path else ([],
                                                                                            None)
        mine, _ = read_sequence((folder / "transcript.cbor").read_bytes())
        later = host_items[len(mine)] if len(host_items) > len(mine) else mine[-1]
        with open(folder / "transcript.cbor", "ab") as f:
            f.write(later[: max(1, len(later) // 2)])
        torn.append(f"transcript +{max(1, len(later) // 2)} B")
        own = folder / "own.cbor"
        if own.exists():
            items, _ = read_sequence(own.read_bytes())
            if items:
                with open(own, "ab") as f:
                    f.write(items[-1][: max(1, len(items[-1]) // 2)])
                torn.append(f"own +{max(1, len(items[-1]) // 2)} B")
        return "torn: " + ", ".join(torn)

    def heal_if_due(self, fault: Fault) -> None:
        assert fault.started is not None
        t = now()
        seat = fault.victim
        assert seat is not None
        run, lab = self.run, self.run.lab
        kind = fault.kind
        if t < fault.started + fault.duration:
            return
        if kind.startswith("link"):
            lab.link(seat.host, up=True)
            run.host_back(seat.host, t, kind)
        elif kind.startswith("pause"):
            for proc in run.procs_on(seat.host):
                proc.paused = False
                proc.signal(signal.SIGCONT)
            run.host_back(seat.host, t, kind)
        elif kind == "shape":
            lab.shape(seat.host, None)
        elif kind == "disk-full":
            if seat.filler is not None:
                seat.filler.unlink(missing_ok=True)
                seat.filler = None
            if not seat.proc.running and seat.proc.code != 0:
                seat.expected_stop = "disk full"
                fault.note += f"; the seat stopped ({self.stop_line(seat.proc)})"
                self.resume(seat, fault)
        elif kind == "version-resume" and not fault.tried:
            if seat.folder(self.table_id) is None:
                seat.gone = True
            else:
                fault.tried = True
                self.extra.append(Proc(
                    lab, seat.host, f"t{self.number}-p{seat.index}-version",
                    [sys.executable, str(OTHER), "resume",
                     *self.net_args(verbose=False)],
                    self.dir / f"p{seat.index}-version.log", home=seat.home,
                    env={"CHAOS_PROTOCOL_VERSION": str(OTHER_VERSION)}))
                return
        elif kind == "version-resume":
            other = self.extra[-1] if self.extra else None
            if other is not None and other.running:
                if t < fault.started + fault.duration + 30:
                    return
                other.kill()
                self.failures.append(f"{describe(fault)}: the resume of version {OTHER_VERSION} "
                                     f"did not stop by itself in 30 s")
            self.resume(seat, fault)
        elif kind in ("kill", "torn", "relay-flip", "relay-cut"):
            if fault.note == "already ended":
                pass
            elif seat.filler is not None:
                # its disk is full (a disk-full fault of this seat, not healed yet): nothing
                # can be written there, a relay's roster nor the resumed seat's records, until
                # it has room again (the long run, seed 2, table 56: the runner itself died
                # writing a relay's roster into the full tmpfs)
                return
            elif seat.proc.running:
                fault.note += "; resumed already, as its disk had room again"
            elif seat.folder(self.table_id) is None:
                seat.gone = True
                self.resume(seat, fault, expect_nothing=True)
            else:
                if kind.startswith("relay"):
                    fault.note = self.relay(seat, kind.removeprefix("relay-"))
                self.resume(seat, fault)
        fault.state, fault.ended = "done", now()

    def resume(self, seat: Seat, fault: Fault, expect_nothing: bool = False) -> None:
        seat.procs.append(Proc(
            self.run.lab, seat.host, f"t{self.number}-p{seat.index}-r{len(seat.procs)}",
            spycraft_command("resume", *self.net_args()),
            self.dir / f"p{seat.index}.log", home=seat.home))
        if expect_nothing:
            seat.expected_stop = "nothing to resume"

    def relay(self, seat: Seat, mode: str) -> str:
        """Point the killed seat's roster at a damaging relay on its own host, one port per
        other seat, before it resumes (its dials then go through the relay)."""
        folder = seat.folder(self.table_id)
        assert folder is not None
        store = GameStore(folder)
        seat_file = store.load_seat()
        targets = [(i, r["host"], r["port"]) for i, r in enumerate(seat_file.roster)
                   if i != seat_file.seat]
        count = sum(1 for p in self.extra if "relay" in p.name)  # a log of its own each
        proc = Proc(self.run.lab, seat.host, f"t{self.number}-relay{seat.index}-{count}",
                    [sys.executable, str(RELAY), "--host",
                     self.run.lab.addr(seat.host), "--mode", mode,
                     "--seed", str(self.run.rng.randrange(1 << 30)),
                     *[a for _, h, p in targets for a in ("--to", f"{h}:{p}")]],
                    self.dir / f"relay{seat.index}-{count}.log")
        self.extra.append(proc)
        deadline = now() + 20
        ports: dict[str, int] = {}
        while now() < deadline and any(f"{h}:{p}" not in ports for _, h, p in targets):
            for line in proc.output().splitlines():
                found = re.match(r"listen (\d+) -> (\S+)$", line)
                if found:
                    ports[found.group(2)] = int(found.group(1))
            time.sleep(0.05)
        if any(f"{h}:{p}" not in ports for _, h, p in targets):
            self.failures.append(f"relay for seat {seat_file.seat} did not start:\n"
                                 f"{proc.output()}")
            return "relay did not start"
        for i, host, port in targets:
            seat_file.roster[i]["host"] = self.run.lab.addr(seat.host)
            seat_file.roster[i]["port"] = ports[f"{host}:{port}"]
        store.save_seat(seat_file)
        return f"{mode} relay to {len(targets)} seats"

    @staticmethod
    def stop_line(proc: Proc) -> str:
        lines = [line for line in proc.output().splitlines() if line.startswith("spycraft")]
        return lines[-1] if lines else f"exit {proc.code}"

    def stop(self, why: str) -> None:
        for proc in self.procs():
            if proc.running:
                proc.signal(signal.SIGCONT)
                proc.kill()
                if not proc.name.count("relay"):
                    self.failures.append(f"{proc.name} still running {why}:\n"
                                         f"{tail(proc.output())}")
        for fault in self.faults:
            if fault.state == "active":
                self.heal_now(fault)

    def heal_now(self, fault: Fault) -> None:
        seat = fault.victim
        assert seat is not None
        if fault.kind.startswith("link"):
            self.run.lab.link(seat.host, up=True)
        elif fault.kind.startswith("pause"):
            for proc in self.run.procs_on(seat.host):
                proc.paused = False
                proc.signal(signal.SIGCONT)
        elif fault.kind == "shape":
            self.run.lab.shape(seat.host, None)
        fault.state, fault.ended = "done", now()

    # --- checking -----------------------------------------------------------------------

    def check(self) -> None:
        self.ended = self.ended or now()
        for proc in self.procs():
            out = proc.output()
            if "Traceback (most recent call last)" in out:
                self.failures.append(f"{proc.name} crashed (traceback in its log):\n"
                                     f"{tail(out, 30)}")
        if self.table_id is None:
            self.failures.append(f"the host never opened its table:\n"
                                 f"{tail(self.host.proc.output())}")
            return
        self.check_version_peers()
        files = self.final_transcripts()
        if self.host.folder(self.table_id) is None and self.faults and all(
                records_in(data) == 0 for data in files.values()):
            # the genesis was never completed at the opener (a fault hit the lobby): a seat that
            # got every signature may hold it alone and says it stopped with nobody linked
            self.started_game = False
            self.notes.append("the table did not start: the genesis was not completed at the "
                              f"opener ({len(files)} seats held it alone)")
            files = {}
        reference = self.reference(files)
        self.check_exits()
        if reference is None:
            self.result = "not started"
            if self.started_game:
                self.failures.append("a genesis was stored but no transcript survived")
            return
        held = sum(1 for data in files.values() if data == reference)
        if self.meeting:
            together = all(data == reference for data in files.values())
            story = (f"the copies differed when the table ended ({'; '.join(self.parted)}); "
                     f"{len(self.meeting)} open copies resumed at once (meeting again): "
                     f"{'now one' if together else 'still not one'}")
            if self.apart:
                self.notes.append(f"{story}; apart for good before: {self.apart}")
            else:
                self.failures.append(f"{story}; but the faults do not prove that they could not "
                                     f"have met before")
        for seat, data in files.items():
            if data == reference or seat.cut_off:
                continue
            self.failures.append(f"{self.who(seat)}'s transcript ({records_in(data)} records) "
                                 f"differs from the one {held} peers hold "
                                 f"({records_in(reference)} records)")
        (self.dir / "final.cbor").write_bytes(reference)
        audited = subprocess.run(spycraft_command("audit", str(self.dir / "final.cbor")),
                                 cwd=ROOT, capture_output=True, text=True, timeout=600,
                                 check=False)
        verdict = audited.stdout.strip().splitlines()
        self.result = " / ".join(line.strip() for line in verdict[:2])
        if audited.returncode != 0 or not audited.stdout.startswith(f"VALID {self.game}"):
            self.failures.append(f"audit of the transcript {held} peers hold:\n{audited.stdout}"
                                 f"{audited.stderr}")
        self.check_forfeits(reference)
        self.check_own(reference)
        limit = self.run.args.max_rss << 20
        for proc in self.procs():
            if proc.max_rss > limit:
                self.failures.append(f"{proc.name} used {proc.max_rss >> 20} MiB (limit "
                                     f"{self.run.args.max_rss})")

    def reference(self, files: dict[Seat, bytes]) -> bytes | None:
        """The transcript most peers hold (the longest among equals), or None if nobody stored
        one; a peer whose copy is a cut of it and who stopped saying that nobody was left to
        link (it was away when the others finished) or that its disk was full is marked
        ``cut_off``."""
        if not files:
            return None
        counts = Counter(files.values())
        reference = max(counts, key=lambda data: (counts[data], len(data)))
        for seat, data in files.items():
            out = seat.proc.output()
            if data != reference and self.parted_at_its_absence(seat, data, reference) \
                    and (ALONE in out or DISK_STOP in out):
                away = self.unreachable(seat, self.started, self.ended or now())
                if away:
                    seat.cut_off = True
                    self.notes.append(f"{self.who(seat)} was away when the game ended "
                                      f"({', '.join(away)}); it said so, its copy stops at "
                                      f"record {records_in(data)}")
        return reference

    def parted_at_its_absence(self, seat: Seat, data: bytes, reference: bytes) -> bool:
        """Whether ``data`` is the table's ``reference`` up to where the others declared
        ``seat`` absent: a cut of it, or one that parts from it no earlier than that abandon (a
        seat cut off writes its own turn, or claims the game, at the place the others wrote the
        abandon; before it, a difference is a fork)."""
        if reference.startswith(data):
            return True
        mine, _ = read_sequence(data)
        theirs, _ = read_sequence(reference)
        parted = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                      min(len(mine), len(theirs)))
        number = seat.seat_number(self.table_id)
        for raw in theirs[1:]:
            signed = parse_record(raw)
            body = signed.record.body
            if signed.record.kind == "abandon" and isinstance(body, dict) and \
                    body.get("seat") == number:
                return parted >= signed.seq  # item i is record i (the genesis is item 0)
        return False

    def who(self, seat: Seat) -> str:
        if seat.role == "host":
            return "the host"
        return f"seat {seat.seat_number(self.table_id)} (p{seat.index})"

    def final_transcripts(self) -> dict[Seat, bytes]:
        files: dict[Seat, bytes] = {}
        for seat in self.everyone():
            folder = seat.folder(self.table_id)
            if folder is not None:
                files[seat] = (folder / "transcript.cbor").read_bytes()
        return files

    def check_exits(self) -> None:
        for seat in self.everyone():
            last = seat.proc
            if last.killed:
                continue
            out = last.output()
            if last.code == 0 or seat.cut_off:
                continue
            if seat.expected_stop == "nothing to resume" and "no unfinished game" in out:
                continue
            if "no unfinished game" in out and self.holds_result(seat):
                continue  # killed after its result was stored: nothing left to resume
            if not self.started_game and re.search(rf"^spycraft: .+|found no open table|{ALONE}",
                                                   out,
                                                   re.MULTILINE):
                continue
            self.failures.append(f"{last.name} exited with {last.code}:\n{tail(out)}")

    def holds_result(self, seat: Seat) -> bool:
        folder = seat.folder(self.table_id)
        if folder is None:
            return False
        items, _ = read_sequence((folder / "transcript.cbor").read_bytes())
        try:
            return len(items) > 1 and parse_record(items[-1]).record.kind == "result"
        except (SpycraftError, ValueError):
            return False

    def check_version_peers(self) -> None:
        for fault in self.faults:
            if fault.kind not in ("version-lobby", "version-resume") or fault.state == "skipped":
                continue
            name = "-version"
            peers = [p for p in self.extra if p.name.endswith(name)]
            if fault.kind == "version-resume":
                peers = [p for p in peers if "-p" in p.name]
            else:
                peers = [p for p in peers if "-p" not in p.name]
            for proc in peers:
                out = proc.output()
                if proc.running:
                    continue
                if not (re.search(rf"\b{PROTOCOL_VERSION}\b", out) and
                        re.search(rf"\b{OTHER_VERSION}\b", out) and "version" in out):
                    self.failures.append(f"{describe(fault)}: the version-{OTHER_VERSION} peer "
                                         f"never said which versions differ:\n{tail(out)}")
                if proc.code == 0:
                    self.failures.append(f"{describe(fault)}: the version-{OTHER_VERSION} peer "
                                         f"ended with 0:\n{tail(out)}")
                home = self.dir / "home-version"
                if fault.kind == "version-lobby" and (home / "data" / "games").exists() and any(
                        (home / "data" / "games").iterdir()):
                    self.failures.append(f"{describe(fault)}: the version-{OTHER_VERSION} peer "
                                         f"took a seat")

    def check_forfeits(self, data: bytes) -> None:
        items, _ = read_sequence(data)
        records = [parse_record(raw) for raw in items[1:]]
        by_seat = {s.seat_number(self.table_id): s for s in self.seats}
        seen = self.first_seen
        for signed in records:
            if signed.record.kind not in ("abandon", "fraud"):
                continue
            body = signed.record.body
            accused = body.get("seat") if isinstance(body, dict) else None
            if signed.record.kind == "fraud":
                self.failures.append(f"a fraud record at {signed.seq} by seat {signed.seat} "
                                     f"(no seat cheats in this run)")
                continue
            seq = signed.seq  # the place opened when the host saw the record before it
            opened = seen[seq - 2] if 2 <= seq <= len(seen) else self.started
            closed = seen[seq - 1] if seq - 1 < len(seen) else self.ended or now()
            # The voters waited a turn timeout from when they saw the place open: the place was
            # open for them that long even if the accused's record existed somewhere earlier
            # (a laptop that went to sleep right after its record reached the seatless host
            # only, which passes no record on: seed 7, table 2, paused 0.2 s after "closed").
            closed = max(closed, opened + self.run.args.turn_timeout + 2.0)
            seat = by_seat.get(accused)
            why = self.unreachable(seat, opened - 2.0, closed) if seat else []
            # A claim (one party's word: every abandon at two seats, or one the result names
            # as claimed by its writer) makes no side lose; written by a seat that was itself
            # cut off, it is the rules' answer to a LAN that split the table (docs/rulings.md).
            claimer = by_seat.get(signed.seat)
            claim = self.players == 2 or f"claimed by seat {signed.seat}" in str(
                records[-1].record.body if records[-1].record.kind == "result" else "")
            cut_off = self.unreachable(claimer, opened - 2.0, closed) if claim and claimer else []
            if why:
                self.notes.append(f"seat {accused} declared absent at record {seq} "
                                  f"({', '.join(why)})")
            elif cut_off:
                self.notes.append(f"seat {accused} claimed absent at record {seq} by seat "
                                  f"{signed.seat}, itself cut off ({', '.join(cut_off)}): a "
                                  f"claim, no side loses")
            else:
                self.failures.append(f"seat {accused} declared absent at record {seq} though "
                                     f"reachable from {opened - self.started:.1f} s to "
                                     f"{closed - self.started:.1f} s")

    def unreachable(self, seat: Seat, start: float, end: float) -> list[str]:
        found = []
        outages = seat.outages(self.ended or now()) + self.run.host_outages.get(seat.host, [])
        for outage in outages:
            o_end = outage.end if outage.end is not None else end
            if outage.start < end and o_end > start and o_end - outage.start >= 2.0:
                found.append(f"{outage.why} {outage.start - self.started:.1f}-"
                             f"{o_end - self.started:.1f} s")
        if seat.gone:
            found.append("never came back")
        return found

    def check_own(self, data: bytes) -> None:
        items, _ = read_sequence(data)
        final = {}
        for raw in items[1:]:
            signed = parse_record(raw)
            final[(signed.seq, signed.record.prev)] = (signed.seat, raw)
        for seat in self.seats:
            folder = seat.folder(self.table_id)
            if folder is None:
                continue
            after = own_entries(folder / "own.cbor")
            places: dict[tuple[int, bytes], bytes] = {}
            for seq, prev, raw in after:
                if places.get((seq, prev), raw) != raw:
                    self.failures.append(f"seat {seat.seat_number(self.table_id)} signed two "
                                         f"records for place {seq}")
                places[(seq, prev)] = raw
            for before in seat.own_before:
                for seq, prev, raw in before:
                    if places.get((seq, prev)) != raw:
                        self.failures.append(f"seat {seat.seat_number(self.table_id)}: its "
                                             f"record {seq} from before the kill is gone from "
                                             f"own.cbor or changed")
                    held = final.get((seq, prev))
                    if held is not None and held[1] != raw and held[0] == seat.seat_number(
                            self.table_id):
                        self.failures.append(f"seat {seat.seat_number(self.table_id)}: record "
                                             f"{seq} in the transcript differs from what it "
                                             f"signed before the kill")

    @property
    def wall(self) -> float:
        return (self.ended or now()) - self.started


def records_in(data: bytes) -> int:
    items, _ = read_sequence(data)
    return max(0, len(items) - 1)


def describe(fault: Fault) -> str:
    seat = f"seat {fault.seat} (p{fault.target})" if fault.seat is not None else \
        f"p{fault.target}"
    return f"{fault.kind} of {seat} on h{fault.host}"


def tail(text: str, lines: int = 12) -> str:
    return "\n".join("    " + line for line in text.splitlines()[-lines:])


# --- the runner ---------------------------------------------------------------------------------


class Runner:
    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args = args
        self.tmp = tmp
        self.lab = Lab(args.hosts, tmp, args.net)
        self.rng = random.Random(args.seed ^ 0x5EED)
        self.tables: list[Table] = []
        self.host_outages: dict[int, list[Outage]] = defaultdict(list)
        self.mounts: list[Path] = []
        self.live: list[Table] = []
        self.crashed = ""  # the runner's own traceback, if it failed
        self.plan: list[list[TablePlan]] = []  # the seed's whole plan (table numbers)

    # --- shared by tables ------------------------------------------------------------------

    def procs_on(self, host: int) -> list[Proc]:
        return [p for t in self.live for p in t.procs() if p.host == host and p.running]

    def host_outage(self, host: int, start: float, why: str) -> None:
        self.host_outages[host].append(Outage(start, None, why))

    def host_back(self, host: int, end: float, why: str) -> None:
        """The fault ``why`` of ``host`` healed: the outages of its family end (a link brought
        up is up, a SIGCONT wakes every process), not the others of the host (the long run of
        seed 6, table 140: a pause healed while the same host's link stayed down 3 s more, and
        closing both made a seat that was still off the LAN look reachable)."""
        family = why.split("-")[0]
        for outage in self.host_outages[host]:
            if outage.end is None and outage.why.split("-")[0] == family:
                outage.end = end

    def mount_tmpfs(self, seat: Seat) -> None:
        data = seat.home / "data"
        data.mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES},mode=0700", "tmpfs",
                        str(data)], check=True, capture_output=True)
        self.mounts.append(data)
        seat.disk = data

    def fill(self, seat: Seat) -> str:
        """Take every free byte of the seat's tmpfs, so its next append fails with ENOSPC."""
        assert seat.disk is not None
        seat.filler = seat.disk / "filler"
        written = 0
        fd = os.open(seat.filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            for size in (65536, 4096, 512, 64, 1):
                try:
                    while True:
                        written += os.write(fd, b"\0" * size)
                except OSError:
                    continue
        finally:
            os.close(fd)
        return f"filled {written >> 10} KiB"

    def unmount_all(self) -> None:
        """Unmount the small disks, keeping what they held beside them (``data.kept``)."""
        for path in self.mounts:
            shutil.copytree(path, path.with_name("data.kept"), dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("filler"))
            subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)
        self.mounts.clear()

    # --- rounds ---------------------------------------------------------------------------

    def play(self, rounds: list[list[TablePlan]], numbers: list[int] | None = None) -> None:
        """Play the rounds (``numbers``: each one's number in the seed's plan, 1 first)."""
        budget_end = now() + self.args.budget
        for index, tables in enumerate(rounds):
            round_number = (numbers[index] if numbers else index + 1) - 1
            number = sum(len(r) for r in (self.plan or rounds)[:round_number])
            if now() > budget_end:
                print(f"chaos: the time budget ({self.args.budget:g} s) is spent; "
                      f"{len(rounds) - index} rounds left unplayed", flush=True)
                break
            self.live = []
            for plan in tables:
                table = Table(self, number, plan, first_host=number % self.lab.hosts + 1)
                number += 1
                self.live.append(table)
                self.tables.append(table)
            try:
                self.play_round(round_number)
            except Exception:  # noqa: BLE001 (a bug of the runner's: report what ran, and fail)
                self.tables = [t for t in self.tables if t not in self.live or t.result]
                self.crashed = traceback.format_exc()
                print(f"chaos: the runner failed in round {round_number + 1}:\n"
                      f"{self.crashed}", flush=True)
                break

    def play_round(self, round_number: int) -> None:
        live = self.live
        names = ", ".join(f"{t.game} [{', '.join(f.describe() for f in t.faults) or 'no fault'}]"
                          for t in live)
        print(f"round {round_number + 1}: {names}", flush=True)
        for table in live:
            table.start()
        last_sample = 0.0
        try:
            while True:
                t = now()
                for table in live:
                    if table.table_id is None and not table.open():
                        if not table.host.proc.running or t > table.started + 60:
                            table.stop("before its table opened")
                            table.ended = t
                        continue
                    if table.ended is None:
                        table.tick()
                        self.note_prints(table)
                        if not table.busy() and not table.meet():
                            table.ended = now()
                        elif t > table.deadline:
                            table.stop(f"at its deadline ({table.deadline - table.started:.0f} s)")
                            table.ended = now()
                if t - last_sample >= 1.0:
                    last_sample = t
                    for table in live:
                        for proc in table.procs():
                            proc.sample()
                if all(table.ended is not None for table in live):
                    break
                time.sleep(0.1)
        finally:
            for table in live:
                for proc in table.extra:
                    if proc.running and "relay" in proc.name:
                        proc.signal(signal.SIGTERM)
                for proc in table.procs():
                    if proc.running:
                        proc.kill()
        try:
            for table in live:
                table.check()
                status = "ok" if not table.failures else f"FAILED ({len(table.failures)})"
                print(f"  table {table.number} {table.game}: {table.wall:.0f} s, {table.result}; "
                      f"{status}", flush=True)
                for note in table.notes:
                    print(f"    {note}", flush=True)
        finally:
            self.unmount_all()  # after the checks: a small disk holds a seat's files

    def note_prints(self, table: Table) -> None:
        """When a resumed process printed ``resuming table`` (the end of its seat's outage)."""
        for seat in table.everyone():
            for proc in seat.procs[1:]:
                if proc.running and "resuming table" not in proc.printed and \
                        "resuming table" in proc.output():
                    proc.printed["resuming table"] = now()

    # --- the report -----------------------------------------------------------------------

    def report(self) -> int:
        faults = [f for t in self.tables for f in t.faults]
        injected = [f for f in faults if f.state == "done"]
        print()
        print(f"chaos: seed {self.args.seed}, {len(self.tables)} tables on {self.lab.hosts} lab "
              f"hosts, turn timeout {self.args.turn_timeout:g} s, {len(injected)} faults "
              f"injected ({len(faults) - len(injected)} not: the game ended first)")
        print()
        print("| fault | moment | injected | tables ok | tables failed |")
        print("|---|---|---|---|---|")
        rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        for table in self.tables:
            for fault in table.faults:
                moment = fault.moment if fault.kind == "kill" else "-"
                row = rows[(fault.kind, moment)]
                if fault.state == "done":
                    row[0] += 1
                    row[1 if not table.failures else 2] += 1
        for (kind, moment), (count, ok, bad) in sorted(rows.items()):
            print(f"| {kind} | {moment} | {count} | {ok} | {bad} |")
        print()
        print("| game | tables | with faults | ok | failed | finished | forfeits | "
              "not started | wall s, no fault | wall s, faults |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for game in GAMES:
            tables = [t for t in self.tables if t.game == game]
            if not tables:
                continue
            clean = [t.wall for t in tables if not t.faults]
            faulty = [t.wall for t in tables if t.faults]
            forfeits = sum(len([n for n in t.notes if "declared absent" in n]) for t in tables)
            print(f"| {game} | {len(tables)} | {len(faulty)} | "
                  f"{sum(1 for t in tables if not t.failures)} | "
                  f"{sum(1 for t in tables if t.failures)} | "
                  f"{sum(1 for t in tables if t.result.startswith('VALID'))} | {forfeits} | "
                  f"{sum(1 for t in tables if t.result == 'not started')} | "
                  f"{figure(clean)} | {figure(faulty)} |")
        rss = [p.max_rss for t in self.tables for p in t.procs() if p.samples]
        if rss:
            print()
            print(f"memory: the largest resident set of any process was {max(rss) >> 20} MiB "
                  f"(median of the processes' peaks {statistics.median(rss) / (1 << 20):.0f} "
                  f"MiB; limit {self.args.max_rss} MiB)")
        failed = [t for t in self.tables if t.failures]
        if self.args.verbose or failed:
            print()
            for table in self.tables:
                if not (self.args.verbose or table.failures):
                    continue
                print(f"table {table.number} ({table.game}, {table.dir}):")
                for fault in table.faults:
                    at = (f"record {fault.records}" if fault.records is not None else "")
                    print(f"  {fault.state:7} {describe(fault)}: {fault.describe()} {at} "
                          f"{fault.note}")
                for failure in table.failures:
                    print(f"  FAILED: {failure}")
        print()
        if self.crashed:
            print("chaos: the runner itself failed (above); the tables it checked are reported")
            return 1
        if failed:
            print(f"chaos: {len(failed)} of {len(self.tables)} tables failed a check")
            return 1
        print(f"chaos: every check held on all {len(self.tables)} tables")
        return 0


def figure(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.0f} (max {max(values):.0f})"


def print_plan(rounds: list[list[TablePlan]]) -> None:
    for number, tables in enumerate(rounds):
        print(f"round {number + 1}:")
        for plan in tables:
            faults = "; ".join(f"{f.describe()} (process {f.target})" for f in plan.faults)
            print(f"  {plan.game} ({plan.players} seats): {faults or 'no fault'}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Chaos on the LAN lab (issue 22); see the module "
                                "docstring.")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--faults", type=int, default=12, help="faults to plan in all")
    p.add_argument("--games", default=",".join(GAMES),
                   help=f"comma list, in turn (default all: {','.join(GAMES)})")
    p.add_argument("--hosts", type=int, default=4, help="lab hosts")
    p.add_argument("--kinds", default=",".join(KINDS), help="fault kinds to draw from")
    p.add_argument("--at-once", default=None,
                   help="tables per round, comma list (default: drawn, mostly 1, some 2 and 5)")
    p.add_argument("--per-table", type=int, default=3, help="most faults at one table")
    p.add_argument("--seats", default="",
                   help="seats of a game instead of its default here, e.g. spynet=2,shady-agents=5")
    p.add_argument("--clean", type=int, default=1,
                   help="tables of each game without faults (the wall time without them)")
    p.add_argument("--turn-timeout", type=float, default=20.0)
    p.add_argument("--think", type=float, default=0.05, help="seconds a bot thinks")
    p.add_argument("--answer-delay", type=float, default=0.2)
    p.add_argument("--max-rss", type=int, default=400, help="MiB a process may hold")
    p.add_argument("--budget", type=float, default=4 * 3600,
                   help="seconds; no new round starts after them")
    p.add_argument("--net", default="10.91.0")
    p.add_argument("--keep", default=None, help="keep logs and homes in this folder")
    p.add_argument("--plan", action="store_true", help="print the plan and stop")
    p.add_argument("--rounds", default="",
                   help="play only these rounds of the plan, e.g. 7 or 3-5,9 (to reproduce one)")
    p.add_argument("--json", default=None, help="also write the figures here")
    p.add_argument("--soak", type=int, default=0, help="N games in a row instead (see above)")
    p.add_argument("-v", "--verbose", action="store_true", help="every table's faults")
    args = p.parse_args(argv)
    args.games = [g for g in args.games.split(",") if g]
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        p.error(f"unknown games {unknown}; choose from {', '.join(GAMES)}")
    args.kinds = tuple(k for k in args.kinds.split(",") if k)
    if set(args.kinds) - set(KINDS):
        p.error(f"unknown fault kinds {sorted(set(args.kinds) - set(KINDS))}")
    args.at_once = [int(n) for n in args.at_once.split(",")] if args.at_once else None
    try:
        args.seats = {g: int(n) for g, n in (item.split("=") for item in args.seats.split(",")
                                             if item)}
    except ValueError:
        p.error("--seats takes GAME=N,... (spynet=2)")
    for g, n in args.seats.items():
        if g not in GAMES:
            p.error(f"--seats: unknown game {g}")
        if n not in registry.load(g).rules.seat_counts:
            p.error(f"--seats: {g} is not played by {n}")
    if args.per_table < 1:
        p.error("--per-table must be at least 1")
    try:
        args.rounds = sorted({n for part in args.rounds.split(",") if part for n in (
            range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1))})
    except ValueError:
        p.error("--rounds takes N or A-B, comma-separated (7 or 3-5,9)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rounds = plan = make_plan(args.seed, args.faults, args.games, args.turn_timeout, args.clean,
                              args.kinds, args.at_once, args.per_table, args.seats)
    numbers = list(range(1, len(rounds) + 1))
    if args.rounds:  # the plan stays the seed's; only these rounds of it are played, each with
        # its tables' own numbers (which lab hosts they use) and the round's own number
        numbers = [n for n in args.rounds if 1 <= n <= len(rounds)]
        rounds = [rounds[n - 1] for n in numbers]
    if args.plan:
        print_plan(rounds)
        return 0
    if os.geteuid() != 0:
        print("chaos: needs root (network namespaces and tmpfs mounts)", file=sys.stderr)
        return 2
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="spycraft-chaos-"))
    tmp.mkdir(parents=True, exist_ok=True)
    if args.soak:
        return soak(args, tmp)
    runner = Runner(args, tmp)
    runner.plan = plan
    started = now()
    load = os.getloadavg()
    runner.lab.up()
    try:
        runner.play(rounds, numbers)
    except KeyboardInterrupt:
        print("chaos: interrupted; reporting what ran", file=sys.stderr)
    finally:
        for table in runner.tables:
            for proc in table.procs():
                if proc.running:
                    proc.kill()
        runner.unmount_all()
        runner.lab.down()
    code = runner.report()
    print(f"chaos: {now() - started:.0f} s in all; load average at the start "
          f"{load[0]:.1f}, at the end {os.getloadavg()[0]:.1f}; logs in {tmp}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures(runner), indent=1))
    if not args.keep and code == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    return code


def soak(args: argparse.Namespace, tmp: Path) -> int:
    """``--soak N``: N games in a row of the first of ``--games`` by the same seats, each a
    long-lived process (``chaos_soak.py``) on the lab hosts; memory and open files per process
    at the start and the end, the data folder per game, every game's copies identical and
    VALID. Fails on a process that grew: more open files, or resident memory above its size
    after the first game by more than a fifth plus 8 MiB."""
    game, games = args.games[0], args.soak
    players = args.seats.get(game, GAMES[game])
    lab = Lab(args.hosts, tmp, args.net)
    lab.up()
    procs: list[Proc] = []
    started = now()
    failures: list[str] = []
    try:
        common = ["--games", str(games), "--interface", "eth0",
                  "--turn-timeout", f"{args.turn_timeout:g}"]
        procs.append(Proc(lab, 1, "soak-host", [sys.executable, str(HERE / "chaos_soak.py"),
                                                "host", game, "--players", str(players),
                                                *common], tmp / "soak-host.log",
                          home=tmp / "home-host"))
        for i in range(players):
            procs.append(Proc(lab, i % args.hosts + 1, f"soak-p{i}",
                              [sys.executable, str(HERE / "chaos_soak.py"), "seat", game,
                               *common], tmp / f"soak-p{i}.log", home=tmp / f"home-{i}"))
            time.sleep(0.1)
        deadline = started + games * BASE_SECONDS[game]
        while any(p.running for p in procs):
            if now() > deadline:
                failures.append(f"not done in {deadline - started:.0f} s")
                break
            for proc in procs:
                proc.sample()
            time.sleep(2)
    finally:
        for proc in procs:
            proc.kill()
        lab.down()
    wall = now() - started
    lines: dict[str, list[dict[str, Any]]] = {}
    for proc in procs:
        lines[proc.name] = [json.loads(line) for line in proc.output().splitlines()
                            if line.startswith("{")]
        if proc.code not in (0, None) and not proc.killed:
            failures.append(f"{proc.name} exited with {proc.code}:\n{tail(proc.output())}")
        if "Traceback (most recent call last)" in proc.output():
            failures.append(f"{proc.name} crashed:\n{tail(proc.output(), 30)}")
    played = min((len(v) - 1 for v in lines.values()), default=0)
    tables = sorted({folder.name.split("-")[0] for folder in
                     (tmp / "home-host" / "data" / "games").glob("*-host")})
    valid = 0
    for table in tables:
        copies = {folder.parent.parent.parent.parent.name: (folder / "transcript.cbor")
                  .read_bytes() for folder in tmp.glob(f"home-*/data/games/{table}-*")}
        if len(set(copies.values())) != 1:
            failures.append(f"table {table}: the copies differ ({sorted(copies)})")
            continue
        path = tmp / "soak.cbor"
        path.write_bytes(next(iter(copies.values())))
        audited = subprocess.run(spycraft_command("audit", str(path)), cwd=ROOT, text=True,
                                 capture_output=True, timeout=600, check=False)
        if audited.returncode == 0 and audited.stdout.startswith("VALID"):
            valid += 1
        else:
            failures.append(f"table {table}: {audited.stdout}{audited.stderr}")
    print(f"soak: {played} games of {game} in a row ({players} seats and a host on "
          f"{args.hosts} lab hosts), {wall:.0f} s, {wall / max(1, played):.1f} s a game; "
          f"{valid} of {len(tables)} tables identical on every peer and VALID")
    print()
    print("| process | RSS start | RSS after game 1 | RSS at the end | open files start | "
          "after game 1 | at the end | data folder per game |")
    print("|---|---|---|---|---|---|---|---|")
    for name, rows in lines.items():
        if len(rows) < 2:
            continue
        first, one, last = rows[0], rows[1], rows[-1]
        per_game = (last["data_bytes"] - first["data_bytes"]) / max(1, len(rows) - 1)
        print(f"| {name} | {first['rss'] >> 20} MiB | {one['rss'] >> 20} MiB | "
              f"{last['rss'] >> 20} MiB | {first['fds']} | {one['fds']} | {last['fds']} | "
              f"{per_game / 1024:.1f} KiB |")
        if last["fds"] > one["fds"]:
            failures.append(f"{name}: open files grew from {one['fds']} to {last['fds']}")
        if last["rss"] > one["rss"] * 1.2 + (8 << 20):
            failures.append(f"{name}: memory grew from {one['rss'] >> 20} to "
                            f"{last['rss'] >> 20} MiB")
    if played < games:
        failures.append(f"only {played} of {games} games were played")
    print()
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"soak: {'every check held' if not failures else f'{len(failures)} checks failed'}; "
          f"load average {os.getloadavg()[0]:.1f}; logs in {tmp}")
    return 1 if failures else 0


def figures(runner: Runner) -> dict[str, Any]:
    return {
        "seed": runner.args.seed,
        "tables": [
            {"game": t.game, "wall": round(t.wall, 1), "result": t.result,
             "faults": [f.describe() for f in t.faults if f.state == "done"],
             "failures": t.failures, "notes": t.notes,
             "max_rss_mib": max((p.max_rss for p in t.procs()), default=0) >> 20}
            for t in runner.tables
        ],
        "faults": dict(Counter(f.kind for t in runner.tables for f in t.faults
                               if f.state == "done")),
    }


if __name__ == "__main__":
    sys.exit(main())

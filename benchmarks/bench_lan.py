"""LAN timings on loopback: lobby to genesis, record latency, frames and bytes (a plain script).

Run: ``.venv/bin/python benchmarks/bench_lan.py [--processes] [--plot] [--targets [--relay-only]
[--rounds N]] [--quick]``.

``--targets``: issue 21's figures against the floor: a 10-seat relay race of plain records
(tests/p2p/relay.py) and ``floor_mesh.py`` (the same number of records over a minimal trio
mesh that verifies, chains, fsyncs and acks), one process per peer, alternated ``--rounds``
times; the medians, their ratios and the targets; then a 10-player Resistance's figures by
record kind. ``BENCH_PROFILE_PLAY=DIR`` writes each seat's cProfile of its play (process CPU).

Everything runs on 127.0.0.1 only: real TCP, real zeroconf (multicast DNS on the loopback
interface). Peers use the ``p2p.lobby`` API as ``spycraft play`` / ``spycraft bots`` do: one
opener (``open_table``, seated, with a heuristic bot agent) and N-1 joiners that each browse for
the table with their own zeroconf instance (``browse_tables``) and call ``join_table``. Each peer
has its own temporary data root. ``SessionConfig(turn_timeout=60)``; agents are
``definition.bots["heuristic"](SystemEntropy(), seat)``.

Two modes:

* default: **one trio program** holding all peers (one process: every peer's verification shares
  one interpreter and one GIL, so per-record latency includes the other nine peers' CPU);
* ``--processes``: **one process per peer** (multiprocessing, spawn), closer to one laptop per
  seat, but ten processes still share this machine's cores.

Figures:

(a) open -> genesis: from the opener calling ``open_table`` (joiners already browsing) to the
    opener holding the signed genesis, and to the last joiner holding it; the time at which the
    ad was registered (``on_open``), and the last seat was taken. With real name-conflict
    probing and with ``cooperating_responders=True``.
(b) record latency: for every record, ``Session.all_acked_at[seq] - Session.created_at[seq]``
    on its author (creation -> acked by every other seat), median / p90 / p99 / max.
(c) frames and bytes per game: the sum over peers of ``Session.frames_sent`` /
    ``Session.bytes_sent`` (session frames only: lobby frames, hellos, and the mDNS traffic are
    not counted), also per record.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import multiprocessing as mp
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.events import Event, SeatTaken
from spycraft.p2p.lobby import Me, join_table, open_table
from spycraft.p2p.session import Session, SessionConfig

LO = "127.0.0.1"


@dataclass
class PeerStats:
    seat: int = -1
    opener: bool = False
    t_start: float = 0.0  # time.monotonic() (system-wide) when the peer started
    t_open: float = 0.0  # opener: ad registered (on_open)
    t_found: float = 0.0  # joiner: ad found by browsing
    t_genesis: float = 0.0  # genesis signed and stored
    t_done: float = 0.0  # session.run() returned
    latencies: list[float] = field(default_factory=list)
    unacked: int = 0
    records_written: int = 0
    records: int = 0
    frames_sent: int = 0
    bytes_sent: int = 0
    frames_received: int = 0
    append_seconds: float = 0.0
    appends: int = 0
    result: str = ""
    transcript_link: bytes = b""
    cpu: float = 0.0
    kinds: list[str] = field(default_factory=list)  # the kind of each latency's record
    cpu_genesis: float = 0.0
    cpu_play: float = 0.0  # process CPU from the genesis to the end of the session
    t_seated: float = 0.0  # opener: the last seat was taken
    stored_at: dict[int, float] = field(default_factory=dict)  # seq -> when this peer stored it
    first_play: int = 0  # the seq of the first record of play (``setup_kinds``), 0: not seen
    cpu_setup: float = 0.0  # process CPU from the genesis to storing the first record of play


def _definition(game: str) -> registry.GameDefinition:
    """A registered game, or the relay race of the protocol tests (plain records only)."""
    if game == "relay":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.p2p.relay import GAME  # its laps are an integer option: ads carry those

        return GAME
    return registry.load(game)


def _agent(definition: registry.GameDefinition):
    bot = definition.bots.get("heuristic") or definition.bots["random"]
    return lambda seat: bot(SystemEntropy(), seat)


def _collect(session: Session, stats: PeerStats) -> None:
    stats.seat = session.seat if session.seat is not None else -1
    for seq, created in session.created_at.items():
        acked = session.all_acked_at.get(seq)
        if acked is None:
            stats.unacked += 1
        else:
            stats.latencies.append(acked - created)
            if seq <= len(session.records):
                stats.kinds.append(session.records[seq - 1].record.kind)
    stats.records_written = len(session.created_at)
    stats.records = len(session.records)
    stats.frames_sent = session.frames_sent
    stats.bytes_sent = getattr(session, "bytes_sent", 0)
    stats.frames_received = session.frames_received
    stats.result = session.state.result.describe() if session.state.result else "unfinished"
    stats.transcript_link = session.state.link


def _time_appends(stats: PeerStats, session: Session, setup_kinds: frozenset[str] = frozenset()
                  ) -> None:
    """Time this peer's GameStore.append (append + one fsync per batch), and note when each
    record was stored (and, with ``setup_kinds``, the first record of play and the CPU so far)."""
    store = session.store
    original = store.append

    def timed(*signed: Any) -> None:
        start = time.perf_counter()
        original(*signed)
        stats.append_seconds += time.perf_counter() - start
        stats.appends += 1
        now = time.monotonic()
        for record in signed:
            stats.stored_at[record.seq] = now
            if setup_kinds and not stats.first_play and record.record.kind not in setup_kinds:
                stats.first_play = record.seq
                stats.cpu_setup = time.process_time() - stats.cpu_genesis

    store.append = timed  # type: ignore[method-assign]


async def run_opener(
    game: str,
    options: dict[str, Any],
    players: int,
    root: Path,
    coop: bool,
    stats: PeerStats,
    opened: Any,
    genesis_ready: Any = None,
    setup_kinds: frozenset[str] = frozenset(),
) -> None:
    """``opened(table_id)`` is called once the ad is registered."""
    definition = _definition(game)
    stats.opener = True
    stats.t_start = time.monotonic()
    me = Me.fresh(Identity(SystemEntropy().take(32)), "opener")

    def on_open(table: bytes, port: int) -> None:
        stats.t_open = time.monotonic()
        opened(table)

    session = await open_table(
        definition=definition,
        options=options,
        players=players,
        me=me,
        seated=True,
        interface=LO,
        root=root,
        agent=_agent(definition)(0),
        config=SessionConfig(turn_timeout=60, inline_agent=True),
        on_open=on_open,
        cooperating_responders=coop,
        events=lambda event: _note_seated(stats, event),
    )
    stats.t_genesis = time.monotonic()
    stats.cpu_genesis = time.process_time()
    _time_appends(stats, session, setup_kinds)
    if genesis_ready is not None:
        await genesis_ready(session)
    await _run_session(session)
    stats.t_done = time.monotonic()
    stats.cpu_play = time.process_time() - stats.cpu_genesis
    _collect(session, stats)


def _note_seated(stats: PeerStats, event: Event) -> None:
    if isinstance(event, SeatTaken):
        stats.t_seated = time.monotonic()


async def run_joiner(
    index: int, game: str, root: Path, stats: PeerStats, table_id: Any, genesis_ready: Any = None,
    setup_kinds: frozenset[str] = frozenset(),
) -> None:
    """``table_id()`` is awaited for the id of the table to join (known once it is open)."""
    definition = _definition(game)
    stats.t_start = time.monotonic()
    wanted: bytes | None = None
    ad = None
    async with browse_tables(LO) as ads:
        async for candidate in ads:
            if candidate.change == "removed" or candidate.game != game:
                continue
            if wanted is None:
                wanted = await table_id()
            if candidate.table_id == wanted and candidate.seats_taken < candidate.seats_total:
                ad = candidate
                break
    assert ad is not None
    stats.t_found = time.monotonic()
    me = Me.fresh(Identity(SystemEntropy().take(32)), f"bot{index}")
    session = await join_table(
        ad,
        definition=definition,
        me=me,
        interface=LO,
        root=root,
        agent_for=_agent(definition),
        config=SessionConfig(turn_timeout=60, inline_agent=True),
    )
    stats.t_genesis = time.monotonic()
    stats.cpu_genesis = time.process_time()
    _time_appends(stats, session, setup_kinds)
    if genesis_ready is not None:
        await genesis_ready(session)
    await _run_session(session)
    stats.t_done = time.monotonic()
    stats.cpu_play = time.process_time() - stats.cpu_genesis
    _collect(session, stats)


async def _run_session(session: Session) -> None:
    """``session.run()``, under cProfile when ``BENCH_PROFILE_PLAY`` names a folder (play only:
    from the genesis to the end, one file per seat)."""
    folder = os.environ.get("BENCH_PROFILE_PLAY")
    if not folder:
        await session.run()
        return
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    try:
        await session.run()
    finally:
        profiler.disable()
        profiler.dump_stats(f"{folder}/play{session.seat}.prof")


# --- one trio program ---------------------------------------------------------------------------


async def table_in_process(
    game: str, options: dict[str, Any], players: int, coop: bool, roots: list[Path]
) -> list[PeerStats]:
    stats = [PeerStats() for _ in range(players)]
    known = trio.Event()
    box: list[bytes] = []

    def opened(table: bytes) -> None:
        box.append(table)
        known.set()

    async def table_id() -> bytes:
        await known.wait()
        return box[0]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_opener, game, options, players, roots[0], coop, stats[0], opened)
        for i in range(1, players):
            nursery.start_soon(run_joiner, i, game, roots[i], stats[i], table_id)
    return stats


# --- one process per peer -----------------------------------------------------------------------


def _child(
    role: str,
    index: int,
    game: str,
    options: dict[str, Any],
    players: int,
    coop: bool,
    root: str,
    shared_id: Any,
    id_set: Any,
    out: Any,
    setup_kinds: frozenset[str] = frozenset(),
) -> None:
    logging.basicConfig(level=logging.WARNING, format=f"peer {index} %(levelname)s: %(message)s")
    stats = PeerStats()
    c0 = time.process_time()
    profile_to = os.environ.get("BENCH_PROFILE")  # a folder: each peer's cProfile goes there
    profiler = cProfile.Profile() if profile_to else None
    if profiler is not None:
        profiler.enable()
    if role == "opener":

        def opened(table: bytes) -> None:
            shared_id.value = table.hex().encode()
            id_set.set()

        trio.run(run_opener, game, options, players, Path(root), coop, stats, opened, None,
                 setup_kinds)
    else:

        async def table_id() -> bytes:
            await trio.to_thread.run_sync(id_set.wait)
            return bytes.fromhex(shared_id.value.decode())

        trio.run(run_joiner, index, game, Path(root), stats, table_id, None, setup_kinds)
    stats.cpu = time.process_time() - c0
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(f"{profile_to}/peer{index}.prof")
    out.put((index, stats))


def table_in_processes(
    game: str, options: dict[str, Any], players: int, coop: bool, roots: list[Path],
    setup_kinds: frozenset[str] = frozenset(),
) -> list[PeerStats]:
    ctx = mp.get_context("spawn")
    shared_id = ctx.Array("c", 32)
    id_set = ctx.Event()
    out = ctx.Queue()
    procs = []
    for i in range(players):
        role = "opener" if i == 0 else "joiner"
        p = ctx.Process(
            target=_child,
            args=(role, i, game, options, players, coop, str(roots[i]), shared_id, id_set, out,
                  setup_kinds),
        )
        procs.append(p)
    for p in procs:  # joiners first so that they are browsing when the opener starts
        if p is not procs[0]:
            p.start()
    time.sleep(
        3.0
    )  # let the joiners import and start browsing (not counted: t_start is the opener's)
    procs[0].start()
    results: dict[int, PeerStats] = {}
    for _ in range(players):
        index, st = out.get(timeout=600)
        results[index] = st
    for p in procs:
        p.join(timeout=30)
    return [results[i] for i in range(players)]


# --- report -------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def one_table(
    label: str, game: str, options: dict[str, Any], players: int, coop: bool, processes: bool,
    setup_kinds: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    roots = [Path(tempfile.mkdtemp(prefix=f"spycraft-bench-{i}-")) for i in range(players)]
    c0 = time.process_time()
    try:
        if processes:
            stats = table_in_processes(game, options, players, coop, roots, setup_kinds)
        else:
            stats = trio.run(table_in_process, game, options, players, coop, roots)
    finally:
        for r in roots:
            shutil.rmtree(r, ignore_errors=True)
    cpu_total = (time.process_time() - c0) if not processes else sum(s.cpu for s in stats)
    opener = stats[0]
    t0 = opener.t_start
    links = {s.transcript_link for s in stats}
    lat = [x for s in stats for x in s.latencies]
    records = opener.records
    out = {
        "label": label,
        "players": players,
        "coop": coop,
        "ad": opener.t_open - t0,
        "last_found": max((s.t_found for s in stats[1:]), default=t0) - t0,
        "opener_genesis": opener.t_genesis - t0,
        "all_genesis": max(s.t_genesis for s in stats) - t0,
        "game": max(s.t_done for s in stats) - max(s.t_genesis for s in stats),
        "records": records,
        "lat": lat,
        "unacked": sum(s.unacked for s in stats),
        "frames": sum(s.frames_sent for s in stats),
        "bytes": sum(s.bytes_sent for s in stats),
        "received": sum(s.frames_received for s in stats),
        "append_s": sum(s.append_seconds for s in stats),
        "appends": sum(s.appends for s in stats),
        "cpu": cpu_total,
        "identical": len(links) == 1,
        "cpu_play": sum(s.cpu_play for s in stats),
        "by_kind": _by_kind(stats),
        "result": opener.result,
    }
    if setup_kinds:
        first = opener.first_play
        genesis = max(s.t_genesis for s in stats)
        played = max(s.stored_at[first] for s in stats)
        out.update(seated_to_genesis=genesis - opener.t_seated,
                   genesis_to_play=played - genesis, seated_to_play=played - opener.t_seated,
                   setup_cpu=sum(s.cpu_setup for s in stats),
                   setup_timeline=[(seq, max(s.stored_at[seq] for s in stats) - opener.t_seated)
                                   for seq in range(1, first + 1)])
    return out


def _by_kind(stats: list[PeerStats]) -> dict[str, list[float]]:
    by: dict[str, list[float]] = {}
    for s in stats:
        for kind, latency in zip(s.kinds, s.latencies):
            by.setdefault(kind, []).append(latency)
    return by


def targets(r: dict[str, Any]) -> None:
    """The figures issue 7 sets targets for: latency of plain records, CPU and frames per record."""
    records = max(r["records"], 1)
    print(f"\n{r['label']} ({'coop' if r['coop'] else 'real'} probing): {r['records']} records, "
          f"{r['frames'] / records:.1f} frames/record, {r['bytes'] / records:.0f} bytes/record, "
          f"CPU in play summed over peers "
          f"{1000 * r['cpu_play'] / records:.2f} ms/record ({r['cpu_play']:.2f} s), "
          f"identical: {r['identical']}")
    print(f"  {'kind':<16}{'n':>6}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}")
    for kind, values in sorted(r["by_kind"].items(), key=lambda kv: -len(kv[1])):
        ms = [1000 * v for v in values]
        print(f"  {kind:<16}{len(ms):>6}{statistics.median(ms):>11.1f}{pct(ms, 0.99):>9.1f}"
              f"{max(ms):>9.1f}")


FLOOR_MESH = Path(__file__).resolve().with_name("floor_mesh.py")


def _free_ports(count: int) -> int:
    """A base port with ``count`` free ports from it on 127.0.0.1 (the floor mesh's)."""
    for base in range(47000, 60000, 97):
        try:
            for port in range(base, base + count):
                with socket.socket() as probe:
                    probe.bind((LO, port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free ports for the floor mesh")


def floor_mesh(peers: int, records: int) -> dict[str, Any]:
    """One run of ``floor_mesh.py`` (one process per peer): its JSON figures."""
    out = subprocess.run(
        [sys.executable, str(FLOOR_MESH), "--peers", str(peers), "--records", str(records),
         "--port", str(_free_ports(peers))],
        capture_output=True, text=True, timeout=600, check=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def against_the_floor(peers: int, laps: int, rounds: int) -> None:
    """Issue 21's targets: a relay race of plain records and the floor mesh of as many records,
    one process per peer, alternated ``rounds`` times in one window; medians, and their ratios
    (CPU per record summed over peers, p50 latency to every other seat's ack, frames per
    record; the targets are <= 1.3x, <= 1.3x and <= 20)."""
    ours: list[dict[str, Any]] = []
    floors: list[dict[str, Any]] = []
    load = os.getloadavg()
    for round_ in range(rounds):
        floors.append(floor_mesh(peers, peers * laps))
        ours.append(one_table(f"relay {peers}p", "relay", {"laps": laps}, peers, True, True))
        r, f = ours[-1], floors[-1]
        plain = [1000 * v for v in r["by_kind"].get("leg", [])]
        r["plain_p50"] = statistics.median(plain)
        r["cpu_per_record"] = 1000 * r["cpu_play"] / max(r["records"], 1)
        r["frames_per_record"] = r["frames"] / max(r["records"], 1)
        print(f"round {round_ + 1}: relay {r['cpu_per_record']:.2f} ms CPU/record, p50 "
              f"{r['plain_p50']:.1f} ms, {r['frames_per_record']:.1f} frames/record; floor "
              f"{f['cpu_ms_per_record']:.2f} ms CPU/record, p50 {f['median_ms']:.1f} ms; "
              f"identical: {r['identical']}", flush=True)
    load_after = os.getloadavg()

    def median(values: list[float]) -> float:
        return statistics.median(values)

    cpu = median([r["cpu_per_record"] for r in ours])
    p50 = median([r["plain_p50"] for r in ours])
    frames = median([r["frames_per_record"] for r in ours])
    floor_cpu = median([f["cpu_ms_per_record"] for f in floors])
    floor_p50 = median([f["median_ms"] for f in floors])
    print(f"\nrelay {peers}p against the floor mesh, {rounds} rounds alternated, medians "
          f"(load average {load[0]:.1f} before, {load_after[0]:.1f} after):")
    print(f"  {'figure':<38}{'relay':>9}{'floor':>9}{'ratio':>8}{'target':>9}")
    print(f"  {'CPU ms per plain record, all peers':<38}{cpu:>9.2f}{floor_cpu:>9.2f}"
          f"{cpu / floor_cpu:>7.2f}x{'<= 1.3x':>9}")
    print(f"  {'p50 ms, record -> every ack':<38}{p50:>9.1f}{floor_p50:>9.1f}"
          f"{p50 / floor_p50:>7.2f}x{'<= 1.3x':>9}")
    print(f"  {'frames per record':<38}{frames:>9.1f}{peers * 2 - 2:>9}{'':>8}{'<= 20':>9}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", action="store_true", help="one process per peer")
    parser.add_argument("--plot", action="store_true", help="10-player game with The Plot Thickens")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--targets", action="store_true",
                        help="only the targets' figures: a 10-seat relay race (plain records) "
                             "against the floor mesh, alternated, and a 10-player Resistance, one "
                             "process per peer")
    parser.add_argument("--relay-only", action="store_true", help="with --targets: the relay only")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --targets: relay and floor mesh runs, alternated (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="the --targets figures of a 3-seat relay of 3 laps and its floor "
                             "mesh, one round (the suite runs it)")
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(name)s %(levelname)s: %(message)s",
    )
    logging.getLogger("zeroconf").setLevel(logging.WARNING)
    res = registry.load("resistance")
    sal = registry.load("spies-and-lies")
    if args.quick:
        against_the_floor(3, 3, 1)
        return
    if args.targets:
        against_the_floor(10, 30, args.rounds)
        if not args.relay_only:
            targets(one_table("resistance 10p", "resistance", res.genesis_options(10), 10, True,
                              True))
        return
    r_opts = res.options(players=10, plot=True) if args.plot else res.options(players=10)
    r_label = "resistance 10p" + (" +plot" if args.plot else "")
    runs = [
        one_table(r_label, "resistance", r_opts, 10, False, args.processes),
        one_table(r_label, "resistance", r_opts, 10, True, args.processes),
        one_table("spies-and-lies 2p", "spies-and-lies", sal.options(), 2, False, args.processes),
        one_table("spies-and-lies 2p", "spies-and-lies", sal.options(), 2, True, args.processes),
    ]
    mode = "one process per peer" if args.processes else "all peers in one trio program"
    print(f"LAN on 127.0.0.1 ({mode}); seconds of wall time (time.monotonic)")
    print("\n(a) open_table -> genesis")
    widths = [-18, -10, 7, 9, 9, 9]
    print(_row(["table", "probing", "ad up", "all found", "opener", "last peer"], widths))
    for r in runs:
        print(
            _row(
                [
                    r["label"],
                    "cooperat." if r["coop"] else "real",
                    f"{r['ad']:.2f}",
                    f"{r['last_found']:.2f}",
                    f"{r['opener_genesis']:.2f}",
                    f"{r['all_genesis']:.2f}",
                ],
                widths,
            )
        )
    print("\n(b) record creation -> acked by every other seat (ms), (c) traffic per game")
    widths = [-18, -10, 7, 7, 7, 7, 7, 5, 7, 9, 9, 7, 9]
    print(
        _row(
            [
                "table",
                "probing",
                "records",
                "median",
                "p90",
                "p99",
                "max",
                "n/a",
                "frames",
                "KiB sent",
                "B/record",
                "game s",
                "fsync ms",
            ],
            widths,
        )
    )
    for r in runs:
        lat = [1000 * x for x in r["lat"]]
        print(
            _row(
                [
                    r["label"],
                    "cooperat." if r["coop"] else "real",
                    r["records"],
                    f"{statistics.median(lat):.1f}",
                    f"{pct(lat, 0.9):.1f}",
                    f"{pct(lat, 0.99):.1f}",
                    f"{max(lat):.1f}",
                    r["unacked"],
                    r["frames"],
                    f"{r['bytes'] / 1024:.0f}",
                    f"{r['bytes'] / max(r['records'], 1):.0f}",
                    f"{r['game']:.2f}",
                    f"{1000 * r['append_s'] / max(r['appends'], 1):.2f}",
                ],
                widths,
            )
        )
    print(
        "\n(n/a: records whose all_acked_at was never set; fsync ms: mean GameStore.append per "
        "record per peer, run on the trio thread)"
    )
    for r in runs:
        print(
            f"  {r['label']:<18} {'coop' if r['coop'] else 'real'}: CPU {r['cpu']:.1f} s for the "
            f"whole run, {r['received']} frames received, {r['appends']} appends "
            f"({r['append_s']:.2f} s), transcripts identical: {r['identical']}; {r['result']}"
        )


def _row(cells: list[Any], widths: list[int]) -> str:
    return "  ".join(str(c).ljust(-w) if w < 0 else str(c).rjust(w) for c, w in zip(cells, widths))


if __name__ == "__main__":
    main()

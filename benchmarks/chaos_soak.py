"""One long-lived peer of the soak (``benchmarks/chaos.py --soak N``): N games in a row at one
table of the same seats, as friends who play again.

    python benchmarks/chaos_soak.py host GAME --games N --players P --interface eth0
    python benchmarks/chaos_soak.py seat GAME --games N --interface eth0

Theory of operation: the product's own lobby and session (``p2p.lobby.open_table``,
``join_table``, ``Session.run``), driven as ``spycraft host`` and ``spycraft bots`` drive them,
in a loop inside one process, so what one process keeps from game to game (memory, open files,
tasks) shows. The seat keeps one identity for all its games (its ``SPYCRAFT_HOME`` holds it) and
looks each time for a table of its game it has not played yet; the host opens the next table
once its session of the last one has ended. After each game every process prints one JSON line:
the game's number, its wall time, the process's resident memory and open files, the size of its
data folder and the game's result, which the runner reads from the log.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import trio

from spycraft.cli.config import data_dir
from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import LobbyError, Me, join_table, open_table
from spycraft.p2p.session import Session, SessionConfig
from spycraft.p2p.storage import write_private


def identity() -> Identity:
    """The seat's one identity for every game (kept in its home, as a person's is)."""
    path = data_dir().parent / "soak-identity.key"
    if not path.exists():
        write_private(path, SystemEntropy().take(32), "the identity key")
    return Identity(path.read_bytes())


LIVE = ("Session", "PeerProtocol", "SignedRecord", "TableState", "Link")
"""Classes whose live instances each line counts (after a collection): a game's objects that
outlive it show as a count that grows from game to game."""


def live() -> dict[str, int]:
    gc.collect()
    counts = dict.fromkeys(LIVE, 0)
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name in counts:
            counts[name] += 1
    return counts


def measure() -> dict[str, Any]:
    status = Path("/proc/self/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    size = sum(p.stat().st_size for p in data_dir().rglob("*") if p.is_file())
    return {"rss": int(found.group(1)) * 1024 if found else 0,
            "fds": len(os.listdir("/proc/self/fd")), "data_bytes": size, "live": live()}


def report(game: int, started: float, session: Session) -> None:
    result = session.state.result
    print(json.dumps({"game": game, "wall": round(time.monotonic() - started, 2),
                      "records": len(session.records),
                      "result": result.describe() if result else None, **measure()}),
          flush=True)


def config(args: argparse.Namespace) -> SessionConfig:
    return SessionConfig(turn_timeout=args.turn_timeout, inline_agent=True, announce=True,
                         linger_for_absent=True)


async def host(args: argparse.Namespace) -> int:
    definition = registry.load(args.game)
    options = definition.genesis_options(args.players)
    me = identity()
    print(json.dumps({"game": 0, **measure()}), flush=True)
    for game in range(1, args.games + 1):
        started = time.monotonic()
        session = await open_table(definition=definition, options=options,
                                   players=args.players, me=Me.fresh(me, "host"), seated=False,
                                   interface=args.interface, root=data_dir(), config=config(args))
        await session.run()
        report(game, started, session)
    return 0


async def seat(args: argparse.Namespace) -> int:
    definition = registry.load(args.game)
    me = identity()
    entropy = SystemEntropy()
    played: set[bytes] = set()
    print(json.dumps({"game": 0, **measure()}), flush=True)
    for game in range(1, args.games + 1):
        started = time.monotonic()
        while True:
            ad: Any = None
            with trio.move_on_after(120):
                async with browse_tables(args.interface) as ads:
                    async for found in ads:
                        if (found.change != "removed" and found.watching is None
                                and found.game == args.game and found.table_id not in played
                                and found.seats_taken < found.seats_total):
                            ad = found
                            break
            if ad is None:
                print(f"soak: no table for game {game} in 120 s", file=sys.stderr)
                return 1
            try:
                session = await join_table(
                    ad, definition=definition, me=Me.fresh(me, f"soak-{me.fingerprint[:4]}"),
                    interface=args.interface, root=data_dir(),
                    agent_for=lambda s: definition.bots["heuristic"](entropy, s),
                    config=config(args), bot={"bot": "heuristic", "think": "0"})
            except LobbyError as exc:
                print(f"soak: could not join {ad.table_id.hex()}: {exc}", file=sys.stderr)
                played.add(ad.table_id)
                continue
            break
        played.add(ad.table_id)
        await session.run()
        report(game, started, session)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("role", choices=("host", "seat"))
    p.add_argument("game", choices=registry.game_names())
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--interface", default="eth0")
    p.add_argument("--turn-timeout", type=float, default=20.0)
    args = p.parse_args()
    return trio.run(host if args.role == "host" else seat, args)


if __name__ == "__main__":
    sys.exit(main())

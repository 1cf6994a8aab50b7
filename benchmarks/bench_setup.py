"""A table's setup timed, from the last seat taken to the first decision of play (issue 21).

Run: ``.venv/bin/python benchmarks/bench_setup.py [--players 10] [--game resistance] [--rounds 3]``.

One process per peer on 127.0.0.1, through the real lobby, session, peer protocol and store
(``bench_lan.table_in_processes``), the opener seated, every seat a heuristic bot that decides at
once. Each peer notes, on the machine's monotonic clock (one clock for every process), when the
last seat was taken (the opener: the roster goes out), when it held the signed genesis, and when
it stored each record. Figures per round:

* **opener start -> genesis**: the opener's process start (the joiners already browsing) to the
  last peer holding the signed genesis: the lobby itself, its seats taken one by one;
* **last seat -> genesis**: the opener's roster to the last peer holding the signed genesis;
* **genesis -> first decision**: from there to the last peer storing the first record of play
  (the first record that is not one of the game's setup kinds: a Leader's proposal);
* **the floor**: the setup records' CPU as one process builds each once and applies each as
  every peer (the seats and no observer) does, in a seeded selfplay of the same table
  (``floor_cpu``), divided by the cores the peers share (``--cores``, default this machine's);
  the target is last seat -> first decision within 1.5x that;
* **the critical path on paper**: if every seat had a core of its own (10 laptops), each setup
  record costs its author's build and the next author's apply, one after the other; the sum over
  the setup records, against 10 shuffle proofs (build and verify) one after the other.

The figures print as a table, and ``--json`` writes them for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_lan

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import new_local_table

SETUP_KINDS: dict[str, frozenset[str]] = {
    "resistance": frozenset({"key_share", "recognition", "shuffle", "deal_tokens", "spy_tag",
                            "beacon"}),
    "shady-agents": frozenset({"key_share", "recognition", "shuffle", "deal_tokens", "spy_tag",
                              "beacon"}),
    "spynet": frozenset({"deck_key", "deck_shuffle", "beacon", "deck_tokens"}),
}
"""Per game, the record kinds of its setup (everything before the first decision of play)."""


@dataclass
class Timing:
    kind: str
    build: float  # CPU seconds: the author builds and signs it
    apply: float  # CPU seconds: one peer verifies and applies it


def timed_setup(game: str, players: int, seed: int) -> list[Timing]:
    """A seeded selfplay of the table up to its first decision of play, each record's build and
    apply timed in CPU (one apply: every peer pays the same)."""
    definition = registry.load(game)
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, definition.genesis_options(players), players,
                            entropy.child("table"))
    bot = definition.bots.get("heuristic") or definition.bots["random"]
    agents = [bot(entropy.child(f"bot/{i}"), i) for i in range(players)]
    timings: list[Timing] = []
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None, "the game ended in its setup"
        started = time.process_time()
        signed = local.seats[turn.seat].build(local.state, agents[turn.seat])
        built = time.process_time()
        if signed.record.kind not in SETUP_KINDS[game]:
            return timings
        local.state = local.table.apply(local.state, signed)
        timings.append(Timing(signed.record.kind, built - started, time.process_time() - built))


def floor(game: str, players: int, seed: int = 1) -> dict[str, Any]:
    """The setup's CPU: each setup record built once and applied by every seat."""
    timings = timed_setup(game, players, seed)
    build = sum(t.build for t in timings)
    apply = sum(t.apply for t in timings) * players
    shuffles = [t for t in timings if "shuffle" in t.kind]
    return {
        "records": len(timings),
        "build_s": build,
        "apply_s": apply,
        "cpu_s": build + apply,
        "critical_s": sum(t.build + t.apply for t in timings),
        "shuffles_s": sum(t.build + t.apply for t in shuffles),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="resistance", choices=sorted(SETUP_KINDS))
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--timeline", action="store_true",
                        help="each setup record: when the last peer stored it (s after the last "
                             "seat was taken), and its kind")
    args = parser.parse_args()
    definition = registry.load(args.game)
    options = definition.genesis_options(args.players)
    fl = floor(args.game, args.players)
    print(f"{args.game} at {args.players} seats: the setup is {fl['records']} records; "
          f"its CPU in one process {fl['cpu_s']:.2f} s (builds {fl['build_s']:.2f} s, applies by "
          f"every seat {fl['apply_s']:.2f} s); on {args.cores} cores "
          f"{fl['cpu_s'] / args.cores:.2f} s; critical path with a core per seat "
          f"{fl['critical_s']:.2f} s ({fl['shuffles_s']:.2f} s of it the shuffles)", flush=True)
    rounds = []
    for round_ in range(args.rounds):
        load = os.getloadavg()[0]
        r = bench_lan.one_table(f"{args.game} {args.players}p", args.game, options, args.players,
                                True, True, setup_kinds=SETUP_KINDS[args.game])
        rounds.append(r)
        print(f"round {round_ + 1} (load {load:.1f}): opener start -> genesis "
              f"{r['all_genesis']:.2f} s (the joiners browsing), last seat -> genesis "
              f"{r['seated_to_genesis']:.2f} s, genesis -> first decision "
              f"{r['genesis_to_play']:.2f} s, last seat -> first decision "
              f"{r['seated_to_play']:.2f} s "
              f"({r['seated_to_play'] / (fl['cpu_s'] / args.cores):.1f}x "
              f"the floor on {args.cores} cores); setup CPU summed over peers "
              f"{r['setup_cpu']:.2f} s; identical: {r['identical']}", flush=True)
        if args.timeline:
            kinds = [t.kind for t in timed_setup(args.game, args.players, 1)] + ["(play)"]
            print(f"  genesis at every peer: {r['seated_to_genesis']:.3f} s")
            for (seq, at), kind in zip(r["setup_timeline"], kinds):
                print(f"  {seq:3} {at:7.3f} s  {kind}")
    median = statistics.median(r["seated_to_play"] for r in rounds)
    print(f"median last seat -> first decision {median:.2f} s; floor {fl['cpu_s'] / args.cores:.2f}"
          f" s: {median / (fl['cpu_s'] / args.cores):.2f}x (target <= 1.5x)")
    if args.json:
        args.json.write_text(json.dumps({"floor": fl, "rounds": [
            {k: v for k, v in r.items() if k in ("all_genesis", "seated_to_genesis",
                                                   "genesis_to_play", "seated_to_play",
                                                   "setup_cpu")}
            for r in rounds]}, indent=1))


if __name__ == "__main__":
    main()

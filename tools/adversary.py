"""Run the adversary that is not a list (``tests/p2p/adversary.py``) for many runs, by hand.

    .venv/bin/python tools/adversary.py --runs 10000 [--first SEED] [--every 500] [--stop]

Each run draws its table, network and coalition strategy from its seed (``adversary.play``)
and checks every guarantee of ``p2p.protocol`` (``adversary.check``). It prints a line every
``--every`` runs and, at the end, what the adversaries did (moves by kind, records they signed,
links the honest peers closed on them) and how the games ended; a failing run prints its seed
and table (replay it with ``--first SEED --runs 1``) and the script exits 1.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.p2p.adversary import check, draw_table, play


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0, help="seed of the first run")
    parser.add_argument("--every", type=int, default=500, help="print a line every N runs")
    parser.add_argument("--stop", action="store_true", help="stop at the first failure")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the honest peers' warnings are the adversary's doing
    moves: Counter[str] = Counter()
    forms: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    failures: list[int] = []
    closes = rollbacks = 0
    started = time.monotonic()
    for run in range(args.runs):
        seed = args.first + run
        try:
            net, coalition = play(seed)
            report = check(net, coalition)
        except Exception:  # noqa: BLE001 (a broken guarantee, or an honest peer crashed)
            failures.append(seed)
            table = draw_table(random.Random(seed))
            print(f"FAILED seed {seed}: {table}")
            traceback.print_exc(limit=4)
            if args.stop:
                break
            continue
        moves.update(coalition.moves_made)
        players, seats = net.players, coalition.seats
        forms[f"{len(seats)} of {players}" + (" (team)" if "teams" in
                                              net.local.genesis.genesis.options else "")] += 1
        assert report.result is not None
        endings[report.result.reason] += 1
        closes += sum(len(p.closed) for p in net.honest())
        rollbacks += sum(p.rewrites for p in net.honest())
        if (run + 1) % args.every == 0:
            print(f"{run + 1} runs, {len(failures)} failed, {time.monotonic() - started:.0f} s",
                  flush=True)
    took = time.monotonic() - started
    print(f"\n{args.runs} runs from seed {args.first} in {took:.0f} s "
          f"({1000 * took / max(args.runs, 1):.0f} ms a run): {len(failures)} failed"
          + (f" (seeds {', '.join(map(str, failures[:20]))})" if failures else ""))
    print("coalitions: " + ", ".join(f"{k}: {v}" for k, v in sorted(forms.items())))
    print("moves: " + ", ".join(f"{k} {v}" for k, v in moves.most_common()))
    print("games ended by: " + ", ".join(f"{k} {v}" for k, v in endings.most_common()))
    print(f"links the honest peers had closed on the adversary at the end: {closes}; "
          f"honest rollbacks: {rollbacks}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

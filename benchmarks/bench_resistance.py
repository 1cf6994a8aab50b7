"""The Resistance selfplay: CPU per game, records, bytes, audit, time by record kind (a plain
script).

Run: ``.venv/bin/python benchmarks/bench_resistance.py [--games N]``. One process, one core.

1. Whole games through ``new_local_table`` + ``LocalTable.run`` (every record built and signed by
   its seat, verified and applied by the table engine), ``SeededEntropy`` seeds 1..N:
   10 players with The Plot Thickens (target: <= 5 CPU s per game) and 5 players base game,
   heuristic bots (and random bots for 10 players). Note: ``definition.options(players=10, ...)``
   does not keep ``players`` in the genesis options; the seat count is passed to
   ``new_local_table`` as ``spycraft selfplay`` does.
2. Audit: ``engines.audit.audit`` on each transcript's bytes.
3. Time by record kind for the 10-player plot games: ``TableSeat.build`` (the writer: bot
   decision, proofs, shuffles, signing) and ``Table.apply`` (every peer: signature, proof checks,
   rules) wrapped with timers keyed by kind; ``apply`` is also timed inside the audit.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from bench_foundation import Timers, cpu, cpu_split, crypto_timers, peak_memory, row, selfplay

import spycraft.engines.seat as seat_mod
import spycraft.engines.table as table_mod
from spycraft.engines import registry
from spycraft.engines.audit import audit

GAME = "resistance"


def kinds_timers() -> Timers:
    t = Timers()
    t.wrap(seat_mod.TableSeat, "build", "build", key_result=lambda signed: signed.record.kind)
    t.wrap(table_mod.Table, "apply", "apply", key=lambda self, state, signed: signed.record.kind)
    return t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games per configuration (default 5)")
    args = parser.parse_args()
    definition = registry.load(GAME)
    configs = [
        ("10p + plot", 10, definition.options(players=10, plot=True), "heuristic"),
        ("10p + plot", 10, definition.options(players=10, plot=True), "random"),
        ("5p base", 5, definition.options(players=5), "heuristic"),
    ]
    print(
        f"The Resistance selfplay, {args.games} games per row (seeds 1..{args.games}); CPU seconds"
    )
    widths = [-11, -10, 8, 8, 8, 8, 9, 9, 8]
    print(
        row(
            ["game", "bots", "CPU/game", "max", "records", "KiB", "audit s", "audit/rec", "wall"],
            widths,
        )
        + "   (audit/rec in ms)"
    )
    kept: dict[str, list[bytes]] = {}
    for label, players, options, bots in configs:
        cpus, walls, records, sizes, audits, blobs = [], [], [], [], [], []
        for seed in range(1, args.games + 1):
            local, c, w = cpu(
                lambda o=options, p=players, b=bots, s=seed: selfplay(GAME, o, p, b, s)
            )
            blob = local.transcript.to_bytes()
            report, a, _ = cpu(lambda b=blob: audit(b))
            assert report.valid, report.describe()
            cpus.append(c)
            walls.append(w)
            records.append(len(local.records))
            sizes.append(len(blob))
            audits.append(a)
            blobs.append(blob)
        kept[f"{label}/{bots}"] = blobs
        print(
            row(
                [
                    label,
                    bots,
                    f"{statistics.mean(cpus):.3f}",
                    f"{max(cpus):.3f}",
                    f"{statistics.mean(records):.0f}",
                    f"{statistics.mean(sizes) / 1024:.0f}",
                    f"{statistics.mean(audits):.3f}",
                    f"{1000 * sum(audits) / sum(records):.2f}",
                    f"{statistics.mean(walls):.3f}",
                ],
                widths,
            )
        )

    # --- time by record kind, 10 players + plot, heuristic ---------------------------------------
    options = definition.options(players=10, plot=True)
    with kinds_timers() as t:
        _, total, _ = cpu(
            lambda: [selfplay(GAME, options, 10, "heuristic", s) for s in range(1, args.games + 1)]
        )
    blobs = kept["10p + plot/heuristic"]
    with Timers() as ta:
        ta.wrap(
            table_mod.Table, "apply", "apply", key=lambda self, state, signed: signed.record.kind
        )
        _, audit_total, _ = cpu(lambda: [audit(b) for b in blobs])
    kinds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name, sec in t.seconds.items():
        what, kind = name.split(":", 1)
        kinds[kind][what] += sec
        kinds[kind][what + "#"] += t.calls[name]
    for name, sec in ta.seconds.items():
        kinds[name.split(":", 1)[1]]["audit"] += sec
    n = args.games
    print(f"\nTime by record kind, 10 players + plot, heuristic bots, mean per game over {n} games")
    print(f"(selfplay CPU {total / n:.3f} s/game; audit {audit_total / n:.3f} s/game)")
    widths = [-18, 6, 9, 9, 9, 7, 9]
    print(row(["kind", "count", "build ms", "apply ms", "audit ms", "share", "ms/rec"], widths))
    ordered = sorted(kinds.items(), key=lambda kv: -(kv[1]["build"] + kv[1]["apply"]))
    for kind, v in ordered:
        count = v["apply#"] / n
        both = v["build"] + v["apply"]
        print(
            row(
                [
                    kind,
                    f"{count:.1f}",
                    f"{1000 * v['build'] / n:.1f}",
                    f"{1000 * v['apply'] / n:.1f}",
                    f"{1000 * v['audit'] / n:.1f}",
                    f"{100 * both / total:.1f}%",
                    f"{1000 * both / max(v['apply#'], 1):.2f}",
                ],
                widths,
            )
        )
    rest = total - sum(v["build"] + v["apply"] for v in kinds.values())
    print(row(["(other)", "", "", "", "", f"{100 * rest / total:.1f}%", ""], widths))

    with crypto_timers() as t:
        _, total, _ = cpu(
            lambda: [selfplay(GAME, options, 10, "heuristic", s) for s in range(1, args.games + 1)]
        )
    cpu_split(t, total, f"10 players + plot, {n} heuristic games")

    print("\nPeak memory (tracemalloc; Python allocations only)")
    local, peak = peak_memory(lambda: selfplay(GAME, options, 10, "heuristic", 1))
    blob = local.transcript.to_bytes()
    print(row(["selfplay, one 10p + plot game", f"{peak / 1024:.0f} KiB"], [-32, 10]))
    _, peak = peak_memory(lambda: audit(blob))
    print(row(["audit of that transcript", f"{peak / 1024:.0f} KiB"], [-32, 10]))


if __name__ == "__main__":
    main()

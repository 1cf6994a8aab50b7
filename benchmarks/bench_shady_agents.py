"""Shady Agents selfplay: CPU per game, records, bytes, audit, time by record kind, and the
heuristic team's win rate (a plain script).

Run: ``.venv/bin/python benchmarks/bench_shady_agents.py [--games N] [--win-games M]``. One
process, one core.

1. Whole games through ``new_local_table`` + ``LocalTable.run`` (every record built and signed by
   its seat, verified and applied by the table engine), ``SeededEntropy`` seeds 1..N: 10 players
   (target: <= 3 CPU s per game) and 4 players, random and heuristic bots.
2. Audit: ``engines.audit.audit`` on each transcript's bytes.
3. Time by record kind for 10 players: ``TableSeat.build`` (the writer: bot decision, proofs,
   shuffles, seals, signing) and ``Table.apply`` (every peer: signature, proofs, rules), then the
   split between crypto primitives.
4. Win rate: M six-player games on each of two disjoint seed sets (seeds 1000.. and 5000..;
   the bar of issue 9 must hold on both), a team of heuristic bots against a team of random
   bots (``bots.TeamAgent``), the heuristic team Law-abiding in even games and Corrupt in odd
   ones. A win is a game the heuristic team's side wins; a draw (no winner) is counted apart
   and is not a win. ``tests/shady_agents/test_bot_strength.py`` pins a small third set (9000..).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from bench_foundation import Timers, cpu, cpu_split, crypto_timers, row, selfplay

import spycraft.engines.seat as seat_mod
import spycraft.engines.table as table_mod
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.audit import audit
from spycraft.engines.local import new_local_table
from spycraft.engines.shady_agents.bots import team_bot
from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING
from spycraft.engines.shady_agents.rules import TEAM_NAME

GAME = "shady-agents"


SEED_SETS = (1000, 5000)  # two disjoint sets of seeds for the win rate


def win_rate(games: int, players: int = 6, base: int = 1000) -> tuple[int, int]:
    """(wins, draws) of the heuristic team over ``games`` games seeded ``base``, ``base + 1``..."""
    definition = registry.load(GAME)
    wins = draws = 0
    for index in range(games):
        team = LAW_ABIDING if index % 2 == 0 else CORRUPT
        entropy = SeededEntropy(base + index)
        local = new_local_table(definition, {}, players, entropy)
        agents = [team_bot(entropy.child(f"bot/{i}"), i, team) for i in range(players)]
        result = local.run(agents).result
        assert result is not None
        wins += result.winner == TEAM_NAME[team]
        draws += result.winner is None
    return wins, draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games per configuration (default 5)")
    parser.add_argument("--win-games", type=int, default=200, help="games for the win rate")
    args = parser.parse_args()
    n = args.games
    print(f"Shady Agents selfplay, {n} games per row (seeds 1..{n}); CPU seconds")
    widths = [-6, -10, 8, 8, 8, 8, 9, 9]
    print(row(["game", "bots", "CPU/game", "max", "records", "KiB", "audit s", "audit/rec"],
              widths) + "   (audit/rec in ms)")
    for players in (10, 4):
        for bots in ("random", "heuristic"):
            cpus, records, sizes, audits = [], [], [], []
            for seed in range(1, n + 1):
                local, c, _ = cpu(lambda p=players, b=bots, s=seed: selfplay(GAME, {}, p, b, s))
                blob = local.transcript.to_bytes()
                report, a, _ = cpu(lambda b=blob: audit(b))
                assert report.valid, report.describe()
                cpus.append(c)
                records.append(len(local.records))
                sizes.append(len(blob))
                audits.append(a)
            print(row([
                f"{players}p", bots, f"{statistics.mean(cpus):.3f}", f"{max(cpus):.3f}",
                f"{statistics.mean(records):.0f}", f"{statistics.mean(sizes) / 1024:.0f}",
                f"{statistics.mean(audits):.3f}", f"{1000 * sum(audits) / sum(records):.2f}",
            ], widths))

    with Timers() as t:
        t.wrap(seat_mod.TableSeat, "build", "build", key_result=lambda signed: signed.record.kind)
        t.wrap(table_mod.Table, "apply", "apply",
               key=lambda self, state, signed: signed.record.kind)
        _, total, _ = cpu(lambda: [selfplay(GAME, {}, 10, "heuristic", s) for s in range(1, n + 1)])
    kinds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name, sec in t.seconds.items():
        what, kind = name.split(":", 1)
        kinds[kind][what] += sec
        kinds[kind][what + "#"] += t.calls[name]
    print(f"\nTime by record kind, 10 players, heuristic bots, mean per game over {n} games")
    timed = sum(v["build"] + v["apply"] for v in kinds.values())
    print(f"(selfplay CPU {total / n:.3f} s/game; the timers read the wall clock, "
          f"{timed / n:.3f} s/game in build and apply: shares are of that)")
    widths = [-12, 6, 9, 9, 7]
    print(row(["kind", "count", "build ms", "apply ms", "share"], widths))
    for kind, v in sorted(kinds.items(), key=lambda kv: -(kv[1]["build"] + kv[1]["apply"])):
        both = v["build"] + v["apply"]
        print(row([kind, f"{v['apply#'] / n:.1f}", f"{1000 * v['build'] / n:.1f}",
                   f"{1000 * v['apply'] / n:.1f}", f"{100 * both / timed:.1f}%"], widths))

    with crypto_timers() as t:
        _, total, _ = cpu(lambda: [selfplay(GAME, {}, 10, "heuristic", s) for s in range(1, n + 1)])
    cpu_split(t, total, f"10 players, {n} heuristic games")

    for base in SEED_SETS if args.win_games else ():
        (wins, draws), c, _ = cpu(lambda b=base: win_rate(args.win_games, base=b))
        print(f"\nHeuristic team against random team, 6 players, {args.win_games} games "
              f"(seeds {base}..{base + args.win_games - 1}): {wins} wins "
              f"({100 * wins / args.win_games:.1f}%), {draws} draws, "
              f"{args.win_games - wins - draws} losses; {c:.0f} CPU s")


if __name__ == "__main__":
    main()

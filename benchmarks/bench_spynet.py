"""SpyNet timings and the heuristic bot's strength, run by hand (not part of the test run).

    python benchmarks/bench_spynet.py                 # a 4-player selfplay game: CPU, by kind
    python benchmarks/bench_spynet.py --deck          # the deck phase alone: 76 cards, 4 seats
    python benchmarks/bench_spynet.py --winrate 200   # heuristic vs random, 2 players, seeded

The game's CPU is split by record kind, building (the seat) and applying (the engine) apart,
so it shows where the time goes. The deck phase is the key shares and the four proven shuffles
of the 76-card deck, per seat: building its own shuffle and checking everyone else's. The win
rate plays seeded 2-player games, the heuristic bot taking seat 0 in even games and seat 1 in
odd ones; a shared win counts half.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.bots import BOTS


def table(players: int, seed: int, situation: str = "off") -> LocalTable:
    return new_local_table(GAME, {"situation": situation}, players, SeededEntropy(seed))


def timed_game(players: int, seed: int) -> None:
    local = table(players, seed)
    entropy = SeededEntropy(seed)
    agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(players)]
    build: dict[str, float] = defaultdict(float)
    apply: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    start = time.process_time()
    while (turn := local.table.expect(local.state)) is not None:
        t0 = time.process_time()
        signed = local.seats[turn.seat].build(local.state, agents[turn.seat])
        t1 = time.process_time()
        local.state = local.table.apply(local.state, signed)
        t2 = time.process_time()
        local.records.append(signed)
        kind = signed.record.kind
        build[kind] += t1 - t0
        apply[kind] += t2 - t1
        count[kind] += 1
    total = time.process_time() - start
    result = local.state.result.describe() if local.state.result else ""
    print(f"{players}-player selfplay, seed {seed}: {len(local.records)} records, "
          f"{total:.2f} s CPU in all; {result}")
    print(f"  {'kind':14} {'records':>7} {'build s':>8} {'apply s':>8}")
    for kind in sorted(count, key=lambda k: -(build[k] + apply[k])):
        print(f"  {kind:14} {count[kind]:7} {build[kind]:8.3f} {apply[kind]:8.3f}")


def deck_phase(players: int, seed: int) -> None:
    local = table(players, seed)
    agents: list[Agent] = [BOTS["random"](SeededEntropy(i), i) for i in range(players)]
    own = [0.0] * players
    check = [0.0] * players
    while (turn := local.table.expect(local.state)) is not None:
        if turn.kinds[0] not in ("deck_key", "deck_shuffle"):
            break
        t0 = time.process_time()
        signed = local.seats[turn.seat].build(local.state, agents[turn.seat])
        own[turn.seat] += time.process_time() - t0
        for seat in range(players):  # every peer checks every record, its own included
            t1 = time.process_time()
            state = local.table.apply(local.state, signed)
            check[seat] += time.process_time() - t1
        local.state = state
        local.records.append(signed)
    print(f"deck phase (76 cards, {players} seats): per seat, build own key+shuffle, check all")
    for seat in range(players):
        print(f"  seat {seat}: build {own[seat]:.3f} s, check {check[seat]:.3f} s, "
              f"total {own[seat] + check[seat]:.3f} s")


def winrate(games: int, first_seed: int) -> None:
    score = 0.0
    start = time.process_time()
    for i in range(games):
        seed = first_seed + i
        hero = i % 2
        entropy = SeededEntropy(seed)
        local = table(2, seed)
        agents = [
            BOTS["heuristic" if seat == hero else "random"](entropy.child(f"bot/{seat}"), seat)
            for seat in range(2)
        ]
        result = local.run(agents).result
        assert result is not None
        if result.winner == f"seat {hero}":
            score += 1
        elif result.winner is None:
            score += 0.5
    cpu = time.process_time() - start
    print(f"heuristic vs random, {games} seeded 2-player games: heuristic wins "
          f"{score:g} ({100 * score / games:.1f}%); {cpu:.0f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deck", action="store_true", help="time the deck phase alone")
    parser.add_argument("--winrate", type=int, metavar="GAMES", help="heuristic vs random")
    args = parser.parse_args()
    if args.winrate:
        winrate(args.winrate, args.seed)
    elif args.deck:
        deck_phase(args.players, args.seed)
    else:
        timed_game(args.players, args.seed)


if __name__ == "__main__":
    main()

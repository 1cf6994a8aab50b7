"""Confusion: one answer's membership proof and its verification, the assignment's proof, the
setup, and whole games (a plain script).

Run: ``.venv/bin/python benchmarks/bench_confusion.py [--games N]``. One process, one core.

1. One answer: ``membership.prove_member`` + ``verify_member`` on a commitment for the answer
   sets a real game asks (sizes 2 to 13; target: proved and verified <= 5 ms CPU).
2. The assignment: ``membership.prove_permutation`` + ``verify_permutation`` for 13
   commitments (a proof of a shuffle of the 13 types), and the bytes of an ``assign`` body.
3. Setup: both ``assign`` records (13 commitments and their proof each) built and applied,
   through the beacon's assignment draw.
4. Whole heuristic-vs-heuristic games through ``new_local_table`` + ``LocalTable.run`` (every
   record built and signed by its seat, verified and applied by the table; target <= 5 s CPU),
   with the CPU split: bots, proofs (prove / verify), signatures, the rest.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.membership import (
    commit,
    new_blinding,
    prove_member,
    prove_permutation,
    verify_member,
    verify_permutation,
)
from spycraft.engines.confusion import GAME
from spycraft.engines.confusion.board import DIRECTIONS, Line
from spycraft.engines.confusion.movement import TYPE_IDS, answer_sets
from spycraft.engines.local import new_local_table

# the package's ``seat`` function hides its ``seat`` module as an attribute: take the modules
bots_mod = sys.modules["spycraft.engines.confusion.bots"]
rules_mod = sys.modules["spycraft.engines.confusion.rules"]
seat_mod = sys.modules["spycraft.engines.confusion.seat"]


def cpu() -> float:
    return time.process_time()


def one_answer(rounds: int = 200) -> None:
    entropy = SeededEntropy(b"bench/confusion")
    sizes = Counter()
    for d in DIRECTIONS:
        for k in range(1, 5):
            sets = answer_sets(Line(d, k))
            sizes[len(sets.yes)] += 1
            sizes[len(sets.no)] += 1
    print("answer-set sizes over the 32 lines (yes and no):", dict(sorted(sizes.items())))
    print(f"{'set size':>8} {'prove ms':>9} {'verify ms':>10} {'total ms':>9}")
    for size in (2, 5, 9, 13):
        allowed = tuple(f"T{i:02}" for i in range(1, size)) + ("DA",)
        r = new_blinding(entropy)
        c = commit("confusion/type", "DA", r)
        start = cpu()
        proofs = [prove_member(c, "confusion/type", "DA", r, allowed, b"ctx", entropy)
                  for _ in range(rounds)]
        proved = cpu()
        for p in proofs:
            verify_member(c, "confusion/type", allowed, p, b"ctx")
        verified = cpu()
        prove_ms = (proved - start) * 1000 / rounds
        verify_ms = (verified - proved) * 1000 / rounds
        print(f"{size:>8} {prove_ms:>9.2f} {verify_ms:>10.2f} {prove_ms + verify_ms:>9.2f}")


def assignment(rounds: int = 20) -> None:
    entropy = SeededEntropy(b"bench/confusion/assign")
    order = tuple(reversed(TYPE_IDS))
    blindings = [new_blinding(entropy) for _ in order]
    commitments = [commit("confusion/type", t, r) for t, r in zip(order, blindings)]
    start = cpu()
    proofs = [prove_permutation(commitments, "confusion/type", TYPE_IDS, order, blindings,
                                b"ctx", entropy) for _ in range(rounds)]
    proved = cpu()
    for proof in proofs:
        verify_permutation(commitments, "confusion/type", TYPE_IDS, proof, b"ctx")
    verified = cpu()
    body = {"commitments": [c.encode() for c in commitments], "proof": proofs[0].encode()}
    print(f"assignment proof (13 types): prove {(proved - start) * 1000 / rounds:.1f} ms, "
          f"verify {(verified - proved) * 1000 / rounds:.1f} ms; proof "
          f"{len(encode(proofs[0].encode()))} bytes, assign body {len(encode(body))} bytes")


def timed(module: Any, name: str, bucket: dict[str, float], key: str) -> None:
    inner: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            bucket[key] += time.process_time() - start

    setattr(module, name, wrapper)


def games(count: int) -> None:
    split: dict[str, float] = Counter()
    timed(seat_mod, "prove_member", split, "prove")
    timed(seat_mod, "prove_permutation", split, "prove")
    timed(rules_mod, "verify_member", split, "verify")
    timed(rules_mod, "verify_permutation", split, "verify")
    timed(bots_mod.HeuristicBot, "decide", split, "bots")
    setup_times, game_times, records, turns, size = [], [], [], [], []
    for seed in range(1, count + 1):
        entropy = SeededEntropy(seed)
        options = GAME.genesis_options(2, {"tokens": True} if seed % 2 else {})
        start = cpu()
        local = new_local_table(GAME, options, 2, entropy)
        agents = [GAME.bots["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(2)]
        while local.state.game.game.phase in ("assign", "draw"):
            local.step(agents)
        setup_times.append(cpu() - start)
        state = local.run(agents)
        game_times.append(cpu() - start)
        records.append(len(local.records))
        turns.append(state.game.game.turn_no)
        size.append(len(local.transcript.to_bytes()))
    total = sum(game_times)
    print(f"setup (2 assign records + the assignment beacon), CPU ms: "
          f"median {statistics.median(setup_times) * 1000:.1f}")
    print(f"heuristic vs heuristic, {count} games: CPU s per game median "
          f"{statistics.median(game_times):.2f}, max {max(game_times):.2f}; records median "
          f"{statistics.median(records)}; turns median {statistics.median(turns)}; "
          f"transcript KB median {statistics.median(size) / 1024:.0f}")
    print("where the time goes (share of all games' CPU):")
    for key in ("bots", "prove", "verify"):
        print(f"  {key:>7}: {split[key] / total:6.1%}")
    print(f"  {'rest':>7}: {1 - sum(split.values()) / total:6.1%} (signatures, rules, encoding)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--quick", action="store_true",
                        help="every figure from a few rounds and one game (the suite runs it)")
    args = parser.parse_args()
    one_answer(5 if args.quick else 200)
    assignment(2 if args.quick else 20)
    games(1 if args.quick else args.games)


if __name__ == "__main__":
    main()

"""Spies & Lies: the proofs of a tokens record, the deployment proof it does not make, and whole
games (a plain script).

Run: ``.venv/bin/python benchmarks/bench_spies_and_lies.py [--games N]``. One process, one core.

1. One ``tokens`` record's four membership proofs (each card's rank is in the hand and agrees
   with its token): prove and verify, and their bytes.
2. The deployment proof the protocol does not make (docs/records.md §13): an OR over every legal
   deployment of the hand (``membership.prove_row_member``), for the four hand shapes (294, 175,
   126 and 70 legal deployments): prove and verify, and its bytes.
3. Whole heuristic-vs-heuristic games through ``new_local_table`` + ``LocalTable.run``: CPU per
   game, records, transcript bytes, and the audit of the transcript.
"""

from __future__ import annotations

import argparse
import statistics
import time

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.membership import (
    commit,
    new_blinding,
    prove_member,
    prove_row_member,
    verify_member,
    verify_row_member,
)
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import new_local_table
from spycraft.engines.spies_and_lies import GAME
from spycraft.engines.spies_and_lies.model import INTEL, SERGEANT, legal_deployments

DOMAIN = "bench/spies-and-lies/rank"


def cpu() -> float:
    return time.process_time()


def tokens_record(rounds: int = 50) -> None:
    entropy = SeededEntropy(b"bench/spies-and-lies/tokens")
    hand = tuple(r for r in range(1, 11) if r != 9)
    deployment = (2, 4, 6, 8)
    shows = INTEL[1].shows  # Low: 1..5
    cards = []
    for rank in deployment:
        token = rank in shows
        allowed = tuple(str(r) for r in hand if r == SERGEANT or (r in shows) == token)
        r = new_blinding(entropy)
        cards.append((commit(DOMAIN, str(rank), r), str(rank), r, allowed))
    start = cpu()
    proofs = [[prove_member(c, DOMAIN, v, r, allowed, b"ctx", entropy)
               for c, v, r, allowed in cards]
              for _ in range(rounds)]
    proved = cpu()
    for four in proofs:
        for (c, _, _, allowed), proof in zip(cards, four):
            verify_member(c, DOMAIN, allowed, proof, b"ctx")
    verified = cpu()
    size = len(encode([p.encode() for p in proofs[0]]))
    print(f"tokens record, 4 proofs (sets of {', '.join(str(len(c[3])) for c in cards)}): "
          f"prove {(proved - start) * 1000 / rounds:.2f} ms, "
          f"verify {(verified - proved) * 1000 / rounds:.2f} ms, {size} bytes")


def deployment_proof(rounds: int = 5) -> None:
    entropy = SeededEntropy(b"bench/spies-and-lies/deploy")
    print("the deployment proof not made (an OR over the legal deployments):")
    for exhausted in ((9,), (4,), (9, 10), (4, 9)):
        hand = tuple(r for r in range(1, 11) if r not in exhausted)
        rows = [tuple(str(r) for r in d) for d in legal_deployments(hand)]
        row = rows[len(rows) // 2]
        rs = [new_blinding(entropy) for _ in row]
        commitments = [commit(DOMAIN, v, r) for v, r in zip(row, rs)]
        start = cpu()
        proofs = [prove_row_member(commitments, DOMAIN, row, rs, rows, b"ctx", entropy)
                  for _ in range(rounds)]
        proved = cpu()
        for proof in proofs:
            verify_row_member(commitments, DOMAIN, rows, proof, b"ctx")
        verified = cpu()
        print(f"  {len(rows):>3} deployments: prove {(proved - start) * 1000 / rounds:.0f} ms, "
              f"verify {(verified - proved) * 1000 / rounds:.0f} ms, "
              f"{len(encode(proofs[0].encode()))} bytes")


def games(count: int) -> None:
    times, audits, sizes, records = [], [], [], []
    for seed in range(1, count + 1):
        entropy = SeededEntropy(seed)
        local = new_local_table(GAME, {}, 2, entropy)
        agents = [GAME.bots["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(2)]
        start = cpu()
        local.run(agents)
        times.append(cpu() - start)
        start = cpu()
        audit_transcript(local.transcript)
        audits.append(cpu() - start)
        sizes.append(len(local.transcript.to_bytes()))
        records.append(len(local.records))
    print(f"heuristic vs heuristic, {count} games: CPU ms per game median "
          f"{statistics.median(times) * 1000:.0f}; audit ms median "
          f"{statistics.median(audits) * 1000:.0f}; records median {statistics.median(records)}; "
          f"transcript KB median {statistics.median(sizes) / 1024:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--quick", action="store_true",
                        help="every figure from one round and one game (the suite runs it)")
    args = parser.parse_args()
    tokens_record(1 if args.quick else 50)
    deployment_proof(1 if args.quick else 5)
    games(1 if args.quick else args.games)


if __name__ == "__main__":
    main()

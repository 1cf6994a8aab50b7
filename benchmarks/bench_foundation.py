"""Foundation timings: Spies & Lies selfplay, audit, and where the CPU goes (a plain script).

Run: ``.venv/bin/python benchmarks/bench_foundation.py [--games N]``. One process, one core.
Every rate is CPU time (``time.process_time()``): the machine is shared, and wall time would
count the other engineers' work.

1. Selfplay: whole Spies & Lies games through ``new_local_table`` + ``LocalTable.run`` with
   ``SeededEntropy`` (every record built and signed by its seat, then verified and applied by
   the table engine), heuristic and random bots. Games/s and records/s, CPU time.
2. Audit: ``engines.audit.audit`` on the transcript bytes of those games (parse + replay),
   with the product's Ed25519 verifier (libsodium, ``identity.verify_signature``) and, for
   comparison, with OpenSSL's (``cryptography``) swapped in; the two alternate, three rounds
   each, best round kept, so a busy machine slows both alike. Then the figure of the issue,
   records/s of ``spycraft audit`` as a person runs it: one transcript per fresh process (no
   cache of an earlier audit helps), CPU time of ``audit`` alone (not the interpreter's start),
   for Spies & Lies transcripts and for one 5-player Resistance transcript (heuristic bots; its
   records carry shuffle and decryption proofs, so its rate is not that of plain records). Each
   process also times one Ed25519 verification after its audit: "verifies/rec" (the CPU of one
   audited record in verifications) changes little with the machine's load, so it carries the
   figure from a busy machine to a quiet one (records/s = 1e6 / (verifies/rec x quiet us)).
3. CPU split: the product functions are wrapped with timers (here ``time.process_time``: on a
   shared machine wall time inside a wrapper would count other processes; ``Timers`` reads
   ``time.perf_counter`` unless told, for the scripts that import it) and the shares
   of signing (Ed25519 inside ``sign_record``), verifying (``verify_record_signature`` and the
   raw ``verify_signature``), the game engine and the bots are printed. A short cProfile
   top list of the audit follows (the profiler slows pure Python more than C: its shares
   understate Ed25519).
4. Peak memory (tracemalloc) of one selfplay game and of one audit.

Other benchmark scripts import ``Timers``, ``selfplay`` and ``cpu_split`` from here.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import subprocess
import sys
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Self

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

import spycraft.crypto.identity as identity_mod
import spycraft.crypto.records as records_mod
import spycraft.crypto.transcript as transcript_mod
import spycraft.engines.seat as seat_mod
import spycraft.engines.table as table_mod
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.engines.audit import audit
from spycraft.engines.local import LocalTable, new_local_table

GAME = "spies-and-lies"


# --- timing wrappers -----------------------------------------------------------------------------


class Timers:
    """Wrap functions/methods with accumulating timers; restores the originals on exit."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._undo: list[tuple[Any, str, Any]] = []

    def wrap(
        self,
        owner: Any,
        attr: str,
        label: str,
        key: Callable[..., str] | None = None,
        key_result: Callable[[Any], str] | None = None,
    ) -> None:
        """``key`` names the call from its arguments, ``key_result`` from its return value."""
        original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        seconds, calls, clock = self.seconds, self.calls, self.clock

        def timed(*args: Any, **kwargs: Any) -> Any:
            name = label if key is None else f"{label}:{key(*args, **kwargs)}"
            start = clock()
            out = original(*args, **kwargs)
            if key_result is not None:
                name = f"{label}:{key_result(out)}"
            seconds[name] += clock() - start
            calls[name] += 1
            return out

        setattr(owner, attr, timed)
        self._undo.append((owner, attr, original))

    def restore(self) -> None:
        while self._undo:
            owner, attr, original = self._undo.pop()
            setattr(owner, attr, original)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()


@contextmanager
def crypto_timers(
    per_kind: bool = False, clock: Callable[[], float] = time.perf_counter
) -> Iterator[Timers]:
    """The standard probes: seat build, sign_record, Ed25519 sign, Table.apply, verification."""
    t = Timers(clock)
    if per_kind:
        t.wrap(seat_mod.TableSeat, "build", "build", key_result=lambda signed: signed.record.kind)
    else:
        t.wrap(seat_mod.TableSeat, "build", "seat.build")
    t.wrap(seat_mod, "sign_record", "sign_record")
    t.wrap(identity_mod.Identity, "sign", "ed25519.sign")
    if per_kind:
        t.wrap(
            table_mod.Table, "apply", "apply", key=lambda self, state, signed: signed.record.kind
        )
    else:
        t.wrap(table_mod.Table, "apply", "apply")
    t.wrap(table_mod, "verify_record_signature", "verify_record_signature")
    t.wrap(records_mod, "verify_signature", "ed25519.verify")
    t.wrap(transcript_mod, "parse_record", "parse_record")
    try:
        yield t
    finally:
        t.restore()


# --- workloads -----------------------------------------------------------------------------------


def selfplay(game: str, options: dict[str, Any], players: int, bots: str, seed: int) -> LocalTable:
    definition = registry.load(game)
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, options, players, entropy.child("table"))
    agents = [definition.bots[bots](entropy.child(f"bot/{i}"), i) for i in range(players)]
    state = local.run(agents)
    assert state.result is not None
    return local


def cpu(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds)."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def row(cells: list[Any], widths: list[int]) -> str:
    out = []
    for cell, width in zip(cells, widths):
        text = f"{cell:.3f}" if isinstance(cell, float) else str(cell)
        out.append(text.ljust(-width) if width < 0 else text.rjust(width) if width > 0 else text)
    return "  ".join(out)


def cpu_split(t: Timers, total: float, title: str) -> None:
    """Print the selfplay CPU split from the standard probes (seconds measured inside ``t``)."""
    s = {k: v for k, v in t.seconds.items()}
    apply_total = sum(v for k, v in s.items() if k == "apply" or k.startswith("apply:"))
    build = sum(v for k, v in s.items() if k == "seat.build" or k.startswith("build:"))
    builds = sum(v for k, v in t.calls.items() if k == "seat.build" or k.startswith("build:"))
    sign_rec = s.get("sign_record", 0.0)
    ed_sign = s.get("ed25519.sign", 0.0)
    vrs = s.get("verify_record_signature", 0.0)
    ed_verify = s.get("ed25519.verify", 0.0)
    parse = s.get("parse_record", 0.0)
    n_verify = t.calls.get("ed25519.verify", 0)
    n_vrs = t.calls.get("verify_record_signature", 0)
    # ed25519.verify also counts the genesis signatures (outside verify_record_signature)
    vrs_rest = max(0.0, vrs - ed_verify * n_vrs / n_verify) if n_verify else vrs
    lines = [
        ("Ed25519 sign (Identity.sign, incl. key load)", ed_sign, t.calls.get("ed25519.sign", 0)),
        (
            "sign_record rest (CBOR encode, thaw re-parse)",
            sign_rec - ed_sign,
            t.calls.get("sign_record", 0),
        ),
        (
            "Ed25519 verify (verify_signature; records+genesis)",
            ed_verify,
            t.calls.get("ed25519.verify", 0),
        ),
        (
            "verify_record_signature rest (Sig_structure encode)",
            vrs_rest,
            t.calls.get("verify_record_signature", 0),
        ),
        ("engine: Table.apply minus signature check", apply_total - vrs, None),
        ("seat + bots: TableSeat.build minus sign_record", build - sign_rec, builds),
        ("parse_record (transcript parsing)", parse, t.calls.get("parse_record", 0)),
        ("other (run loop, expect, genesis, wrappers)", total - build - apply_total - parse, None),
    ]
    print(f"\n{title}: CPU split of {total:.3f} s")
    print(row(["part", "seconds", "share", "calls", "us/call"], [-52, 8, 7, 7, 8]))
    for name, sec, calls in lines:
        if sec == 0 and not calls:
            continue
        per = f"{sec / calls * 1e6:.1f}" if calls else "-"
        print(
            row(
                [
                    name,
                    f"{sec:.3f}",
                    f"{100 * sec / total:.1f}%",
                    calls if calls is not None else "-",
                    per,
                ],
                [-52, 8, 7, 7, 8],
            )
        )
    crypto = ed_sign + ed_verify
    print(
        f"  => raw Ed25519 sign+verify: {100 * crypto / total:.1f}% of CPU; "
        f"with their CBOR wrapping (sign_record + verify_record_signature): "
        f"{100 * (sign_rec + vrs) / total:.1f}%"
    )


def openssl_verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Ed25519 verification by OpenSSL (``cryptography``): the verifier before libsodium's."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def ed25519_floor(n: int = 2000) -> None:
    """What one signature costs: the product's sign and verify, and OpenSSL's verify."""
    ident = Identity(bytes(range(32)))
    message = b"x" * 200
    key = Ed25519PrivateKey.from_private_bytes(ident.secret)
    pub_bytes = ident.public
    pub = Ed25519PublicKey.from_public_bytes(pub_bytes)
    sig = key.sign(message)

    def mean(fn: Callable[[], Any]) -> float:
        start = time.process_time()
        for _ in range(n):
            fn()
        return (time.process_time() - start) / n * 1e6

    print("\nEd25519 per operation (us of CPU time), this machine")
    print(row(["operation", "us"], [-56, 8]))
    for name, fn in [
        ("Identity.sign (loads the private key on every call)", lambda: ident.sign(message)),
        ("Ed25519PrivateKey.sign with a cached key", lambda: key.sign(message)),
        ("Identity.public (loads the key, derives the public key)", lambda: ident.public),
        (
            "verify_signature (the product's: libsodium)",
            lambda: identity_mod.verify_signature(pub_bytes, sig, message),
        ),
        ("OpenSSL verify, loading the public key", lambda: openssl_verify(pub_bytes, sig, message)),
        ("OpenSSL Ed25519PublicKey.verify with a cached key", lambda: pub.verify(sig, message)),
    ]:
        print(row([name, f"{mean(fn):.1f}"], [-56, 8]))


# One audit in a new interpreter: the game modules are imported first (as the command line does
# before it reads a transcript), then only ``audit`` is timed; then, in the same process, one
# Ed25519 verification (the mean of 300), the yardstick that a busy machine slows about as much.
_FRESH_AUDIT = """
import sys, time
from spycraft.crypto.identity import Identity, verify_signature
from spycraft.engines import registry
from spycraft.engines.audit import audit
for name in registry.game_names():
    registry.load(name)
data = sys.stdin.buffer.read()
start = time.process_time()
report = audit(data)
seconds = time.process_time() - start
assert report.valid, report.describe()
signer = Identity(bytes(range(32)))
message = bytes(200)
signature, key = signer.sign(message), signer.public
start = time.process_time()
for _ in range(300):
    verify_signature(key, signature, message)
print(report.records, seconds, (time.process_time() - start) / 300)
"""


def fresh_audit(blob: bytes) -> tuple[int, float, float]:
    """(records, CPU seconds of ``audit``, of one verification) for one transcript in a fresh
    process."""
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_AUDIT], input=blob, capture_output=True, check=True
    )
    records, seconds, verify = done.stdout.split()
    return int(records), float(seconds), float(verify)


FRESH_WIDTHS = [-42, 5, 7, 8, 9, 10, 11]


def fresh_audits(label: str, blobs: list[bytes], rounds: int = 3) -> None:
    """Records/s of one-transcript audits (each transcript's best of ``rounds`` processes), and
    the CPU of one record in verifications (a ratio that the machine's load changes little)."""
    records, seconds, verifies = 0, 0.0, 0.0
    for blob in blobs:
        runs = [fresh_audit(blob) for _ in range(rounds)]
        best = min(runs, key=lambda run: run[1])
        records += best[0]
        seconds += best[1]
        verifies += best[1] / best[2]
    print(
        row(
            [label, len(blobs), records, f"{1000 * seconds / len(blobs):.1f}",
             f"{1e6 * seconds / records:.1f}", f"{records / seconds:.0f}",
             f"{verifies / records:.2f}"],
            FRESH_WIDTHS,
        )
    )


def peak_memory(fn: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def profile_top(fn: Callable[[], Any], n: int = 12) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    entries = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:n]  # type: ignore[attr-defined]
    print(f"\ncProfile top {n} by own time (total {total:.3f} s under the profiler)")
    print(row(["function", "own s", "share", "calls"], [-72, 7, 6, 8]))
    for (file, line, func), (cc, nc, tt, ct, _) in entries:
        short = file.split("/site-packages/")[-1].split("/work/main/")[-1]
        print(
            row(
                [
                    (f"{short}:{line}({func})" if line else func)[:72],
                    f"{tt:.3f}",
                    f"{100 * tt / total:.0f}%",
                    nc,
                ],
                [-72, 7, 6, 8],
            )
        )


# --- main ----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per bot kind (default 40)")
    parser.add_argument(
        "--fresh", type=int, default=8, help="transcripts audited in fresh processes (default 8)"
    )
    args = parser.parse_args()
    definition = registry.load(GAME)
    options = definition.options()
    players = 2

    print(f"Spies & Lies selfplay, {args.games} games per bot kind, seeds 1..{args.games}")
    print(
        row(
            ["bots", "games/s", "records/s", "ms/game", "records/game", "bytes/game", "CPU s"],
            [-10, 8, 10, 8, 12, 10, 7],
        )
    )
    transcripts: dict[str, list[bytes]] = {}
    for bots in ("heuristic", "random"):

        def batch(bots: str = bots) -> list[LocalTable]:
            return [
                selfplay(GAME, options, players, bots, seed) for seed in range(1, args.games + 1)
            ]

        tables, cpu_s, _ = cpu(batch)
        records = sum(len(t.records) for t in tables)
        data = [t.transcript.to_bytes() for t in tables]
        transcripts[bots] = data
        print(
            row(
                [
                    bots,
                    f"{len(tables) / cpu_s:.1f}",
                    f"{records / cpu_s:.0f}",
                    f"{1000 * cpu_s / len(tables):.1f}",
                    f"{records / len(tables):.1f}",
                    f"{sum(map(len, data)) / len(data):.0f}",
                    f"{cpu_s:.2f}",
                ],
                [-10, 8, 10, 8, 12, 10, 7],
            )
        )

    print("\nAudit (engines.audit.audit on transcript bytes: parse, signatures, replay)")
    print(row(["bots", "verifier", "records/s", "audits/s", "ms/audit", "MB/s"],
              [-10, -9, 10, 9, 9, 6]))
    verifiers = {"libsodium": records_mod.verify_signature, "OpenSSL": openssl_verify}
    for bots, data in transcripts.items():

        def audit_all(data: list[bytes] = data) -> int:
            n = 0
            for blob in data:
                report = audit(blob)
                assert report.valid, report.describe()
                n += report.records
            return n

        best: dict[str, tuple[int, float]] = {}
        try:
            for _ in range(3):
                for name, verify in verifiers.items():
                    records_mod.verify_signature = verify  # type: ignore[assignment]
                    n, cpu_s, _ = cpu(audit_all)
                    if name not in best or cpu_s < best[name][1]:
                        best[name] = (n, cpu_s)
        finally:
            records_mod.verify_signature = verifiers["libsodium"]  # type: ignore[assignment]
        for name, (n, cpu_s) in best.items():
            print(
                row(
                    [
                        bots,
                        name,
                        f"{n / cpu_s:.0f}",
                        f"{len(data) / cpu_s:.1f}",
                        f"{1000 * cpu_s / len(data):.2f}",
                        f"{sum(map(len, data)) / cpu_s / 1e6:.2f}",
                    ],
                    [-10, -9, 10, 9, 9, 6],
                )
            )

    print("\nspycraft audit as run: one transcript per fresh process, CPU time of audit alone")
    print(
        row(["transcripts", "count", "records", "ms/audit", "us/rec", "records/s", "verifies/rec"],
            FRESH_WIDTHS)
    )
    fresh_audits("Spies & Lies, heuristic bots", transcripts["heuristic"][: args.fresh])
    fresh_audits("Spies & Lies, random bots", transcripts["random"][: args.fresh])
    resistance = registry.load("resistance")
    blob = selfplay("resistance", resistance.options(players=5), 5, "heuristic", 1)
    fresh_audits("The Resistance, 5 players, heuristic bots", [blob.transcript.to_bytes()])

    with crypto_timers(clock=time.process_time) as t:
        _, total, _ = cpu(
            lambda: [
                selfplay(GAME, options, players, "heuristic", s) for s in range(1, args.games + 1)
            ]
        )
    cpu_split(t, total, f"Selfplay ({args.games} heuristic games)")

    heuristic = transcripts["heuristic"]
    with crypto_timers(clock=time.process_time) as t:
        _, total, _ = cpu(lambda: [audit(b) for b in heuristic])
    cpu_split(t, total, f"Audit ({len(heuristic)} heuristic transcripts)")

    ed25519_floor()

    profile_top(lambda: [audit(b) for b in heuristic], n=16)

    print("\nPeak memory (tracemalloc; Python allocations only)")
    print(row(["what", "peak KiB", "transcript KiB"], [-34, 9, 15]))
    local, peak = peak_memory(lambda: selfplay(GAME, options, players, "heuristic", 1))
    blob = local.transcript.to_bytes()
    print(
        row(
            ["selfplay, one heuristic game", f"{peak / 1024:.0f}", f"{len(blob) / 1024:.1f}"],
            [-34, 9, 15],
        )
    )
    _, peak = peak_memory(lambda: audit(blob))
    print(
        row(
            ["audit of that transcript", f"{peak / 1024:.0f}", f"{len(blob) / 1024:.1f}"],
            [-34, 9, 15],
        )
    )


if __name__ == "__main__":
    main()

"""What a person waits for before a command answers: CPU of the whole process, beside the floor.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--rounds 15] [--quick] [--before SCRIPT]``.

Every command is run as a person runs it: a fresh process of the installed console script
(``spycraft`` beside this interpreter), its output to a pipe. The figure is the CPU of that whole
process, user + system, read from the kernel when it is reaped (``os.wait4``), so it counts the
interpreter's start, every import and the work, and nothing of this script. The children run with
bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed from their environment) and each command
runs once unmeasured first, so the figures are those of an installed spycraft, not of compiling.
The floor is ``python -c "import cbor2, cryptography"``: the interpreter and the two libraries no
command can do without. The commands and the floor are run in turns, one round after another, so
that a shared machine's load falls on all of them alike; the table gives each command's median
and its ratio to the floor's median, and the median of the per-round ratios.

The audited transcript is a Spies & Lies selfplay with 83 records (the first such seed), written
to a temporary folder. ``--quick``: one round, and the audit of any seed (for the test that keeps
this script working). ``--before SCRIPT``: the same commands also run with another install's
``spycraft`` script (another checkout's venv), in the same rounds, for a before/after in one
window. ``--parts``: also processes that only import what the audit needs, one layer more each
(rbcl alone, the record code, the game's engine), in the same rounds: where the audit's CPU goes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

FLOOR = ("python -c 'import cbor2, cryptography'",
         [sys.executable, "-c", "import cbor2, cryptography"])
BARE = ("python -c pass", [sys.executable, "-c", "pass"])
PARTS = [(f"floor + import {what}", [sys.executable, "-c", f"import cbor2, cryptography, {what}"])
         for what in ("rbcl", "spycraft.crypto.records",
                      "spycraft.engines.spies_and_lies.definition")]
"""The audit's layers (``--parts``): rbcl (libsodium, for ristretto255), then all of the record
code (Ed25519 through rbcl's libsodium, X25519 keys through OpenSSL), then the engine."""


def spycraft() -> str:
    """The console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("spycraft")
    if not script.exists():
        raise SystemExit(f"no spycraft script beside {sys.executable} (pip install -e .)")
    return str(script)


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: with bytecode caching on, as an installed spycraft runs (a test
harness or a shell may have turned it off; then every start would compile every module)."""


def cpu_of(argv: list[str]) -> float:
    """CPU seconds (user + system) of one run of ``argv``, its output discarded; it must exit 0
    (``audit``: VALID) or the figure would be of an error path."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=ENV)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {child.returncode}: {err.decode()[-400:]}")
    return usage.ru_utime + usage.ru_stime


def transcript(folder: Path, exact: int | None) -> tuple[Path, int]:
    """A Spies & Lies selfplay transcript (with ``exact`` records, the first seed that has them)."""
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.engines import registry
    from spycraft.engines.local import new_local_table

    definition = registry.load("spies-and-lies")
    for seed in range(200):
        entropy = SeededEntropy(seed)
        local = new_local_table(definition, {}, 2, entropy.child("table"))
        agents = [definition.bots["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(2)]
        local.run(agents)
        if exact is None or len(local.records) == exact:
            path = folder / f"spies-and-lies-seed{seed}.cbor"
            path.write_bytes(local.transcript.to_bytes())
            return path, len(local.records)
    raise SystemExit(f"no seed below 200 gives {exact} records")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min), {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="turns of every command (15)")
    parser.add_argument("--quick", action="store_true", help="one round, any transcript")
    parser.add_argument("--before", metavar="SCRIPT", default=None,
                        help="another install's spycraft script, run in the same rounds")
    parser.add_argument("--parts", action="store_true",
                        help="also the audit's imports alone, layer by layer")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    scripts = [("", spycraft())] + ([("before: ", args.before)] if args.before else [])
    with tempfile.TemporaryDirectory() as tmp:
        path, records = transcript(Path(tmp), None if args.quick else 83)
        commands = [FLOOR, BARE, *(PARTS if args.parts else [])]
        for label, script in scripts:
            commands += [
                (f"{label}spycraft --help", [script, "--help"]),
                (f"{label}spycraft rules resistance", [script, "rules", "resistance"]),
                (f"{label}spycraft selfplay --help", [script, "selfplay", "--help"]),
                (f"{label}spycraft audit ({records}-record Spies & Lies)",
                 [script, "audit", str(path)]),
            ]
        print(f"before: {load()}")
        for _, argv in commands:  # once first, unmeasured: the bytecode caches are written
            cpu_of(argv)
        cpu: dict[str, list[float]] = {name: [] for name, _ in commands}
        for _ in range(rounds):
            for name, argv in commands:
                cpu[name].append(cpu_of(argv))
        print(f"after:  {load()}")
    floor = statistics.median(cpu[FLOOR[0]])
    print(f"\n{rounds} rounds, CPU (user + system) of the whole process, median\n")
    print("| command | CPU ms | x floor (medians) | x floor (median of rounds) |")
    print("|---|---|---|---|")
    for name, _ in commands:
        runs = cpu[name]
        per_round = [c / f for c, f in zip(runs, cpu[FLOOR[0]], strict=True) if f > 0]
        mid = statistics.median(per_round) if per_round else float("nan")
        print(f"| {name} | {statistics.median(runs) * 1000:.1f} | "
              f"{statistics.median(runs) / floor:.2f} | {mid:.2f} |")


if __name__ == "__main__":
    main()

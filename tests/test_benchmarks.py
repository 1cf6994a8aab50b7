"""Every benchmark still runs: its smallest form exits 0 and prints its figures.

The benchmarks are run by hand (their figures are in benchmarks/README.md) and never asserted as
timings; this only keeps them from rotting when the code under them changes (bench_lan.py's
``--targets`` stopped running once, unnoticed). Each runs as a person runs it, from the
repository root, in the smallest form it has (``--quick``, or one game), in a child process with
a bound on its time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

SMALLEST = {
    "bench_bots.py": ["resistance", "--games", "2", "--players", "5", "--targets", "--against",
                      "normal,expert", "--check", "1"],
    "bench_confusion.py": ["--quick"],
    "bench_door.py": [],
    "bench_foundation.py": ["--games", "1"],
    "bench_lan.py": ["--quick"],
    "bench_resistance.py": ["--games", "1"],
    "bench_screen.py": ["--quick"],
    "bench_seals.py": ["--repeat", "1"],
    "bench_setup.py": ["--players", "5", "--rounds", "1"],
    "bench_shady_agents.py": ["--games", "1", "--win-games", "1"],
    "bench_spies_and_lies.py": ["--quick"],
    "bench_spynet.py": ["--players", "2"],
    "bench_startup.py": ["--quick"],
    "bench_toolkit.py": ["--quick"],
}
"""Each script and the arguments of its smallest form."""



def test_every_benchmark_has_a_smallest_form_here() -> None:
    assert sorted(p.name for p in BENCHMARKS.glob("bench_*.py")) == sorted(SMALLEST)


@pytest.mark.parametrize("script", [
    pytest.param(name, marks=[pytest.mark.network] if name == "bench_lan.py" else [])
    for name in sorted(SMALLEST)
])
def test_a_benchmark_runs_and_prints_its_figures(script: str, tmp_path: Path) -> None:
    env = {**os.environ, "SPYCRAFT_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *SMALLEST[script]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    figures = [line for line in done.stdout.splitlines() if re.search(r"\d", line)]
    assert figures, done.stdout  # its table: a line with numbers in it at least

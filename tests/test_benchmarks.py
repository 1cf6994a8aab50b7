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


def test_bench_bots_plays_no_cell_for_a_side_a_seat_count_lacks_and_pools_the_sides(
        tmp_path: Path) -> None:
    """SpyNet's sides are seats at two and three seats and teams of two at four: a targets run
    at 2 and 4 seats plays, per seed, the all-normal game and one game per side present raised
    (3 + 3), not one per side the game has (5 + 5, the rest the all-normal game again); each
    seat count's table ends with the sides pooled."""
    saved = tmp_path / "games.jsonl"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_bots.py"), "spynet", "--targets", "--levels",
         "easy,normal", "--players", "2,4", "--games", "3", "--save", str(saved)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "18 games in" in done.stdout
    rows = [line.split(" | ") for line in done.stdout.splitlines() if "| pooled |" in line]
    assert [(row[0], row[-1]) for row in rows] == [("| 2 seats", "3 seeds |"),
                                                    ("| 4 seats", "3 seeds |")]
    assert all(re.fullmatch(r"[+-]\d+\.\d \+- \d+\.\d", row[3]) for row in rows), rows
    reported = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_bots.py"), "spynet", "--levels", "easy,normal",
         "--targets", "--report", str(saved)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert reported.returncode == 0, reported.stderr[-2000:]
    assert [line for line in reported.stdout.splitlines() if "| pooled |" in line] == [
        " | ".join(row) for row in rows]

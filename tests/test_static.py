"""The code stays as STYLE.md asks: ruff clean everywhere, mypy --strict on every package."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    # PYTHON: tools/typecheck.sh runs `$PYTHON -m mypy`, the mypy of the interpreter running us
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          check=False, env={**os.environ, "PYTHON": sys.executable})


def test_ruff_finds_nothing():
    result = run(str(BIN / "ruff"), "check", "crypto", "engines", "p2p", "cli", "spycraft", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_finds_nothing():
    assert shutil.which("bash")
    result = run("bash", "tools/typecheck.sh")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_sans_io_cores_import_no_io_clock_thread_or_random():
    forbidden = ("trio", "socket", "threading", "asyncio", "time", "random", "zeroconf",
                 "prompt_toolkit", "subprocess", "os")
    offenders = []
    for folder in ("crypto", "engines"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                words = line.split()
                if len(words) >= 2 and words[0] in ("import", "from"):
                    module = words[1].split(".")[0]
                    if module in forbidden:
                        offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)

"""The program as a person starts it: nothing left behind in the temp directory, no traceback on
a file that never ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def spycraft(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_starting_spycraft_leaves_the_temp_directory_empty(tmp_path: Path) -> None:
    # rbcl writes its bundled libsodium (2.7 MB) to a new temp file on every import
    fresh = tmp_path / "tmp"
    fresh.mkdir()
    env = {**os.environ, "TMPDIR": str(fresh), "TEMP": str(fresh), "TMP": str(fresh)}
    for args in (("--help",), ("audit", "--help")):
        done = spycraft(*args, env=env)
        assert done.returncode == 0, done.stderr
    probe = subprocess.run([sys.executable, "-c", "import spycraft.crypto.group; print('loaded')"],
                           env=env, capture_output=True, text=True, timeout=60, check=False)
    assert probe.stdout.strip() == "loaded", probe.stderr
    assert list(fresh.iterdir()) == []


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_spycraft_audit_of_an_endless_file_is_a_one_line_error(tmp_path: Path) -> None:
    done = spycraft("audit", "/dev/zero")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "larger than a transcript may be" in done.stderr

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


LIBRARIES = ("prompt_toolkit", "trio", "zeroconf")
"""What only the full-screen table (prompt-toolkit) and the network commands (trio, zeroconf)
use: a command that does neither must not import them."""

PROBE = """\
import atexit, sys
def listed():
    with open(sys.argv[1], "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(listed)
from spycraft.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def modules_of(tmp_path: Path, *args: str) -> set[str]:
    """The modules a real ``spycraft ARGS`` process holds when it exits (its output a pipe)."""
    listing = tmp_path / "modules.txt"
    done = subprocess.run([sys.executable, "-c", PROBE, str(listing), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return set(listing.read_text().split())


def engines_in(modules: set[str]) -> set[str]:
    """The games whose engine is loaded: anything of a game package beyond its ``ABOUT``."""
    from spycraft.engines import registry

    return {game for game in registry.game_names() for name in modules
            if name.startswith(registry._MODULES[game] + ".")}


def libraries_in(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] in LIBRARIES}


@pytest.mark.parametrize("args", [("--help",), ("rules", "resistance"), ("rules", "shady-agents"),
                                  ("selfplay", "--help"), ("play", "--help"), ("audit", "--help")])
def test_talking_about_the_games_loads_no_engine_no_network_and_no_screen(
        tmp_path: Path, args: tuple[str, ...]) -> None:
    modules = modules_of(tmp_path, *args)
    assert libraries_in(modules) == set()
    assert engines_in(modules) == set()


def test_an_audit_loads_the_engine_of_its_game_alone_and_no_network_or_screen(
        tmp_path: Path) -> None:
    path = tmp_path / "game.cbor"
    made = spycraft("selfplay", "spies-and-lies", "--seed", "3", "--quiet", "--out", str(path))
    assert made.returncode == 0, made.stderr
    modules = modules_of(tmp_path, "audit", str(path))
    assert libraries_in(modules) == set()
    assert engines_in(modules) == {"spies-and-lies"}


def test_an_audit_leaves_doctest_unloaded_and_doctest_still_works_when_imported(
        tmp_path: Path) -> None:
    # rbcl and barriers import doctest (and with it pdb and unittest) for their own examples;
    # crypto.sodium gives them a stand-in that loads the real module on first use
    path = tmp_path / "game.cbor"
    made = spycraft("selfplay", "spies-and-lies", "--seed", "3", "--quiet", "--out", str(path))
    assert made.returncode == 0, made.stderr
    modules = modules_of(tmp_path, "audit", str(path))
    assert {"doctest", "pdb", "unittest"} & modules == set()
    probe = """\
import sys
import spycraft.crypto.group
assert "doctest" not in sys.modules
import doctest
import rbcl.rbcl
assert type(doctest).__name__ == "module" and sys.modules["doctest"] is doctest
assert rbcl.rbcl.doctest.testmod is doctest.testmod
print(doctest.DocTestParser().get_examples(">>> 1 + 1\\n2\\n")[0].want, end="")
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2\n"

"""macOS and Windows, tested here on Linux: what the package does at import time and where it keeps
a player's files must not depend on POSIX-only modules or on Linux.

The import test runs in a subprocess: every module of the package is imported once normally (so
the standard library and the third-party libraries load the code of the system they are really
on), then every spycraft module is dropped and imported again with ``fcntl``, ``termios``,
``pwd``, ``grp``, ``resource``, ``tty`` and ``pty`` made unimportable by a ``sys.meta_path``
blocker and ``sys.platform`` set to the platform under test, which is what platformdirs and our
own interface code look at.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from spycraft.crypto.identity import Identity
from spycraft.p2p.storage import GameStore, SeatFile

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = {"spycraft": "spycraft", "spycraft.crypto": "crypto", "spycraft.engines": "engines",
                "spycraft.p2p": "p2p", "spycraft.cli": "cli"}
POSIX_ONLY = ("fcntl", "termios", "pwd", "grp", "resource", "tty", "pty")
NOT_HERE = "10.255.255.1"  # an address no test machine has

PROBE = """
import importlib, json, sys
from pathlib import Path

modules, fake, posix_only = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
for name in modules:
    importlib.import_module(name)
for name in [m for m in sys.modules if m.split(".")[0] in ("spycraft", "platformdirs")]:
    del sys.modules[name]
for name in posix_only:
    sys.modules.pop(name, None)


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in posix_only:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: not on {fake})")
        return None


sys.meta_path.insert(0, Blocker())
sys.platform = fake
if fake == "win32":  # no Windows shell API here: platformdirs then reads %LOCALAPPDATA%
    ctypes, sys.modules["ctypes"] = sys.modules["ctypes"], None
    import platformdirs
    sys.modules["ctypes"] = ctypes
for name in modules:
    importlib.import_module(name)

from spycraft.cli import config
from spycraft.p2p.discovery import default_interface, network_interfaces

key = config.identity_path()
if sys.argv[4] == "loose-key":
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_bytes(bytes(range(32)))
    key.chmod(0o644)
    config.check_private(key)  # exits on POSIX; Windows has no modes to check
choice = default_interface()
print(json.dumps({
    "config": str(config.config_dir()), "data": str(config.data_dir()),
    "interfaces": [i.name for i in network_interfaces()],
    "flags": [i.multicast for i in network_interfaces()],
    "chosen": choice.interface.name, "blocked": sorted(m for m in posix_only if m in sys.modules),
}))
"""


def package_modules() -> list[str]:
    names = []
    for package, folder in PACKAGE_DIRS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [*package.split("."), *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__main__":
                continue  # importing it runs the command
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def home_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("XDG_") and k not in ("SPYCRAFT_HOME", "LOCALAPPDATA", "APPDATA")}
    return dict(env, HOME=str(home), **extra)


def probe(platform: str, env: dict[str, str], mode: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(package_modules()), platform,
         json.dumps(POSIX_ONLY), mode],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def spycraft(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_package_names_every_module_the_probe_imports() -> None:
    modules = package_modules()
    assert "spycraft.p2p.discovery" in modules and "spycraft.cli.doctor" in modules
    assert len(modules) > 40


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_every_module_imports_without_posix_only_modules(platform: str, tmp_path: Path) -> None:
    env = home_env(tmp_path, LOCALAPPDATA=str(tmp_path / "Local"),
                   APPDATA=str(tmp_path / "Roaming"))
    done = probe(platform, env)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["blocked"] == []
    assert "lo" in found["interfaces"] and found["chosen"] != ""
    if platform == "linux":
        assert found["config"] == str(tmp_path / ".config" / "spycraft")
        assert found["data"] == str(tmp_path / ".local" / "share" / "spycraft")
        # up/multicast flags are read from /sys/class/net: at least one is known, not None
        assert any(isinstance(flag, bool) for flag in found["flags"])
    else:
        assert set(found["flags"]) == {None}  # no flags without Linux: left unknown, not guessed
    if platform == "darwin":
        support = tmp_path / "Library" / "Application Support" / "spycraft"
        assert found["config"] == found["data"] == str(support)
    if platform == "win32":  # under the user's profile, not roaming
        assert found["config"] == found["data"] == str(tmp_path / "Local" / "spycraft")


def _guarded_imports(tree: ast.AST) -> set[int]:
    """The ids of the import statements inside a ``try`` that handles ``ImportError``: where a
    module's absence on another platform is expected and handled (``cli.config`` reads the
    full name from ``pwd`` only where there is one)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = [h.type for h in node.handlers if h.type is not None]
        names = {n.id for c in caught for n in ast.walk(c) if isinstance(n, ast.Name)}
        if names & {"ImportError", "ModuleNotFoundError"}:
            guarded |= {id(n) for stmt in node.body for n in ast.walk(stmt)
                        if isinstance(n, ast.Import | ast.ImportFrom)}
    return guarded


def test_no_module_of_the_package_imports_a_posix_only_module_or_signal() -> None:
    """Ctrl-C is trio's KeyboardInterrupt and prompt-toolkit's key binding on every platform;
    nothing of ours installs a POSIX signal handler or touches the terminal's modes. A POSIX-only
    module is imported only where its absence is handled (never ``signal``)."""
    offenders = []
    for folder in PACKAGE_DIRS.values():
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            guarded = _guarded_imports(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top == "signal" or (top in POSIX_ONLY and id(node) not in guarded):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not offenders, "\n".join(offenders)


# --- folders: the old ones still found, the key file refused when others can read it ------------


def old_folders(home: Path) -> tuple[Identity, str]:
    """An identity and an unfinished game where spycraft kept them before platformdirs."""
    secret = bytes(range(1, 33))
    key = home / ".config" / "spycraft" / "identity.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(secret)
    key.chmod(0o600)
    table = bytes(range(16))
    store = GameStore.create(home / ".local" / "share" / "spycraft", table)
    store.save_seat(SeatFile(game="spies-and-lies", table=table, seat=0, master=bytes(32),
                             memo={}, roster=[], interface=NOT_HERE))
    return Identity(secret), table.hex()


FOUND = """
import json
from spycraft.cli.config import config_dir, data_dir, load_identity
from spycraft.p2p.storage import stored_games
print(json.dumps({"fingerprint": load_identity(create=False).fingerprint,
                  "games": [g.folder.name for g in stored_games(data_dir())],
                  "config": str(config_dir())}))
"""


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_an_identity_and_an_unfinished_game_in_the_old_folders_are_still_found(
    platform: str, tmp_path: Path,
) -> None:
    identity, table = old_folders(tmp_path)
    code = f"import sys; sys.platform = {platform!r}\n{FOUND}"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=home_env(tmp_path),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["fingerprint"] == identity.fingerprint
    assert found["games"] == [table]
    assert found["config"] == str(tmp_path / ".config" / "spycraft")


def test_a_new_folder_holding_an_identity_wins_over_the_old_one(tmp_path: Path) -> None:
    old_folders(tmp_path)
    newer = tmp_path / "Library" / "Application Support" / "spycraft" / "identity.key"
    newer.parent.mkdir(parents=True)
    newer.write_bytes(bytes(32))
    newer.chmod(0o600)
    code = f"import sys; sys.platform = 'darwin'\n{FOUND}"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=home_env(tmp_path),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["fingerprint"] == Identity(bytes(32)).fingerprint
    assert found["config"] == str(newer.parent)


def test_resume_finds_a_game_in_the_old_folder_and_refuses_its_lost_address_in_one_line(
    tmp_path: Path,
) -> None:
    _, table = old_folders(tmp_path)
    done = spycraft("resume", env=home_env(tmp_path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"the game was played on '{NOT_HERE}'" in done.stderr
    assert "pass --interface" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    other = spycraft("resume", table[:8], "--interface", "10.255.255.2", env=home_env(tmp_path))
    assert other.returncode == 2 and "10.255.255.2 is not an address" in other.stderr
    assert "Traceback" not in other.stderr


def test_an_identity_key_others_can_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    env = dict(os.environ, SPYCRAFT_HOME=str(tmp_path))
    key = tmp_path / "config" / "identity.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(bytes(range(32)))
    key.chmod(0o644)
    refused = spycraft("host", "spies-and-lies", "--interface", "127.0.0.1", env=env)
    assert refused.returncode == 1
    assert f"chmod 600 {key}" in refused.stderr and "Traceback" not in refused.stderr
    assert "0644" in refused.stderr
    key.chmod(0o600)
    code = "from spycraft.cli.config import load_identity; print(load_identity().fingerprint)"
    accepted = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=60, check=False)
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.strip() == Identity(bytes(range(32))).fingerprint


def test_windows_has_no_modes_so_the_key_is_not_refused_there(tmp_path: Path) -> None:
    env = home_env(tmp_path, LOCALAPPDATA=str(tmp_path / "Local"))
    loose = probe("win32", env, "loose-key")
    assert loose.returncode == 0, loose.stderr
    assert json.loads(loose.stdout)["config"] == str(tmp_path / "Local" / "spycraft")
    strict = probe("linux", home_env(tmp_path), "loose-key")
    assert strict.returncode == 1 and "chmod 600" in strict.stderr


# --- the command line: one line for a bad interface, Ctrl-C without a traceback ------------------


@pytest.mark.parametrize("command", [
    ["play", "spies-and-lies"], ["host", "spies-and-lies"], ["join"], ["bots"], ["tables"],
    ["doctor"],
])
def test_every_command_refuses_an_interface_not_on_this_machine_in_one_line(
    command: list[str], tmp_path: Path,
) -> None:
    done = spycraft(*command, "--interface", NOT_HERE, env=dict(os.environ,
                                                                SPYCRAFT_HOME=str(tmp_path)))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{NOT_HERE} is not an address of this machine" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    if command != ["doctor"]:  # the doctor goes on to list the interfaces
        assert len(done.stderr.strip().splitlines()) == 1


def _interruptible() -> None:
    """Ctrl-C at its default in the child, as a shell starts a program (a suite run in the
    background ignores SIGINT, and children inherit it). POSIX only, like preexec_fn."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_ends_a_lan_command_in_one_line(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "spycraft", "tables", "--interface", "127.0.0.1"], cwd=ROOT,
        env=dict(os.environ, SPYCRAFT_HOME=str(tmp_path), PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_interruptible if os.name == "posix" else None,  # noqa: PLW1509
    )
    try:
        assert process.stdout is not None
        assert "tables on" in process.stdout.readline()
        process.send_signal(signal.SIGINT)  # what Ctrl-C sends here; CTRL_C_EVENT on Windows
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert stderr.strip() == "spycraft tables: left, interrupted (Ctrl-C)"

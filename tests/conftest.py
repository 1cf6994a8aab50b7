"""Suite-wide collection rules, and the guard of the person's own folders.

Tests that open real tables (marker ``network``) or lab hosts (``netns``) must not see each
other's tables over mDNS. When the suite runs in parallel (``-n``) as root on Linux, each worker
process moves into a network namespace of its own (only ``lo``, up) before it collects, so each
worker is a LAN of its own and those tests run side by side like the rest (the lab's namespaces
are named by the worker's pid, so they never clash either). Where a namespace cannot be made (not
root, not Linux), they run one after another on a single worker instead (``--dist loadgroup``,
group ``lan``). The controller decides which, once, by trying it in a child process, and tells
the workers through ``SPYCRAFT_SUITE_NETNS``, so every worker collects the same groups.

The suite never writes outside its temporary folders: each process of it (and every process a
test starts, which inherits its environment) sees a home, XDG and application-data folders of
its own, empty, and no ``SPYCRAFT_HOME``; a test after which anything was written there fails,
naming the files (they are removed, so the next test starts clean). A test gives every command
it runs a home of its own (``SPYCRAFT_HOME`` under ``tmp_path``).

Property tests run the same examples every time (hypothesis profile ``suite``: derandomized,
so a suite that passes on one machine passes on every one, and a CI run never fails on an
example no run before it drew). The search for new counterexamples is by hand, with the
profile ``search`` (fresh random examples each run, the failures kept in ``.hypothesis/``):
``.venv/bin/python -m pytest --hypothesis-profile=search tests/...``; a failure it finds is
kept as a named test.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("suite", derandomize=True)
settings.register_profile("search", derandomize=False)
settings.load_profile("suite")

GUARDED = ("HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
           "XDG_STATE_HOME", "LOCALAPPDATA", "APPDATA")
"""Where a program finds the person's own folders, on every platform."""
_OWN: list[Path] = []


CLONE_NEWNET = 0x40000000
"""unshare(2)'s flag for a network namespace of one's own (os.unshare is Python 3.12+)."""
ISOLATED = "SPYCRAFT_SUITE_NETNS"
"""Set by the controller to "1" when each worker gets a network namespace of its own."""


def _own_network() -> str | None:
    """Move this process (its calling thread, and every process it starts) into a network
    namespace of its own with ``lo`` up; None when done, else why not."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("ip") is None:
        return "needs root on Linux with iproute2"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        return f"unshare(CLONE_NEWNET): {os.strerror(ctypes.get_errno())}"
    up = subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True, text=True,
                        timeout=30, check=False)
    return None if up.returncode == 0 else f"ip link set lo up: {up.stderr.strip()}"


def _can_isolate_workers() -> bool:
    """Whether a worker could have a network namespace of its own: tried in a forked child,
    which leaves this process where it is."""
    if not sys.platform.startswith("linux"):
        return False
    child = os.fork()
    if child == 0:
        os._exit(0 if _own_network() is None else 1)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status) == 0


def pytest_configure(config: pytest.Config) -> None:
    worker = hasattr(config, "workerinput")
    if worker and os.environ.get(ISOLATED) == "1":
        why = _own_network()
        if why is not None:  # the controller's probe said it works: a worker must not differ
            raise pytest.UsageError(f"this worker cannot have a network namespace of its own "
                                    f"({why}), though the probe could")
    elif not worker:
        parallel = (getattr(config.option, "numprocesses", None) or 0) != 0
        os.environ[ISOLATED] = "1" if parallel and _can_isolate_workers() else "0"
    home = Path(tempfile.mkdtemp(prefix="spycraft-suite-home-"))
    os.environ.pop("SPYCRAFT_HOME", None)
    for name in GUARDED:
        folder = home / name.lower()
        folder.mkdir()
        os.environ[name] = str(folder)
    _OWN.append(home)


def pytest_unconfigure(config: pytest.Config) -> None:
    for home in _OWN:
        shutil.rmtree(home, ignore_errors=True)


def _written(home: Path) -> list[Path]:
    return sorted(p for p in home.rglob("*") if not p.is_dir())


@pytest.fixture(autouse=True)
def writes_nothing_outside_its_temporary_folders(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    home = _OWN[0]
    written = _written(home)
    if written:
        for name in GUARDED:  # the next test starts clean
            shutil.rmtree(home / name.lower(), ignore_errors=True)
            (home / name.lower()).mkdir()
        shown = ", ".join(str(p.relative_to(home)) for p in written[:5])
        pytest.fail(f"{request.node.nodeid} wrote into the person's own folders: {shown}"
                    f"{' ...' if len(written) > 5 else ''} (give it a SPYCRAFT_HOME under "
                    f"tmp_path)", pytrace=False)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get(ISOLATED) == "1":
        return  # every worker is a LAN of its own
    for item in items:
        if item.get_closest_marker("network") or item.get_closest_marker("netns"):
            item.add_marker(pytest.mark.xdist_group("lan"))

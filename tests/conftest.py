"""Suite-wide collection rules, and the guard of the person's own folders.

Tests that open real tables (marker ``network``) or lab hosts (``netns``) run one after another
on a single worker when the suite runs in parallel (``-n``, ``--dist loadgroup``): two of them
at once would see each other's tables over mDNS, and the lab's namespace names would clash.

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

import os
import shutil
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


def pytest_configure(config: pytest.Config) -> None:
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
    for item in items:
        if item.get_closest_marker("network") or item.get_closest_marker("netns"):
            item.add_marker(pytest.mark.xdist_group("lan"))

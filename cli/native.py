"""libsodium from a copy in the user's cache: rbcl's big module is read once per install.

Theory of operation: rbcl ships libsodium as a 5.6 MB hex string inside its module
``rbcl._sodium``; importing it decodes the string, writes the 2.7 MB library to a new temporary
file and loads that (``crypto/sodium.py`` removes the file). That is about 65 ms of CPU at every
start of a command that verifies a signature, twice the interpreter's own start, and each of a
table's bot peers pays it. So a command that needs libsodium first calls ``load_libsodium``:

* The first time, rbcl loads as it ships, and its library's bytes are kept in the user's cache
  folder (``folders.cache_dir``; written to a temporary name and renamed, so a reader never sees
  half a file), named by the rbcl module they came from (its path, size and modification time:
  another rbcl gets its own copy, and copies of others are removed), with their SHA-256 beside
  them.
* Every later time, the copy is read, its SHA-256 checked, and it is loaded with ctypes; rbcl is
  handed that loaded library as its ``rbcl._sodium`` module, so its big module is never read.

The library is the bytes rbcl ships, loaded by the same call rbcl makes; nothing of ours goes
into it. Anything that fails (no cache folder, a read-only disk, a folder mounted without
execution, a copy whose hash does not match) leaves the command to rbcl's own loading, with no
word to the person: the copy only saves time. This is I/O, so it lives here and not in
``crypto/``, which takes whatever ``rbcl._sodium`` the process holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import os
import sys
import types
from pathlib import Path

from spycraft.cli import folders

PREFIX = "libsodium-"


def load_libsodium() -> None:
    """Make ``rbcl._sodium`` the cached copy of rbcl's libsodium, keeping the copy first if
    there is none; rbcl's own loading where anything fails."""
    if "rbcl._sodium" in sys.modules:
        return
    try:
        origin = _rbcl_module()
        if origin is None:
            return
        folder = folders.cache_dir()
        name = _copy_name(origin)
        if not _load(folder, name):
            _keep(folder, name)
    except OSError:
        return


def _rbcl_module() -> Path | None:
    """rbcl's ``_sodium.py``, found without importing rbcl; None if rbcl is not installed."""
    spec = importlib.util.find_spec("rbcl")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "_sodium.py"
    return found if found.is_file() else None


def _copy_name(origin: Path) -> str:
    held = origin.stat()
    made_of = f"{origin.resolve()}|{held.st_size}|{held.st_mtime_ns}".encode()
    return PREFIX + hashlib.sha256(made_of).hexdigest()[:32]


def _load(folder: Path, name: str) -> bool:
    """Load the copy if it is there and whole; whether it was."""
    library = folder / f"{name}.so"
    try:
        expected = (folder / f"{name}.sha256").read_text().strip()
        content = library.read_bytes()
    except OSError:
        return False
    if hashlib.sha256(content).hexdigest() != expected:
        return False
    loaded = types.ModuleType("rbcl._sodium")
    loaded.__dict__["_sodium"] = ctypes.cdll.LoadLibrary(str(library))  # OSError: rbcl's way
    sys.modules["rbcl._sodium"] = loaded
    return True


def _keep(folder: Path, name: str) -> None:
    """Load rbcl as it ships, and keep its library's bytes as the copy ``name``."""
    import spycraft.crypto.sodium  # noqa: F401  (loads rbcl, its doctest stand-in and all)

    content = getattr(sys.modules["rbcl._sodium"], "sodium_bs", None)
    if not isinstance(content, bytes):
        return
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(f"{PREFIX}*"):
        if not old.name.startswith(name):
            with contextlib.suppress(OSError):
                old.unlink()
    digest = hashlib.sha256(content).hexdigest().encode()
    for suffix, data in ((".so", content), (".sha256", digest)):
        temporary = folder / f".{name}{suffix}.{os.getpid()}"
        try:
            temporary.write_bytes(data)
            temporary.replace(folder / f"{name}{suffix}")
        finally:
            with contextlib.suppress(OSError):
                temporary.unlink()

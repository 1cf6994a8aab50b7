"""A small disk that fills up: a tmpfs of our own (needs root; skipped with the reason if not),
and a filler that takes every free byte of it, so the next write fails with ENOSPC."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def unavailable() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"a tmpfs of our own needs Linux (this is {sys.platform})"
    if os.geteuid() != 0:
        return f"mounting a tmpfs needs root (running as uid {os.geteuid()}; CI runs as root)"
    return None


@contextmanager
def small_disk(path: Path, size: int = 256 << 10) -> Iterator[Path]:
    """``path`` as a tmpfs of ``size`` bytes while the context is open."""
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                   check=True, capture_output=True, timeout=30)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30, check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` (down to the last one); the filler's path, to free it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (65536, 4096, 512, 64, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler

"""libsodium from the cached copy (``cli/native.py``), in real processes: the first command keeps
rbcl's library, the next ones load it without reading rbcl's big module, and a copy that is
damaged, missing its hash or in a folder nobody can write falls back to rbcl's own loading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
from spycraft.cli import native
native.load_libsodium()
from spycraft.crypto import group, sodium
loaded = sys.modules["rbcl._sodium"]
seven = group.Point.base_mul(group.Scalar.from_int(7))
point = seven.encode() + group.Point.hash_to("t", 1).encode()
print("copy" if not hasattr(loaded, "sodium_bs") else "rbcl", point.hex(),
      sodium.ed25519_is_valid_point(bytes(32)))
"""


def probe(home: Path) -> tuple[str, str, str]:
    """What a command's process loaded (``copy`` or ``rbcl``), and what it computed with it."""
    done = subprocess.run([sys.executable, "-c", PROBE], env=dict(os.environ,
                          SPYCRAFT_HOME=str(home)), capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    how, point, valid = done.stdout.split()
    return how, point, valid


def copies(home: Path) -> list[str]:
    cache = home / "cache"
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_the_first_command_keeps_the_library_and_the_next_ones_load_it(tmp_path: Path) -> None:
    first = probe(tmp_path)
    assert first[0] == "rbcl"
    kept = copies(tmp_path)
    assert [name.rsplit(".", 1)[1] for name in kept] == ["sha256", "so"], kept
    second = probe(tmp_path)
    assert second == ("copy", *first[1:])  # the same library, the same arithmetic
    assert copies(tmp_path) == kept


@pytest.mark.parametrize("damage", ["one byte changed", "cut short", "hash missing"])
def test_a_damaged_copy_is_not_loaded_but_replaced(tmp_path: Path, damage: str) -> None:
    expected = probe(tmp_path)[1:]
    [digest, library] = sorted((tmp_path / "cache").iterdir())
    content = library.read_bytes()
    if damage == "one byte changed":
        library.write_bytes(content[:1000] + bytes([content[1000] ^ 1]) + content[1001:])
    elif damage == "cut short":
        library.write_bytes(content[: len(content) // 2])
    else:
        digest.unlink()
    assert probe(tmp_path) == ("rbcl", *expected)
    assert library.read_bytes() == content
    assert probe(tmp_path) == ("copy", *expected)


def test_a_cache_folder_nobody_can_write_leaves_rbcl_to_load_as_it_ships(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder would be")
    assert probe(tmp_path)[0] == "rbcl"
    assert probe(tmp_path)[0] == "rbcl"


def test_the_copy_of_another_rbcl_is_removed_when_this_one_is_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "libsodium-0123456789abcdef0123456789abcdef.so").write_bytes(b"old")
    (cache / "libsodium-0123456789abcdef0123456789abcdef.sha256").write_text("old")
    probe(tmp_path)
    assert len(copies(tmp_path)) == 2
    assert not any(name.startswith("libsodium-0123") for name in copies(tmp_path))

"""Where a user's spycraft files live: the identity key and the games in progress.

The identity is created on first use under the user's config directory (``$XDG_CONFIG_HOME`` or
``~/.config``), ``spycraft/identity.key``, mode 0600, from the OS's CSPRNG. ``SPYCRAFT_HOME``
moves everything (tests and bot peers use it to give each peer its own identity).
"""

from __future__ import annotations

import os
from pathlib import Path

from spycraft.crypto.identity import Identity
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.storage import write_private


def config_dir() -> Path:
    home = os.environ.get("SPYCRAFT_HOME")
    if home:
        return Path(home) / "config"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "spycraft"


def data_dir() -> Path:
    home = os.environ.get("SPYCRAFT_HOME")
    if home:
        return Path(home) / "data"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "spycraft"


def load_identity(create: bool = True) -> Identity:
    path = config_dir() / "identity.key"
    if path.exists():
        secret = path.read_bytes()
        if len(secret) != 32:
            raise SystemExit(f"{path} is damaged (expected 32 bytes); move it away to make a new one")
        return Identity(secret)
    if not create:
        raise SystemExit(f"no identity at {path}")
    identity = Identity(SystemEntropy().take(32))
    write_private(path, identity.secret)
    return identity

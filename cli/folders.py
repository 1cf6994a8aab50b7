"""Where a user's spycraft files live: the folders alone, read without loading any of spycraft.

Theory of operation:

* The folders come from ``platformdirs``, the platform's own rules: on Linux
  ``$XDG_CONFIG_HOME/spycraft`` (``~/.config/spycraft``) for the identity and
  ``$XDG_DATA_HOME/spycraft`` (``~/.local/share/spycraft``) for games; on macOS
  ``~/Library/Application Support/spycraft`` for both; on Windows ``%LOCALAPPDATA%\\spycraft``
  for both, which is under the user's profile (``C:\\Users\\NAME\\AppData\\Local``), does not
  roam to other machines, and by the profile's default access list is readable only by that
  user, administrators and SYSTEM: there the folder, not a file mode, keeps the key private.
* Before platformdirs the folders were computed by hand, as the Linux ones, on every system. A
  folder of that old form is still used when it holds what we look for (``identity.key``, or a
  ``games`` folder) and the new one does not, so no upgrade loses an identity or an unfinished
  game; nothing is moved. On Linux both forms are normally the same folder.
* ``SPYCRAFT_HOME`` moves everything (tests and bot peers use it to give each peer its own
  identity): ``$SPYCRAFT_HOME/config``, ``$SPYCRAFT_HOME/data`` and ``$SPYCRAFT_HOME/cache``.
* The cache folder (``$XDG_CACHE_HOME/spycraft`` on Linux) holds only what can be made again.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "spycraft"
IDENTITY_FILE = "identity.key"


def _legacy_config_dir() -> Path:
    """The folder that spycraft before platformdirs used, on every system."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / APP


def _legacy_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


def _first_holding(what: str, new: Path, legacy: Path) -> Path:
    """``new``, unless only ``legacy`` holds ``what``."""
    if not (new / what).exists() and (legacy / what).exists():
        return legacy
    return new


def config_dir() -> Path:
    home = os.environ.get("SPYCRAFT_HOME")
    if home:
        return Path(home) / "config"
    new = Path(platformdirs.user_config_dir(APP, appauthor=False, roaming=False))
    return _first_holding(IDENTITY_FILE, new, _legacy_config_dir())


def data_dir() -> Path:
    home = os.environ.get("SPYCRAFT_HOME")
    if home:
        return Path(home) / "data"
    new = Path(platformdirs.user_data_dir(APP, appauthor=False, roaming=False))
    return _first_holding("games", new, _legacy_data_dir())


def cache_dir() -> Path:
    """What can be made again (a copy of libsodium: ``native``)."""
    home = os.environ.get("SPYCRAFT_HOME")
    if home:
        return Path(home) / "cache"
    return Path(platformdirs.user_cache_dir(APP, appauthor=False))

"""Where a user's spycraft files live: the identity key and the games in progress.

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
  identity): ``$SPYCRAFT_HOME/config`` and ``$SPYCRAFT_HOME/data``.
* The identity is created on first use, 32 bytes from the OS's CSPRNG, written with mode 0600.
  On POSIX a key file that other users can read or write is refused, with the ``chmod`` that
  fixes it, as ssh refuses an unprotected private key.
"""

from __future__ import annotations

import getpass
import os
import socket
import stat
import sys
from pathlib import Path

import platformdirs

from spycraft.crypto.identity import Identity
from spycraft.crypto.text import clean_line
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.storage import write_private

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


def identity_path() -> Path:
    return config_dir() / IDENTITY_FILE


def check_private(path: Path) -> None:
    """On POSIX, refuse a secret file that anyone but its owner can read or write."""
    if sys.platform == "win32":
        return  # no POSIX modes: the profile folder's access list protects it (see above)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SystemExit(
            f"spycraft: {path} can be read or changed by other users (mode {mode:04o}); "
            f"it is your secret identity key. Fix it with: chmod 600 {path}"
        )


def load_identity(create: bool = True) -> Identity:
    path = identity_path()
    if path.exists():
        check_private(path)
        secret = path.read_bytes()
        if len(secret) != 32:
            raise SystemExit(
                f"{path} is damaged (expected 32 bytes); move it away to make a new one"
            )
        return Identity(secret)
    if not create:
        raise SystemExit(f"no identity at {path}")
    identity = Identity(SystemEntropy().take(32))
    write_private(path, identity.secret)
    return identity


GENERIC_ACCOUNTS = frozenset({"root", "admin", "administrator", "user", "guest", "pi",
                              "ubuntu", "player"})
"""Login names many machines share: never a person's name at the table."""
GENERIC_HOSTS = frozenset({"", "localhost", "localhost.localdomain"})


def _account() -> tuple[str, str]:
    """This OS account's login name and its password database entry's comment field, whose
    first part is the full name ("" where the system has none)."""
    try:
        login = getpass.getuser()  # USER, LOGNAME or USERNAME (Windows), then the password db
    except (ImportError, KeyError, OSError):
        login = ""
    full = ""
    try:
        import pwd  # POSIX only

        full = pwd.getpwuid(os.getuid()).pw_gecos
    except (ImportError, KeyError, OSError, AttributeError):
        pass
    return login, full


def player_name(account: tuple[str, str] | None = None, host: str | None = None) -> str:
    """The name to sit down with when none is given: the person's own. The OS account's full
    name from the password database, unless it only repeats the login name; else the login
    name, unless it is one many machines share (``root``: two laptops as root must not both
    sit down as "root"); else the machine's host name; at most 64 printable characters."""
    login, gecos = account if account is not None else _account()
    full, login = clean_line(gecos.split(",")[0]), clean_line(login)
    if full and full.lower() != login.lower() and full.lower() not in GENERIC_ACCOUNTS:
        return full[:64]
    if login and login.lower() not in GENERIC_ACCOUNTS:
        return login[:64]
    name = clean_line(host if host is not None else socket.gethostname()).split(".")[0]
    if name.lower() not in GENERIC_HOSTS:
        return name[:64]
    return login[:64] or "player"

"""A user's identity key and player name, kept in the folders that ``folders`` names.

Theory of operation: where each platform keeps the folders, and ``SPYCRAFT_HOME``, which moves
them all, are ``folders``' (read without loading the rest of spycraft); this module reads and
writes what is in them, and names them again for its callers.

The identity is created on first use, 32 bytes from the OS's CSPRNG, written with mode 0600. On
POSIX a key file that other users can read or write is refused, with the ``chmod`` that fixes
it, as ssh refuses an unprotected private key.
"""

from __future__ import annotations

import getpass
import os
import socket
import stat
import sys
from pathlib import Path

from spycraft.cli.folders import IDENTITY_FILE, cache_dir, config_dir, data_dir
from spycraft.crypto.identity import Identity
from spycraft.crypto.text import clean_line
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.storage import write_private

__all__ = ["cache_dir", "check_private", "config_dir", "data_dir", "identity_path",
           "load_identity", "player_name"]


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

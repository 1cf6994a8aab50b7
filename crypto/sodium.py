"""libsodium, loaded once for the whole program: rbcl's bundled copy, without its temp file.

Theory of operation: rbcl carries libsodium (1.0.18) inside a Python module. Importing it writes
the 2.7 MB library to a new temporary file, loads it with ctypes and never deletes the file, so
every start of spycraft used to leave one more ``tmp*.so`` behind. This module is the one place
that imports rbcl: once the library is mapped into the process the file is no longer needed, so
it is unlinked right after the import (where the platform refuses, as Windows does for a loaded
DLL, it stays). That unlink is the only file operation in crypto/; it happens once per process,
at import, and nothing the protocol computes depends on it.

rbcl wraps only the ristretto255 functions (``group`` uses them). The same library also holds
libsodium's Ed25519 and X25519 code, which spycraft uses for two things, typed here once:

* ``ed25519_verify``: the one Ed25519 verifier every peer uses for records, genesis signatures
  and hellos (``identity.verify_signature``). It is about twice as fast as OpenSSL's here, and it
  refuses non-canonical S, and small-order or non-canonical keys and R, so every peer applies
  the same, strict rule.
* ``ed25519_is_valid_point``: canonical encoding, not of small order, on the curve and in the
  prime-order subgroup (``keys.check_identity_key``). libsodium's own test
  (``crypto_core_ed25519_is_valid_point``) decides the subgroup by the x-coordinate of L*P
  being zero, which also holds for L*P = (0, -1): it accepts every point P = A + T2, with A in
  the subgroup and T2 the point of order 2. So we use the exact test, in libsodium's arithmetic:
  (L - 1)*P + P is the identity. ``crypto_scalarmult_ed25519_noclamp`` runs libsodium's whole
  validity test on P before multiplying (canonical, on the curve, not of small order, its
  subgroup test) and refuses a product that is the identity, so calling it alone does both.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import pathlib
import sys
import types
from collections.abc import Callable, Iterator


class _LoadedOnUse(types.ModuleType):
    """A stand-in for a standard module that loads the module on its first attribute read."""

    def __getattr__(self, name: str) -> object:  # only for what the stand-in does not have
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


@contextlib.contextmanager
def _doctest_on_first_use() -> Iterator[None]:
    """While rbcl loads, ``doctest`` is a stand-in that loads the real module when first used.

    rbcl and its helper ``barriers`` import ``doctest`` only to run their own examples when run
    as scripts (``if __name__ == "__main__": doctest.testmod()``); loading it (with ``pdb``,
    ``unittest``, ``difflib``) costs about 60 ms of CPU, as much as the interpreter's start.
    Nothing in rbcl or barriers reads an attribute of it on import, so unless the program has
    loaded it already, their ``doctest`` is a stand-in whose first attribute read loads the
    real module; after rbcl has loaded, ``import doctest`` anywhere loads the real one as
    always. (The standard library's ``importlib.util.LazyLoader`` does not serve: in Python
    3.11 the import statement itself reads the module's ``__spec__``, which loads it.)"""
    if "doctest" in sys.modules or (spec := importlib.util.find_spec("doctest")) is None:
        yield
        return
    stand_in = _LoadedOnUse("doctest")
    stand_in.__spec__ = spec
    sys.modules["doctest"] = stand_in
    try:
        yield
    finally:
        if sys.modules.get("doctest") is stand_in:
            del sys.modules["doctest"]


with _doctest_on_first_use():
    import rbcl

__all__ = ["ed25519_is_valid_point", "ed25519_verify", "rbcl"]  # ``group`` takes rbcl from here

_loader = sys.modules["rbcl._sodium"]
_lib_path = getattr(_loader, "lib_path", None)  # rbcl 1.x names its temp file so
if isinstance(_lib_path, str):
    try:
        pathlib.Path(_lib_path).unlink(missing_ok=True)
    except OSError:  # a platform that will not remove a loaded library: leave it
        pass

_lib = _loader._sodium

_verify = _lib.crypto_sign_ed25519_verify_detached
_verify.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
_verify.restype = ctypes.c_int

_scalarmult = _lib.crypto_scalarmult_ed25519_noclamp
_scalarmult.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
_scalarmult.restype = ctypes.c_int

_add = _lib.crypto_core_ed25519_add
_add.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
_add.restype = ctypes.c_int

_verify_fn: Callable[[bytes, bytes, int, bytes], int] = _verify

_ORDER_MINUS_ONE = (2**252 + 27742317777372353535851937790883648493 - 1).to_bytes(32, "little")
_IDENTITY = (1).to_bytes(32, "little")


def ed25519_verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """libsodium's ``crypto_sign_ed25519_verify_detached`` (False for wrong lengths)."""
    if len(public_key) != 32 or len(signature) != 64:  # C reads exactly these many bytes
        return False
    return _verify_fn(signature, message, len(message), public_key) == 0


def ed25519_is_valid_point(encoding: bytes) -> bool:
    """A canonical encoding of a point of the prime-order subgroup other than the identity."""
    if len(encoding) != 32:
        return False
    product = ctypes.create_string_buffer(32)
    if _scalarmult(product, _ORDER_MINUS_ONE, encoding) != 0:
        return False
    total = ctypes.create_string_buffer(32)
    if _add(total, product.raw, encoding) != 0:
        return False
    return total.raw == _IDENTITY

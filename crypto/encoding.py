"""Canonical CBOR: the one way spycraft turns values into bytes.

Theory of operation: everything that is hashed, signed or sent is encoded here, with the
deterministic encoding of RFC 8949 §4.2.1 (shortest integer and length forms, definite lengths,
map keys sorted bytewise by their encoding). cbor2's ``canonical=True`` sorts map keys
length-first (the legacy §4.2.3 order); the two orders agree when every key of a map is a text
string, or every key is a non-negative integer, so ``encode`` refuses maps that mix key types.
Decoding is strict: the bytes must be exactly the canonical encoding of what they decode to, so
one value has one encoding and an edited byte cannot hide behind an equivalent form.

Values are restricted to what records need: None, bool, int, bytes, str, list/tuple and maps.
No floats (their encodings invite surprises), no tags other than the ones the caller wraps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cbor2

from spycraft.crypto.errors import EncodingError

_SCALARS = (bool, int, bytes, str, type(None))


def _check(value: Any, depth: int = 0) -> None:
    if depth > 64:
        raise EncodingError("value nested too deeply")
    if isinstance(value, _SCALARS):
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _check(item, depth + 1)
        return
    if isinstance(value, dict):
        keys = list(value)
        if keys and not (
            all(isinstance(k, str) for k in keys)
            or all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in keys)
        ):
            raise EncodingError("map keys must be all text or all non-negative integers")
        for item in value.values():
            _check(item, depth + 1)
        return
    if isinstance(value, cbor2.CBORTag):
        _check(value.value, depth + 1)
        return
    raise EncodingError(f"cannot encode a {type(value).__name__}")


def encode(value: Any) -> bytes:
    """The canonical CBOR encoding of ``value``."""
    _check(value)
    return cbor2.dumps(value, canonical=True)


def _freeze(value: Any) -> Any:
    """Lists become tuples so decoded values are immutable and hashable."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, Mapping):  # cbor2 gives frozendicts inside tags
        return {k: _freeze(v) for k, v in value.items()}
    if isinstance(value, cbor2.CBORTag):
        return cbor2.CBORTag(value.tag, _freeze(value.value))
    return value


def decode(data: bytes, *, max_size: int = 1 << 24) -> Any:
    """Decode one canonical CBOR item; anything else raises ``EncodingError``."""
    if not isinstance(data, (bytes, bytearray)):
        raise EncodingError("not bytes")
    if len(data) > max_size:
        raise EncodingError(f"item of {len(data)} bytes exceeds the limit of {max_size}")
    try:
        value = cbor2.loads(bytes(data))
    except Exception as exc:  # cbor2 raises several types on garbage; all mean the same here
        raise EncodingError(f"not CBOR: {exc}") from None
    value = _freeze(value)
    try:
        again = encode(value)
    except EncodingError as exc:
        raise EncodingError(f"not a spycraft value: {exc}") from None
    if again != bytes(data):
        raise EncodingError("not canonical CBOR (RFC 8949 §4.2.1)")
    return value


def split_sequence(data: bytes) -> list[bytes]:
    """Split a CBOR sequence (RFC 8742) into the exact bytes of each item."""
    import io

    stream = io.BytesIO(data)
    items: list[bytes] = []
    while stream.tell() < len(data):
        start = stream.tell()
        try:
            cbor2.CBORDecoder(stream).decode()
        except Exception as exc:
            raise EncodingError(f"item {len(items)} at byte {start} is not CBOR: {exc}") from None
        items.append(data[start : stream.tell()])
    return items

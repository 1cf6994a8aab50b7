"""Canonical CBOR: the one way spycraft turns values into bytes.

Theory of operation: everything that is hashed, signed or sent is encoded here, with the
deterministic encoding of RFC 8949 §4.2.1 (shortest integer and length forms, definite lengths,
map keys sorted bytewise by their encoding). cbor2's ``canonical=True`` sorts map keys
length-first (the legacy §4.2.3 order); the two orders agree when every key of a map is a text
string, or every key is a non-negative integer, so ``encode`` refuses maps that mix key types.
Decoding is strict: the bytes must be exactly the canonical encoding of what they decode to, so
one value has one encoding and an edited byte cannot hide behind an equivalent form. Decoding
is our own one pass over the bytes, not cbor2's: it checks every canonical rule as it reads, so
no second encoding is needed to compare with, and it never meets what cbor2 would expand while
decoding (value-sharing and string-reference tags, with which a small hostile input grows into
a huge value), since only the COSE tags are admitted.

Values are restricted to what records need: None, bool, int, bytes, str, list/tuple and maps.
No floats (their encodings invite surprises), no tags other than the ones the caller wraps.

**Bounded cost.** What a stranger sends is read in time and memory bounded by its length, before
any value is built: nesting is bounded (``MAX_NESTING``), and so is the number of items,
``item_budget(len)`` = 64 + one per 16 bytes (the records of every game hold at most 17 more than
one per 16 bytes; a 1 MiB array of a million empty maps is a million items in 1 MiB). Each
container is charged its item count from its head, before its first item is read, so an
oversize one is refused in constant time: a value is never built to find out it is too big.
``scan`` and ``decode`` apply the budget by default; ``decode_own`` reads files this peer wrote
itself (its seat file, the memo of its own choices) without it.
"""

from __future__ import annotations

from typing import Any

import cbor2

from spycraft.crypto.errors import EncodingError

_SCALARS = (bool, int, bytes, str, type(None))
_PLAIN = frozenset(_SCALARS)  # exact types: an item of these needs no call of its own
MAX_DEPTH = 64


def _check(value: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise EncodingError("value nested too deeply")
    if isinstance(value, _SCALARS):
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            if depth >= MAX_DEPTH or type(item) not in _PLAIN:
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
            if depth >= MAX_DEPTH or type(item) not in _PLAIN:
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


def bytes_head(length: int) -> bytes:
    """The canonical head of a byte string of ``length`` bytes: ``encode(b)`` is this plus b."""
    if length < 24:
        return bytes([0x40 | length])
    width = 1 if length < 1 << 8 else 2 if length < 1 << 16 else 4 if length < 1 << 32 else 8
    return bytes([0x40 | (24 + width.bit_length() - 1)]) + length.to_bytes(width, "big")


COSE_TAGS = frozenset({18, 98})  # COSE_Sign1 and COSE_Sign: the only tags records use
MAX_NESTING = 32
ITEMS_BASE = 64
BYTES_PER_ITEM = 16


def item_budget(size: int) -> int:
    """The most CBOR items a value of ``size`` bytes may hold (see "Bounded cost")."""
    return ITEMS_BASE + size // BYTES_PER_ITEM


def _over_budget(budget: int) -> EncodingError:
    return EncodingError(f"more CBOR items than {budget} (at most {ITEMS_BASE} and one per "
                         f"{BYTES_PER_ITEM} bytes)")


def scan(
    data: bytes, *, allowed_tags: frozenset[int] = COSE_TAGS, max_nesting: int = MAX_NESTING,
    max_items: int | None = None,
) -> None:
    """Admit exactly one item of the plain CBOR profile spycraft uses, in O(len(data)).

    Integers, byte and text strings, arrays, maps, false/true/null, definite lengths that fit in
    what remains, bounded nesting, at most ``max_items`` items (default ``item_budget``), and
    only the ``allowed_tags``. Only the structure is walked (no value is built); ``decode``
    admits the same profile (with the COSE tags) and checks canonical forms besides.
    """
    budget = item_budget(len(data)) if max_items is None else max_items
    if _walk(data, 0, allowed_tags, max_nesting, budget) != len(data):
        raise EncodingError("trailing bytes after the CBOR item")


def item_length(data: bytes, start: int = 0) -> int:
    """The length in bytes of the one item of the profile that begins at ``start`` (a file's
    item: whoever reads its value applies the item budget then)."""
    return _walk(data, start, COSE_TAGS, MAX_NESTING, len(data)) - start


def _walk(data: bytes, start: int, allowed_tags: frozenset[int], max_nesting: int,
          budget: int) -> int:
    """Where the profile item that begins at ``start`` ends; EncodingError if it is not one
    (or holds more than ``budget`` items: each container pays for its items at its head)."""
    end = len(data)
    pos = start
    left = budget - 1
    pending: list[int] = [1]  # items still expected by each open array or map (or tag)
    while pending:
        if pending[-1] == 0:
            pending.pop()
            continue
        pending[-1] -= 1
        if pos >= end:
            raise EncodingError("truncated CBOR")
        initial = data[pos]
        pos += 1
        major, info = initial >> 5, initial & 0x1F
        if major == 7:
            if initial not in (0xF4, 0xF5, 0xF6):
                raise EncodingError("only false, true and null are admitted as simple values")
            continue
        if info < 24:
            argument = info
        elif info <= 27:
            width = 1 << (info - 24)
            if pos + width > end:
                raise EncodingError("truncated CBOR")
            argument = int.from_bytes(data[pos : pos + width], "big")
            pos += width
        else:
            raise EncodingError("indefinite or reserved CBOR length")
        if major == 6:
            if argument not in allowed_tags:
                raise EncodingError(
                    f"CBOR tag {argument} is not admitted (only tags {sorted(allowed_tags)})"
                )
            count = 1
        elif major in (2, 3):
            if argument > end - pos:
                raise EncodingError("CBOR string longer than the data")
            pos += argument
            continue
        elif major in (4, 5):
            count = argument * (2 if major == 5 else 1)
            if count > end - pos:
                raise EncodingError("CBOR container longer than the data")
        else:
            continue
        if count:
            if len(pending) > max_nesting:
                raise EncodingError(f"CBOR nested deeper than {max_nesting}")
            left -= count
            if left < 0:
                raise _over_budget(budget)
            pending.append(count)
    return pos


def decode(data: bytes, *, max_size: int = 1 << 24, max_items: int | None = None) -> Any:
    """Decode one canonical CBOR item; anything else raises ``EncodingError``.

    One pass over the bytes (``_read``) both checks and builds the value: it admits exactly what
    ``encode`` gives back byte for byte (shortest heads, map keys all text or all non-negative
    integers in strictly increasing bytewise order, only the profile of ``item_length``), so
    decoding needs neither cbor2 nor a second encoding to compare with. At most ``max_items``
    items (default ``item_budget(len(data))``), each container refused at its head if its items
    do not fit: no value is built beyond the budget.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise EncodingError("not bytes")
    if len(data) > max_size:
        raise EncodingError(f"item of {len(data)} bytes exceeds the limit of {max_size}")
    data = bytes(data)
    budget = item_budget(len(data)) if max_items is None else max_items
    left = [budget - 1, budget]  # items still allowed, and the budget (for the message)
    value, end = _read(data, 0, 0, left)
    if end != len(data):
        raise EncodingError("trailing bytes after the CBOR item")
    return value


def read_value(data: bytes, pos: int, depth: int, left: list[int]) -> tuple[Any, int]:
    """The value of the item at ``pos`` as ``decode`` reads it ``depth`` containers deep, and
    where it ends; ``left`` is [items still allowed, the budget], charged as ``decode`` charges
    it. For a reader that checks the bytes around the item itself (``records.parse_payload``):
    ``EncodingError`` for anything ``decode`` refuses there."""
    return _read(data, pos, depth, left)


def decode_own(data: bytes) -> Any:
    """``decode`` without the item budget, for files this peer wrote itself (its seat file,
    the memo of its own choices): nobody else's bytes."""
    return decode(data, max_items=len(data) + 1)


_SIMPLE_VALUES = {0xF4: False, 0xF5: True, 0xF6: None}
# One-byte items that need no call of ``_read`` inside a container: false, true, null, 0..23.
_SMALL_SCALARS: dict[int, Any] = {**_SIMPLE_VALUES, **{n: n for n in range(24)}}
_SHORTEST = {25: 1 << 8, 26: 1 << 16, 27: 1 << 32}  # the least argument each wider head may hold
_NOT_CANONICAL = "not canonical CBOR (RFC 8949 §4.2.1)"


def _read(data: bytes, pos: int, depth: int, left: list[int]) -> tuple[Any, int]:
    """The value of the canonical profile item at ``pos`` (``depth`` containers around it), and
    where it ends. Arrays become tuples, so decoded values are immutable and hashable. ``left``
    holds the items still allowed (each container pays for its items at its head) and the
    budget."""
    end = len(data)
    if pos >= end:
        raise EncodingError("truncated CBOR")
    initial = data[pos]
    pos += 1
    major, info = initial >> 5, initial & 0x1F
    if major == 7:
        if initial not in _SIMPLE_VALUES:
            raise EncodingError("only false, true and null are admitted as simple values")
        return _SIMPLE_VALUES[initial], pos
    if info < 24:
        argument = info
    elif info <= 27:
        width = 1 << (info - 24)
        if pos + width > end:
            raise EncodingError("truncated CBOR")
        argument = data[pos] if width == 1 else int.from_bytes(data[pos : pos + width], "big")
        pos += width
        if argument < _SHORTEST.get(info, 24):
            raise EncodingError(f"{_NOT_CANONICAL}: a head longer than its value needs")
    else:
        raise EncodingError("indefinite or reserved CBOR length")
    if major == 0:
        return argument, pos
    if major == 1:
        return -1 - argument, pos
    if major == 2:
        if argument > end - pos:
            raise EncodingError("CBOR string longer than the data")
        return data[pos : pos + argument], pos + argument
    if major == 3:
        return _text(data, pos, pos + argument), pos + argument
    if major == 6:
        if argument not in COSE_TAGS:
            raise EncodingError(
                f"CBOR tag {argument} is not admitted (only tags {sorted(COSE_TAGS)})"
            )
        if depth >= MAX_NESTING:
            raise EncodingError(f"CBOR nested deeper than {MAX_NESTING}")
        left[0] -= 1
        if left[0] < 0:
            raise _over_budget(left[1])
        inner, pos = _read(data, pos, depth + 1, left)
        return cbor2.CBORTag(argument, inner), pos
    count = argument * 2 if major == 5 else argument
    if count > end - pos:
        raise EncodingError("CBOR container longer than the data")
    if argument and depth >= MAX_NESTING:
        raise EncodingError(f"CBOR nested deeper than {MAX_NESTING}")
    left[0] -= count
    if left[0] < 0:
        raise _over_budget(left[1])
    if major == 4:
        items = []
        for _ in range(argument):
            initial = data[pos] if pos < end else 0xFF  # 0xFF: the call below says "truncated"
            if initial in _SMALL_SCALARS:  # a bool or a small integer: no call
                items.append(_SMALL_SCALARS[initial])
                pos += 1
                continue
            item, pos = _read(data, pos, depth + 1, left)
            items.append(item)
        return tuple(items), pos
    result: dict[Any, Any] = {}
    previous = b""  # every encoding sorts after the empty one
    key_major = -1
    for _ in range(argument):
        start = pos
        initial = data[pos] if pos < end else 0xFF  # 0xFF: the call below says "truncated"
        if 0x60 <= initial < 0x78:  # a short text, as nearly every key: no call
            pos += 1 + (initial & 0x1F)
            key = _text(data, start + 1, pos)
        else:
            key, pos = _read(data, pos, depth + 1, left)
        if initial >> 5 != key_major:  # the first key, or a key of another type than the first
            if key_major != -1 or initial >> 5 not in (0, 3):
                raise EncodingError("map keys must be all text or all non-negative integers")
            key_major = initial >> 5
        encoded_key = data[start:pos]
        if encoded_key <= previous:
            raise EncodingError(f"{_NOT_CANONICAL}: map keys out of order or repeated")
        previous = encoded_key
        initial = data[pos] if pos < end else 0xFF  # 0xFF: the calls below say "truncated"
        if initial in _SMALL_SCALARS:  # a bool or a small integer (a seat, a rank): no call
            result[key] = _SMALL_SCALARS[initial]
            pos += 1
        elif 0x58 == initial and pos + 1 < end and data[pos + 1] >= 24:
            # a byte string of 24..255 bytes (every hash, nonce and key): no call
            stop = pos + 2 + data[pos + 1]
            if stop > end:
                raise EncodingError("CBOR string longer than the data")
            result[key], pos = data[pos + 2 : stop], stop
        elif 0x40 <= initial < 0x58 or 0x60 <= initial < 0x78:  # a short byte or text string
            stop = pos + 1 + (initial & 0x1F)
            if stop > end:
                raise EncodingError("CBOR string longer than the data")
            result[key] = data[pos + 1 : stop] if initial < 0x60 else _text(data, pos + 1, stop)
            pos = stop
        else:
            result[key], pos = _read(data, pos, depth + 1, left)
    return result, pos


def _text(data: bytes, start: int, stop: int) -> str:
    """The text string whose UTF-8 bytes are ``data[start:stop]``."""
    if stop > len(data):
        raise EncodingError("CBOR string longer than the data")
    try:
        return data[start:stop].decode("utf-8")
    except UnicodeDecodeError:
        raise EncodingError("CBOR text that is not UTF-8") from None


def split_sequence(data: bytes) -> list[bytes]:
    """Split a CBOR sequence (RFC 8742) into the exact bytes of each item (not decoded)."""
    items, cut = read_sequence(data)
    if cut is not None:
        raise EncodingError(cut)
    return items


def read_sequence(data: bytes) -> tuple[list[bytes], str | None]:
    """The whole items at the start of a CBOR sequence, and where and why the rest could not be
    read (None when every byte belongs to an item): a file cut by a crash keeps what it had."""
    items: list[bytes] = []
    pos = 0
    while pos < len(data):
        try:
            length = item_length(data, pos)
        except EncodingError as exc:
            return items, f"item {len(items)} at byte {pos}: {exc}"
        items.append(data[pos : pos + length])
        pos += length
    return items, None

"""What CBOR from a stranger may cost to refuse: bounded by its item count and nesting, before a
value is built (issue 18, attack 6)."""

from __future__ import annotations

import tracemalloc

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.encoding import (
    decode,
    decode_own,
    encode,
    item_budget,
    scan,
)
from spycraft.crypto.errors import EncodingError, MalformedRecord
from spycraft.crypto.records import PROTECTED_SIGN1, parse_record
from spycraft.p2p.wire import FrameError, decode_payload

ONE_MIB = 1 << 20


def array_of(count: int, item: bytes) -> bytes:
    """The canonical CBOR of an array of ``count`` copies of the one-item encoding ``item``."""
    for info, width in ((24, 1), (25, 2), (26, 4)):
        if count < 24:
            return bytes([0x80 | count]) + item * count
        if count < 1 << (8 * width):
            return bytes([0x80 | info]) + count.to_bytes(width, "big") + item * count
    raise ValueError(count)


MILLION_EMPTY_MAPS = array_of(ONE_MIB - 5, b"\xa0")


def peak_memory(action: object) -> int:
    """The most memory ``action()`` allocated at once, in bytes."""
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
    except (EncodingError, FrameError, MalformedRecord):
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def test_a_million_empty_maps_are_refused_at_their_head_without_building_one() -> None:
    with pytest.raises(EncodingError, match="more CBOR items than"):
        decode(MILLION_EMPTY_MAPS)
    with pytest.raises(EncodingError, match="more CBOR items than"):
        scan(MILLION_EMPTY_MAPS)
    # a million dicts would take some 60 MiB; refusing takes a copy of the bytes at most
    assert peak_memory(lambda: decode(MILLION_EMPTY_MAPS)) < 2 * ONE_MIB
    assert peak_memory(lambda: scan(MILLION_EMPTY_MAPS)) < 64 * 1024


def test_a_frame_or_a_record_of_a_million_empty_maps_is_refused_by_its_item_count() -> None:
    frame = encode({"v": 1, "t": "sync_reply", "from_seq": 1, "records": []})
    assert frame.endswith(b"from_seq\x01")  # its last field: we put other values there
    nested = frame[:-1] + array_of(ONE_MIB // 2, b"\x40")  # half a million b""
    with pytest.raises(FrameError, match="more CBOR items than"):
        decode_payload(nested)
    with pytest.raises(FrameError, match="nested deeper than 2"):
        decode_payload(frame[:-1] + bytes([0x81, 0x81, 0xA0]))  # [[{}]]: a frame nests 2 deep
    payload = array_of(ONE_MIB - 512, b"\xa0")
    record = encode(cbor2.CBORTag(18, [PROTECTED_SIGN1, {}, payload, bytes(64)]))
    with pytest.raises(MalformedRecord, match="more CBOR items than"):
        parse_record(record)
    assert peak_memory(lambda: parse_record(record)) < 4 * ONE_MIB


@pytest.mark.parametrize("item", [b"\x80", b"\xa0", b"\x40", b"\x00", b"\xf6"],
                         ids=["[]", "{}", "b''", "0", "null"])
def test_the_budget_counts_items_whatever_they_are(item: bytes) -> None:
    """An array of 999 items and itself: 1000 items, admitted by a budget of 1000 and refused by
    one of 999; by default an array of one-byte items is refused (16 bytes an item)."""
    data = array_of(999, item)
    assert len(decode(data, max_items=1000)) == 999
    scan(data, max_items=1000)
    with pytest.raises(EncodingError, match="more CBOR items than 999"):
        decode(data, max_items=999)
    with pytest.raises(EncodingError, match="more CBOR items than 999"):
        scan(data, max_items=999)
    with pytest.raises(EncodingError, match="more CBOR items than"):
        decode(data)


def test_nested_containers_each_pay_for_their_items_at_their_head() -> None:
    """[[0, 0, ...], [0, 0, ...], ...]: inner arrays within the budget one by one, over it
    together: refused once the sum passes it, whatever the nesting."""
    inner = array_of(200, b"\x00")
    outer = array_of(40, b"")[:2] + inner * 40  # 40 x 201 + 1 items in ~8 KB
    assert 40 * 201 + 1 > item_budget(len(outer))
    with pytest.raises(EncodingError, match="more CBOR items than"):
        decode(outer)
    with pytest.raises(EncodingError, match="more CBOR items than"):
        scan(outer)


def test_our_own_files_are_read_without_the_budget() -> None:
    memo = encode({"choices": [0] * 5000})
    with pytest.raises(EncodingError):
        decode(memo)
    assert decode_own(memo) == {"choices": (0,) * 5000}


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(0, 2**32) | st.binary(max_size=40)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=6),
    max_leaves=30,
))
def test_scan_and_decode_agree_on_the_budget(value: object) -> None:
    """For any value, both readers admit it under the same budgets, or refuse it under both."""
    data = encode(value)
    for budget in (1, 2, 5, 17, 1000):
        try:
            decode(data, max_items=budget)
            decoded = True
        except EncodingError:
            decoded = False
        try:
            scan(data, max_items=budget)
            scanned = True
        except EncodingError:
            scanned = False
        assert decoded == scanned, budget

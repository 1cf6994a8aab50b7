"""Record parsing: the fast path for canonical records is exactly as strict as the general one."""

from __future__ import annotations

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.encoding import decode, encode, item_length
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.hashing import tagged_hash
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    COSE_SIGN1_TAG,
    PROTECTED_SIGN1,
    Record,
    link_hash,
    parse_record,
    record_length,
    sign_record,
    verify_record_signature,
)

SIGNER = Identity(bytes(range(32)))


def signed(body: object) -> bytes:
    record = Record(bytes(16), 3, bytes(32), 1, "vote", body)
    return sign_record(record, SIGNER).raw


@pytest.mark.parametrize("body", [None, {"yes": True}, {"pad": b"x" * 300},
                                  {"pad": b"y" * 70000}, [1, [2, [3]]]])
def test_a_signed_record_parses_to_its_own_payload_and_signature(body: object) -> None:
    raw = signed(body)
    item = decode(raw, max_size=1 << 20)
    parsed = parse_record(raw)
    assert (parsed.payload, parsed.signature) == (item.value[2], item.value[3])
    assert parsed.record.body == decode(encode(body))
    verify_record_signature(parsed, SIGNER.public)


def _reassembled(raw: bytes, payload_head: bytes) -> bytes:
    """The same COSE_Sign1 with the payload's byte-string head written out by hand."""
    item = decode(raw)
    protected, _, payload, signature = item.value
    inner = encode([protected, {}])[1:]  # the two headers, without the array head
    return (encode(cbor2.CBORTag(COSE_SIGN1_TAG, [b"", {}, b"", b""]))[:2] + inner
            + payload_head + payload + encode(signature))


def test_a_payload_length_in_a_longer_form_than_needed_is_refused() -> None:
    raw = signed({"yes": True})
    payload = decode(raw).value[2]
    assert _reassembled(raw, encode(payload)[:2]) == raw  # 24..255 bytes: one length byte
    longer = _reassembled(raw, bytes([0x59]) + len(payload).to_bytes(2, "big"))
    with pytest.raises(MalformedRecord, match="not canonical"):
        parse_record(longer)


@pytest.mark.parametrize("change", ["trailing byte", "short signature", "headers", "cut"])
def test_a_damaged_record_is_refused(change: str) -> None:
    raw = signed({"yes": True})
    item = decode(raw)
    _, _, payload, signature = item.value
    damaged = {
        "trailing byte": raw + b"\x00",
        "short signature": encode(cbor2.CBORTag(COSE_SIGN1_TAG,
                                                [PROTECTED_SIGN1, {}, payload, signature[:63]])),
        "headers": encode(cbor2.CBORTag(COSE_SIGN1_TAG,
                                        [PROTECTED_SIGN1, {1: -7}, payload, signature])),
        "cut": raw[:-1],
    }[change]
    with pytest.raises(MalformedRecord):
        parse_record(damaged)


@pytest.mark.parametrize("body", [None, {"pad": b"x" * 300}, {"pad": b"y" * 70000}])
def test_a_records_length_read_from_its_layout_is_the_length_of_the_cbor_item(body: object) -> None:
    raw = signed(body)
    sequence = raw + signed({"next": 1})
    assert record_length(sequence) == item_length(sequence) == len(raw)
    assert record_length(b"\x00" + sequence, 1) == len(raw)


SHORT_AND_LONG = (signed(None), signed({"pad": b"x" * 300}))


@settings(max_examples=100)
@given(st.sampled_from(SHORT_AND_LONG),
       st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), max_size=2),
       st.integers(0, 80), st.binary(max_size=3))
def test_an_edited_record_has_a_layout_length_only_where_it_is_the_item_length(
    raw: bytes, edits: list[tuple[int, int]], cut: int, extra: bytes
) -> None:
    data = bytearray(raw)
    for where, byte in edits:
        data[where % len(data)] = byte
    data = data[: len(data) - cut] + extra
    length = record_length(bytes(data))
    if length is not None:
        assert length == item_length(bytes(data))


@pytest.mark.parametrize("size", [0, 1, 23, 24, 255, 256, 65535, 65536])
def test_the_link_hash_is_the_tagged_hash_of_the_record_bytes(size: int) -> None:
    raw = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    assert link_hash(raw) == tagged_hash("link", raw)

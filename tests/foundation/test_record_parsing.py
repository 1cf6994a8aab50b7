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


# --- the one pass of a record's payload ------------------------------------------------------


def _payload_general(payload: bytes) -> Record | str:
    """What the general path makes of ``payload``: the record, or its refusal's message."""
    from spycraft.crypto.records import _parse_payload

    try:
        return _parse_payload(payload)
    except MalformedRecord as exc:
        return str(exc)


def typed(value: object) -> object:
    """``value`` with the type of every part beside it (``True == 1`` and ``1 == 1.0`` in
    Python, but a body holding one where the other was sent would be another body)."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(v) for v in value])
    return (type(value).__name__, value)


def _payload(seq: int, seat: int, kind: str, body: object) -> bytes:
    return encode(Record(bytes(range(16)), seq, bytes(range(32)), seat, kind, body).to_cbor())


payload_bodies = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**64, 2**64 - 1), st.binary(max_size=40),
              st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400)
@given(st.one_of(st.integers(0, 30), st.sampled_from([23, 24, 255, 256, 65536, 2**32, 2**64 - 1])),
       st.integers(0, 300), st.text(min_size=0, max_size=40), payload_bodies,
       st.lists(st.integers(0, 10**6), max_size=3), st.integers(-3, 3))
def test_a_payload_reads_in_one_pass_exactly_as_the_general_path_reads_it(
    seq: int, seat: int, kind: str, body: object, flips: list[int], resize: int
) -> None:
    """A record's payload is read in one pass where it is laid out as the canonical encoder
    writes it; on such payloads, and on them with bits flipped or cut or grown, the record (or
    the refusal and its message) is the general path's."""
    from spycraft.crypto.records import _payload_in_one_pass, parse_payload

    payload = _payload(seq, seat, kind, body)
    mutated = bytearray(payload)
    for flip in flips:
        bit = flip % (8 * len(mutated))
        mutated[bit // 8] ^= 1 << (bit % 8)
    edited = bytes(mutated[:resize] if resize < 0 else mutated + bytes(resize))
    for candidate in (payload, edited):
        expected = _payload_general(candidate)
        fast = _payload_in_one_pass(candidate)
        assert fast is None or fast == expected
        if fast is not None:  # the same values, of the same types, all the way down
            assert isinstance(expected, Record)
            assert typed(vars(fast)) == typed(vars(expected))
        try:
            got: Record | str = parse_payload(candidate)
        except MalformedRecord as exc:
            got = str(exc)
        assert got == expected
    if 0 < len(kind) <= 32:  # a canonical payload of a valid record takes the one pass
        assert _payload_in_one_pass(payload) == _payload_general(payload)


def test_a_payload_over_its_item_budget_is_refused_by_both_paths() -> None:
    """A body of many empty containers: the one pass charges the budget as ``decode`` does."""
    from spycraft.crypto.records import _payload_in_one_pass, parse_payload

    payload = _payload(1, 0, "leg", [[] for _ in range(5000)])
    assert _payload_in_one_pass(payload) is None
    with pytest.raises(MalformedRecord, match="budget|items"):
        parse_payload(payload)

"""Canonical CBOR: RFC 8949 Appendix A examples and the §4.2.1 rules we rely on."""

from collections.abc import Mapping

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.encoding import decode, encode, item_length, split_sequence
from spycraft.crypto.errors import EncodingError
from spycraft.engines.table import frozen

RFC_8949_EXAMPLES = [
    (0, "00"),
    (23, "17"),
    (24, "1818"),
    (100, "1864"),
    (1000, "1903e8"),
    (1000000, "1a000f4240"),
    (1000000000000, "1b000000e8d4a51000"),
    (-1, "20"),
    (-1000, "3903e7"),
    (b"", "40"),
    ("", "60"),
    ("a", "6161"),
    ("IETF", "6449455446"),
    ([], "80"),
    ([1, 2, 3], "83010203"),
    ({}, "a0"),
    ({1: 2, 3: 4}, "a201020304"),
    ({"a": 1, "b": [2, 3]}, "a26161016162820203"),
    (False, "f4"),
    (True, "f5"),
    (None, "f6"),
]


@pytest.mark.parametrize("value,hex_", RFC_8949_EXAMPLES)
def test_rfc_8949_examples_encode_exactly(value, hex_):
    assert encode(value).hex() == hex_
    assert decode(bytes.fromhex(hex_)) == frozen(value)


def test_text_keys_sort_bytewise_which_is_shortest_first():
    # §4.2.1: "b" (0x6162) sorts before "aa" (0x626161)
    assert encode({"aa": 1, "b": 2}).hex() == "a2616202626161" + "01"


def test_integer_keys_sort_by_their_encoding():
    assert list(decode(encode({100: 1, 10: 2, 24: 3}))) == [10, 24, 100]


def test_mixed_key_types_are_refused_because_the_two_orders_would_differ():
    with pytest.raises(EncodingError):
        encode({1: 2, "a": 3})
    with pytest.raises(EncodingError):
        encode({-1: 2, 1: 3})


def test_floats_are_refused():
    with pytest.raises(EncodingError):
        encode({"x": 1.5})


@pytest.mark.parametrize(
    "hex_",
    [
        "1817",  # 23 in a two-byte form
        "190064",  # 100 in a three-byte form
        "a2616201616102",  # keys out of order
        "9f0102ff",  # indefinite-length array
        "5f4101ff",  # indefinite-length bytes
        "fb3ff8000000000000",  # a float
        "",  # nothing
        "ff",  # a lone break
    ],
)
def test_non_canonical_or_unsupported_encodings_are_rejected(hex_):
    with pytest.raises(EncodingError):
        decode(bytes.fromhex(hex_))


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


@given(values)
def test_every_value_round_trips_through_one_encoding(value):
    data = encode(value)
    assert encode(decode(data)) == data


@given(st.binary(max_size=200))
def test_garbage_never_raises_anything_but_encoding_error(data):
    try:
        decode(data)
    except EncodingError:
        pass


def test_a_sequence_splits_into_the_exact_items():
    items = [encode([1, 2]), encode({"a": b"x"}), encode("z")]
    assert split_sequence(b"".join(items)) == items


# --- the one-pass decoder admits exactly what decode-and-re-encode admitted ------------------


def _decoded_the_slow_way(data: bytes) -> object:
    """The former decoder, kept as the oracle: the profile walk, cbor2, then a second encoding
    that must give back the same bytes."""
    if item_length(data) != len(data):
        raise EncodingError("trailing bytes")

    def freeze(value: object) -> object:
        if isinstance(value, (list, tuple)):
            return tuple(freeze(v) for v in value)
        if isinstance(value, Mapping):
            return {k: freeze(v) for k, v in value.items()}
        if isinstance(value, cbor2.CBORTag):
            return cbor2.CBORTag(value.tag, freeze(value.value))
        return value

    try:
        value = freeze(cbor2.loads(data))
    except (cbor2.CBORDecodeError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise EncodingError(str(exc)) from None
    if encode(value) != data:
        raise EncodingError("not canonical")
    return value


def _same_verdict(data: bytes) -> None:
    """The one-pass decoder, its item budget out of the way (an item takes at least a byte, so
    ``len(data)`` items is no bound), agrees with the oracle, which knows no budget; with the
    default budget it agrees too, or refuses the value for its items alone."""
    unbounded = max(1, len(data))
    try:
        expected = _decoded_the_slow_way(data)
    except EncodingError:
        with pytest.raises(EncodingError):
            decode(data, max_items=unbounded)
        with pytest.raises(EncodingError):
            decode(data)
        return
    assert decode(data, max_items=unbounded) == expected
    assert type(decode(data, max_items=unbounded)) is type(expected)
    try:
        assert decode(data) == expected
    except EncodingError as exc:
        assert "more CBOR items than" in str(exc)


tagged = st.recursive(
    values,
    lambda children: st.builds(cbor2.CBORTag, st.sampled_from([18, 98, 2, 28, 256]), children)
    | st.lists(children, max_size=3)
    | st.dictionaries(st.integers(0, 300), children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=100)
@given(tagged, st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=3),
       st.integers(0, 3))
def test_one_pass_decoding_agrees_with_decoding_and_encoding_again(value, edits, cut):
    data = bytearray(cbor2.dumps(value, canonical=True))
    for where, byte in edits:
        if data:
            data[where % len(data)] = byte
    _same_verdict(bytes(data[: len(data) - cut] if cut < len(data) else data))


@pytest.mark.parametrize(
    "hex_",
    [
        "1818", "1817", "190100", "1900ff", "1a00010000", "1a0000ffff",
        "1b0000000100000000", "1b00000000ffffffff", "3817", "5801aa", "5818" + "00" * 24,
        "62c328", "a2616101616101", "a201000200", "a20100616100", "a16161a16162f4",
        "d2f6", "d81280", "d862f6", "d81cf6", "c2410a", "f7", "f8ff", "80", "a0",
        "81" * 32 + "80", "81" * 32 + "f6", "81" * 33 + "f6", "81" * 31 + "d2" + "f6",
        "81" * 32 + "d2f6",
        # the items a container reads without a call: small integers, simple values, strings
        "83f5f417", "82f5", "8218", "81f7", "8317f6f4", "a16161f5", "a16161f7", "a1616118",
        "a1616158", "a16161580a" + "00" * 10, "a161615817" + "00" * 23,
        "a161615820" + "00" * 31, "a161615820" + "00" * 32, "a16161" + "58ff" + "00" * 255,
        "a1616143" + "0102", "a1616142" + "0102", "a1616162c328", "a16161626161", "a1616161",
        "a161", "a1", "a2616100616100", "a2616101000a", "a200016161f5", "a2616101616201",
    ],
)
def test_edge_encodings_get_the_same_verdict_from_both_decoders(hex_):
    _same_verdict(bytes.fromhex(hex_))


@pytest.mark.parametrize("wrap", [lambda v: [v], lambda v: {"k": v}])
def test_a_scalar_64_containers_deep_encodes_and_one_65_deep_is_refused(wrap):
    value: object = 1
    for _ in range(64):
        value = wrap(value)
    assert encode(value)
    with pytest.raises(EncodingError, match="nested too deeply"):
        encode(wrap(value))

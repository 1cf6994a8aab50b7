"""ristretto255 wrappers: arithmetic laws and the rejection of every bad encoding from a peer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import MalformedRecord, MalformedValue
from spycraft.crypto.group import (
    GENERATOR,
    IDENTITY,
    ORDER,
    ZERO,
    Point,
    Scalar,
    decode_points,
    point_sum,
)

scalars = st.integers(min_value=0, max_value=ORDER - 1).map(Scalar.from_int)
fast = settings(max_examples=25, deadline=None)


@fast
@given(scalars, scalars)
def test_scalar_multiplication_distributes_over_scalar_addition(a: Scalar, b: Scalar) -> None:
    assert Point.base_mul(a + b) == Point.base_mul(a) + Point.base_mul(b)
    assert Point.base_mul(a) * b == Point.base_mul(a * b)
    assert Point.base_mul(a - b) == Point.base_mul(a) - Point.base_mul(b)


@fast
@given(scalars)
def test_scalar_encodings_round_trip_and_match_python_integers(a: Scalar) -> None:
    assert Scalar.decode(a.encode()) == a
    assert int(-a) == (-int(a)) % ORDER
    if not a.is_zero():
        assert a * a.inverse() == Scalar.from_int(1)


def test_zero_scalar_and_identity_point_are_handled_without_libsodium_errors() -> None:
    assert Point.base_mul(ZERO) == IDENTITY
    assert GENERATOR * ZERO == IDENTITY
    assert IDENTITY * Scalar.from_int(5) == IDENTITY
    assert -GENERATOR + GENERATOR == IDENTITY
    assert point_sum([]) == IDENTITY


def test_valid_encodings_decode() -> None:
    p = Point.hash_to("test", 1)
    assert Point.decode(p.encode()) == p
    assert Point.decode(IDENTITY.encode()) == IDENTITY


@pytest.mark.parametrize("data", [
    b"\xff" * 32,  # not a field element
    bytes(31) + b"\x80",  # high bit set: non-canonical
    (2**255 - 19).to_bytes(32, "little"),  # p itself: a non-canonical zero
    b"\x01" + bytes(31),  # a negative field element: ristretto encodings are non-negative
    bytes(31),  # too short
    bytes(33),
    "not bytes",
    None,
])
def test_invalid_or_non_canonical_point_encodings_are_rejected(data: object) -> None:
    with pytest.raises(MalformedValue):
        Point.decode(data)


def test_identity_is_rejected_where_a_key_or_token_must_not_be_it() -> None:
    with pytest.raises(MalformedValue):
        Point.decode(bytes(32), nonidentity=True)


@pytest.mark.parametrize("value", [ORDER, ORDER + 1, 2**256 - 1])
def test_non_reduced_scalars_are_rejected(value: int) -> None:
    with pytest.raises(MalformedValue):
        Scalar.decode(value.to_bytes(32, "little"))


def test_malformed_value_is_attributed_as_a_malformed_record() -> None:
    with pytest.raises(MalformedValue) as caught:
        decode_points([b"\xff" * 32])
    err = caught.value.attribute(2, 17)
    assert isinstance(err, MalformedRecord)
    assert (err.seat, err.seq) == (2, 17)


def test_hash_to_point_separates_domains_and_values() -> None:
    assert Point.hash_to("a", 1) != Point.hash_to("b", 1)
    assert Point.hash_to("a", 1) != Point.hash_to("a", 2)
    assert Point.hash_to("a", 1) == Point.hash_to("a", 1)


def test_points_and_scalars_are_immutable() -> None:
    p, s = Point.hash_to("a", 1), Scalar.from_int(3)
    with pytest.raises(AttributeError):
        p._b = bytes(32)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s._b = bytes(32)  # type: ignore[misc]
    assert "3" not in repr(s)


def test_a_second_encoding_with_the_top_bit_set_is_rejected() -> None:
    # libsodium accepts P's encoding with bit 255 set as P itself; a peer must not be able to
    # re-encode a record's point without changing its meaning.
    p = Point.hash_to("a", 1).encode()
    with pytest.raises(MalformedValue):
        Point.decode(p[:31] + bytes([p[31] | 0x80]))

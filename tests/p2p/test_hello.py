"""Hellos: only the holder of an identity key can ask for a seat at a table in its name."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.identity import Identity, fingerprint
from spycraft.p2p.wire import (
    FrameError,
    decode_frames,
    encode_frame,
    make_hello,
    verify_hello,
)

TABLE = bytes(range(16))
OTHER_TABLE = bytes(range(1, 17))
TABLE_KEY = bytes(range(100, 132))
ALICE = Ed25519PrivateKey.from_private_bytes(b"\x01" * 32)
MALLORY = Ed25519PrivateKey.from_private_bytes(b"\x02" * 32)


def hello(**changes: Any) -> dict[str, Any]:
    frame = make_hello(ALICE, TABLE_KEY, TABLE, "alice", seat=2)
    return {**frame, **changes}


def test_a_hello_verifies_after_a_trip_over_the_wire() -> None:
    (received,) = decode_frames(encode_frame(hello()))
    checked = verify_hello(received, table_id=TABLE)
    assert (checked.table, checked.table_key, checked.name, checked.seat) == (
        TABLE,
        TABLE_KEY,
        "alice",
        2,
    )
    assert checked.fingerprint == fingerprint(checked.identity_key)


def test_a_hello_from_a_spycraft_identity_verifies_without_a_seat_request() -> None:
    identity = Identity(b"\x03" * 32)
    checked = verify_hello(make_hello(identity, TABLE_KEY, TABLE, "bob"))
    assert (checked.identity_key, checked.seat) == (identity.public, None)


def test_a_forged_signature_is_refused() -> None:
    with pytest.raises(FrameError, match="signature"):
        verify_hello(hello(sig=bytes(64)))


def test_swapped_keys_are_refused() -> None:
    frame = hello()
    with pytest.raises(FrameError, match="signature"):
        verify_hello({**frame, "id_key": frame["table_key"], "table_key": frame["id_key"]})


def test_a_hello_for_another_table_is_refused() -> None:
    with pytest.raises(FrameError, match="another table"):
        verify_hello(hello(), table_id=OTHER_TABLE)
    with pytest.raises(FrameError, match="signature"):
        verify_hello(hello(table=OTHER_TABLE), table_id=OTHER_TABLE)


def test_a_hello_cannot_be_claimed_by_another_identity() -> None:
    stolen = make_hello(MALLORY, TABLE_KEY, TABLE, "alice")
    alice_key = hello()["id_key"]
    with pytest.raises(FrameError, match="signature"):
        verify_hello({**stolen, "id_key": alice_key})


@pytest.mark.parametrize("name", ["", "\x1b[2Jalice", "bob\n"])
def test_a_name_that_could_drive_a_terminal_is_refused(name: str) -> None:
    with pytest.raises(FrameError, match="printable"):
        make_hello(ALICE, TABLE_KEY, TABLE, name)
    signed = hello(name=name)
    with pytest.raises(FrameError, match="printable"):
        verify_hello(signed)


def test_a_frame_of_another_type_is_not_a_hello() -> None:
    with pytest.raises(FrameError, match="expected a hello"):
        verify_hello({"v": 1, "t": "bye", "reason": "no"})


@settings(max_examples=100)
@given(st.data())
def test_any_change_to_a_signed_hello_is_refused(data: st.DataObject) -> None:
    frame = hello()
    field = data.draw(st.sampled_from(["table", "id_key", "table_key", "name", "seat", "sig"]))
    value = frame[field]
    if isinstance(value, bytes):
        i = data.draw(st.integers(0, len(value) - 1))
        flipped = bytearray(value)
        flipped[i] ^= 1 << data.draw(st.integers(0, 7))
        changed: Any = bytes(flipped)
    elif isinstance(value, str):
        changed = data.draw(st.text(max_size=64).filter(lambda s: s != value))
    else:
        changed = data.draw(st.sampled_from([None, 0, 1, 3, 63]))
    frame[field] = changed
    with pytest.raises(FrameError):
        verify_hello(frame, table_id=frame["table"])

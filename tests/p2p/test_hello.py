"""Hellos and the handshake: only the live holder of an identity key gets a link in its name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.identity import Identity, fingerprint
from spycraft.p2p import handshake
from spycraft.p2p.wire import (
    HANDSHAKE_FRAME_SIZE,
    MAX_FRAME_SIZE,
    NO_ECHO,
    FramedStream,
    FrameError,
    Hello,
    decode_frames,
    encode_frame,
    make_auth,
    make_hello,
    verify_auth,
    verify_hello,
)

TABLE = bytes(range(16))
OTHER_TABLE = bytes(range(1, 17))
TABLE_KEY = X25519PrivateKey.from_private_bytes(b"\x07" * 32).public_key().public_bytes(
    serialization.Encoding.Raw, serialization.PublicFormat.Raw
)
ALICE = Identity(b"\x01" * 32)
BOB = Identity(b"\x03" * 32)
MALLORY = Identity(b"\x02" * 32)
NONCE = b"\x11" * 32


def hello(identity: Identity = ALICE, **changes: Any) -> dict[str, Any]:
    frame = make_hello(identity, TABLE_KEY, TABLE, "alice", nonce=NONCE, seat=2)
    return {**frame, **changes}


def test_a_hello_verifies_after_a_trip_over_the_wire() -> None:
    (received,) = decode_frames(encode_frame(hello()))
    checked = verify_hello(received, table_id=TABLE, echo=NO_ECHO)
    assert (checked.table, checked.table_key, checked.name, checked.seat, checked.nonce) == (
        TABLE, TABLE_KEY, "alice", 2, NONCE,
    )
    assert checked.fingerprint == fingerprint(checked.identity_key)


def test_a_forged_signature_is_refused() -> None:
    with pytest.raises(FrameError, match="signature"):
        verify_hello(hello(sig=bytes(64)))


def test_swapped_keys_are_refused() -> None:
    frame = hello()
    with pytest.raises(FrameError):
        verify_hello({**frame, "id_key": frame["table_key"], "table_key": frame["id_key"]})


def test_a_hello_for_another_table_is_refused() -> None:
    with pytest.raises(FrameError, match="another table"):
        verify_hello(hello(), table_id=OTHER_TABLE)
    with pytest.raises(FrameError, match="signature"):
        verify_hello(hello(table=OTHER_TABLE), table_id=OTHER_TABLE)


def test_a_hello_cannot_be_claimed_by_another_identity() -> None:
    stolen = hello(MALLORY)
    with pytest.raises(FrameError, match="signature"):
        verify_hello({**stolen, "id_key": ALICE.public})


def test_a_hello_that_does_not_echo_our_nonce_is_a_replay() -> None:
    with pytest.raises(FrameError, match="challenge"):
        verify_hello(hello(), echo=b"\x22" * 32)


def test_a_hello_without_a_fresh_nonce_is_refused() -> None:
    frame = make_hello(ALICE, TABLE_KEY, TABLE, "alice", nonce=NO_ECHO)
    with pytest.raises(FrameError, match="fresh"):
        verify_hello(frame)


@pytest.mark.parametrize(
    "field,key",
    [
        ("table_key", bytes(32)),  # the all-zero X25519 point: every shared secret is zero
        ("table_key", (1).to_bytes(32, "little")),  # small order
        ("table_key", ((1 << 255) - 19).to_bytes(32, "little")),  # p itself: not canonical
        ("id_key", bytes([1]) + bytes(31)),  # the Ed25519 identity point
        ("id_key", bytes(32)),  # a point of small order
    ],
)
def test_keys_of_small_order_or_not_canonical_are_refused_at_the_door(
    field: str, key: bytes
) -> None:
    with pytest.raises(FrameError, match="refused"):
        verify_hello(hello(**{field: key}))


@pytest.mark.parametrize("name", ["", "\x1b[2Jalice", "bob\n"])
def test_a_name_that_could_drive_a_terminal_is_refused(name: str) -> None:
    with pytest.raises(FrameError, match="printable"):
        make_hello(ALICE, TABLE_KEY, TABLE, name, nonce=NONCE)
    with pytest.raises(FrameError, match="printable"):
        verify_hello(hello(name=name))


def test_a_frame_of_another_type_is_not_a_hello() -> None:
    with pytest.raises(FrameError, match="expected a hello"):
        verify_hello({"v": 1, "t": "bye", "reason": "no"})


@settings(max_examples=100)
@given(st.data())
def test_any_change_to_a_signed_hello_is_refused(data: st.DataObject) -> None:
    frame = hello()
    field = data.draw(st.sampled_from(["table", "id_key", "table_key", "name", "seat", "nonce",
                                       "echo", "sig"]))
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


def test_an_auth_answers_only_the_hello_it_was_made_for() -> None:
    dialer = hello(ALICE)
    mine = make_hello(BOB, TABLE_KEY, TABLE, "bob", nonce=b"\x33" * 32, echo=NONCE)
    auth = make_auth(ALICE, verify_hello(mine), dialer)
    verify_auth(auth, verify_hello(dialer), mine)
    other_nonce = make_hello(BOB, TABLE_KEY, TABLE, "bob", nonce=b"\x44" * 32, echo=NONCE)
    with pytest.raises(FrameError, match="challenge"):
        verify_auth(auth, verify_hello(dialer), other_nonce)
    with pytest.raises(FrameError, match="challenge"):
        verify_auth(make_auth(MALLORY, verify_hello(mine), dialer), verify_hello(dialer), mine)


def test_an_auth_names_its_listener_so_a_relayed_challenge_is_refused() -> None:
    """Issue 18, attack 1: Mallory passes Alice's live hello on to Bob, and puts Bob's nonce into
    her own hello to Alice. Alice's auth answers that nonce, but names Mallory as the listener
    (her identity and her hello): Bob, whose hello it is not, refuses it."""
    alice = hello(ALICE)
    bob = make_hello(BOB, TABLE_KEY, TABLE, "bob", nonce=b"\x33" * 32, echo=alice["nonce"])
    mallory = make_hello(MALLORY, TABLE_KEY, TABLE, "mallory", nonce=bob["nonce"],
                         echo=alice["nonce"])
    auth = make_auth(ALICE, verify_hello(mallory, echo=alice["nonce"]), alice)
    verify_auth(auth, verify_hello(alice), mallory)  # Alice did answer Mallory, live
    with pytest.raises(FrameError, match="relayed"):
        verify_auth(auth, verify_hello(alice), bob)


@pytest.mark.parametrize("field", ["table", "id_key", "nonce", "sig"])
def test_an_auth_is_bound_to_every_part_of_both_hellos(field: str) -> None:
    dialer = hello(ALICE)
    mine = make_hello(BOB, TABLE_KEY, TABLE, "bob", nonce=b"\x33" * 32, echo=NONCE)
    auth = make_auth(ALICE, verify_hello(mine), dialer)
    changed = {"table": OTHER_TABLE, "id_key": MALLORY.public, "nonce": b"\x44" * 32,
               "sig": bytes(64)}[field]
    with pytest.raises(FrameError):
        verify_auth(auth, verify_hello(dialer), {**mine, field: changed})
    other = {**dialer, field: changed}
    with pytest.raises(FrameError):
        verify_auth(auth, Hello(other["table"], other["id_key"], other["table_key"],
                                other["name"], other["seat"], other["nonce"], other["sig"]), mine)


# --- the handshake over a real trio stream pair ----------------------------------------------


def trio_test(fn: Callable[[], Awaitable[None]]) -> Callable[[], None]:
    def run() -> None:
        trio.run(fn)

    run.__name__ = fn.__name__
    return run


def builder(identity: Identity, name: str) -> handshake.HelloBuilder:
    return lambda nonce, echo: make_hello(identity, TABLE_KEY, TABLE, name, nonce=nonce, echo=echo)


async def _pair() -> tuple[FramedStream, FramedStream]:
    a, b = trio.testing.memory_stream_pair()
    return FramedStream(a), FramedStream(b)


@trio_test
async def test_both_sides_learn_each_other_live() -> None:
    left, right = await _pair()
    results: dict[str, Hello] = {}

    async def listen() -> None:
        results["dialer"] = await handshake.accept(
            right, builder(BOB, "bob"), TABLE, lambda h: None
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen)
        results["listener"] = await handshake.dial(left, ALICE, builder(ALICE, "alice"), TABLE)
    assert results["dialer"].identity_key == ALICE.public
    assert results["listener"].identity_key == BOB.public


@trio_test
async def test_a_replayed_dialer_hello_gets_no_link() -> None:
    """Mallory copies the hello Alice sent on another connection and offers it as her own: the
    listener answers with a fresh nonce that only Alice's key can sign, and refuses."""
    captured = hello(ALICE)
    left, right = await _pair()
    outcome: list[BaseException] = []

    async def listen() -> None:
        try:
            await handshake.accept(right, builder(BOB, "bob"), TABLE, lambda h: None)
        except FrameError as exc:
            outcome.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen)
        await left.send(captured)
        reply = verify_hello(await left.receive(), table_id=TABLE, echo=captured["nonce"])
        await left.send(make_auth(MALLORY, reply, captured))  # the best Mallory can sign
    assert outcome and "challenge" in str(outcome[0])


@trio_test
async def test_a_replayed_listener_hello_is_refused_by_the_dialer() -> None:
    old = make_hello(BOB, TABLE_KEY, TABLE, "bob", nonce=b"\x55" * 32, echo=b"\x66" * 32)
    left, right = await _pair()

    async def impostor() -> None:
        await right.receive()
        await right.send(old)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(impostor)
        with pytest.raises(FrameError, match="challenge"):
            await handshake.dial(left, ALICE, builder(ALICE, "alice"), TABLE)


@trio_test
async def test_a_listener_may_refuse_before_signing_anything() -> None:
    left, right = await _pair()

    async def listen() -> None:
        with pytest.raises(handshake.Refused):
            await handshake.accept(right, builder(BOB, "bob"), TABLE, lambda h: "not seated here")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen)
        with pytest.raises(handshake.Refused, match="not seated here"):
            await handshake.dial(left, ALICE, builder(ALICE, "alice"), TABLE)


# --- small frames before the handshake is done (issue 18, attack 6) -------------------------


def test_the_largest_hello_auth_and_bye_fit_the_handshake_frame_limit() -> None:
    name = "\U0001f575" * 64  # 64 four-byte characters
    largest = make_hello(ALICE, TABLE_KEY, TABLE, name, nonce=NONCE, echo=b"\x22" * 32,
                         seat=(1 << 63) - 1)
    auth = make_auth(ALICE, verify_hello(largest), largest)
    bye = {"t": "bye", "reason": "\U0001f575" * 200}
    for frame in (largest, auth, bye):
        assert len(encode_frame(frame)) - 4 <= HANDSHAKE_FRAME_SIZE


@trio_test
async def test_a_first_frame_over_the_handshake_limit_is_refused_before_it_is_read() -> None:
    """A stranger's 1 MiB frame: its header is refused, and at most one read's worth of it
    was ever taken in."""
    left, right = await _pair()
    outcome: list[BaseException] = []

    async def listen() -> None:
        try:
            await handshake.accept(right, builder(BOB, "bob"), TABLE, lambda h: None)
        except FrameError as exc:
            outcome.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen)
        await left.stream.send_all((1 << 20).to_bytes(4, "big") + b"\xa0" * 4096)
    assert outcome and f"exceeds the limit of {HANDSHAKE_FRAME_SIZE}" in str(outcome[0])
    assert right.max_frame_size == MAX_FRAME_SIZE  # after the handshake, the usual limit


@trio_test
async def test_a_listener_that_answers_with_a_huge_frame_is_refused_by_the_dialer() -> None:
    left, right = await _pair()

    async def impostor() -> None:
        await right.receive()
        await right.stream.send_all((1 << 20).to_bytes(4, "big"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(impostor)
        with pytest.raises(FrameError, match=f"exceeds the limit of {HANDSHAKE_FRAME_SIZE}"):
            await handshake.dial(left, ALICE, builder(ALICE, "alice"), TABLE)


def test_a_dialer_that_stalls_after_its_hello_is_dropped_at_the_auth_deadline() -> None:
    """Red team 9: a stranger let in at its hello (a spectator's slot) held what it was given
    for the whole handshake time by never sending its auth. Once our hello is out, the auth
    must come within ``AUTH_TIMEOUT``: the dialer only verifies and signs."""
    waited: list[float] = []

    async def main() -> None:
        left, right = await _pair()
        start = trio.current_time()
        await left.send(hello(ALICE, echo=NO_ECHO))
        with pytest.raises(trio.TooSlowError):
            await handshake.accept(right, builder(BOB, "bob"), TABLE, lambda h: None)
        waited.append(trio.current_time() - start)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert waited == [handshake.AUTH_TIMEOUT]

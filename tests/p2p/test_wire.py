"""Frames: the decoder rejects every malformed input with FrameError and bounded memory."""

from __future__ import annotations

import tracemalloc
import types
from collections.abc import Sequence
from typing import Any, get_args, get_origin, get_type_hints

import cbor2
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft import PROTOCOL_VERSION
from spycraft.p2p.wire import (
    FRAME_SCHEMAS,
    MAX_FRAME_SIZE,
    Field,
    Frame,
    FramedStream,
    FrameError,
    decode_frames,
    decode_payload,
    encode_frame,
    raw,
    register_frame_type,
)

V = PROTOCOL_VERSION
SAMPLE_FRAMES: list[dict[str, Any]] = [
    {"t": "record", "record": b"\xd2\x84" + bytes(100)},
    {"t": "ack", "seq": 7, "link": bytes(range(32))},
    {"t": "sync", "from_seq": 0},
    {"t": "sync_reply", "from_seq": 3, "records": [b"one", b"two"]},
    {"t": "lobby", "seats": [bytes(32), b"\x01" * 32], "total": 5},
    {"t": "bye", "reason": "table closed"},
]


def framed(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


def check_only_frame_errors(data: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> None:
    try:
        frames = decode_frames(data, max_frame_size=max_frame_size)
    except FrameError:
        return
    for frame in frames:
        assert frame["v"] == V and frame["t"] in FRAME_SCHEMAS


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("frame", SAMPLE_FRAMES, ids=lambda f: f["t"])
def test_every_frame_type_round_trips(frame: dict[str, Any]) -> None:
    (decoded,) = decode_frames(encode_frame(frame))
    expected = {"v": V, **frame}
    if "records" in frame or "seats" in frame:  # arrays decode as tuples
        expected = {k: tuple(v) if isinstance(v, list) else v for k, v in expected.items()}
    assert decoded == expected


def kinds_of(annotation: Any) -> tuple[type, ...]:
    """The Python types a field's annotation admits, as a ``Field`` names them."""
    if get_origin(annotation) in (types.UnionType,):
        return tuple(k for arg in get_args(annotation) for k in kinds_of(arg))
    if get_origin(annotation) is Sequence:
        return (tuple, list)
    return (annotation,)


@pytest.mark.parametrize("frame_class", get_args(Frame), ids=lambda c: c.__name__)
def test_a_frame_class_declares_each_field_once_for_mypy_and_the_schema_gate(
    frame_class: type,
) -> None:
    """The type mypy checks and the rule the schema gate checks are one declaration, and agree:
    a field typed bytes is checked as bytes, an array of bytes as an array of bytes."""
    hints = get_type_hints(frame_class, include_extras=True)
    (frame_type,) = get_args(hints["t"])
    schema = FRAME_SCHEMAS[frame_type]
    assert set(schema) == set(hints) - {"v", "t"}
    for name, field in schema.items():
        annotation, rule = get_args(hints[name])
        assert rule is field and isinstance(field, Field)
        assert set(kinds_of(annotation)) == set(field.kinds), (frame_type, name)
        if get_origin(annotation) is Sequence:
            (item,) = get_args(annotation)
            assert field.items is not None and field.items.kinds == kinds_of(item)


def test_the_schema_table_holds_exactly_the_frame_classes() -> None:
    types_declared = [get_args(get_type_hints(c)["t"])[0] for c in get_args(Frame)]
    assert len(types_declared) == len(set(types_declared))
    assert set(types_declared) == set(FRAME_SCHEMAS)


def test_the_session_layer_can_add_a_frame_type() -> None:
    register_frame_type("test_ping", {"nonce": raw(8)})
    try:
        (decoded,) = decode_frames(encode_frame({"t": "test_ping", "nonce": b"12345678"}))
        assert decoded["nonce"] == b"12345678"
        with pytest.raises(ValueError):
            register_frame_type("test_ping", {})
    finally:
        del FRAME_SCHEMAS["test_ping"]


# --- what a peer must not send -------------------------------------------------------------------


@pytest.mark.parametrize(
    "frame, reason",
    [
        ({"v": V + 1, "t": "sync", "from_seq": 0}, "protocol version"),
        ({"v": True, "t": "sync", "from_seq": 0}, "protocol version"),
        ({"t": "sync", "from_seq": 0}, "protocol version"),
        ({"v": V, "t": "launch", "from_seq": 0}, "unknown frame type"),
        ({"v": V, "t": 7, "from_seq": 0}, "type"),
        ({"v": V, "t": "sync"}, "missing fields"),
        ({"v": V, "t": "sync", "from_seq": 0, "extra": 1}, "unexpected"),
        ({"v": V, "t": "sync", "from_seq": -1}, "unsigned"),
        ({"v": V, "t": "sync", "from_seq": 1 << 63}, "unsigned"),
        ({"v": V, "t": "sync", "from_seq": True}, "must be int"),
        ({"v": V, "t": "sync", "from_seq": "0"}, "must be int"),
        ({"v": V, "t": "ack", "seq": 1, "link": bytes(31)}, "32 long"),
        ({"v": V, "t": "sync_reply", "from_seq": 1, "records": [b"a", "b"]}, r"records\[1\]"),
        ({"v": V, "t": "bye", "reason": "x" * 201}, "longer"),
        ({1: 2}, "protocol version"),
    ],
)
def test_a_frame_outside_its_schema_is_refused(frame: dict[Any, Any], reason: str) -> None:
    with pytest.raises(FrameError, match=reason):
        decode_frames(framed(cbor2.dumps(frame, canonical=True)))


def test_a_non_canonical_frame_is_refused() -> None:
    canonical = cbor2.dumps({"t": "sync", "v": V, "from_seq": 0}, canonical=True)
    unsorted = b"\xa3" + b"".join(
        cbor2.dumps(k) + cbor2.dumps(v) for k, v in [("v", V), ("t", "sync"), ("from_seq", 0)]
    )
    assert decode_frames(framed(canonical))
    with pytest.raises(FrameError, match="canonical"):
        decode_frames(framed(unsorted))
    long_int = canonical.replace(b"\x68from_seq\x00", b"\x68from_seq\x18\x00")
    with pytest.raises(FrameError, match="canonical"):
        decode_frames(framed(long_int))


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"\xd9\x01\x00\x82\x43abc\xd8\x19\x00", "tag"),  # stringref: a small input, a big value
        (b"\xd8\x1c\x81\x00", "tag"),  # value sharing
        (b"\xbf\x61v\x01\xff", "indefinite"),
        (b"\xfb\x3f\xf0\x00\x00\x00\x00\x00\x00", "simple values"),
        (b"\x9b\xff\xff\xff\xff\xff\xff\xff\xff\x00", "container longer"),
        (b"\x5b\xff\xff\xff\xff\xff\xff\xff\xff", "string longer"),
        (b"\x81" * 40 + b"\x00", "nested deeper"),
        (b"\xa0\x00", "trailing"),
        (b"", "truncated"),
    ],
)
def test_cbor_outside_the_frame_profile_is_refused(payload: bytes, reason: str) -> None:
    with pytest.raises(FrameError, match=reason):
        decode_payload(payload)


def test_an_oversize_length_is_refused_before_the_payload_is_read() -> None:
    with pytest.raises(FrameError, match="exceeds the limit"):
        decode_frames((MAX_FRAME_SIZE + 1).to_bytes(4, "big"))
    with pytest.raises(FrameError, match="exceeds the limit"):
        encode_frame({"t": "record", "record": bytes(2000)}, max_frame_size=1000)


# --- fuzzing -------------------------------------------------------------------------------------

valid_wire = st.sampled_from([encode_frame(f) for f in SAMPLE_FRAMES])


@settings(max_examples=400)
@given(st.binary(max_size=300))
def test_random_bytes_raise_only_frame_error(data: bytes) -> None:
    check_only_frame_errors(data)
    check_only_frame_errors(framed(data))


@given(valid_wire, st.data())
def test_every_truncation_of_a_valid_frame_is_refused(wire: bytes, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(wire) - 1))
    with pytest.raises(FrameError):
        decode_frames(wire[:cut]) if cut else decode_frames(b"\x00\x00\x00")
    payload = wire[4:]
    with pytest.raises(FrameError):
        decode_payload(payload[: data.draw(st.integers(0, len(payload) - 1))])


@settings(max_examples=400)
@given(valid_wire, st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
def test_bit_flips_in_valid_frames_raise_only_frame_error(wire: bytes, flips: list[int]) -> None:
    mutated = bytearray(wire)
    for flip in flips:
        bit = flip % (8 * len(mutated))
        mutated[bit // 8] ^= 1 << (bit % 8)
    check_only_frame_errors(bytes(mutated))


cbor_heads = st.lists(
    st.tuples(
        st.integers(0, 7), st.sampled_from([0, 1, 23, 24, 25, 26, 27, 31]), st.binary(max_size=8)
    ),
    max_size=12,
).map(lambda heads: b"".join(bytes(((m << 5) | i,)) + arg for m, i, arg in heads))


@settings(max_examples=300)
@given(cbor_heads)
def test_hostile_cbor_heads_never_allocate_beyond_the_limit(payload: bytes) -> None:
    """Lengths and counts up to 2**64 in a few bytes: memory stays far below the
    1 KiB limit x 64."""
    tracemalloc.start()
    try:
        check_only_frame_errors(framed(payload), max_frame_size=1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024


# --- FramedStream --------------------------------------------------------------------------------


class CountingStream(trio.abc.Stream):
    """A stream that serves fixed bytes and records how much each read asked for."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.asked: list[int] = []

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        assert max_bytes is not None
        self.asked.append(max_bytes)
        chunk, self.data = self.data[:max_bytes], self.data[max_bytes:]
        return chunk

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise AssertionError("not used")

    async def wait_send_all_might_not_block(self) -> None:
        raise AssertionError("not used")

    async def aclose(self) -> None:
        pass


def test_a_stream_refuses_an_oversize_header_after_one_bounded_read() -> None:
    stream = CountingStream(b"\xff\xff\xff\xff" + bytes(200_000))

    async def main() -> None:
        with pytest.raises(FrameError, match="exceeds"):
            await FramedStream(stream).receive()

    trio.run(main)
    assert len(stream.asked) == 1 and stream.asked[0] <= 1 << 16


def test_frames_that_arrive_together_are_returned_one_by_one_from_one_read() -> None:
    first, second = encode_frame(SAMPLE_FRAMES[0]), encode_frame(SAMPLE_FRAMES[1])
    stream = CountingStream(first + second)

    async def main() -> None:
        framed_stream = FramedStream(stream)
        assert (await framed_stream.receive())["t"] == "record"
        assert (await framed_stream.receive())["t"] == "ack"
        with pytest.raises(trio.EndOfChannel):
            await framed_stream.receive()

    trio.run(main)
    assert len(stream.asked) == 2  # both frames in one read, then the end


def test_a_close_inside_a_frame_is_a_frame_error() -> None:
    async def main() -> None:
        with pytest.raises(FrameError, match="closed inside a frame"):
            await FramedStream(CountingStream(encode_frame(SAMPLE_FRAMES[0])[:-1])).receive()
        with pytest.raises(FrameError, match="closed inside a frame"):
            await FramedStream(CountingStream(b"\x00\x00")).receive()

    trio.run(main)


async def exchange(left: FramedStream, right: FramedStream) -> None:
    """Many concurrent senders on each side; every frame arrives whole and in per-sender order."""
    senders, per_sender = 8, 20

    async def send_from(stream: FramedStream, sender: int) -> None:
        for i in range(per_sender):
            await stream.send(
                {"t": "sync_reply", "from_seq": sender, "records": [bytes(5000), bytes([i])]}
            )

    async def receive_all(stream: FramedStream) -> None:
        seen: dict[int, list[int]] = {s: [] for s in range(senders)}
        for _ in range(senders * per_sender):
            frame = await stream.receive()
            seen[frame["from_seq"]].append(frame["records"][1][0])
        assert all(got == list(range(per_sender)) for got in seen.values())

    async with trio.open_nursery() as nursery:
        for stream, other in ((left, right), (right, left)):
            nursery.start_soon(receive_all, other)
            for sender in range(senders):
                nursery.start_soon(send_from, stream, sender)


def test_framed_streams_over_a_memory_stream_pair() -> None:
    async def main() -> None:
        a, b = trio.testing.memory_stream_pair()
        await exchange(FramedStream(a), FramedStream(b))

    trio.run(main)


@pytest.mark.network
def test_framed_streams_over_loopback_tcp() -> None:
    async def main() -> None:
        (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener.socket.getsockname()[1]
        async with listener:
            client = await trio.open_tcp_stream("127.0.0.1", port)
            server = await listener.accept()
            async with FramedStream(client) as left, FramedStream(server) as right:
                await exchange(left, right)
                await left.send({"t": "bye", "reason": "done"})
                await left.aclose()
                assert (await right.receive())["reason"] == "done"
                with pytest.raises(trio.EndOfChannel):
                    await right.receive()

    trio.run(main)


@pytest.mark.network
def test_a_tcp_stream_read_through_its_descriptor_fails_as_trio_s_own_read_does() -> None:
    """A frame in pieces is read whole; our side closed: ClosedResourceError; the peer's reset:
    BrokenResourceError; cancelled while it waits: it is cancelled (``_receive_direct``)."""
    import socket
    import struct

    async def main() -> None:
        (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener.socket.getsockname()[1]
        async with listener:
            client = await trio.open_tcp_stream("127.0.0.1", port)
            server = FramedStream(await listener.accept())
            assert server._direct
            wire = encode_frame(SAMPLE_FRAMES[0])
            for cut in (1, 6, len(wire) - 1):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(client.send_all, wire[:cut])
                    nursery.start_soon(trio.sleep, 0.05)
                await client.send_all(wire[cut:])
                assert await server.receive() == decode_frames(wire)[0]
            with trio.move_on_after(0.1) as waited:
                await server.receive()
            assert waited.cancelled_caught
            await server.aclose()
            with pytest.raises(trio.ClosedResourceError):
                await server.receive()
            reset = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
            accepted = await listener.accept()
            accepted.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            await accepted.aclose()  # linger 0: a reset, not a clean close
            await trio.sleep(0.05)
            with pytest.raises(trio.BrokenResourceError):
                await reset.receive()
            await reset.aclose()
            await client.aclose()

    trio.run(main)


cbor_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.binary(max_size=40)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["v", "t", "seq", "link", "from_seq", "records", "reason", "x"]),
        cbor_values | st.sampled_from([V, "ack", "sync", "bye", "sync_reply"]),
    )
)
def test_structured_garbage_raises_only_frame_error(frame: dict[str, Any]) -> None:
    check_only_frame_errors(framed(cbor2.dumps(frame, canonical=True)))


# --- the one pass of a record's frames -------------------------------------------------------


def _general_path(payload: bytes) -> dict[str, Any] | str:
    """What the scan, the decoder and the schema make of ``payload``: the frame, or the refusal."""
    from spycraft.crypto.encoding import decode
    from spycraft.crypto.errors import EncodingError
    from spycraft.p2p.wire import _scan_cbor, validate_frame

    try:
        _scan_cbor(payload)
        return validate_frame(decode(payload, max_size=len(payload)))
    except (FrameError, EncodingError):
        return "refused"


common_frames = st.one_of(
    st.builds(lambda b: {"t": "record", "record": b}, st.binary(max_size=300)),
    st.builds(lambda t, s, link: {"t": t, "seq": s, "link": link},
              st.sampled_from(["ack", "head"]),
              st.one_of(st.integers(0, 2**63 - 1), st.sampled_from([0, 23, 24, 255, 256, 65535,
                                                                     65536, 2**32 - 1, 2**32])),
              st.binary(min_size=32, max_size=32)),
)


@settings(max_examples=400)
@given(common_frames, st.lists(st.integers(0, 10**6), max_size=3), st.integers(-3, 3))
def test_records_acks_and_heads_decode_in_one_pass_exactly_as_the_general_path_does(
    frame: dict[str, Any], flips: list[int], resize: int
) -> None:
    """The frames every record costs are encoded and decoded in one pass; on their bytes, and
    on those bytes with bits flipped or cut or grown, the result is the general path's."""
    wire = encode_frame(frame)
    full = {"v": V, **frame}
    assert wire[4:] == cbor2.dumps(full, canonical=True)
    assert decode_payload(wire[4:]) == full
    mutated = bytearray(wire[4:])
    for flip in flips:
        bit = flip % (8 * len(mutated))
        mutated[bit // 8] ^= 1 << (bit % 8)
    payload = bytes(mutated[:resize] if resize < 0 else mutated + bytes(resize))
    expected = _general_path(payload)
    try:
        got: dict[str, Any] | str = decode_payload(payload)
    except FrameError:
        got = "refused"
    assert got == expected
    if isinstance(got, dict):
        assert list(got) == list(expected)  # the same frame, field for field, in order

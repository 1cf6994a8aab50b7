"""Frames: how two peers exchange messages over one TCP connection.

Theory of operation:

* A **frame** on the wire is a 4-byte big-endian length followed by that many bytes of canonical
  CBOR (RFC 8949 §4.2.1, through ``spycraft.crypto.encoding``). The payload is a map with text
  keys: ``v`` (the protocol version), ``t`` (the frame type) and the type's fields.
* Every received frame goes through three gates, each of which raises ``FrameError`` and nothing
  else: the **size gate** (the declared length is checked against the limit before a single
  payload byte is read, so a peer cannot make us allocate more than the limit; until the
  handshake is done the limit is ``HANDSHAKE_FRAME_SIZE``, which the largest hello, auth and bye
  fit in, so a stranger's first frame costs at most 1 KiB), the **CBOR gate** (a linear scan
  that admits only the plain CBOR profile frames use: integers, byte and text strings, arrays,
  maps, false/true/null, definite lengths that fit in what remains, a map of fields whose values
  are at most arrays of those (nesting 2), at most ``encoding.item_budget`` items, each
  container refused at its head if its items do not fit, no tags, no floats; then the canonical
  decoder) and the **schema gate** (version, known type, exactly the declared fields with the
  declared types). So no frame costs more than one scan of its bytes, bounded by its item
  budget, to refuse: a 1 MiB array of a million empty maps is refused at its head. The CBOR
  gate rejects tags because cbor2 resolves value-sharing and string-reference tags (28/29,
  256/25) while decoding, so a small input can expand into a huge value before any canonical
  check sees it. Records and other tagged structures travel as opaque byte strings inside
  frames (``crypto.records`` decodes them under the same item budget).
* **Frames are typed**: each frame type is declared once, below, as a ``TypedDict`` whose ``t``
  names the type and whose fields carry their wire rule (``Field``) as ``Annotated`` metadata.
  mypy checks every frame built or read against its class (``Frame`` is their union, narrowed by
  ``frame["t"] == ...``), and the schema gate's table (``FRAME_SCHEMAS``: frame type -> {field:
  ``Field``}) is made from the same classes, with no module adding its own on import (a test may
  add one with ``register_frame_type``). At run time a frame is a plain dict, so the typing costs
  nothing on the wire or in the hot path.
* A **hello** is the first frame each side sends: its identity key (Ed25519), its table key
  (X25519), the table id, a display name (1-64 printable characters, safe to print on a
  terminal), an optional seat request, a fresh 32-byte ``nonce`` and an ``echo`` of the other
  side's nonce, signed with the identity key over ``HELLO_DOMAIN`` + the canonical CBOR of every
  other field. Both keys are checked (``crypto.keys``): a key of small order or in a
  non-canonical encoding is refused at the door. **The handshake binds both identities, both
  nonces, the table and the connection**: the dialer sends its hello with an all-zero echo; the
  listener answers with its own hello whose echo is the dialer's nonce (so the dialer knows it
  is live, not a replay, and checks that the identity is the one it dialed); the dialer then
  sends ``auth``, its signature over ``AUTH_DOMAIN`` + the table, both identity keys, both
  nonces and both hellos' signatures. The two fresh nonces name this one connection. A copied
  hello is worthless (nobody can answer a fresh nonce without the identity key), and so is a
  relayed one: a cheater C that passes seat V's live hello on to seat T and puts T's nonce in
  its own hello to V gets from V an auth that names C as the listener, which T refuses.
* ``FramedStream`` wraps a trio stream: ``send`` validates and writes one frame under a lock (so
  concurrent senders never interleave bytes); ``receive`` returns exactly one frame, reading up to
  64 KiB at a time and keeping what follows for the next call (one system call for several small
  frames), so it never holds more than one frame plus 64 KiB; an oversize length is refused
  before more of its frame is read.

Frame types and fields (all integers are unsigned, below 2**63):

========== ===================================================================================
hello      table (16 B), id_key (32 B), table_key (32 B), name (text <= 64), seat (int or null:
           the seat index asked for, null for the next free one), nonce (32 B), echo (32 B:
           the peer's nonce, zeros in the dialer's hello), sig (64 B)
auth       sig (64 B): the dialer's answer to the listener's hello (see the handshake)
lobby      seats (array of id_key, 32 B each, in the order players sat down), total (int):
           the sender's view of who sits where before genesis
record     record (bytes): one signed record, the exact COSE_Sign1 bytes
ack        seq (int), link (32 B): the sender holds record ``seq`` whose link hash is ``link``;
           a different link for one seq exposes divergence at once
sync       from_seq (int): please send every record from ``from_seq`` on
sync_reply from_seq (int), records (array of bytes): records from ``from_seq`` on, in order
bye        reason (text <= 200): the sender closes the connection
join       beacon (32 B), host (text <= 64: an IP address), port (int), sig (64 B): sent after
           the hello by a peer that asks for a seat: its beacon chain tip, the address it listens
           on for the mesh, and its identity's signature over that address for this table
           (``seating.sign_address``), which the roster carries and every seat checks
roster     game (text), options (bytes: canonical CBOR map), total (int), beacon_length (int),
           turn_timeout_ms (int), seats (array of bytes: canonical CBOR {name, identity,
           table_key, beacon, host, port, sig}): the lobby is full; everyone builds the same
           genesis from this (and refuses it unless every seat signed its own address)
gsig       seat (int), sig (64 B): one seat's signature over the genesis
head       seq (int), link (32 B): the sender's last record, sent after every hello on a
           play connection, so whoever is behind asks for what it misses
evidence   records (array of bytes): two records one seat signed for one place (equivocation)
absent     seq (int), prev (32 B), seat (int), voter (int), sig (64 B): the voter's signed vote
           that ``seat``, named by the engine at (seq, prev), is absent (``engines.absence``)
chat       message (bytes <= 2048): one signed chat message (``crypto.chat``), said or relayed
genesis    genesis (bytes): the signed genesis, the first frame a seat sends a spectator after
           the handshake (the spectator checks every signature and the table id it asked for)
ping       nonce (8 B): is this link alive? (sent on a live link when its peer connects again)
pong       nonce (8 B): the answer to the ping with that nonce
========== ===================================================================================
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Self,
    TypedDict,
    cast,
    get_args,
    get_type_hints,
)

import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.chat import MAX_CHAT_BYTES
from spycraft.crypto.encoding import decode, encode, scan
from spycraft.crypto.errors import BadKey, EncodingError, SpycraftError
from spycraft.crypto.identity import Identity, fingerprint, verify_signature
from spycraft.crypto.keys import check_identity_key, check_table_key
from spycraft.crypto.records import MAX_RECORD_BYTES

PING_SIZE = 8
"""The nonce of a ping (and of its pong)."""
MAX_FRAME_SIZE = 1 << 20
"""Default limit on a frame's payload, in bytes."""
HANDSHAKE_FRAME_SIZE = 1024
"""The limit until the handshake is done: the largest hello (a name of 64 four-byte
characters), auth and bye fit."""

HEADER_SIZE = 4
MAX_NESTING = 2
"""A frame is a map of fields; a field is at most an array of plain values."""
MAX_UINT = (1 << 63) - 1
TABLE_ID_SIZE = 16
KEY_SIZE = 32
SIGNATURE_SIZE = 64
HASH_SIZE = 32
MAX_NAME_CHARS = 64
MAX_REASON_CHARS = 200
MAX_REPLY_RECORDS = 1024
"""The most records a ``sync_reply`` carries (``protocol.SYNC_CHUNK_RECORDS``): each is paid from
its sender's budget at its receiver, 2 KiB at the least, so a reply of 65,000 tiny entries
(decoded at 73 ms a frame, then never read) is a bad frame that closes its link (red team 6)."""
HELLO_DOMAIN = b"spycraft/hello/v2\x00"
AUTH_DOMAIN = b"spycraft/auth/v2\x00"
NONCE_SIZE = 32
NO_ECHO = bytes(NONCE_SIZE)
"""The echo of a dialer's hello, which answers no challenge yet."""

_RECEIVE_CHUNK = 1 << 16


class FrameError(SpycraftError):
    """A frame that must be rejected: oversize, truncated, not canonical, wrong version, unknown
    type or wrong fields. Also raised for a hello whose signature or table does not check out."""


# --- schemas ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """What one field of a frame must be.

    ``kinds`` are the accepted Python types after decoding (arrays decode to tuples; lists are
    accepted when sending). ``size`` is an exact length for bytes, ``max_size`` an upper bound on
    the length of bytes, text or arrays, ``items`` the Field every array element must satisfy.
    """

    kinds: tuple[type, ...]
    size: int | None = None
    max_size: int | None = None
    items: Field | None = None

    def check(self, frame_type: str, name: str, value: Any) -> None:
        if not _is_instance(value, self.kinds):
            raise FrameError(
                f"{frame_type}.{name} must be {' or '.join(k.__name__ for k in self.kinds)}, "
                f"not {type(value).__name__}"
            )
        if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= MAX_UINT:
            raise FrameError(f"{frame_type}.{name} must be an unsigned integer below 2**63")
        if isinstance(value, (bytes, str, tuple, list)):
            if self.size is not None and len(value) != self.size:
                raise FrameError(f"{frame_type}.{name} must be {self.size} long, not {len(value)}")
            if self.max_size is not None and len(value) > self.max_size:
                raise FrameError(f"{frame_type}.{name} is longer than {self.max_size}")
        if self.items is not None and isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                self.items.check(frame_type, f"{name}[{i}]", item)


def _is_instance(value: Any, kinds: tuple[type, ...]) -> bool:
    # bool is a subclass of int: an int field must not accept true/false, nor the reverse.
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def raw(size: int | None = None, max_size: int | None = None) -> Field:
    """A byte-string field."""
    return Field((bytes,), size=size, max_size=max_size)


def text(max_size: int) -> Field:
    return Field((str,), max_size=max_size)


UINT = Field((int,))
OPTIONAL_UINT = Field((int, type(None)))


def array(items: Field, max_size: int | None = None) -> Field:
    return Field((tuple, list), max_size=max_size, items=items)


FrameSchema = Mapping[str, Field]

# Every frame there is, declared once: a ``TypedDict`` per type, whose ``t`` names the type and
# whose fields carry their wire rule (``Field``) as ``Annotated`` metadata. mypy reads the types
# (a frame built or read with a wrong field is a type error, and ``frame["t"] == ...`` narrows a
# ``Frame``); ``FRAME_SCHEMAS``, the table the schema gate checks, is made from the same classes.
# A frame is still a plain dict at run time: what goes on the wire does not change.


class HelloFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["hello"]
    table: Annotated[bytes, raw(TABLE_ID_SIZE)]
    id_key: Annotated[bytes, raw(KEY_SIZE)]
    table_key: Annotated[bytes, raw(KEY_SIZE)]
    name: Annotated[str, text(MAX_NAME_CHARS)]
    seat: Annotated[int | None, OPTIONAL_UINT]
    nonce: Annotated[bytes, raw(NONCE_SIZE)]
    echo: Annotated[bytes, raw(NONCE_SIZE)]
    sig: Annotated[bytes, raw(SIGNATURE_SIZE)]


class AuthFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["auth"]
    sig: Annotated[bytes, raw(SIGNATURE_SIZE)]


class LobbyFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["lobby"]
    seats: Annotated[Sequence[bytes], array(raw(KEY_SIZE), max_size=64)]
    total: Annotated[int, UINT]


class RecordFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["record"]
    record: Annotated[bytes, raw()]


class AckFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["ack"]
    seq: Annotated[int, UINT]
    link: Annotated[bytes, raw(HASH_SIZE)]


class SyncFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["sync"]
    from_seq: Annotated[int, UINT]


class SyncReplyFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["sync_reply"]
    from_seq: Annotated[int, UINT]
    records: Annotated[Sequence[bytes], array(raw(), max_size=MAX_REPLY_RECORDS)]


class ByeFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["bye"]
    reason: Annotated[str, text(MAX_REASON_CHARS)]


class JoinFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["join"]
    beacon: Annotated[bytes, raw(32)]
    host: Annotated[str, text(64)]
    port: Annotated[int, UINT]
    sig: Annotated[bytes, raw(SIGNATURE_SIZE)]


class RosterFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["roster"]
    game: Annotated[str, text(32)]
    options: Annotated[bytes, raw(max_size=4096)]
    total: Annotated[int, UINT]
    beacon_length: Annotated[int, UINT]
    turn_timeout_ms: Annotated[int, UINT]
    seats: Annotated[Sequence[bytes], array(raw(max_size=512), max_size=16)]


class GsigFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["gsig"]
    seat: Annotated[int, UINT]
    sig: Annotated[bytes, raw(SIGNATURE_SIZE)]


class HeadFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["head"]
    seq: Annotated[int, UINT]
    link: Annotated[bytes, raw(HASH_SIZE)]


class EvidenceFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["evidence"]
    records: Annotated[Sequence[bytes], array(raw(), max_size=2)]


class AbsentFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["absent"]
    seq: Annotated[int, UINT]
    prev: Annotated[bytes, raw(HASH_SIZE)]
    seat: Annotated[int, UINT]
    voter: Annotated[int, UINT]
    sig: Annotated[bytes, raw(SIGNATURE_SIZE)]


class ChatFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["chat"]
    message: Annotated[bytes, raw(max_size=MAX_CHAT_BYTES)]


class GenesisFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["genesis"]
    genesis: Annotated[bytes, raw(max_size=MAX_RECORD_BYTES)]


class PingFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["ping"]
    nonce: Annotated[bytes, raw(PING_SIZE)]


class PongFrame(TypedDict):
    v: NotRequired[int]
    t: Literal["pong"]
    nonce: Annotated[bytes, raw(PING_SIZE)]


Frame = (HelloFrame | AuthFrame | LobbyFrame | RecordFrame | AckFrame | SyncFrame
         | SyncReplyFrame | ByeFrame | JoinFrame | RosterFrame | GsigFrame | HeadFrame
         | EvidenceFrame | AbsentFrame | ChatFrame | GenesisFrame | PingFrame | PongFrame)
"""Any frame, as ``decode_payload`` returns it: ``frame["t"]`` tells which."""

_ENVELOPE = frozenset({"v", "t"})


def schema_of(frame_class: type) -> tuple[str, FrameSchema]:
    """(frame type, its fields' rules) of one frame class: its ``t`` and its ``Annotated``
    fields besides the envelope."""
    hints = get_type_hints(frame_class, include_extras=True)
    (frame_type,) = get_args(hints["t"])
    fields = {name: get_args(hint)[1] for name, hint in hints.items() if name not in _ENVELOPE}
    return frame_type, fields


FRAME_SCHEMAS: dict[str, FrameSchema] = dict(schema_of(c) for c in get_args(Frame))
"""Frame type -> its fields (besides ``v`` and ``t``): every frame there is."""


def register_frame_type(frame_type: str, fields: FrameSchema) -> None:
    """Add a frame type (for the session layer). A type can be registered only once."""
    if frame_type in FRAME_SCHEMAS:
        raise ValueError(f"frame type {frame_type!r} is already registered")
    if _ENVELOPE & set(fields):
        raise ValueError("fields 'v' and 't' belong to the envelope")
    FRAME_SCHEMAS[frame_type] = dict(fields)
    _one_pass(frame_type, fields)


def validate_frame(frame: Mapping[str, Any]) -> Frame:
    """Check a frame against its schema; return it as the frame it is (a plain dict)."""
    if not isinstance(frame, Mapping):
        raise FrameError(f"a frame must be a map, not {type(frame).__name__}")
    version = frame.get("v")
    if isinstance(version, bool) or not isinstance(version, int):
        raise FrameError("frame has no integer protocol version 'v'")
    if version != PROTOCOL_VERSION:
        raise FrameError(f"protocol version {version}, we speak {PROTOCOL_VERSION}")
    frame_type = frame.get("t")
    if not isinstance(frame_type, str):
        raise FrameError("frame has no text type 't'")
    schema = FRAME_SCHEMAS.get(frame_type)
    if schema is None:
        raise FrameError(f"unknown frame type {frame_type[:40]!r}")
    fields = set(frame) - _ENVELOPE
    if fields != set(schema):
        missing = sorted(set(schema) - fields)
        extra = sorted(str(k)[:40] for k in fields - set(schema))
        raise FrameError(f"{frame_type} frame: missing fields {missing}, unexpected {extra}")
    for name, field in schema.items():
        field.check(frame_type, name, frame[name])
    return cast(Frame, dict(frame))


# --- bytes <-> frames ---------------------------------------------------------------------------


def _scan_cbor(data: bytes) -> None:
    """Admit exactly one item of the frame CBOR profile (see the module docstring), in O(len)."""
    try:
        scan(data, allowed_tags=frozenset(), max_nesting=MAX_NESTING)
    except EncodingError as exc:
        raise FrameError(str(exc)) from None


# The frames every record costs (the record itself, its ack, a head) take one pass each way:
# their canonical encoding is a fixed prefix, one integer or byte-string head and the value, so
# a payload that is exactly that is the frame the general path (scan, decode, validate) would
# return, and anything else goes that way.


def _uint_head(major: int, value: int) -> bytes:
    """The canonical head of a CBOR item of ``major`` type whose argument is ``value``."""
    if value < 24:
        return bytes([major << 5 | value])
    width = 1 if value < 1 << 8 else 2 if value < 1 << 16 else 4 if value < 1 << 32 else 8
    return bytes([major << 5 | (23 + width.bit_length())]) + value.to_bytes(width, "big")


def _read_head(data: bytes, pos: int, major: int) -> tuple[int, int] | None:
    """(argument, end of the head) of a canonical head of ``major`` type at ``pos``, or None."""
    if pos >= len(data) or data[pos] >> 5 != major:
        return None
    info = data[pos] & 31
    if info < 24:
        return info, pos + 1
    if info > 27:
        return None
    width = 1 << (info - 24)
    end = pos + 1 + width
    if end > len(data):
        return None
    value = int.from_bytes(data[pos + 1 : end], "big")
    if value < (24 if width == 1 else 1 << (4 * width)):
        return None  # not the shortest form: the general path refuses it
    return value, end


def _prefix(frame_type: str, **fields: Any) -> tuple[bytes, bytes]:
    """The canonical bytes of a frame before its value field, and (for seq + link) between."""
    sample = encode({"v": PROTOCOL_VERSION, "t": frame_type, **fields})
    if "record" in fields:
        return sample[: -1 - len(fields["record"])], b""
    at = sample.index(b"\x63seq") + 4
    return sample[:at], sample[at + 1 : -HASH_SIZE]


_RECORD_PREFIX, _ = _prefix("record", record=b"")
_SEQ_LINK_FIELDS = {"seq": UINT, "link": raw(HASH_SIZE)}
_SEQ_LINK: dict[str, tuple[bytes, bytes]] = {}  # frame type -> (prefix, middle)
_SEQ_LINK_OF: dict[bytes, tuple[str, bytes]] = {}  # prefix -> (frame type, middle)


def _one_pass(frame_type: str, fields: FrameSchema) -> None:
    """Take a frame type of exactly a seq and a link (ack, and the session's head) one pass."""
    if dict(fields) == _SEQ_LINK_FIELDS:
        prefix, middle = _SEQ_LINK[frame_type] = _prefix(frame_type, seq=0, link=bytes(HASH_SIZE))
        _SEQ_LINK_OF[prefix] = (frame_type, middle)


_one_pass("ack", FRAME_SCHEMAS["ack"])
_one_pass("head", FRAME_SCHEMAS["head"])


def _encode_common(frame: Mapping[str, Any]) -> bytes | None:
    """The payload of a record, ack or head frame in one pass, or None for any other frame."""
    frame_type = frame.get("t")
    version = frame.get("v", PROTOCOL_VERSION)
    if type(version) is not int or version != PROTOCOL_VERSION:
        return None
    size = len(frame) - ("v" in frame)
    if frame_type == "record" and size == 2:
        record = frame.get("record")
        if type(record) is bytes:
            return _RECORD_PREFIX + _uint_head(2, len(record)) + record
    elif frame_type in _SEQ_LINK and size == 3:
        seq, link = frame.get("seq"), frame.get("link")
        if type(seq) is int and 0 <= seq <= MAX_UINT and type(link) is bytes and \
                len(link) == HASH_SIZE:
            prefix, middle = _SEQ_LINK[frame_type]
            return prefix + _uint_head(0, seq) + middle + link
    return None


def _decode_common(payload: bytes) -> Frame | None:
    """A record, ack or head frame whose payload is exactly its canonical encoding, or None."""
    if payload.startswith(_RECORD_PREFIX):
        head = _read_head(payload, len(_RECORD_PREFIX), 2)
        if head is not None and head[1] + head[0] == len(payload):
            record: RecordFrame = {"t": "record", "v": PROTOCOL_VERSION,
                                   "record": payload[head[1] :]}
            return record
        return None
    for prefix, (frame_type, middle) in _SEQ_LINK_OF.items():
        if payload.startswith(prefix):
            head = _read_head(payload, len(prefix), 0)
            if head is None or head[0] > MAX_UINT:
                return None
            seq, at = head
            if len(payload) != at + len(middle) + HASH_SIZE or \
                    payload[at : at + len(middle)] != middle:
                return None
            return cast(Frame, {"t": frame_type, "v": PROTOCOL_VERSION, "seq": seq,
                                "link": payload[at + len(middle) :]})
    return None


def decode_payload(payload: bytes) -> Frame:
    """A frame payload (without its length prefix) -> a validated frame."""
    common = _decode_common(payload)
    if common is not None:
        return common
    _scan_cbor(payload)
    try:
        frame = decode(payload, max_size=len(payload))
    except EncodingError as exc:
        raise FrameError(str(exc)) from None
    return validate_frame(frame)


def encode_frame(frame: Frame, *, max_frame_size: int = MAX_FRAME_SIZE) -> bytes:
    """A frame -> its wire bytes (length prefix included). ``v`` is filled in when absent."""
    payload = _encode_common(frame)
    if payload is None:
        full = {"v": PROTOCOL_VERSION, **frame}
        validate_frame(full)
        try:
            payload = encode(full)
        except EncodingError as exc:
            raise FrameError(str(exc)) from None
    if len(payload) > max_frame_size:
        raise FrameError(f"frame of {len(payload)} bytes exceeds the limit of {max_frame_size}")
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload


def frame_length(header: bytes, *, max_frame_size: int = MAX_FRAME_SIZE) -> int:
    """The payload length a 4-byte header announces, checked against the limit."""
    if len(header) != HEADER_SIZE:
        raise FrameError("truncated frame header")
    length = int.from_bytes(header, "big")
    if length > max_frame_size:
        raise FrameError(f"frame of {length} bytes exceeds the limit of {max_frame_size}")
    return length


def decode_frames(data: bytes, *, max_frame_size: int = MAX_FRAME_SIZE) -> list[Frame]:
    """Every frame in ``data``, which must end on a frame boundary (sans-IO form of receive)."""
    frames: list[Frame] = []
    pos = 0
    while pos < len(data):
        length = frame_length(data[pos : pos + HEADER_SIZE], max_frame_size=max_frame_size)
        pos += HEADER_SIZE
        if len(data) - pos < length:
            raise FrameError(f"truncated frame: {len(data) - pos} of {length} bytes")
        frames.append(decode_payload(data[pos : pos + length]))
        pos += length
    return frames


class FramedStream:
    """Frames over a trio stream (TCP in the product, memory streams in tests)."""

    def __init__(self, stream: trio.abc.Stream, *, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        self.stream = stream
        self.max_frame_size = max_frame_size
        self._send_lock = trio.Lock()
        self._pending = bytearray()  # bytes received and not yet returned as a frame
        # A TCP socket is read through its descriptor (``_receive_direct``) where a descriptor
        # is a socket's: not on Windows, nor for the memory streams of tests.
        self._direct = sys.platform != "win32" and isinstance(stream, trio.SocketStream)
        # The last read took less than it asked for, so the socket held no more then: the next
        # read waits for the socket first rather than try a read that would find it empty
        # (half of all reads in play did: a syscall and an exception each).
        self._drained = False
        self.frames_sent = 0
        self.bytes_sent = 0
        self.bytes_received = 0

    async def send(self, frame: Frame | bytes) -> None:
        """Validate, encode and write one frame (or the bytes ``encode_frame`` made of one, when
        a frame goes to several peers); concurrent callers are serialised."""
        if isinstance(frame, bytes):
            data = frame
        else:
            data = encode_frame(frame, max_frame_size=self.max_frame_size)
        async with self._send_lock:
            await self.stream.send_all(data)
            self.frames_sent += 1
            self.bytes_sent += len(data)

    async def receive(self) -> Frame:
        """Read one frame. Raises ``trio.EndOfChannel`` on a clean close between frames and
        ``FrameError`` for anything a peer must not send (a close inside a frame included)."""
        if len(self._pending) < HEADER_SIZE:  # (a frame read whole needs no second call)
            await self._fill(HEADER_SIZE, at_boundary=True)
        header = bytes(self._pending[:HEADER_SIZE])
        length = frame_length(header, max_frame_size=self.max_frame_size)
        if len(self._pending) < HEADER_SIZE + length:
            await self._fill(HEADER_SIZE + length, at_boundary=False)
        payload = bytes(self._pending[HEADER_SIZE : HEADER_SIZE + length])
        del self._pending[: HEADER_SIZE + length]
        self.bytes_received += HEADER_SIZE + length
        return decode_payload(payload)

    async def _fill(self, count: int, *, at_boundary: bool) -> None:
        """Read until ``count`` bytes are pending (the length was checked against the limit)."""
        while len(self._pending) < count:
            chunk: bytes | bytearray
            if self._direct:
                chunk = await self._receive_direct()
            else:
                chunk = await self.stream.receive_some(_RECEIVE_CHUNK)
            if not chunk:
                if at_boundary and not self._pending:
                    raise trio.EndOfChannel
                raise FrameError(
                    f"connection closed inside a frame ({len(self._pending)} of {count})"
                )
            self._pending += chunk

    async def _receive_direct(self) -> bytes:
        """``trio.SocketStream.receive_some`` without its layers (two context managers and
        three calls a frame): the same checkpoints (one before the read, and one after it if it
        did not wait), the same wait, the same errors (``trio.ClosedResourceError`` for a socket
        closed here, ``trio.BrokenResourceError`` for any other failure); after a read that
        drained the socket, the wait comes first."""
        socket = self.stream.socket  # type: ignore[attr-defined]
        try:
            # the last read may have left bytes behind, or the socket is closed here: read at
            # once (a closed socket fails there, as trio's own read does)
            if not self._drained or socket.fileno() < 0:
                await trio.lowlevel.checkpoint_if_cancelled()
                try:
                    data = os.read(socket.fileno(), _RECEIVE_CHUNK)
                except BlockingIOError:
                    pass
                except BaseException:
                    await trio.lowlevel.cancel_shielded_checkpoint()
                    raise
                else:
                    await trio.lowlevel.cancel_shielded_checkpoint()
                    self._drained = len(data) < _RECEIVE_CHUNK
                    return data
            while True:  # (the wait is a checkpoint: cancelled, it raises before it waits)
                await trio.lowlevel.wait_readable(socket)
                try:
                    data = os.read(socket.fileno(), _RECEIVE_CHUNK)
                except BlockingIOError:
                    continue
                self._drained = len(data) < _RECEIVE_CHUNK
                return data
        except OSError as exc:
            if exc.errno in (errno.EBADF, errno.ENOTSOCK):
                raise trio.ClosedResourceError("this socket was already closed") from None
            raise trio.BrokenResourceError(f"socket connection broken: {exc}") from exc

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


# --- hello --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """A verified hello: who wants to sit at which table, with which keys."""

    table: bytes
    identity_key: bytes
    table_key: bytes
    name: str
    seat: int | None
    nonce: bytes
    sig: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.identity_key)


def _is_display_name(name: str) -> bool:
    """Names reach terminals: no control characters, so no escape sequences."""
    return 0 < len(name) <= MAX_NAME_CHARS and name.isprintable()


def _hello_message(frame: Mapping[str, Any]) -> bytes:
    return HELLO_DOMAIN + encode({k: v for k, v in frame.items() if k != "sig"})


def make_hello(
    identity: Identity,
    table_key_public: bytes,
    table_id: bytes,
    name: str,
    *,
    nonce: bytes,
    echo: bytes = NO_ECHO,
    seat: int | None = None,
) -> HelloFrame:
    """A signed hello frame, ready for ``FramedStream.send``."""
    frame: HelloFrame = {
        "v": PROTOCOL_VERSION,
        "t": "hello",
        "table": table_id,
        "id_key": identity.public,
        "table_key": table_key_public,
        "name": name,
        "seat": seat,
        "nonce": nonce,
        "echo": echo,
        "sig": bytes(SIGNATURE_SIZE),
    }
    validate_frame(frame)
    if not _is_display_name(name):
        raise FrameError("hello name must be 1-64 printable characters")
    frame["sig"] = identity.sign(_hello_message(frame))
    return frame


def verify_hello(
    frame: Frame, *, table_id: bytes | None = None, echo: bytes | None = None
) -> Hello:
    """Check a hello's shape, keys, signature and (when given) table and echo of our nonce;
    raise ``FrameError`` if anything is wrong."""
    checked = validate_frame(frame)
    if checked["t"] != "hello":
        raise FrameError(f"expected a hello, got a {checked['t']} frame")
    if table_id is not None and checked["table"] != table_id:
        raise FrameError("hello for another table")
    if echo is not None and checked["echo"] != echo:
        raise FrameError("hello does not answer our challenge (a replayed or stale hello)")
    if not _is_display_name(checked["name"]):
        raise FrameError("hello name must be 1-64 printable characters")
    if checked["nonce"] == NO_ECHO:
        raise FrameError("hello nonce must be fresh random bytes")
    try:
        check_identity_key(checked["id_key"])
        check_table_key(checked["table_key"])
    except BadKey as exc:
        raise FrameError(f"hello refused: {exc}") from None
    if not verify_signature(checked["id_key"], checked["sig"], _hello_message(checked)):
        raise FrameError("hello signature does not verify under its identity key")
    return Hello(
        table=checked["table"],
        identity_key=checked["id_key"],
        table_key=checked["table_key"],
        name=checked["name"],
        seat=checked["seat"],
        nonce=checked["nonce"],
        sig=checked["sig"],
    )


def hello_of(frame: HelloFrame) -> Hello:
    """Our own hello frame as a ``Hello`` (not verified: we signed it)."""
    return Hello(table=frame["table"], identity_key=frame["id_key"], table_key=frame["table_key"],
                 name=frame["name"], seat=frame["seat"], nonce=frame["nonce"], sig=frame["sig"])


def _auth_message(dialer: Hello, listener: Hello) -> bytes:
    """What the dialer signs: the table, both identities, both nonces (this connection) and both
    hellos, so an auth answers one listener's challenge on one connection, never a relay's."""
    return AUTH_DOMAIN + encode({
        "table": dialer.table,
        "dialer": dialer.identity_key,
        "dialer_nonce": dialer.nonce,
        "listener": listener.identity_key,
        "listener_nonce": listener.nonce,
        "hellos": [dialer.sig, listener.sig],
    })


def make_auth(
    identity: Identity, listener_hello: Hello, my_hello: HelloFrame
) -> AuthFrame:
    """The dialer's answer to the listener's hello (``my_hello``: the frame we sent)."""
    message = _auth_message(hello_of(my_hello), listener_hello)
    return {"v": PROTOCOL_VERSION, "t": "auth", "sig": identity.sign(message)}


def verify_auth(
    frame: Frame, dialer_hello: Hello, my_hello: HelloFrame
) -> None:
    """Check that the dialer answered our hello (``my_hello``: the frame we sent) on this
    connection with its identity key; raise ``FrameError``."""
    checked = validate_frame(frame)
    if checked["t"] != "auth":
        raise FrameError(f"expected an auth, got a {checked['t']} frame")
    if dialer_hello.table != my_hello["table"]:
        raise FrameError("hello for another table")
    message = _auth_message(dialer_hello, hello_of(my_hello))
    if not verify_signature(dialer_hello.identity_key, checked["sig"], message):
        raise FrameError("auth does not answer our challenge under the hello's identity key "
                         "(a replayed or relayed handshake)")

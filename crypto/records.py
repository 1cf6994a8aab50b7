"""Signed records and the genesis: the only things that cross the network during a game.

Theory of operation:

* A **record** is the canonical CBOR map ``{table, seq, prev, seat, kind, body}`` carried as the
  payload of a COSE_Sign1 message (RFC 9052 §4.2, tag 18) signed with the seat's Ed25519 key
  (alg EdDSA, -8, in the protected header; unprotected header empty). ``prev`` is the link hash
  of the previous item, so the transcript is a hash chain and the order of records is signed.
* The **genesis** fixes the table: game, options, seat order, each seat's public keys and the
  turn timeout (so every peer waits the same time before it votes a seat absent). Every
  seat signs it: it is a COSE_Sign message (RFC 9052 §4.1, tag 98) with one signature per seat,
  in seat order, each naming its signer by ``kid`` = the seat's identity key. Genesis is item 0
  of the transcript; the first record has seq 1 and ``prev`` = link hash of the genesis.
* Any COSE library can check these signatures: the Sig_structures are the RFC's own.

Parsing is strict (canonical CBOR, exact shapes, exact field types) and every failure is a
``MalformedRecord`` naming the seat and seq when they can be read at all.

Keys: a ``SeatKeys`` cannot hold an identity or table key that ``crypto.keys`` refuses (small
order, non-canonical): its constructor raises ``BadKey``, and the genesis parser turns that into
a ``MalformedRecord`` naming the seat, at seq 0, caused by the ``BadKey`` (``__cause__``), so a
reader can tell a genesis refused for a seat's key from bytes that are no genesis at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import cbor2

from spycraft.crypto import vouch
from spycraft.crypto.encoding import bytes_head, decode, encode, item_budget, read_value
from spycraft.crypto.errors import BadKey, BadSignature, EncodingError, MalformedRecord
from spycraft.crypto.hashing import sha256
from spycraft.crypto.identity import Identity, fingerprint, verify_signature
from spycraft.crypto.keys import check_identity_key, check_table_key

COSE_SIGN1_TAG = 18
COSE_SIGN_TAG = 98
ALG_EDDSA = -8
HEADER_ALG = 1
HEADER_KID = 4
PROTECTED_SIGN1 = encode({HEADER_ALG: ALG_EDDSA})
TABLE_ID_BYTES = 16
MAX_RECORD_BYTES = 1 << 20
# The largest record that can take a place or stand as evidence (every kind but ``fraud``):
# four times the largest any game writes (SpyNet's ``deck_shuffle`` at four seats, 15.9 KB;
# every other kind is under 3.2 KB). A fraud record carries one or two of them, or of fraud
# records that carry such records (``stands_as_evidence``), so it always fits a record and a
# frame (``p2p.wire.MAX_FRAME_SIZE``, 1 MiB), and an honest peer keeps at most two of them per
# place and seat as the pair that bans a place (``p2p.protocol``).
MAX_EVIDENCE_BYTES = 64 << 10
MAX_FRAUD_EVIDENCE_BYTES = 2 * MAX_EVIDENCE_BYTES + (4 << 10)
"""The largest fraud record that stands as evidence (``stands_as_evidence``): one that carries
two records of ``MAX_EVIDENCE_BYTES``, with room for its own fields and its signature."""


# ``tagged_hash("link", raw)`` hashes the encoding of ["spycraft/link", raw]: this constant head,
# then the byte string ``raw`` (its head and its bytes), so no record is copied by an encoder.
_LINK_HEAD = encode(["spycraft/link", b""])[:-1]


def link_hash(raw: bytes) -> bytes:
    """The hash a following record names as its ``prev``: ``tagged_hash("link", raw)``."""
    return sha256(_LINK_HEAD + bytes_head(len(raw)) + raw)


@dataclass(frozen=True)
class Record:
    """The signed content of one record."""

    table: bytes
    seq: int
    prev: bytes
    seat: int
    kind: str
    body: Any

    def to_cbor(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "seq": self.seq,
            "prev": self.prev,
            "seat": self.seat,
            "kind": self.kind,
            "body": self.body,
        }


@dataclass(frozen=True)
class SignedRecord:
    record: Record
    raw: bytes  # the exact COSE_Sign1 bytes as signed and sent
    # The COSE payload and signature inside ``raw``, kept from parsing so that checking the
    # signature does not decode ``raw`` a second time.
    payload: bytes = field(repr=False, compare=False)
    signature: bytes = field(repr=False, compare=False)

    @cached_property
    def link(self) -> bytes:  # cached: the table and the peers ask for it more than once
        return link_hash(self.raw)

    @property
    def seat(self) -> int:
        return self.record.seat

    @property
    def seq(self) -> int:
        return self.record.seq


def fits_as_evidence(*records: SignedRecord) -> bool:
    """Whether every one of ``records`` is within ``MAX_EVIDENCE_BYTES``: only such a record
    takes a place (a fraud record aside)."""
    return all(len(r.raw) <= MAX_EVIDENCE_BYTES for r in records)


def stands_as_evidence(*records: SignedRecord) -> bool:
    """Whether every one of ``records`` may stand as evidence in a fraud record: a record within
    ``MAX_EVIDENCE_BYTES``, or a fraud record whose own evidence is one or two such records
    (within ``MAX_FRAUD_EVIDENCE_BYTES``). So a seat that signs two fraud records for one place
    is proven like any other (two colluders could otherwise split the honest peers with two
    fraud records too large to show: red team R1, stop 28), and the fraud record that proves it
    (at most two of these, about 4 x 64 KiB) still fits a record and a frame. One level deeper
    (a fraud record that carries fraud records) nothing stands as evidence: where a seat signs
    two of those for one place, the peer protocol's order decides between them, the same at
    every peer, and the pair is proven nowhere (it would take a third colluder to write it)."""
    return all(_stands_as_evidence(r) for r in records)


def _stands_as_evidence(signed: SignedRecord) -> bool:
    if len(signed.raw) <= MAX_EVIDENCE_BYTES:
        return True
    body = signed.record.body
    if len(signed.raw) > MAX_FRAUD_EVIDENCE_BYTES or signed.record.kind != "fraud" or \
            not isinstance(body, dict) or set(body) != {"evidence"}:
        return False
    evidence = body["evidence"]
    return isinstance(evidence, tuple) and 1 <= len(evidence) <= 2 and all(
        isinstance(raw, bytes) and len(raw) <= MAX_EVIDENCE_BYTES for raw in evidence)


# COSE's Sig_structure for a COSE_Sign1 is the array ["Signature1", protected, b"", payload]: its
# encoding is this constant head followed by the encoding of the payload (the last element).
_SIG1_STRUCTURE_HEAD = encode(["Signature1", PROTECTED_SIGN1, b"", b""])[:-1]


def _sig1_structure(payload: bytes, protected: bytes = PROTECTED_SIGN1) -> bytes:
    if protected == PROTECTED_SIGN1:
        return _SIG1_STRUCTURE_HEAD + bytes_head(len(payload)) + payload  # = encode(payload)
    return encode(["Signature1", protected, b"", payload])


def sign1(payload: bytes, identity: Identity, protected: bytes = PROTECTED_SIGN1
          ) -> tuple[bytes, bytes]:
    """(COSE_Sign1 bytes, signature) of ``payload`` under ``protected`` (the one signing path of
    records and of everything else signed as a COSE_Sign1, such as table talk: a different
    protected header makes a different Sig_structure, so one can never pass for the other)."""
    signature = identity.sign(_sig1_structure(payload, protected))
    raw = encode(cbor2.CBORTag(COSE_SIGN1_TAG, [protected, {}, payload, signature]))
    return raw, signature


def sign1_valid(public_key: bytes, signature: bytes, payload: bytes, protected: bytes) -> bool:
    """True when ``signature`` signs ``payload`` under ``protected`` with ``public_key``."""
    return verify_signature(public_key, signature, _sig1_structure(payload, protected))


def sign_record(record: Record, identity: Identity) -> SignedRecord:
    payload = encode(record.to_cbor())
    raw, signature = sign1(payload, identity)
    vouch.made("record", b"", [identity.public, payload], signature, _signed)
    # Parse the payload back so the record reads exactly as every receiver will read it.
    return SignedRecord(parse_payload(payload), raw, payload, signature)


_RECORD_FIELDS = frozenset({"table", "seq", "prev", "seat", "kind", "body"})

# A record's payload as the canonical encoder writes it: a map of six text keys in their
# canonical order, seq, body, kind, prev, seat, table; prev and table are byte strings of fixed
# length, so their keys and heads are constant bytes.
_PAYLOAD_SEQ = b"\xa6\x63seq"
_PAYLOAD_BODY = b"\x64body"
_PAYLOAD_KIND = b"\x64kind"
_PAYLOAD_PREV = b"\x64prev\x58\x20"
_PAYLOAD_SEAT = b"\x64seat"
_PAYLOAD_TABLE = b"\x65table\x50"
_PAYLOAD_TAIL = len(_PAYLOAD_TABLE) + TABLE_ID_BYTES
_AFTER_SEQ, _AFTER_BODY, _AFTER_KIND, _AFTER_PREV, _AFTER_SEAT, _AFTER_TABLE = map(
    len, (_PAYLOAD_SEQ, _PAYLOAD_BODY, _PAYLOAD_KIND, _PAYLOAD_PREV, _PAYLOAD_SEAT,
          _PAYLOAD_TABLE))


def _payload_in_one_pass(payload: bytes) -> Record | None:
    """The record of a payload laid out exactly as the canonical encoder writes one, read in
    one pass: the constant keys and heads where the layout puts them, each value as ``decode``
    reads it inside the map (the same canonical checks and item budget), then the checks of
    ``parse_payload``. None for anything else, which takes the general path: that path, and
    the message of its error, decide (a property test holds both to one answer)."""
    if type(payload) is not bytes or len(payload) > MAX_RECORD_BYTES or \
            not payload.startswith(_PAYLOAD_SEQ):
        return None
    budget = item_budget(len(payload))
    left = [budget - 13, budget]  # the map's head and its twelve items, as ``decode`` charges
    if left[0] < 0:
        return None
    try:
        seq, pos = read_value(payload, _AFTER_SEQ, 1, left)
        if not payload.startswith(_PAYLOAD_BODY, pos):
            return None
        body, pos = read_value(payload, pos + _AFTER_BODY, 1, left)
        if not payload.startswith(_PAYLOAD_KIND, pos):
            return None
        kind, pos = read_value(payload, pos + _AFTER_KIND, 1, left)
        if not payload.startswith(_PAYLOAD_PREV, pos):
            return None
        pos += _AFTER_PREV
        prev = payload[pos : pos + 32]
        pos += 32
        if not payload.startswith(_PAYLOAD_SEAT, pos):
            return None
        seat, pos = read_value(payload, pos + _AFTER_SEAT, 1, left)
    except EncodingError:
        return None
    if len(payload) != pos + _PAYLOAD_TAIL or not payload.startswith(_PAYLOAD_TABLE, pos):
        return None
    if not (_is_uint(seq) and _is_uint(seat) and isinstance(kind, str)
            and 0 < len(kind) <= 32):
        return None
    return Record(payload[pos + _AFTER_TABLE :], seq, prev, seat, kind, body)


def parse_payload(payload: bytes, *, seat: int | None = None, seq: int | None = None) -> Record:
    record = _payload_in_one_pass(payload)
    if record is not None:
        return record
    return _parse_payload(payload, seat=seat, seq=seq)


def _parse_payload(payload: bytes, *, seat: int | None = None, seq: int | None = None) -> Record:
    """``parse_payload``'s general path: decode, then check the map."""
    try:
        m = decode(payload, max_size=MAX_RECORD_BYTES)
    except EncodingError as exc:
        raise MalformedRecord(seat, seq, f"payload: {exc}") from None
    if not isinstance(m, dict) or m.keys() != _RECORD_FIELDS:
        raise MalformedRecord(
            seat, seq, "payload must be a map of table, seq, prev, seat, kind, body"
        )
    seat_v, seq_v = m["seat"], m["seq"]
    if not _is_uint(seat_v) or not _is_uint(seq_v):
        raise MalformedRecord(seat, seq, "seat and seq must be non-negative integers")
    if not isinstance(m["table"], bytes) or len(m["table"]) != TABLE_ID_BYTES:
        raise MalformedRecord(seat_v, seq_v, "table must be a 16-byte id")
    if not isinstance(m["prev"], bytes) or len(m["prev"]) != 32:
        raise MalformedRecord(seat_v, seq_v, "prev must be a 32-byte hash")
    if not isinstance(m["kind"], str) or not 0 < len(m["kind"]) <= 32:
        raise MalformedRecord(seat_v, seq_v, "kind must be a short text")
    return Record(m["table"], seq_v, m["prev"], seat_v, m["kind"], m["body"])


def _is_uint(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


# What every record's bytes look like: the COSE_Sign1 tag and array head, the protected header,
# the empty unprotected header; then the payload as a byte string; then the 64-byte signature.
_SIGN1_HEAD = encode(cbor2.CBORTag(COSE_SIGN1_TAG, [PROTECTED_SIGN1, {}, b"", b""]))[:-2]
_SIGNATURE_HEAD = encode(bytes(64))[:2]
_SIGNATURE_BYTES = len(_SIGNATURE_HEAD) + 64
_BSTR_HEAD_BYTES = {24: 2, 25: 3, 26: 5}  # CBOR length forms: 1, 2 and 4 bytes after the first


def _split_sign1(raw: bytes) -> tuple[bytes, bytes] | None:
    """(payload, signature) if ``raw`` is exactly the canonical COSE_Sign1 of a record; else None.

    The fast path of ``parse_record``: instead of decoding the whole message, cut it where the
    layout says and require each cut to be what the canonical encoder writes there (the payload's
    byte-string head in its shortest form, the signature's head). Anything else takes the
    general path, which names what is wrong.
    """
    head = len(_SIGN1_HEAD)
    if not head + 1 + _SIGNATURE_BYTES <= len(raw) <= MAX_RECORD_BYTES:
        return None
    if not raw.startswith(_SIGN1_HEAD) or raw[-_SIGNATURE_BYTES:-64] != _SIGNATURE_HEAD:
        return None
    info = raw[head] & 0x1F
    payload_start = head + (1 if info < 24 else _BSTR_HEAD_BYTES.get(info, len(raw)))
    payload = raw[payload_start:-_SIGNATURE_BYTES]
    if raw[head:payload_start] != bytes_head(len(payload)):
        return None
    return payload, raw[-64:]


def record_length(data: bytes, start: int = 0) -> int | None:
    """The length of the item at ``start`` if it has a record's layout (the COSE_Sign1 head, a
    byte string, then a 64-byte one: see ``_split_sign1``), read from that layout alone; None if
    not. Where it answers it equals ``item_length`` (whose walk would take the same steps), so a
    transcript need not walk every record's bytes twice; the content is checked by parsing."""
    head = start + len(_SIGN1_HEAD)
    if head >= len(data) or not data.startswith(_SIGN1_HEAD, start) or data[head] >> 5 != 2:
        return None
    info = data[head] & 0x1F
    width = 0 if info < 24 else _BSTR_HEAD_BYTES.get(info, 0) - 1
    if width < 0 or head + 1 + width > len(data):
        return None
    payload = info if info < 24 else int.from_bytes(data[head + 1 : head + 1 + width], "big")
    end = head + 1 + width + payload + _SIGNATURE_BYTES
    if end > len(data) or data[end - _SIGNATURE_BYTES : end - 64] != _SIGNATURE_HEAD:
        return None
    return end - start


def parse_record(raw: bytes) -> SignedRecord:
    """Structure only: a COSE_Sign1 whose payload is a record. Signatures are checked separately."""
    split = _split_sign1(raw) if isinstance(raw, bytes) else None
    if split is not None:
        payload, signature = split
        return SignedRecord(parse_payload(payload), raw, payload, signature)
    try:
        item = decode(raw, max_size=MAX_RECORD_BYTES)
    except EncodingError as exc:
        raise MalformedRecord(None, None, f"not a record: {exc}") from None
    if not isinstance(item, cbor2.CBORTag) or item.tag != COSE_SIGN1_TAG:
        raise MalformedRecord(None, None, "not a COSE_Sign1 message (tag 18)")
    parts = item.value
    if not isinstance(parts, tuple) or len(parts) != 4:
        raise MalformedRecord(None, None, "COSE_Sign1 must have 4 parts")
    protected, unprotected, payload, signature = parts
    if not isinstance(payload, bytes):
        raise MalformedRecord(None, None, "COSE payload must be a byte string")
    record = parse_payload(payload)
    if protected != PROTECTED_SIGN1 or unprotected != {}:
        raise MalformedRecord(record.seat, record.seq, "COSE headers must be {alg: EdDSA} and {}")
    if not isinstance(signature, bytes) or len(signature) != 64:
        raise MalformedRecord(record.seat, record.seq, "signature must be 64 bytes")
    return SignedRecord(record, bytes(raw), payload, signature)


def _signed() -> bool:
    return True  # an Ed25519 signature made with a key verifies under its public half


def verify_record_signature(signed: SignedRecord, public_key: bytes) -> None:
    if vouch.holds("record", b"", [public_key, signed.payload], signed.signature):
        return
    if not verify_signature(public_key, signed.signature, _sig1_structure(signed.payload)):
        raise BadSignature(
            signed.seat, signed.seq, "the signature does not verify under the seat's key"
        )


# --- genesis -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatKeys:
    """One seat's public keys, fixed by the genesis."""

    name: str
    identity: bytes  # Ed25519, signs records
    table_key: bytes  # X25519; kept in the genesis, no game seals to it (crypto.seal)
    beacon: bytes  # tip of this seat's randomness hash chain

    def __post_init__(self) -> None:
        """No seat holds a key of small order or in a non-canonical encoding (``BadKey``)."""
        check_identity_key(self.identity)
        check_table_key(self.table_key)

    def to_cbor(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "identity": self.identity,
            "table_key": self.table_key,
            "beacon": self.beacon,
        }

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.identity)


DEFAULT_TURN_TIMEOUT_MS = 300_000
MAX_TURN_TIMEOUT_MS = 86_400_000
"""A table's turn timeout: 5 minutes unless its opener says otherwise; at most a day."""


@dataclass(frozen=True)
class Genesis:
    protocol: int
    table: bytes
    game: str
    options: Mapping[str, Any]
    seats: tuple[SeatKeys, ...]
    beacon_length: int
    turn_timeout_ms: int = DEFAULT_TURN_TIMEOUT_MS
    """How long a seat may take over its record before the others may vote it absent: the
    table's, signed by every seat, so every peer counts the same time (``p2p.protocol``)."""

    def to_cbor(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "table": self.table,
            "game": self.game,
            "options": dict(self.options),
            "seats": [s.to_cbor() for s in self.seats],
            "beacon_length": self.beacon_length,
            "turn_timeout_ms": self.turn_timeout_ms,
        }

    @property
    def turn_timeout(self) -> float:
        """The turn timeout in seconds."""
        return self.turn_timeout_ms / 1000

    @property
    def payload(self) -> bytes:
        return encode(self.to_cbor())


def _sign_protected(identity_key: bytes) -> bytes:
    return encode({HEADER_ALG: ALG_EDDSA, HEADER_KID: identity_key})


def _sig_structure(sign_protected: bytes, payload: bytes) -> bytes:
    return encode(["Signature", b"", sign_protected, b"", payload])


def genesis_signature(genesis: Genesis, identity: Identity) -> bytes:
    """One seat's signature over the genesis (what each peer contributes at the table)."""
    return identity.sign(_sig_structure(_sign_protected(identity.public), genesis.payload))


def genesis_signature_valid(genesis: Genesis, seat: int, signature: bytes) -> bool:
    key = genesis.seats[seat].identity
    return verify_signature(key, signature, _sig_structure(_sign_protected(key), genesis.payload))


@dataclass(frozen=True)
class SignedGenesis:
    genesis: Genesis
    signatures: tuple[bytes, ...]
    raw: bytes

    @cached_property
    def link(self) -> bytes:  # cached, as a record's
        return link_hash(self.raw)


def assemble_genesis(genesis: Genesis, signatures: tuple[bytes, ...]) -> SignedGenesis:
    if len(signatures) != len(genesis.seats):
        raise ValueError("one signature per seat")
    sigs = [
        [_sign_protected(seat.identity), {}, sig] for seat, sig in zip(genesis.seats, signatures)
    ]
    raw = encode(cbor2.CBORTag(COSE_SIGN_TAG, [b"", {}, genesis.payload, sigs]))
    signed = parse_genesis(raw)
    verify_genesis(signed)
    return signed


def _genesis_error(what: str) -> MalformedRecord:
    return MalformedRecord(None, 0, f"genesis: {what}")


def parse_genesis(raw: bytes) -> SignedGenesis:
    try:
        item = decode(raw, max_size=MAX_RECORD_BYTES)
    except EncodingError as exc:
        raise _genesis_error(str(exc)) from None
    if not isinstance(item, cbor2.CBORTag) or item.tag != COSE_SIGN_TAG:
        raise _genesis_error("not a COSE_Sign message (tag 98)")
    parts = item.value
    if not isinstance(parts, tuple) or len(parts) != 4:
        raise _genesis_error("COSE_Sign must have 4 parts")
    body_protected, unprotected, payload, signatures = parts
    if body_protected != b"" or unprotected != {} or not isinstance(payload, bytes):
        raise _genesis_error("unexpected COSE headers")
    try:
        m = decode(payload, max_size=MAX_RECORD_BYTES)
    except EncodingError as exc:
        raise _genesis_error(f"payload: {exc}") from None
    keys = {"protocol", "table", "game", "options", "seats", "beacon_length", "turn_timeout_ms"}
    if not isinstance(m, dict) or set(m) != keys:
        raise _genesis_error("payload must be a map of " + ", ".join(sorted(keys)))
    if not _is_uint(m["protocol"]) or not isinstance(m["game"], str):
        raise _genesis_error("bad protocol or game")
    if not isinstance(m["table"], bytes) or len(m["table"]) != TABLE_ID_BYTES:
        raise _genesis_error("table must be a 16-byte id")
    if not isinstance(m["options"], dict) or not all(isinstance(k, str) for k in m["options"]):
        raise _genesis_error("options must be a map with text keys")
    if not _is_uint(m["beacon_length"]) or not 1 <= m["beacon_length"] <= 4096:
        raise _genesis_error("beacon_length must be 1..4096")
    timeout = m["turn_timeout_ms"]
    if not _is_uint(timeout) or not 1 <= timeout <= MAX_TURN_TIMEOUT_MS:
        raise _genesis_error(f"turn_timeout_ms must be 1..{MAX_TURN_TIMEOUT_MS}")
    if not isinstance(m["seats"], tuple) or not 1 <= len(m["seats"]) <= 16:
        raise _genesis_error("seats must be a list of 1..16 seats")
    seats = []
    for i, s in enumerate(m["seats"]):
        if not isinstance(s, dict) or set(s) != {"name", "identity", "table_key", "beacon"}:
            raise _genesis_error(f"seat {i} must be a map of name, identity, table_key, beacon")
        if not isinstance(s["name"], str) or not 0 < len(s["name"]) <= 64:
            raise _genesis_error(f"seat {i}: name must be 1..64 characters")
        for k in ("identity", "table_key", "beacon"):
            if not isinstance(s[k], bytes) or len(s[k]) != 32:
                raise _genesis_error(f"seat {i}: {k} must be 32 bytes")
        try:
            seats.append(SeatKeys(s["name"], s["identity"], s["table_key"], s["beacon"]))
        except BadKey as exc:
            raise MalformedRecord(i, 0, f"genesis: seat {i}'s {exc}") from exc
    if len({s.identity for s in seats}) != len(seats):
        raise _genesis_error("two seats share an identity key")
    genesis = Genesis(
        m["protocol"], m["table"], m["game"], m["options"], tuple(seats), m["beacon_length"],
        m["turn_timeout_ms"],
    )
    if not isinstance(signatures, tuple) or len(signatures) != len(seats):
        raise _genesis_error("there must be one signature per seat")
    sigs = []
    for i, (seat, sig) in enumerate(zip(seats, signatures)):
        if (
            not isinstance(sig, tuple)
            or len(sig) != 3
            or sig[0] != _sign_protected(seat.identity)
            or sig[1] != {}
            or not isinstance(sig[2], bytes)
        ):
            raise MalformedRecord(i, 0, "genesis signature entry must name this seat's key")
        sigs.append(sig[2])
    return SignedGenesis(genesis, tuple(sigs), bytes(raw))


def verify_genesis(signed: SignedGenesis) -> None:
    for i, sig in enumerate(signed.signatures):
        if not genesis_signature_valid(signed.genesis, i, sig):
            raise BadSignature(i, 0, "this seat's genesis signature does not verify")

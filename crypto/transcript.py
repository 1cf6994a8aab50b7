"""A transcript file: the genesis and every record, as a CBOR sequence (RFC 8742).

Theory of operation: the file is the exact bytes that were signed, item after item, so anyone
can re-check it offline (``spycraft audit``). Reading here is structural only (each item must
be a canonical COSE message of the right shape); signatures, the chain and the rules are
checked by replaying it through the table engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from spycraft.crypto.encoding import item_length
from spycraft.crypto.errors import EncodingError, MalformedRecord
from spycraft.crypto.records import (
    SignedGenesis,
    SignedRecord,
    parse_genesis,
    parse_record,
    record_length,
)

MAX_TRANSCRIPT_BYTES = 1 << 28


@dataclass(frozen=True)
class Transcript:
    genesis: SignedGenesis
    records: tuple[SignedRecord, ...]

    def to_bytes(self) -> bytes:
        return self.genesis.raw + b"".join(r.raw for r in self.records)

    @classmethod
    def from_bytes(cls, data: bytes) -> Transcript:
        """Parse a transcript; the first malformed item raises ``MalformedRecord`` with its seq."""
        if len(data) > MAX_TRANSCRIPT_BYTES:
            raise MalformedRecord(None, None, "transcript too large")
        if not data:
            raise MalformedRecord(None, 0, "empty transcript: no genesis")
        pos = 0
        genesis: SignedGenesis | None = None
        records: list[SignedRecord] = []
        while pos < len(data):
            position = len(records) + (0 if genesis is None else 1)
            length = None if genesis is None else record_length(data, pos)
            try:
                if length is None:  # not a record's layout: the walk says what is wrong
                    length = item_length(data, pos)
            except EncodingError as exc:
                raise MalformedRecord(
                    None, position, f"item {position} at byte {pos} is cut or damaged: {exc}"
                ) from None
            raw = data[pos : pos + length]
            pos += length
            if genesis is None:
                genesis = parse_genesis(raw)
                continue
            try:
                records.append(parse_record(raw))
            except MalformedRecord as exc:
                raise MalformedRecord(exc.seat, position, exc.what) from None
        if genesis is None:  # cannot happen with non-empty data; keeps the type exact
            raise MalformedRecord(None, 0, "empty transcript: no genesis")
        return cls(genesis, tuple(records))

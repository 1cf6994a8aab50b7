"""Typed errors: every rejection says what went wrong and, when known, who did it and where.

``seat`` is the seat index that signed (or should have signed) the offending record, ``seq`` its
position in the transcript (0 is genesis). Nothing in spycraft raises a bare ValueError for bad
input from a peer: the p2p layer and the audit rely on these types to attribute blame.
"""

from __future__ import annotations


class SpycraftError(Exception):
    """Base of every error spycraft raises on purpose."""


class EncodingError(SpycraftError):
    """Bytes that are not the canonical CBOR of a value spycraft accepts."""


class RecordError(SpycraftError):
    """A record (or genesis) that must be rejected, attributed to a seat and a seq."""

    kind = "invalid record"

    def __init__(self, seat: int | None, seq: int | None, what: str) -> None:
        self.seat = seat
        self.seq = seq
        self.what = what
        super().__init__(self.describe())

    def describe(self) -> str:
        who = "unknown seat" if self.seat is None else f"seat {self.seat}"
        where = "" if self.seq is None else f", record {self.seq}"
        return f"{self.kind} by {who}{where}: {self.what}"


class MalformedRecord(RecordError):
    kind = "malformed record"


class BadSignature(RecordError):
    kind = "bad signature"


class ChainBroken(RecordError):
    """Wrong table, seq or prev: a reordered, truncated, replayed or spliced transcript."""

    kind = "broken chain"


class OutOfTurn(RecordError):
    kind = "out of turn"


class IllegalAction(RecordError):
    kind = "illegal action"


class BadOpening(RecordError):
    """An opening that does not open its commitment."""

    kind = "false opening"


class InvalidProof(RecordError):
    kind = "invalid proof"


class RuleViolation(RecordError):
    """A hidden move that proves illegal once it is opened (cheating shown at a reveal)."""

    kind = "rule violation"


class Equivocation(RecordError):
    """Two different records signed by one seat for one seq."""

    kind = "equivocation"

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


class Unattributed(SpycraftError):
    """A toolkit check that failed on a value whose author the toolkit does not know.

    The hidden-information toolkit (group, proofs, decks, seals, mixes) checks values, not records,
    so it cannot name a seat or a seq. The engine that took the value from a record does:
    ``except Unattributed as exc: raise exc.attribute(seat, seq) from exc``.
    """

    record_error: type[RecordError] = RecordError

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(what)

    def attribute(self, seat: int | None, seq: int | None) -> RecordError:
        return self.record_error(seat, seq, self.what)


class MalformedValue(Unattributed):
    """Not an encoding of a value of the expected shape: a bad point, scalar or proof layout."""

    record_error = MalformedRecord


class ProofError(Unattributed):
    """A zero-knowledge proof (Schnorr, Chaum-Pedersen, OR-proof, shuffle) that does not verify."""

    record_error = InvalidProof


class OpeningError(Unattributed):
    """An opened secret (a key share) that does not match what was published."""

    record_error = BadOpening


class BadKey(SpycraftError):
    """A public key that must never be used: wrong length, non-canonical or of small order.

    ``which`` names the key (identity or table key), ``why`` the defect; whoever received it
    adds whose key it was (a seat, a hello) when it reports the refusal.
    """

    def __init__(self, which: str, why: str) -> None:
        self.which = which
        self.why = why
        super().__init__(f"{which}: {why}")

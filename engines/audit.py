"""Offline audit of a transcript: every signature, link, opening and rule, from bytes alone.

Theory of operation: parse the CBOR sequence, start the table from the genesis (every seat's
signature), then replay each record through the table engine exactly as a live peer would.
The first record the engine rejects is reported with its seat, seq and the reason. A transcript
that replays cleanly still fails the audit if it stops before the result record (truncated), or
if the game ended by a proven fraud (a fraud record, or a violation found at the final reveal):
then the report names the cheating seat and the evidence.

A genesis that reads but gives a seat a key of small order or in a non-canonical encoding
(``crypto.keys``) is refused like any invalid transcript (INVALID, naming the seat), not called
unreadable: the bytes are a transcript, and one that no honest peer would have signed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spycraft.crypto.encoding import decode, item_length
from spycraft.crypto.errors import BadKey, MalformedRecord, RecordError
from spycraft.crypto.records import parse_genesis
from spycraft.crypto.transcript import Transcript
from spycraft.engines import registry
from spycraft.engines.table import FRAUD, Result, TableState


class Unreadable(Exception):
    """The bytes are not a transcript at all."""


@dataclass
class AuditReport:
    game: str
    records: int
    result: Result | None = None
    error: RecordError | None = None
    frauds: list[str] = field(default_factory=list)
    state: TableState[object] | None = None  # of whichever game: the report reads the table's
    turn_timeout: float | None = None  # the genesis's, in seconds

    def _timeout(self) -> str:
        """What a reader of an absence needs: how long each seat had (the table's timeout)."""
        if self.turn_timeout is None:
            return ""
        return f"\n  turn timeout: {self.turn_timeout:g} s (the table's, in the genesis)"

    @property
    def valid(self) -> bool:
        return self.error is None and self.result is not None and not self.frauds

    def describe(self) -> str:
        head = f"{self.game}: {self.records} records after genesis"
        if self.error is not None:
            return f"INVALID {head}\n  first problem: {self.error}"
        if self.result is None:
            return f"INVALID {head}\n  the transcript ends before the result record (truncated?)"
        if self.frauds:
            return (
                f"FRAUD {head}\n  "
                + "\n  ".join(self.frauds)
                + f"\n  result: {self.result.describe()}"
                + self._timeout()
            )
        return f"VALID {head}\n  result: {self.result.describe()}{self._timeout()}"


def audit(data: bytes) -> AuditReport:
    try:
        transcript = Transcript.from_bytes(data)
    except MalformedRecord as exc:
        if isinstance(exc.__cause__, BadKey):
            return AuditReport(_game_of_genesis(data), 0, error=exc)
        if exc.seq in (None, 0):
            raise Unreadable(str(exc)) from None
        genesis = parse_genesis(data[: item_length(data)]).genesis
        return AuditReport(genesis.game, exc.seq - 1, error=exc)
    return audit_transcript(transcript)


def _game_of_genesis(data: bytes) -> str:
    """The game a genesis names. Only for a genesis refused for a seat's key: the parser checks
    the keys after the structure and the game name, so these reads cannot fail."""
    cose = decode(data[: item_length(data)])
    game: str = decode(cose.value[2])["game"]
    return game


def audit_transcript(
    transcript: Transcript, definition: registry.GameDefinition | None = None
) -> AuditReport:
    """Replay and check a transcript; ``definition``: a game not in the registry (tests)."""
    game = transcript.genesis.genesis.game
    report = AuditReport(game, len(transcript.records),
                         turn_timeout=transcript.genesis.genesis.turn_timeout)
    if definition is None:
        try:
            definition = registry.load(game)
        except KeyError as exc:
            report.error = MalformedRecord(None, 0, str(exc))
            return report
    table = definition.table()
    try:
        state = table.start(transcript.genesis)
        for signed in transcript.records:
            state = table.apply(state, signed)
    except RecordError as exc:
        report.error = exc
        return report
    report.state = state
    report.result = state.result
    report.frauds = [i.describe() for i in state.incidents if i.kind == FRAUD]
    if state.result is not None and state.result.reason == FRAUD and not report.frauds:
        report.frauds.append(state.result.detail or state.result.describe())
    return report

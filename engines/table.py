"""The table: the lifecycle every game shares, as a pure state machine over signed records.

Theory of operation
-------------------
A table starts from a signed genesis and advances one record at a time. At every point exactly
one seat may write the next record, and ``expect(state)`` names it with the record kinds it may
write. ``apply(state, signed)`` checks, in this order, and raises a typed error naming the seat
and the seq for the first thing that is wrong:

1. the signature: this table's id, and a COSE_Sign1 by the identity key the genesis gives the
   seat the record names (so a record that seat never signed is never blamed on it);
2. the chain: the next seq, ``prev`` = link hash of the previous item;
3. the turn: the seat and the kind ``expect`` named (except the two interrupts below);
4. the content: the table's own kinds here, every other kind by the game's rules.

The table owns four kinds; a game owns the rest:

* ``beacon``: when the game asks for randomness (``Draw``), every seat in seat order reveals the
  next pre-image of its hash chain (crypto.beacon); the round's seed goes to ``game.on_draw``.
* ``result``: when the game is over, the first seat that has not forfeited writes the result
  (any seat may, if that one is gone); it must equal what the engine computed, so a
  transcript's last record states its outcome. Once the outcome is fixed nobody can forfeit.
* ``fraud`` (interrupt): another seat proves that the seat expected next cheated, with signed
  evidence: a record that seat signed for this very seq that the engine rejects, or two
  different records it signed for one seq (equivocation). That seat forfeits.
* ``abandon`` (interrupt): another seat declares that the expected seat stalled past its
  timeout or quit. That seat forfeits. (Stalling is not provable; the claim is signed.)

The engine never knows which seat is local: our own records pass through the same checks as
everyone else's.

A game plugs in through ``GameRules``: its state is immutable, ``next`` says what it needs
(a seat's ``Turn``, a ``Draw`` of public randomness, or its ``Result``), ``apply`` takes one of
its records, ``on_draw`` takes a beacon seed, ``forfeit`` ends play for a cheater or a deserter
while the honest seats still open their secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

from spycraft.crypto import beacon
from spycraft.crypto.errors import (
    BadSignature,
    ChainBroken,
    Equivocation,
    IllegalAction,
    MalformedRecord,
    OutOfTurn,
    RecordError,
)
from spycraft.crypto.records import (
    Genesis,
    Record,
    SignedGenesis,
    SignedRecord,
    parse_record,
    verify_genesis,
    verify_record_signature,
)

TABLE_KINDS = ("beacon", "result", "fraud", "abandon")
# The reasons a game's forfeit result gives, so the audit can tell a cheat from a desertion.
FRAUD = "fraud"
ABANDONED = "abandoned"


def forfeit_reason(reasons: tuple[str, ...] | list[str]) -> str:
    """The reason a forfeit result gives: fraud if any forfeit was for fraud, else abandoned."""
    return FRAUD if FRAUD in reasons else ABANDONED
INTERRUPTS = ("fraud", "abandon")


@dataclass(frozen=True)
class Turn:
    """The game waits for ``seat`` to write one record of one of ``kinds``."""

    seat: int
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Draw:
    """The game waits for a round of the randomness beacon."""

    purpose: str


@dataclass(frozen=True)
class Result:
    """How a game ended. ``winner`` is a side name, or None for a draw or no winner."""

    winner: str | None
    reason: str
    forfeits: tuple[int, ...] = ()
    evidence: tuple[int, ...] = ()
    detail: str = ""

    def to_cbor(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "reason": self.reason,
            "forfeits": list(self.forfeits),
            "evidence": list(self.evidence),
            "detail": self.detail,
        }

    def describe(self) -> str:
        who = "no winner" if self.winner is None else f"winner: {self.winner}"
        text = f"{who} ({self.reason})"
        if self.forfeits:
            text += f"; forfeit by seat {', '.join(map(str, self.forfeits))}"
        if self.evidence:
            text += f"; evidence: records {', '.join(map(str, self.evidence))}"
        if self.detail:
            text += f"; {self.detail}"
        return text


Need = Turn | Draw | Result
S = TypeVar("S")


class GameRules(Protocol[S]):
    """What a game provides to the table (one module-level object per game)."""

    name: str
    seat_counts: tuple[int, ...]

    def check_options(self, options: Mapping[str, Any], seats: int) -> None:
        """Raise ValueError naming the problem if these options are not playable."""

    def initial(self, genesis: Genesis) -> S: ...

    def next(self, state: S) -> Need: ...

    def apply(self, state: S, record: Record) -> S: ...

    def on_draw(self, state: S, seed: bytes) -> S: ...

    def forfeit(self, state: S, seat: int, seq: int, reason: str) -> S: ...


@dataclass(frozen=True)
class TableState(Generic[S]):
    genesis: Genesis
    genesis_link: bytes
    game: S
    seq: int = 0  # seq of the last item applied (0 = genesis)
    link: bytes = b""  # link hash of the last item applied
    beacon_heads: tuple[bytes, ...] = ()  # each seat's last revealed chain value
    beacon_rounds: int = 0  # rounds completed
    pending: tuple[bytes, ...] = ()  # pre-images of the round in progress, in seat order
    result: Result | None = None  # set by the result record: the table is closed
    history: tuple[tuple[int, int, str], ...] = field(default=())  # (seq, seat, kind)
    incidents: tuple[Incident, ...] = ()  # frauds proven and abandons declared


@dataclass(frozen=True)
class Incident:
    """A fraud proven or an abandon declared by ``reporter`` against ``seat`` at ``seq``."""

    seq: int
    reporter: int
    seat: int
    kind: str  # "fraud" or "abandon"
    what: str

    def describe(self) -> str:
        return f"record {self.seq}: seat {self.reporter} reports {self.kind} by seat {self.seat}: {self.what}"


class Table(Generic[S]):
    """The table engine for one game."""

    def __init__(self, rules: GameRules[S]) -> None:
        self.rules = rules

    # --- starting -------------------------------------------------------------------------

    def start(self, signed: SignedGenesis) -> TableState[S]:
        genesis = signed.genesis
        if genesis.game != self.rules.name:
            raise MalformedRecord(None, 0, f"genesis is for {genesis.game!r}, not {self.rules.name!r}")
        if len(genesis.seats) not in self.rules.seat_counts:
            raise MalformedRecord(None, 0, f"{self.rules.name} is not played with {len(genesis.seats)} seats")
        try:
            self.rules.check_options(genesis.options, len(genesis.seats))
        except ValueError as exc:
            raise MalformedRecord(None, 0, f"genesis options: {exc}") from None
        verify_genesis(signed)
        return TableState(
            genesis=genesis,
            genesis_link=signed.link,
            game=self.rules.initial(genesis),
            link=signed.link,
            beacon_heads=tuple(s.beacon for s in genesis.seats),
        )

    # --- who writes next ------------------------------------------------------------------

    def need(self, state: TableState[S]) -> Need | None:
        """What the game waits for, or None once the result record closed the table."""
        if state.result is not None:
            return None
        return self.rules.next(state.game)

    def expect(self, state: TableState[S]) -> Turn | None:
        need = self.need(state)
        if need is None:
            return None
        if isinstance(need, Draw):
            return Turn(len(state.pending), ("beacon",))
        if isinstance(need, Result):
            return Turn(self.result_writer(state, need), ("result",))
        return need

    def result_writer(self, state: TableState[S], result: Result) -> int:
        for seat in range(len(state.genesis.seats)):
            if seat not in result.forfeits:
                return seat
        return 0

    # --- applying -------------------------------------------------------------------------

    def apply(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        if record.table != state.genesis.table:
            raise ChainBroken(record.seat, record.seq, "record belongs to another table")
        seats = state.genesis.seats
        if record.seat >= len(seats):
            raise MalformedRecord(record.seat, record.seq, "no such seat at this table")
        verify_record_signature(signed, seats[record.seat].identity)
        self.check_link(state, record)
        turn = self.expect(state)
        if turn is None:
            raise OutOfTurn(record.seat, record.seq, "the table is closed: the result is recorded")
        if turn.kinds == ("result",):
            # The game is over and its outcome fixed: nobody can forfeit any more, and any seat
            # may write the result if the one named first is gone.
            if record.kind != "result":
                raise OutOfTurn(record.seat, record.seq, "the game is over: only the result remains")
            return self._result(state, signed)
        if record.kind in INTERRUPTS:
            game, incident = self._interrupt(state, turn, record)
            return self._advance(state, signed, game, incidents=state.incidents + (incident,))
        if record.seat != turn.seat or record.kind not in turn.kinds:
            raise OutOfTurn(
                record.seat,
                record.seq,
                f"expected seat {turn.seat} to write {' or '.join(turn.kinds)}, "
                f"got {record.kind} from seat {record.seat}",
            )
        if record.kind == "beacon":
            return self._beacon(state, signed)
        return self._advance(state, signed, self.rules.apply(state.game, record))

    def check_link(self, state: TableState[S], record: Record) -> None:
        if record.seq != state.seq + 1:
            raise ChainBroken(record.seat, record.seq, f"expected seq {state.seq + 1}, got {record.seq}")
        if record.prev != state.link:
            raise ChainBroken(record.seat, record.seq, "prev does not match the previous record")

    def _advance(
        self, state: TableState[S], signed: SignedRecord, game: S, **changes: Any
    ) -> TableState[S]:
        record = signed.record
        return replace(
            state,
            game=game,
            seq=record.seq,
            link=signed.link,
            history=state.history + ((record.seq, record.seat, record.kind),),
            **changes,
        )

    def _beacon(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        body = record.body
        if not isinstance(body, dict) or set(body) != {"preimage"}:
            raise MalformedRecord(record.seat, record.seq, "beacon body must be {preimage}")
        preimage = body["preimage"]
        if not beacon.continues(state.beacon_heads[record.seat], preimage):
            raise IllegalAction(
                record.seat, record.seq, "beacon pre-image does not continue this seat's hash chain"
            )
        if state.beacon_rounds + 1 > state.genesis.beacon_length:
            raise IllegalAction(record.seat, record.seq, "the beacon chains are used up")
        heads = list(state.beacon_heads)
        heads[record.seat] = preimage
        pending = state.pending + (preimage,)
        if len(pending) < len(state.genesis.seats):
            return self._advance(
                state, signed, state.game, beacon_heads=tuple(heads), pending=pending
            )
        rounds = state.beacon_rounds + 1
        seed = beacon.round_seed(state.genesis.table, rounds, pending)
        game = self.rules.on_draw(state.game, seed)
        return self._advance(
            state, signed, game, beacon_heads=tuple(heads), pending=(), beacon_rounds=rounds
        )

    def _result(self, state: TableState[S], signed: SignedRecord) -> TableState[S]:
        record = signed.record
        need = self.rules.next(state.game)
        if not isinstance(need, Result):
            raise OutOfTurn(record.seat, record.seq, "the game is not over")
        if record.body != frozen(need.to_cbor()):
            raise IllegalAction(
                record.seat, record.seq, f"the result is not what the game shows: {need.describe()}"
            )
        return self._advance(state, signed, state.game, result=need)

    def _interrupt(self, state: TableState[S], turn: Turn, record: Record) -> tuple[S, Incident]:
        body = record.body
        if record.kind == "abandon":
            if record.seat == turn.seat:
                raise OutOfTurn(record.seat, record.seq, "a seat cannot declare itself absent")
            if not isinstance(body, dict) or set(body) != {"seat", "reason"} or body["seat"] != turn.seat:
                raise MalformedRecord(
                    record.seat, record.seq, f"abandon must name the seat expected next ({turn.seat})"
                )
            if not isinstance(body["reason"], str) or len(body["reason"]) > 200:
                raise MalformedRecord(record.seat, record.seq, "abandon reason must be a short text")
            incident = Incident(record.seq, record.seat, turn.seat, "abandon", body["reason"])
            game = self.rules.forfeit(state.game, turn.seat, record.seq, ABANDONED)
            return game, incident
        accused, error = self.check_evidence(state, turn, record)
        incident = Incident(record.seq, record.seat, accused, "fraud", str(error))
        return self.rules.forfeit(state.game, accused, record.seq, FRAUD), incident

    def check_evidence(
        self, state: TableState[S], turn: Turn, record: Record
    ) -> tuple[int, RecordError]:
        """The seat that the evidence in a fraud record proves a cheat against, and the cheat.

        One record: the seat expected at this seq signed it for this very place in the chain, and
        the engine rejects it. Two records: one seat signed two different records for one seq on
        one ``prev`` (equivocation), provable against any seat at any time. Evidence that does
        not hold (a bad signature inside it, a valid record) is the accuser's error.
        """
        body = record.body
        if not isinstance(body, dict) or set(body) != {"evidence"} or not isinstance(body["evidence"], tuple):
            raise MalformedRecord(record.seat, record.seq, "fraud body must be {evidence: [records]}")
        try:
            offered = [parse_record(raw) for raw in body["evidence"] if isinstance(raw, bytes)]
        except RecordError as exc:
            raise MalformedRecord(record.seat, record.seq, f"evidence is not a record: {exc}") from None
        if not 1 <= len(offered) <= 2 or len(offered) != len(body["evidence"]):
            raise MalformedRecord(record.seat, record.seq, "evidence must be one or two records")
        seats = state.genesis.seats
        accused = offered[0].seat if len(offered) == 2 else turn.seat
        if accused == record.seat:
            raise IllegalAction(record.seat, record.seq, "a seat cannot accuse itself")
        for e in offered:
            if e.record.table != state.genesis.table or e.seat != accused or e.seat >= len(seats):
                raise IllegalAction(
                    record.seat, record.seq, f"evidence is not a record of seat {accused} at this table"
                )
            try:
                verify_record_signature(e, seats[e.seat].identity)
            except BadSignature:
                raise IllegalAction(
                    record.seat, record.seq, f"evidence record {e.seq} is not signed by seat {accused}"
                ) from None
        if len(offered) == 2:
            a, b = offered
            if a.seq != b.seq or a.record.prev != b.record.prev or a.raw == b.raw:
                raise IllegalAction(
                    record.seat,
                    record.seq,
                    "equivocation evidence needs two different records for one seq and one prev",
                )
            return accused, Equivocation(accused, a.seq, "signed two different records for one seq")
        (e,) = offered
        if e.seq != record.seq or e.record.prev != state.link:
            raise IllegalAction(record.seat, record.seq, "evidence was not offered for this place in the chain")
        try:
            self.apply(state, e)
        except RecordError as exc:
            return accused, exc
        raise IllegalAction(record.seat, record.seq, "the evidence record is valid: no fraud shown")

def frozen(value: Any) -> Any:
    """A value as it reads after a CBOR round trip (lists become tuples)."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: frozen(v) for k, v in value.items()}
    return value

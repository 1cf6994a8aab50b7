"""The peer protocol: every rule of a session that decides fairness, sans-IO.

As h11 sits under its users, this class sits under ``p2p.session.Session``: frames, clock ticks
and our own records go in (``receive``, ``link_up``, ``link_down``, ``tick``, ``submit``); what
to send, store, remember and tell comes out as a list of actions. It never touches a socket, a
thread, a clock or a file, so the rules below are tested exhaustively without any of them
(``tests/p2p/test_protocol*.py``), and the trio shell only moves bytes and time.

Theory of operation
-------------------
* **One chain.** A peer holds the table engine's states and the records that led to them. The
  *place* is where the next record goes: (seq = head + 1, prev = link of the head). The engine
  names the one seat that writes there.
* **Writing.** The shell asks our seat for a record when ``wants_turn`` says so and hands it to
  ``submit``. Every record we sign is remembered by its place before anything else happens
  (``Remember``; the shell makes it durable), and if we are ever asked again at a place where we
  already signed, the remembered record is sent again: a seat never decides a place twice.
* **Receiving.** A record for the place goes through the engine (signature first, then chain,
  turn and rules); if it passes it is stored (``Store``: durable before any frame that follows it
  in the actions) and acknowledged to its author only. Its next record's ``prev`` carries every
  peer's view of it to all the others, so two versions of one record cannot both survive a
  round, and a peer that goes idle tells everyone its head once, which catches the last record.
* **Bounded.** A record is verified before it is buffered or compared. Records from the future
  are buffered within ``FUTURE_WINDOW`` seqs and within a byte budget per link and in total;
  every resend (sync replies, records sent to answer a head, an ack or a vote) is paid from a
  per-link token bucket; requests we send are rate-limited. A peer that floods, fakes acks or
  asks for syncs in a storm exhausts its own budget, not ours, and a malformed or forged frame
  closes its link.
* **Conflicts.** Two records for one place. If one seat signed both (same seq, same prev),
  that is *equivocation*: the evidence is sent to everyone, we roll back to before it and a
  ``fraud`` record is written there (by the culprit's successor, then by the next seats after a
  grace each). Otherwise both are checked by the engine and one total order decides everywhere:
  fraud before abandon before any other record, then the smaller bytes; the loser is rolled
  back. An ``evidence`` frame is acted on only when it is two different records signed by one
  seat for one place of this table, both verified; nothing else rolls anything back.
* **Absence.** When the seat named at the place sends nothing for ``turn_timeout``, we first
  tell everyone our head (a *last call*: whoever holds the record sends it), then after a grace
  we sign an absence vote and send it to all. A peer that holds the record answers a vote with
  the record itself. An ``abandon`` record needs the votes of a majority of the other seats
  (``engines.absence``); the voter closest after the accused writes it, the next ones after a
  grace each if it does not. With two players the one other seat's vote is the quorum, and the
  result says "abandoned, claimed by seat N".
* **The result.** The result is what the engine computed; the first seat that has not
  forfeited writes it, and any other after its own timeouts if that one is gone.
* **Observers.** A link without a seat (a spectator, a host that does not play) receives the
  records, heads, evidence and table talk, and may send only ``OBSERVER_FRAMES`` (heads, sync
  requests, a goodbye): a record or a vote from it closes its link, it never counts in a quorum,
  and it is sent no vote. Nothing secret is ever sent to anyone outside a record (seals live in
  the records), so an observer learns exactly what the transcript shows.
* **Table talk.** ``say`` and ``chat`` frames go to the ``ChatBook`` (``p2p.chat``): beside the
  game, never in its order; verified, rate-limited per speaker and per link, gossiped to every
  link, stored by ``StoreChat`` beside the transcript; in a game whose talk is off while it
  runs (SpyNet), a line tied to a record before the result is dropped and counted.

Invariants (each is a test in ``tests/p2p/test_protocol_properties.py``)
--------------------------------------------------------------------------
1. A seat whose record reaches any honest peer before the honest seats' timeouts never forfeits
   for absence: that peer never votes against it and answers every vote with the record.
2. No single seat's claim makes another seat forfeit while the accused is reachable by the
   others: an abandon carries a majority of the others' signed votes, each signed only after
   that voter's own timeout (with two seats, the claim is reported as a claim).
3. A staller is declared absent within ``turn_timeout + (distance + 1) * grace`` of the place,
   at any player count, as long as a quorum of honest seats is connected.
4. Only two different verified records by one seat for one place (equivocation), or a valid
   record of higher priority for the same place, make a peer roll back.
5. A seat never signs two different records for one place.
6. Every buffer and every resend is bounded per link; nothing unverified is kept.
7. Honest peers that have exchanged heads hold byte-identical transcripts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from spycraft.crypto.chat import ChatError, SignedChat
from spycraft.crypto.errors import (
    BadSignature,
    ChainBroken,
    MalformedRecord,
    RecordError,
)
from spycraft.crypto.records import (
    SignedGenesis,
    SignedRecord,
    parse_record,
    verify_record_signature,
)
from spycraft.crypto.transcript import Transcript
from spycraft.engines import absence
from spycraft.engines.seat import TableSeat
from spycraft.engines.table import Table, TableState, Turn
from spycraft.p2p.bucket import Bucket
from spycraft.p2p.chat import LINK_BURST, LINK_RATE, ChatBook, ChatVerdict, Heard

log = logging.getLogger("spycraft.p2p")

LinkId = int

FUTURE_WINDOW = 64
"""How many seqs ahead of our head a verified record may be buffered."""
FUTURE_BYTES_PER_LINK = 1 << 20
FUTURE_BYTES_TOTAL = 8 << 20
RESEND_BURST = 4 << 20
"""Bytes a link may make us resend at once (a whole long game fits)."""
RESEND_RATE = 1 << 20
"""Bytes per second a link's resend budget refills."""
SYNC_CHUNK_BYTES = 512 * 1024
HEAD_COST = 64
"""What answering a head costs a link's budget (heads can be sent in a storm too)."""
REQUEST_INTERVAL = 0.5
"""Seconds between two sync requests we send to one link."""
BEHIND_PATIENCE = 0.3
"""Seconds we wait for a record in flight before asking a peer that is ahead to send it."""
CHAT_HISTORY = 100
"""Chat messages a new spectator is sent at once (the latest)."""
OBSERVER_FRAMES = frozenset({"head", "sync", "bye", "gsig"})
"""All that a link without a seat may send in play (``gsig``: the lobby's late relay)."""


# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    link: LinkId
    frame: dict[str, Any]


@dataclass(frozen=True)
class Close:
    """Say goodbye with ``reason`` and drop the link (its peer sent something it must not)."""

    link: LinkId
    reason: str


@dataclass(frozen=True)
class Store:
    """Append these records to the transcript file, durably, before the actions that follow."""

    records: tuple[SignedRecord, ...]


@dataclass(frozen=True)
class Rewrite:
    """Replace the transcript file by this transcript (after a rollback)."""

    transcript: Transcript


@dataclass(frozen=True)
class Remember:
    """Our own record for (seq, prev), to keep durably before it is sent."""

    seq: int
    prev: bytes
    raw: bytes


@dataclass(frozen=True)
class StoreChat:
    """Append this chat message to the chat file beside the transcript."""

    raw: bytes


@dataclass(frozen=True)
class Notice:
    """Something a person or a log should hear of: record, fraud, equivocation, rollback,
    vote, abandon, refused, chat (a ``ChatLine``), muted (seat, why)."""

    kind: str
    data: Any


Action = Send | Close | Store | Rewrite | Remember | StoreChat | Notice


@dataclass
class ProtocolConfig:
    turn_timeout: float = 300.0
    grace: float | None = None  # default: min(2 s, turn_timeout / 4)

    @property
    def vote_grace(self) -> float:
        return self.grace if self.grace is not None else min(2.0, self.turn_timeout / 4)


@dataclass
class PeerLink:
    """What the protocol knows of one authenticated connection."""

    seat: int | None  # None for an observer
    acked: int = 0  # our own records this peer confirmed holding
    claimed: int = 0  # the head this peer last told us (not trusted: it only guides requests)
    future_bytes: int = 0
    asked_at: float = -1e9
    resends: Bucket = field(default_factory=lambda: Bucket.full(RESEND_BURST, RESEND_RATE, 0.0))
    chat: Bucket = field(default_factory=lambda: Bucket.full(LINK_BURST, LINK_RATE, 0.0))

    def spend(self, size: int, now: float) -> bool:
        """Take ``size`` bytes from this link's resend budget, if it has them."""
        return self.resends.take(now, size)


@dataclass(order=True)
class _Report:
    """A fraud record we will write at ``seq`` at time ``due`` unless someone else does."""

    due: float
    seq: int
    evidence: tuple[bytes, ...] = field(compare=False)


def priority(signed: SignedRecord) -> tuple[int, bytes]:
    """The order that settles two valid records for one place, the same on every peer."""
    return ({"fraud": 0, "abandon": 1}.get(signed.record.kind, 2), signed.raw)


class PeerProtocol:
    def __init__(
        self,
        *,
        table: Table[Any],
        genesis: SignedGenesis,
        seat: TableSeat | None,
        records: tuple[SignedRecord, ...] = (),
        own: dict[tuple[int, bytes], bytes] | None = None,
        config: ProtocolConfig | None = None,
        now: float = 0.0,
        chat: tuple[SignedChat, ...] = (),
    ) -> None:
        self.table = table
        self.genesis = genesis
        self.seats = genesis.genesis.seats
        self.me = seat
        self.config = config or ProtocolConfig()
        self.states: list[TableState[Any]] = [table.start(genesis)]
        self.records: list[SignedRecord] = []
        for signed in records:
            self.states.append(table.apply(self.states[-1], signed))
            self.records.append(signed)
        self.own: dict[tuple[int, bytes], bytes] = dict(own or {})
        self.links: dict[LinkId, PeerLink] = {}
        self.future: dict[int, tuple[SignedRecord, LinkId]] = {}
        self.reports: list[_Report] = []
        self.reported: set[int] = set()
        self.banned: set[bytes] = set()  # both records of a proven equivocation
        # records the engine rejected that the expected seat did sign, by place
        self.lies: dict[tuple[int, bytes], SignedRecord] = {}
        self._out: list[Action] = []
        self.chat = ChatBook(genesis.genesis, seat=None if seat is None else seat.index,
                             identity=None if seat is None else seat.identity, stored=chat,
                             finished=self._finished_at)
        self._since = now
        self._place_reset(now)

    # --- state --------------------------------------------------------------------------

    @property
    def state(self) -> TableState[Any]:
        return self.states[-1]

    @property
    def head(self) -> int:
        return self.state.seq

    @property
    def finished(self) -> bool:
        return self.state.result is not None

    def _finished_at(self, seq: int) -> bool:
        """Whether the table held its result at record ``seq`` (what a game that talks only
        after the result asks of a chat line tied to ``seq``)."""
        return 0 <= seq < len(self.states) and self.states[seq].result is not None

    @property
    def transcript(self) -> Transcript:
        return Transcript(self.genesis, tuple(self.records))

    @property
    def since(self) -> float:
        """When the current place began (the last record was accepted), on the caller's clock."""
        return self._since

    @property
    def seat(self) -> int | None:
        return None if self.me is None else self.me.index

    def wants_turn(self) -> TableState[Any] | None:
        """The state at which our seat must write next, or None."""
        if self.me is None or self.me.my_turn(self.state) is None:
            return None
        return self.state

    def _place_reset(self, now: float) -> None:
        self._since = now
        self.votes: dict[int, bytes] = {}
        self._quorum_at: float | None = None
        self._last_call: float | None = None  # when we last told everyone our head, waiting here
        self._voted = False
        self._head_told = False
        self._result_tried = False

    # --- inputs -------------------------------------------------------------------------

    def link_up(self, link: LinkId, seat: int | None, now: float) -> list[Action]:
        self.links[link] = PeerLink(seat, resends=Bucket.full(RESEND_BURST, RESEND_RATE, now),
                                    chat=Bucket.full(LINK_BURST, LINK_RATE, now))
        self._send(link, self._head_frame())
        if self._voted and self.seat is not None and seat is not None:
            self._send(link, self._vote_frame(self.seat, self.votes[self.seat]))
        if seat is None:  # a spectator: the latest table talk (held back until it has synced)
            for raw in self.chat.history[-CHAT_HISTORY:]:
                self._send(link, {"t": "chat", "message": raw})
        return self._drain()

    def link_down(self, link: LinkId) -> None:
        self.links.pop(link, None)
        self._forget_future_of(link)

    def _forget_future_of(self, link: LinkId) -> None:
        for seq in [s for s, (_, sender) in self.future.items() if sender == link]:
            del self.future[seq]

    def submit(self, signed: SignedRecord, now: float) -> list[Action]:
        """Our seat's record for the current place (built from ``wants_turn``'s state)."""
        record = signed.record
        if record.seq != self.head + 1 or record.prev != self.state.link:
            return []  # the table moved on while we thought: the shell asks again
        self._write(signed, now)
        return self._drain()

    def receive(self, link: LinkId, frame: dict[str, Any], now: float) -> list[Action]:
        """One validated frame (``p2p.wire`` checked its schema) from an authenticated link."""
        peer = self.links.get(link)
        if peer is None:
            return []
        kind = frame["t"]
        if peer.seat is None and kind not in OBSERVER_FRAMES:
            self._close(link, f"an observer sends no {kind} frame: it has no seat")
            return self._drain()
        if kind == "record":
            self._on_record(link, frame["record"], now)
        elif kind == "sync_reply":
            for raw in frame["records"]:
                if link not in self.links:
                    break
                self._on_record(link, raw, now)
        elif kind == "ack":
            self._on_ack(link, frame["seq"], frame["link"], now)
        elif kind == "head":
            self._on_head(link, frame["seq"], frame["link"], now)
        elif kind == "sync":
            self._resend(link, frame["from_seq"], now)
        elif kind == "evidence":
            self._on_evidence(link, frame["records"], now)
        elif kind == "absent":
            self._on_vote(link, frame, now)
        elif kind == "chat":
            if peer.chat.take(now):  # over the link's budget: not even verified
                self._on_chat(link, frame["message"], now)
        elif kind in ("gsig", "genesis"):
            pass  # the lobby's late relay, or what a seat sends a spectator: already held
        elif kind == "bye":
            self._out.append(Notice("bye", (peer.seat, frame["reason"])))
            self._close(link, "goodbye")
        else:
            self._close(link, f"a {kind} frame has no place in play")
        return self._drain()

    def say(self, text: str, now: float) -> list[Action]:
        """Our seat says ``text`` at the table (``ChatRefused`` says why it cannot)."""
        signed = self.chat.compose(text, self.head, now)
        self._on_chat(None, signed.raw, now)
        return self._drain()

    def tick(self, now: float) -> list[Action]:
        """Time passes: last calls, votes, abandons, late results, fraud reports, heads."""
        self._due_reports(now)
        turn = self.table.expect(self.state)
        waited = now - self._since
        timeout = self.config.turn_timeout
        grace = self.config.vote_grace
        if turn is None:
            if not self._head_told:
                self._tell_head()
            return self._drain()
        if self.me is not None and turn.seat != self.seat:
            distance = (self.me.index - turn.seat) % len(self.seats)
            if turn.kinds == ("result",):
                if waited >= timeout * distance and not self._result_tried:
                    self._result_tried = True
                    result = self.me.sign_result(self.state)
                    if result is not None:
                        log.warning("seat %d did not write the result; writing it", turn.seat)
                        self._write(result, now)
            else:
                self._absence(turn, waited, now, timeout, grace)
        self._ask_if_behind(now)
        return self._drain()

    # --- absence ------------------------------------------------------------------------

    def _absence(self, turn: Turn, waited: float, now: float, timeout: float, grace: float) -> None:
        assert self.me is not None
        again = self._last_call is None or now - self._last_call >= max(grace, 1.0)
        if waited >= timeout and again:
            # A last call (whoever holds the record sends it), repeated while we wait, with our
            # vote once cast: a frame lost on a link that stayed up is not lost for good.
            self._last_call = now
            self._tell_head()
            if self._voted:
                frame = self._vote_frame(self.me.index, self.votes[self.me.index])
                for link in self.links:
                    self._send(link, frame)
        if waited >= timeout + grace and not self._voted:
            self._voted = True
            vote = self.me.absence_vote(self.state)
            self.votes[self.me.index] = vote
            self._out.append(Notice("vote", turn.seat))
            frame = self._vote_frame(self.me.index, vote)
            for link in self.links:
                self._send(link, frame)
        if not self._voted or len(self.votes) < absence.quorum(len(self.seats)):
            return
        if self._quorum_at is None:
            self._quorum_at = now
        n = len(self.seats)
        mine = (self.me.index - turn.seat) % n
        closer = sum(1 for v in self.votes if (v - turn.seat) % n < mine)
        if now >= self._quorum_at + closer * grace:
            signed = self.me.sign_abandon(self.state, dict(self.votes))
            self._out.append(Notice("abandon", (turn.seat, tuple(sorted(self.votes)))))
            self._write(signed, now)

    def _vote_frame(self, voter: int, sig: bytes) -> dict[str, Any]:
        turn = self.table.expect(self.state)
        assert turn is not None
        return {
            "t": "absent",
            "seq": self.head + 1,
            "prev": self.state.link,
            "seat": turn.seat,
            "voter": voter,
            "sig": sig,
        }

    def _on_vote(self, link: LinkId, frame: dict[str, Any], now: float) -> None:
        seq, prev, accused, voter = frame["seq"], frame["prev"], frame["seat"], frame["voter"]
        genesis = self.state.genesis
        if not absence.vote_valid(genesis, seq, prev, accused, voter, frame["sig"]):
            self._close(link, "an absence vote that does not verify")
            return
        if seq <= self.head:
            held = self.records[seq - 1]
            if held.record.prev == prev:  # we hold what the voter waits for: it beats the vote
                self._resend(link, seq, now)
            return
        turn = self.table.expect(self.state)
        if (
            seq == self.head + 1
            and prev == self.state.link
            and turn is not None
            and turn.seat == accused
        ):
            self.votes[voter] = frame["sig"]

    # --- records ------------------------------------------------------------------------

    def _on_record(self, link: LinkId, raw: bytes, now: float) -> None:
        if raw in self.banned:
            return  # half of a proven equivocation: the fraud record takes its place
        try:
            signed = parse_record(raw)
        except MalformedRecord as exc:
            self._close(link, str(exc))
            return
        record = signed.record
        if (
            record.table != self.state.genesis.table
            or record.seat >= len(self.seats)
            or record.seq == 0
        ):
            self._close(link, f"record {record.seq} does not belong at this table")
            return
        if record.seq <= self.head:
            mine = self.records[record.seq - 1]
            if mine.raw != signed.raw and self._verified(link, signed):
                self._on_conflict(link, mine, signed, now)
            return
        if record.seq > self.head + 1:
            self._buffer(link, signed, now)
            return
        try:
            self._accept(signed, now)
        except RecordError as exc:
            self._on_invalid(link, signed, exc, now)
            return
        self._acknowledge(signed)
        self._release_future(now)

    def _verified(self, link: LinkId, signed: SignedRecord) -> bool:
        try:
            verify_record_signature(signed, self.seats[signed.seat].identity)
        except BadSignature:
            self._close(link, f"record {signed.seq} is not signed by seat {signed.seat}")
            return False
        return True

    def _signed_by_its_seat(self, signed: SignedRecord) -> bool:
        """A malformed body its seat did sign is that seat's lie; anything else is noise."""
        if signed.seat >= len(self.seats):
            return False
        try:
            verify_record_signature(signed, self.seats[signed.seat].identity)
        except BadSignature:
            return False
        return True

    def _buffer(self, link: LinkId, signed: SignedRecord, now: float) -> None:
        peer = self.links[link]
        size = len(signed.raw)
        total = sum(len(s.raw) for s, _ in self.future.values())
        if signed.seq > self.head + FUTURE_WINDOW or not self._verified(link, signed):
            return
        peer.claimed = max(peer.claimed, signed.seq - 1)  # the record before is likely in flight
        if (
            signed.seq in self.future  # first come holds the slot; a sync settles the rest
            or peer.future_bytes + size > FUTURE_BYTES_PER_LINK
            or total + size > FUTURE_BYTES_TOTAL
        ):
            return
        self.future[signed.seq] = (signed, link)
        peer.future_bytes += size

    def _release_future(self, now: float) -> None:
        while self.head + 1 in self.future:
            signed, sender = self.future.pop(self.head + 1)
            if sender in self.links:
                self.links[sender].future_bytes -= len(signed.raw)
            try:
                self._accept(signed, now)
            except RecordError as exc:
                self._on_invalid(sender, signed, exc, now)
                return
            self._acknowledge(signed)
        for seq in [s for s in self.future if s <= self.head]:
            signed, sender = self.future.pop(seq)
            if sender in self.links:
                self.links[sender].future_bytes -= len(signed.raw)

    def _accept(self, signed: SignedRecord, now: float) -> None:
        """Engine, then memory; the Store action makes it durable. Raises RecordError."""
        new_state = self.table.apply(self.state, signed)
        self.records.append(signed)
        self.states.append(new_state)
        self._out.append(Store((signed,)))
        self._out.append(Notice("record", (self.states[-2], signed, new_state)))
        self._place_reset(now)
        self._chat_verdicts(self.chat.advance(self.head, now), None)
        if new_state.result is not None:
            self._chat_verdicts(self.chat.abandon_pending(), None)
        lie = self.lies.get((signed.seq, signed.record.prev))
        if lie is not None and lie.seat == signed.seat:
            # It signed a record the engine rejects and another one for this very place: that
            # is an equivocation, whichever half of the table got which.
            self._on_equivocation(signed, lie, now)

    def _write(self, signed: SignedRecord, now: float) -> None:
        """A record we signed for the current place (our turn, an interrupt, a result):
        remembered by place before anything else, accepted like anyone's, then sent to all."""
        key = (signed.seq, signed.record.prev)
        remembered = self.own.get(key)
        if remembered is not None and remembered != signed.raw:
            log.warning("asked twice at record %d: sending what we signed first", signed.seq)
            signed = parse_record(remembered)
        elif remembered is None:
            self.own[key] = signed.raw
            self._out.append(Remember(signed.seq, signed.record.prev, signed.raw))
        try:
            self._accept(signed, now)
        except RecordError as exc:
            self._out.append(Notice("refused", (signed, exc)))  # a bug of ours: never sent
            return
        frame = {"t": "record", "record": signed.raw}
        for link in self.links:
            self._send(link, frame)
        self._release_future(now)

    def _acknowledge(self, signed: SignedRecord) -> None:
        frame = {"t": "ack", "seq": signed.seq, "link": signed.link}
        for link, peer in self.links.items():
            if peer.seat == signed.seat:
                self._send(link, frame)

    def _on_invalid(
        self, link: LinkId, signed: SignedRecord, error: RecordError, now: float
    ) -> None:
        if isinstance(error, ChainBroken):
            # Not a lie: the sender is on another branch. Show it our head record; the
            # conflict rule settles it there, one record at a time backwards if need be.
            self._resend(link, self.head, now, single=True)
            return
        if isinstance(error, BadSignature) or (
            isinstance(error, MalformedRecord) and not self._signed_by_its_seat(signed)
        ):
            self._close(link, f"invalid record {signed.seq}: {error}")
            return
        turn = self.table.expect(self.state)
        provable = (
            turn is not None
            and signed.seat == turn.seat
            and signed.record.prev == self.state.link
        )
        self._out.append(Notice("fraud", (signed, error)))
        if provable:
            self.lies[(signed.seq, signed.record.prev)] = signed
            self._schedule_report(signed.seat, signed.seq, (signed.raw,), now)
        if self.links[link].seat == signed.seat or not provable:
            self._close(link, f"invalid record {signed.seq}: {error}")

    # --- conflicts and evidence --------------------------------------------------------

    def _on_conflict(
        self, link: LinkId, mine: SignedRecord, theirs: SignedRecord, now: float
    ) -> None:
        seq = mine.seq
        if theirs.record.prev != mine.record.prev:
            # We differ earlier: show them our record one place back, until prevs agree.
            if seq > 1:
                self._resend(link, seq - 1, now, single=True)
            return
        if theirs.seat == mine.seat:
            self._on_equivocation(mine, theirs, now)
            return
        try:
            self.table.apply(self.states[seq - 1], theirs)
        except RecordError:
            if self.links[link].seat == theirs.seat:
                self._close(link, f"record {seq} is not valid at its place")
            else:
                self._resend(link, seq, now, single=True)
            return
        if priority(theirs) < priority(mine):
            self._rollback(seq - 1, now)
            self._accept(theirs, now)
            self._release_future(now)
        else:
            self._resend(link, seq, now, single=True)

    def _on_evidence(self, link: LinkId, raws: tuple[bytes, ...], now: float) -> None:
        try:
            a, b = (parse_record(raw) for raw in raws)
        except (MalformedRecord, ValueError) as exc:
            self._close(link, f"bad evidence: {exc}")
            return
        same_place = (
            a.seq == b.seq
            and a.seat == b.seat
            and a.record.prev == b.record.prev
            and a.raw != b.raw
            and a.record.table == b.record.table == self.state.genesis.table
            and a.seat < len(self.seats)
        )
        if not same_place or not (self._verified(link, a) and self._verified(link, b)):
            self._close(link, "evidence that proves nothing")
            return
        self._on_equivocation(a, b, now)

    def _on_equivocation(self, a: SignedRecord, b: SignedRecord, now: float) -> None:
        seq = a.seq
        if seq in self.reported:
            return
        self.reported.add(seq)
        evidence = tuple(sorted((a.raw, b.raw)))
        self.banned.update(evidence)
        self._out.append(Notice("equivocation", (a, b)))
        frame = {"t": "evidence", "records": list(evidence)}
        for link in self.links:
            self._send(link, frame)
        if seq <= self.head:
            if self.records[seq - 1].raw not in evidence:
                return  # this place is already settled otherwise (a fraud record holds it)
            self._rollback(seq - 1, now)
        self._schedule_report(a.seat, seq, evidence, now)

    def _schedule_report(
        self, culprit: int, seq: int, evidence: tuple[bytes, ...], now: float
    ) -> None:
        if self.me is None or self.me.index == culprit:
            return
        distance = (self.me.index - culprit) % len(self.seats)
        self.reports.append(_Report(now + (distance - 1) * self.config.vote_grace, seq, evidence))
        self._due_reports(now)

    def _due_reports(self, now: float) -> None:
        for report in sorted(self.reports):
            if report.seq <= self.head or self.finished:
                self.reports.remove(report)  # someone wrote at that place already
                continue
            if report.due > now or report.seq != self.head + 1:
                continue
            self.reports.remove(report)
            turn = self.table.expect(self.state)
            if self.me is None or turn is None or turn.kinds == ("result",):
                continue
            signed = self.me.sign(self.state, "fraud", {"evidence": list(report.evidence)})
            self._out.append(Notice("report", (report.seq, len(report.evidence))))
            self._write(signed, now)

    def _rollback(self, seq: int, now: float) -> None:
        """Keep records 1..seq: only an equivocation or a record of higher priority leads here."""
        dropped = len(self.records) - seq
        if dropped <= 0:
            return
        del self.records[seq:]
        del self.states[seq + 1 :]
        self.future.clear()
        for peer in self.links.values():
            peer.future_bytes = 0
            peer.acked = min(peer.acked, seq)
        self._out.append(Rewrite(self.transcript))
        self._out.append(Notice("rollback", (seq, dropped)))
        self._place_reset(now)

    # --- heads, acks, syncs --------------------------------------------------------------

    def _head_frame(self) -> dict[str, Any]:
        return {"t": "head", "seq": self.head, "link": self.state.link}

    def _tell_head(self) -> None:
        self._head_told = True
        frame = self._head_frame()
        for link in self.links:
            self._send(link, frame)

    def _on_ack(self, link: LinkId, seq: int, link_hash: bytes, now: float) -> None:
        peer = self.links[link]
        if seq == 0 or seq > self.head:
            return  # an ack for what we do not hold proves nothing and asks nothing
        if self.records[seq - 1].link == link_hash:
            peer.acked = max(peer.acked, seq)
        else:
            self._resend(link, seq, now, single=True)

    def _on_head(self, link: LinkId, seq: int, link_hash: bytes, now: float) -> None:
        peer = self.links[link]
        peer.claimed = seq
        if seq > self.head:
            return  # the ticker asks if the records do not come by themselves
        ours = self.state.genesis_link if seq == 0 else self.records[seq - 1].link
        if ours != link_hash:
            self._resend(link, seq, now, single=True)
            return
        peer.acked = max(peer.acked, seq)
        if seq < self.head:
            if peer.spend(HEAD_COST, now):  # it is behind: it asks once it knows (and if the
                self._send(link, self._head_frame())  # records in flight do not come first)
        elif self._voted and self.seat is not None:  # it waits where we voted: it may need ours
            self._send(link, self._vote_frame(self.seat, self.votes[self.seat]))

    def _request(self, link: LinkId, now: float) -> None:
        peer = self.links[link]
        if now - peer.asked_at >= REQUEST_INTERVAL:
            peer.asked_at = now
            self._send(link, {"t": "sync", "from_seq": self.head + 1})

    def _ask_if_behind(self, now: float) -> None:
        """Ask one peer that says it is ahead for what we miss (the least recently asked
        first, so a peer that lies about its head cannot keep us from asking the others)."""
        ahead = [link for link, peer in self.links.items() if peer.claimed > self.head]
        if not ahead or now - self._since < BEHIND_PATIENCE:
            return
        self._request(min(ahead, key=lambda link: self.links[link].asked_at), now)

    def _resend(self, link: LinkId, from_seq: int, now: float, *, single: bool = False) -> None:
        """Send our records from ``from_seq`` on (one only if ``single``), paid from the link's
        budget: a peer can make us resend only so much, however it asks."""
        peer = self.links.get(link)
        if peer is None or from_seq < 1 or from_seq > self.head:
            return
        chunk: list[bytes] = []
        size = 0
        for signed in self.records[from_seq - 1 : from_seq if single else None]:
            if chunk and size + len(signed.raw) > SYNC_CHUNK_BYTES:
                break
            chunk.append(signed.raw)
            size += len(signed.raw)
        if not peer.spend(size, now):
            return
        if single:
            self._send(link, {"t": "record", "record": chunk[0]})
        else:
            self._send(link, {"t": "sync_reply", "from_seq": from_seq, "records": chunk})

    # --- table talk ----------------------------------------------------------------------

    def _on_chat(self, link: LinkId | None, raw: bytes, now: float) -> None:
        """A message from a link (None: our own), kept, held back, or dropped."""
        try:
            verdicts = self.chat.offer(raw, self.head, now)
        except ChatError as exc:
            if link is not None:
                self._close(link, f"bad chat: {exc}")
            return
        self._chat_verdicts(verdicts, link)

    def _chat_verdicts(self, verdicts: list[ChatVerdict], source: LinkId | None) -> None:
        for verdict in verdicts:
            if isinstance(verdict, Heard):
                self._out.append(StoreChat(verdict.signed.raw))
                frame = {"t": "chat", "message": verdict.signed.raw}
                for link in self.links:
                    if link != source:
                        self._send(link, frame)
                self._out.append(Notice("chat", verdict.line))
            else:
                self._out.append(Notice("muted", (verdict.seat, verdict.why)))

    # --- plumbing ------------------------------------------------------------------------

    def _send(self, link: LinkId, frame: dict[str, Any]) -> None:
        if self.me is None and frame["t"] not in OBSERVER_FRAMES:
            return  # an observer writes nothing, relays nothing, votes nothing
        peer = self.links.get(link)
        if peer is not None and peer.seat is None and frame["t"] in ("absent", "ack"):
            return  # nobody's vote or ack is an observer's business
        self._out.append(Send(link, frame))

    def _close(self, link: LinkId, reason: str) -> None:
        if self.links.pop(link, None) is not None:
            self._out.append(Close(link, reason[:200]))
            self._forget_future_of(link)

    def _drain(self) -> list[Action]:
        out, self._out = self._out, []
        return out


__all__ = [
    "Action",
    "Close",
    "LinkId",
    "Notice",
    "PeerLink",
    "PeerProtocol",
    "ProtocolConfig",
    "Remember",
    "Rewrite",
    "Send",
    "Store",
    "StoreChat",
    "priority",
]

"""A peer in play: the trio shell around the sans-IO peer protocol (``p2p.protocol``).

Theory of operation
-------------------
One ``Session`` runs per peer once the genesis is signed. Every rule that decides what to
accept, when a seat is absent, what is evidence and how to resync lives in ``PeerProtocol``;
who may link, and when a lost link is dialed again, in ``p2p.admission``; this module only
moves bytes and time:

* **Links.** Every connection starts with the handshake of ``p2p.handshake``, which binds both
  identities, both nonces, the table and the connection, so a link is authenticated before its
  first frame reaches the protocol and a relayed handshake opens none. **A live authenticated
  link is never replaced without its failure being seen**: a second connection of a peer we
  hold a live link to is held (its frames kept, its pings answered) while the old link is probed
  with a ``ping``; no ``pong`` within ``PROBE_TIMEOUT``, or the old link fails, and the new one
  takes its place (a peer that crashed and came back, a half-open link); an answer, and both
  are alive (the two seats dialed each other at once), so both ends keep the one the lower seat
  dialed (with one dialer, the older). **Either seat dials a lost link back** (the lower one
  ``LOWER_SEAT_DELAY`` later); an observer, whom no seat dials, dials every seat it loses.
* **Bounded.** A link's outbox holds encoded frames, bounded in bytes (``OUTBOX_BYTES``, less
  for a spectator), and all links of the session together (``OUTBOX_TOTAL``): over its bound a
  link is cut off, over the total the link that holds the most. Every frame must leave within
  ``SEND_DEADLINE``, or the link is dead. A closed link's reader and writer are cancelled and
  its queue dropped at once. So an honest session holds at most ``OUTBOX_TOTAL`` (32 MiB) of
  queued frames, one frame being read per connection (1 MiB; 1 KiB before the handshake, at
  most ``handshake.PENDING_TOTAL`` handshakes at once) and the protocol's bounded buffers,
  whatever seated cheaters and spectators send or fail to read. Before the handshake the
  listener's ``handshake.Door`` bounds what strangers cost (an address whose handshakes keep
  failing, or whose spectator links send what they must not, is closed unread for a while); a
  seat cut off for what it sent pays from a bucket of offences, then waits a backoff that
  doubles, before it is let back in or dialed again (``p2p.admission``).
* **Actions.** Each frame, tick and record of ours goes into the protocol, and its actions are
  carried out in order: ``Remember`` and ``Store`` are written and fsynced inline (a fsync
  costs far less than a thread hop here), so nothing that follows them in the same list, our
  record or an ack, leaves before it is durable; ``Send`` queues a frame on the link's bounded
  outbox; ``Close`` says goodbye and drops the link.
* **Writing.** When the protocol says it is our turn, the seat builds its record in a worker
  thread (a person may think), or on the event loop for a bot that decides at once
  (``inline_agent``: a thread hop costs more than most records); the record goes to the
  protocol, which remembers it with the memo of private choices before it is sent.
* **Time.** A ticker feeds the clock to the protocol (timeouts, votes, reports, result). The
  turn timeout is the table's, from the genesis (``config.turn_timeout`` is set from it, so a
  screen that shows the timer shows the table's), whatever this peer's own setting was.
* **The end.** Once the result is recorded, the session lingers until every link has
  confirmed our head, or ``linger`` seconds pass; with ``linger_for_absent``, a seat also waits
  until every seat has confirmed it, for up to a turn timeout (a seat away at the end may come
  back for it, and finding nobody it would wait out its own timeout and claim the game: a
  fork; an observer sends no records, so it waits only for a seat that a claim in its end
  declared absent, whose own record may outrank the claim, until that seat's branch could
  have reached its result: ``_awaited``, ``_patience_for_absent``). A
  session that has had no seat linked for ``alone_after`` seconds (three turn timeouts) stops
  unfinished and says why: the others finished or left while it was away (asleep, cut off),
  and nobody is left to send it the rest; ``spycraft resume`` tries again (docs/rulings.md).
  An end that rests on a claim whose accused never confirmed it stays open (``_mark_finished``):
  the accused may hold another end, and a resume on both sides, which waits for the seats as a
  bot peer does, makes the copies one.
* **Spectators.** A seat admits up to ``watchers`` strangers as observers, at most
  ``admission.WATCHERS_PER_ADDRESS`` from one address (a spectator's
  identity is its own, never a seat's: the handshake proves it), sends each the signed genesis
  first, then what any link gets that an observer may see (``p2p.protocol``). With ``announce``
  it announces the table in play on its interface (``p2p.discovery``), with how many watch
  through it; a failure to announce is logged, never an end of the game.
* **Table talk.** ``say`` signs and sends a line; ``chat_lines`` are the verified lines so far;
  each new one is an event (``chat``, a ``ChatLine``), and so is a speaker that talks too fast
  (``muted``). Chat messages are kept in ``chat.cbor`` beside the transcript.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import trio

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import SignedGenesis, SignedRecord, parse_record
from spycraft.crypto.transcript import Transcript
from spycraft.crypto.vouch import Vouched, vouching
from spycraft.engines import absence
from spycraft.engines.agent import Agent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import TableSeat, table_key_public
from spycraft.engines.table import TableState
from spycraft.p2p import handshake
from spycraft.p2p.admission import ALREADY_CONNECTING, REDIAL_AFTER, Admission
from spycraft.p2p.bucket import Bucket
from spycraft.p2p.chat import ChatLine
from spycraft.p2p.discovery import Announcer, DiscoveryError
from spycraft.p2p.events import (
    Alone,
    Cheated,
    DeclaredAbsent,
    Events,
    LinkClosed,
    Linked,
    Muted,
    RecordStored,
    Stuck,
    Talk,
    Unconfirmed,
    Waiting,
    ignore,
)
from spycraft.p2p.protocol import (
    Action,
    Close,
    LinkId,
    Notice,
    PeerProtocol,
    ProtocolConfig,
    Remember,
    Rewrite,
    Send,
    Store,
    StoreChat,
)
from spycraft.p2p.seating import RosterSeat
from spycraft.p2p.storage import GameStore, SeatFile, StorageError
from spycraft.p2p.wire import (
    PING_SIZE,
    Frame,
    FramedStream,
    FrameError,
    Hello,
    encode_frame,
    make_hello,
)

log = logging.getLogger("spycraft.p2p")

OUTBOX_BYTES = 4 << 20
"""Encoded frames a seat's link may have waiting to be sent (a sync reply is 512 KiB at most)."""
OBSERVER_OUTBOX_BYTES = 1 << 20
"""The same for a spectator's link (the genesis, the latest talk, sync replies)."""
OUTBOX_TOTAL = 32 << 20
"""Everything waiting to be sent on all links of the session: over it, the link that holds the
most is cut off (a reader that does not keep up, never the table)."""
SEND_DEADLINE = 10.0
"""Seconds one frame may take to leave: a link that takes longer is dead and is closed."""
PROBE_TIMEOUT = 3.0
"""Seconds a live link has to answer a probe before a new connection of its peer replaces it."""
HOLD_BYTES = 1 << 20
HOLD_FRAMES = 256
"""What a held connection may send before it is decided (frames for after its adoption)."""
READ_BURST, READ_RATE = 1024.0, 512.0
OBSERVER_READ_BURST, OBSERVER_READ_RATE = 32.0, 8.0
"""Frames a link's reader takes at once and a second, before it waits (so TCP slows the peer
down): what a peer's frames cost us in CPU is bounded whatever it sends, even frames that are
each cheap to answer (a spectator sends a head and a sync request every half second at most)."""


@dataclass
class SessionConfig:
    turn_timeout: float = 300.0  # what an opener proposes; in play, the genesis's (``Session``)
    linger: float = 3.0
    dial_timeout: float | None = None  # give up dialing a seat after this; None: until we
    # leave (a LAN may be down for minutes; ``alone_after`` bounds a peer that reaches nobody)
    grace: float | None = None  # between a last call and a vote; default min(2 s, timeout / 4)
    answer_delay: float = 0.0  # our records of the game's ``paced`` kinds (a person's or a bot's,
    # asked or forced) leave this long after their place began, or when built if that is later,
    # so their timing tells nothing about who decided (DESIGN §4)
    inline_agent: bool = False  # a bot that decides at once: build our records on the event loop
    # (no thread hop; while it is our turn nothing else is urgent), never for a person
    watchers: int = 8  # spectators we admit at once (0: none)
    announce: bool = False  # announce the table in play for spectators (a seated peer only)
    linger_for_absent: bool = False  # once the game is over, wait up to a turn timeout for
    # a seat that has not confirmed the end and is not linked now: it may come back for it (a
    # laptop that wakes, a link that comes back); bot peers and seatless hosts do
    alone: float | None = None  # seconds with no seat linked before we stop unfinished;
    # default three turn timeouts (at least 10 s): longer than any wait the others have for us

    @property
    def alone_after(self) -> float:
        return self.alone if self.alone is not None else max(10.0, 3 * self.turn_timeout)


class Outboxes:
    """The frames waiting to be sent on every link of a session, counted in bytes, and what
    the links sent."""

    def __init__(self, total: int = OUTBOX_TOTAL) -> None:
        self.total = total
        self.queued = 0
        self.links: set[Link] = set()
        self.frames_sent = 0
        self.bytes_sent = 0

    def make_room(self, link: Link, size: int) -> bool:
        """Whether ``link`` may queue ``size`` more bytes: over its own bound it is cut off;
        over the total, the link that holds the most is (perhaps this very one)."""
        if link.queued + size > link.limit:
            link.close(f"does not keep up ({link.queued + size} bytes would wait to be sent)")
            return False
        while self.queued + size > self.total and self.links:
            biggest = max(self.links, key=lambda other: other.queued)
            biggest.close(f"holds the most of {self.queued} bytes waiting to be sent")
            if biggest is link:
                return False
        return True


@dataclass(eq=False)
class Link:
    """One authenticated connection to one peer, with its queue of encoded frames (bounded in
    bytes, see ``Outboxes``) and the scope its reader and writer run in."""

    id: LinkId
    stream: FramedStream
    hello: Hello
    seat: int | None  # None for an observer
    dialed: bool = False  # we opened the connection
    outboxes: Outboxes = field(default_factory=Outboxes)
    closed: bool = False
    reason: str = ""
    queue: deque[bytes] = field(default_factory=deque)
    queued: int = 0  # bytes waiting, and in flight
    in_flight: int = 0
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    reading: trio.CancelScope = field(default_factory=trio.CancelScope)
    pongs: dict[bytes, trio.Event] = field(default_factory=dict)
    offence: str | None = None  # closed for what its peer sent: "garbage" (a frame refused
    # at the wire) or "misbehaved" (a frame the protocol refused)
    since: float = 0.0
    address: str = "?"
    _ready: trio.Event = field(default_factory=trio.Event)
    _ended: bool = False
    direct: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.outboxes.links.add(self)
        # A socket is written at once where a descriptor is a socket's (not on Windows, nor
        # for the memory streams of tests).
        self.direct = sys.platform != "win32" and isinstance(self.stream.stream, trio.SocketStream)

    @property
    def name(self) -> str:
        who = "observer" if self.seat is None else f"seat {self.seat}"
        return f"{who} ({self.hello.name})"

    @property
    def limit(self) -> int:
        return OBSERVER_OUTBOX_BYTES if self.seat is None else OUTBOX_BYTES

    def post(self, frame: Frame | bytes) -> None:
        """Send one frame (or the bytes ``encode_frame`` made of one): at once if nothing waits
        before it and the socket takes it, else queued for the link's writer."""
        if self.closed:
            return
        data = frame if isinstance(frame, bytes) else encode_frame(frame)
        if not self.queue and not self.in_flight and self.direct:
            data = self._send_now(data)
            if not data:
                return
        if not self.outboxes.make_room(self, len(data)):
            return
        self.queue.append(data)
        self.queued += len(data)
        self.outboxes.queued += len(data)
        self._ready.set()

    def _send_now(self, data: bytes) -> bytes:
        """Write what the socket takes of ``data`` now, without waking the writer (nothing
        waits before it, so the order holds); the rest, if any, is the writer's. A socket that
        is full or broken takes nothing here: the writer waits for it, or meets its error."""
        try:
            sent = os.write(self.stream.stream.socket.fileno(), data)  # type: ignore[attr-defined]
        except OSError:
            return data
        self.stream.bytes_sent += sent
        self.outboxes.bytes_sent += sent
        if sent == len(data):
            self.stream.frames_sent += 1
            self.outboxes.frames_sent += 1
        return data[sent:]

    def _forget_queue(self) -> None:
        """Drop what waits (a frame in flight stays counted until it is sent or cancelled)."""
        dropped = self.queued - self.in_flight
        self.outboxes.queued -= dropped
        self.queued = self.in_flight
        self.queue.clear()

    def close(self, reason: str = "") -> None:
        """Close at once: what waits is dropped, the reader and writer end, the stream closes."""
        if self._ended:
            return
        self.closed, self._ended, self.reason = True, True, reason or self.reason
        if reason:
            log.warning("%s: closing the link: it %s", self.name, reason)
        self._forget_queue()
        self.outboxes.queued -= self.in_flight
        self.queued = self.in_flight = 0
        self.outboxes.links.discard(self)
        self.scope.cancel()

    def finish(self, frame: Frame, reason: str) -> None:
        """Close after one last frame (a goodbye): nothing else is read or sent."""
        if self.closed:
            return
        self.closed, self.reason = True, reason
        self._forget_queue()
        data = encode_frame(frame)
        self.queue.append(data)
        self.queued += len(data)
        self.outboxes.queued += len(data)
        self.reading.cancel()
        self._ready.set()

    async def take(self) -> bytes | None:
        """The next frame to send, out of the queue but counted until ``sent`` (None once the
        link is closed and its last frame sent)."""
        while not self.queue:
            if self.closed:
                return None
            self._ready = trio.Event()
            await self._ready.wait()
        data = self.queue.popleft()
        self.in_flight = len(data)
        return data

    def sent(self) -> None:
        self.queued -= self.in_flight
        self.outboxes.queued -= self.in_flight
        self.in_flight = 0




def absent_text(seq: int, voters: list[int], timeout: float, cost: str,
                over: str | None) -> str:
    """What a seat is told when the others declared it absent (docs/rulings.md); ``over``:
    the result, when the abandon ended the game."""
    seats = ", ".join(map(str, voters))
    then = (f"the game is over: {over}" if over is not None else
            "the game goes on without your seat, and you still receive it to the end")
    return (f"you were declared absent at record {seq}: no record of yours reached seats "
            f"{seats} within the turn timeout ({timeout:g} s), and each of them voted so; "
            f"that stands ({cost}); {then}")


CONNECT_TIMEOUT = 5.0
SILENT_LINK = 10
"""Seconds a connection may hold data the other side has not acknowledged, or stay idle with
no answer to the kernel's keepalive probes, before it fails (``_notice_silence``)."""


def _notice_silence(framed: FramedStream) -> None:
    """A LAN that drops (a cable, a sleeping access point) sends no reset: without this a
    connection would stay open for minutes while TCP backs off its retransmissions, and when
    the LAN comes back the two peers would not speak until then (two seats that each waited out
    the other would end with two claims). With it the link fails within ``SILENT_LINK``
    seconds and is dialed again (``_redial``), so the peers meet as soon as the LAN is back."""
    stream = framed.stream
    if not isinstance(stream, trio.SocketStream):
        return  # a memory stream in a test
    sock = stream.socket
    options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_USER_TIMEOUT", SILENT_LINK * 1000), ("TCP_KEEPIDLE", 3),
                        ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", (SILENT_LINK - 3) // 2)):
        if hasattr(socket, name):  # Linux has them all; other systems some or none
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    for level, option, value in options:
        try:
            sock.setsockopt(level, option, value)
        except OSError:
            pass


def _build(seat: TableSeat, state: TableState[Any], agent: Agent, vouched: Vouched
           ) -> SignedRecord:
    """Our record after ``state``, its proofs and signature kept in ``vouched`` as they are
    made (in the worker thread too: ``vouched`` is shared, the context variable is not)."""
    with vouching(vouched):
        return seat.build(state, agent)


def unconfirmed_text(seats: list[str], head: int) -> str:
    """Why a game that ended on a claim stays open here (docs/rulings.md): the accused never
    confirmed the end, and its own copy may end otherwise."""
    names = ", ".join(seats)
    return (f"the game ended at record {head} on a claim that {names} was absent, and that seat "
            f"never confirmed this end (it was not linked when this peer left: asleep or cut "
            f"off, as a claim's accused often is); its own copy may end otherwise (at two seats "
            f"each side of a link that stayed down claims the other; no winner either way). "
            f"This copy is kept, and the game stays open here: run `spycraft resume` on both "
            f"machines while both are on the LAN, and the copies become one")


def alone_text(waited: float, head: int) -> str:
    """Why a session stopped unfinished with nobody linked (docs/rulings.md)."""
    return (f"no seat of this table has been linked for {waited:.0f} s: the others may have "
            f"finished or left while this peer was away; its copy of the game stops at record "
            f"{head}; `spycraft resume` tries again")


class Session:
    def __init__(
        self,
        *,
        definition: GameDefinition,
        genesis: SignedGenesis,
        roster: list[RosterSeat],
        seat: int | None,
        identity: Identity,
        master: bytes,
        store: GameStore,
        seat_file: SeatFile,
        listener: trio.SocketListener,
        agent: Agent | None = None,
        records: tuple[SignedRecord, ...] = (),
        observers: frozenset[bytes] = frozenset(),
        config: SessionConfig | None = None,
        events: Events | None = None,
        links: list[tuple[FramedStream, Hello]] | None = None,
        dial: list[int] | None = None,
    ) -> None:
        self.definition = definition
        self._initial_links = links or []
        self._initial_dial = dial or []
        self.table = definition.table()
        self.genesis = genesis
        self.roster = roster
        self.seat = seat
        self.identity = identity
        self.master = master
        self.store = store
        self.seat_file = seat_file
        self.listener = listener
        self.agent = agent
        self.observers = observers
        # The turn timeout is the table's (the genesis's), whatever this peer would have chosen.
        self.config = replace(config or SessionConfig(),
                              turn_timeout=genesis.genesis.turn_timeout)
        self.events = events or ignore
        own, memo = store.load_own()
        if memo is not None:  # newer than seat.cbor's: kept with our last record
            seat_file.memo.clear()
            seat_file.memo.update(memo)
        self.table_seat = (
            TableSeat(self.table, genesis.genesis, seat, identity, master, definition.seat,
                      seat_file.memo)
            if seat is not None
            else None
        )
        self.protocol = PeerProtocol(
            table=self.table,
            genesis=genesis,
            seat=self.table_seat,
            records=records,
            own=own,
            config=ProtocolConfig(self.config.turn_timeout, self.config.grace,
                                  self.config.answer_delay, definition.paced),
            now=trio.current_time(),
            chat=store.load_chat(),
        )
        self.links: dict[LinkId, Link] = {}
        self._by_identity: dict[bytes, Link] = {}
        self.admission = Admission([s.identity for s in roster], seat, observers=observers,
                                   watchers=self.config.watchers)
        self._dialing: set[int] = set()
        self._faults: Counter[str] = Counter()  # frames that met a bug of ours, by kind
        # A write of the game's files failed: the session stops, and until it has, no action
        # is carried out (``_execute``).
        self._unwritable: StorageError | None = None
        self.outboxes = Outboxes()
        self.door = handshake.Door()
        self._next_link = 0
        self._changed_event: trio.Event | None = None  # ``_changed``, once someone waits
        self._moved = trio.Event()  # set when the table moved (``_move``)
        self._watchers_changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._play = trio.CancelScope()  # cancelled when we stop alone (``_check_alone``)
        self._alone_since: float | None = None
        self._holds: dict[int, int] = {}  # seat -> the last record it confirmed holding
        self._leaving = False  # lingered: we dial nobody again
        self.gave_up: str | None = None  # why we stopped unfinished, if we did
        self.unconfirmed: str | None = None  # why an end on a claim stays open here, if it does
        # a resume of an end that stayed open (``_mark_finished``) is there to meet the accused:
        # it waits for the seats as a bot peer does, whatever ``linger_for_absent`` says
        self._for_absent = self.config.linger_for_absent or self.finished
        self.created_at: dict[int, float] = {}
        self.all_acked_at: dict[int, float] = {}
        self.frames_received = 0

    # --- state --------------------------------------------------------------------------------

    @property
    def state(self) -> TableState[Any]:
        return self.protocol.state

    @property
    def frames_sent(self) -> int:
        """Session frames sent on every link so far (not the handshakes')."""
        return self.outboxes.frames_sent

    @property
    def bytes_sent(self) -> int:
        return self.outboxes.bytes_sent

    @property
    def records(self) -> list[SignedRecord]:
        return self.protocol.records

    @property
    def finished(self) -> bool:
        return self.protocol.finished

    @property
    def transcript(self) -> Transcript:
        return self.protocol.transcript

    @property
    def chat_lines(self) -> list[ChatLine]:
        """Every verified chat line so far, in the order this peer took them."""
        return self.protocol.chat.lines

    @property
    def watching(self) -> int:
        """Spectators linked to us now (a host that watches without a seat included)."""
        return sum(1 for link in self.links.values() if link.seat is None)

    def say(self, text: str) -> None:
        """Say ``text`` at the table (from trio; ``p2p.chat.ChatRefused`` says why not)."""
        self._execute(self.protocol.say(text, trio.current_time()))

    @property
    def _changed(self) -> trio.Event:
        """Set by the next list of actions carried out (made when a task asks for it: most
        lists of actions have nobody waiting on them, and an event per frame costs)."""
        if self._changed_event is None:
            self._changed_event = trio.Event()
        return self._changed_event

    def _bump(self) -> None:
        event, self._changed_event = self._changed_event, None
        if event is not None:
            event.set()

    def _move(self) -> None:
        """The table moved (a record stored, or a rollback): ``_drive`` is woken if our turn
        came or the game ended (else it has nothing to do: a task switch saved per record)."""
        if self.finished or self.protocol.wants_turn() is not None:
            self._moved.set()
            self._moved = trio.Event()

    # --- actions ------------------------------------------------------------------------------

    def _execute(self, actions: list[Action]) -> None:
        if not actions or self._unwritable is not None:
            # After a failed write nothing more is done: the error stops the session, but a
            # task woken before it (a reader with frames buffered reads on without a
            # checkpoint) would otherwise store, acknowledge and send on what the files lack.
            return
        try:
            self._carry_out(actions)
        except StorageError as exc:
            self._unwritable = exc
            raise

    def _carry_out(self, actions: list[Action]) -> None:
        # a frame that goes to several links is encoded once (the last one, by its identity:
        # the protocol sends one frame object to all links in a row)
        frame: Frame | None = None
        data = b""
        moved = False
        for action in actions:
            if isinstance(action, Send):
                link = self.links.get(action.link)
                if link is not None:
                    if action.frame is not frame:
                        try:
                            data = encode_frame(action.frame)
                        except FrameError as exc:
                            log.error("refused to send a %s frame: %s", action.frame["t"], exc)
                            continue
                        frame = action.frame
                    link.post(data)
            elif isinstance(action, Store):
                self.store.append(*action.records)
                moved = True
            elif isinstance(action, Notice):
                self._notice(action)
            elif isinstance(action, StoreChat):
                self.store.append_chat(action.raw)
            elif isinstance(action, Remember):
                self.store.remember_own(action.seq, action.prev, action.raw, self.seat_file.memo)
            elif isinstance(action, Rewrite):
                moved = True
                self.store.truncate_to(action.transcript)
                if action.chat is not None:
                    self.store.rewrite_chat(action.chat)
            elif isinstance(action, Close):
                link = self.links.get(action.link)
                if link is not None:
                    log.log(logging.INFO if action.reason == "goodbye" else logging.WARNING,
                            "disconnecting %s: %s", link.name, action.reason)
                    self.events(LinkClosed(link.name, action.reason))
                    if action.reason != "goodbye":
                        link.offence = "misbehaved"
                    self._bye(link, action.reason)
        self._bump()
        if moved:
            self._move()

    def _notice(self, notice: Notice) -> None:
        kind, data = notice.kind, notice.data
        if kind == "record":
            self.events(RecordStored(*data))
            self._told_if_absent(*data)
        elif kind == "fraud":
            signed, error = data
            log.warning("rejected record %d of seat %d: %s", signed.seq, signed.seat, error)
            self.events(Cheated("fraud", str(error)))
        elif kind == "equivocation":
            a, _ = data
            log.warning(
                "seat %d signed two different records for seq %d: equivocation", a.seat, a.seq
            )
            self.events(Cheated("equivocation", f"seat {a.seat} signed two different records "
                                                f"for record {a.seq}"))
        elif kind == "rollback":
            log.warning("rolling back to record %d (dropping %d records)", *data)
            for seat, held in self._holds.items():  # what they held is not what we hold now
                self._holds[seat] = min(held, data[0])
        elif kind == "vote":
            log.warning("no record from seat %d in %.0f s: voting it absent", data,
                        self.config.turn_timeout)
        elif kind == "abandon":
            log.warning("declaring seat %d absent with the votes of seats %s", data[0],
                        ", ".join(map(str, data[1])))
        elif kind == "report":
            log.warning("writing a fraud record at %d (%d evidence records)", *data)
        elif kind == "refused":
            signed, error = data
            log.error("our own %s record %d was refused: %s", signed.record.kind, signed.seq, error)
            self.events(Stuck(f"our own record {signed.seq} was refused by our engine: {error}"))
        elif kind == "bye":
            log.info("seat %s said goodbye: %s", *data)
        elif kind == "chat":
            self.events(Talk(data))
        elif kind == "muted":
            log.warning("chat of seat %d: %s", *data)
            self.events(Muted(*data))

    def _told_if_absent(self, before: TableState[Any], signed: SignedRecord,
                        after: TableState[Any]) -> None:
        """Our own seat declared absent (a laptop that slept, a link that stayed down past the
        turn timeout): the abandon stands, as every peer holds it, and we say so plainly, once
        (docs/rulings.md, "A seat that comes back after it was declared absent")."""
        new = after.incidents[len(before.incidents):]
        for incident in new:
            if incident.kind != "abandon" or incident.seat != self.seat:
                continue
            voters = sorted(absence.voters(signed.record))
            forfeit = next((f for f in after.forfeits if f.seq == incident.seq), None)
            text = absent_text(incident.seq, voters, self.config.turn_timeout,
                               forfeit.what if forfeit else "abandoned",
                               None if after.result is None else after.result.describe())
            log.warning("%s", text)
            self.events(DeclaredAbsent(text))

    # --- running ------------------------------------------------------------------------------

    async def run(self) -> TableState[Any]:
        """Play to the end (the result record), then linger so the others get the last record."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._serve)
            for stream, hello in self._initial_links:
                # the lobby's links: each joiner dialed the opener and the seats before it
                seat = self.seat_of(hello.identity_key)
                dialed = self.seat is None or (seat is not None and seat < self.seat)
                self._add_link(stream, hello, dialed=dialed)
            for seat in self._initial_dial:
                nursery.start_soon(self._dial, seat)
            nursery.start_soon(self._ticker)
            if self.config.announce and self.seat is not None:
                nursery.start_soon(self._announce)
            while self.gave_up is None:  # lost links are dialed again until we leave
                self._play = trio.CancelScope()
                with self._play:
                    await self._drive()
                await self._linger()
                if self.finished:  # and passed on: a crash before this resumes to pass it on
                    self._mark_finished()
                    break  # else a record that outranks ours rolled the end back: play on
            self._leaving = True
            nursery.cancel_scope.cancel()
        for link in list(self.links.values()):
            link.close()
        self.store.close()
        return self.state

    def _mark_finished(self) -> None:
        """The end was passed on: the seat file says so, and ``spycraft resume`` lists the game no
        more; unless the end rests on a claim whose accused never confirmed it (the chaos run: at
        two seats, a LAN split for longer than the other side's wait leaves each side with its
        own claim, and neither learns of the other's). Then the game stays open, so that
        ``spycraft resume`` on both sides makes the copies one when they meet (rule 3 of
        ``p2p.protocol`` decides), and we say so, once (docs/rulings.md)."""
        head = self.state.seq
        accused = [seat for seat in sorted(self.protocol.accused_by_claims())
                   if seat != self.seat and self._holds.get(seat, 0) < head]
        if accused:
            self.unconfirmed = unconfirmed_text(
                [f"seat {seat} ({self.roster[seat].name})" for seat in accused], head)
            log.warning("%s", self.unconfirmed)
            self.events(Unconfirmed(self.unconfirmed))
            return
        self.seat_file.finished = True
        self.store.save_seat(self.seat_file)

    async def _drive(self) -> None:
        while not self.finished:
            changed = self._moved  # only a new record or a rollback can bring our turn
            state = self.protocol.wants_turn()
            if state is not None:
                await self._write_turn(state)
                continue
            await changed.wait()

    async def _write_turn(self, state: TableState[Any]) -> None:
        assert self.table_seat is not None
        seat = self.table_seat
        agent = self.agent
        if agent is None:
            raise RuntimeError("a seated session needs an agent")
        changed = self._moved
        remembered = self.protocol.own.get(self.protocol.place)
        vouched = Vouched()  # the proofs our build makes (crypto.vouch)
        try:
            if remembered is not None:
                # Signed here before a crash (own.cbor keeps it, with the memo of its choice):
                # sent again as it was, never decided again, and checked in full (nothing in
                # ``vouched``).
                signed = parse_record(remembered)
            elif self.config.inline_agent:
                signed = _build(seat, state, agent, vouched)
            else:
                signed = await trio.to_thread.run_sync(
                    _build, seat, state, agent, vouched, abandon_on_cancel=True
                )
        except SpycraftError as exc:
            # What another seat sent keeps us from building (the engines make this a proof at
            # the final reveal wherever they can): say so, never crash, wait for the table.
            log.error("seat %s cannot write record %d: %s", self.seat, state.seq + 1, exc)
            self.events(Stuck(str(exc)))
            await changed.wait()
            return
        leaves_at = self.protocol.leaves_at(signed.record.kind)
        if leaves_at is not None:
            await trio.sleep_until(leaves_at)
        # The memo of the choice just made is kept with the record (``Remember``), durably,
        # before the record leaves.
        if self.protocol.state is not state:
            return  # the table moved on while we thought (an abandon, a rollback): build again
        self.created_at[signed.seq] = trio.current_time()
        self._execute(self.protocol.submit(signed, trio.current_time(), vouched))  # then checked
        self._execute(self.protocol.check_own(trio.current_time()))

    async def _ticker(self) -> None:
        period = min(0.25, self.config.turn_timeout / 8)
        while True:
            await trio.sleep(period)
            self._execute(self.protocol.tick(trio.current_time()))
            self._check_alone(trio.current_time())

    def _check_alone(self, now: float) -> None:
        """Stop unfinished after ``alone_after`` seconds with no seat linked (module docstring)."""
        if self.finished or any(link.seat is not None for link in self.links.values()):
            self._alone_since = None
            return
        if self._alone_since is None:
            self._alone_since = now
        elif now - self._alone_since >= self.config.alone_after and self.gave_up is None:
            self.gave_up = alone_text(now - self._alone_since, self.state.seq)
            log.warning("%s", self.gave_up)
            self.events(Alone(self.gave_up))
            self._play.cancel()

    def _note_holds(self, link: Link) -> None:
        """Keep what a seat confirmed holding beyond its link (``_linger`` asks after it)."""
        peer = self.protocol.links.get(link.id)
        if peer is not None and link.seat is not None:
            self._holds[link.seat] = max(self._holds.get(link.seat, 0), peer.acked)

    def _awaited(self) -> frozenset[int]:
        """The seats ``_linger`` waits for (with ``linger_for_absent``) until each confirms our
        end. A seat waits for every other: one away at the end may come back for it, and finding
        nobody it would wait out its own timeout and claim the game (a fork). An observer sends
        no records, so it cannot give an away seat the end, but a seat a claim declared absent
        can give it another: its own record for that place, held back by a cut LAN, outranks
        the claim (``PeerProtocol.accused_by_claims``), and only that seat holds it (the chaos
        run, seed 1, table 40: at two seats each side of a cut claimed the other absent; the
        seats agreed once the LAN came back, after the host had left with the outranked claim)."""
        if self.seat is not None:
            return frozenset(range(len(self.roster))) - {self.seat}
        return self.protocol.accused_by_claims()

    def _patience_for_absent(self) -> float:
        """How long ``_linger`` waits for an awaited seat. A seat waits a turn timeout: one
        away at the end that comes back within it gets the end. An observer waits for the
        accused of a claim until the accused's own branch, if it holds its record for that
        place, has reached its result and been passed on: the place's ``relay_patience``,
        a turn timeout at the next place at most (the claimant, which took no record of it,
        stalls there), the voters' graces and a claim's ``n`` more, the result's and its
        frame's (``relay_patience + turn_timeout + (n + 3) * grace``). Before that, a result
        on the claim may be all it holds of the place while the accused's record, with
        nothing built on it yet, is the one the order puts first once its result is there
        (rule 3 of ``p2p.protocol``: the sore loser who claims the winner absent at the
        winner's ``final``)."""
        if self.seat is not None:
            return self.config.turn_timeout
        config = self.protocol.config
        return config.relay_patience + config.turn_timeout + \
            (len(self.roster) + 3) * config.vote_grace

    def _tell_waiting(self, seats: list[int], patience: float) -> None:
        """Say plainly why a seatless host has not left after the result."""
        self._tell_host(f"the game is over, but a claim declared {self._names(seats)} absent: "
                        f"waiting up to {patience:.0f} s for that seat's own record, which "
                        "would outrank the claim")

    def _tell_held(self, seats: list[int]) -> None:
        """Say that a claim's accused showed a seatless host that it holds this end (at once,
        or after a wait): the host has nobody left to wait for. (A wait that runs out is said
        by ``Unconfirmed``: the game stays open.)"""
        self._tell_host(f"{self._names(seats)}, declared absent by a claim, "
                        f"{'holds' if len(seats) == 1 else 'hold'} this end: nobody left to "
                        "wait for")

    def _names(self, seats: list[int]) -> str:
        return ", ".join(f"seat {seat} ({self.roster[seat].name})" for seat in seats)

    def _tell_host(self, text: str) -> None:
        if self.seat is not None:
            return
        log.info("%s", text)
        self.events(Waiting(text))

    async def _linger(self) -> None:
        """Give the others time to receive the last record: until every link confirmed it
        (``linger`` seconds at most, from when it came up if later) and, with
        ``linger_for_absent``, every seat (a turn timeout at most); nothing to wait for if we
        stopped unfinished. A result that another
        outranks while we linger (a late writer's, then the seat's own) is a new end: the
        waits start again for it, and what a seat confirmed before the rollback counts no more
        (before, the peers that switched left at once and a seatless host kept the other)."""
        end: bytes | None = None
        head, start = self.state.seq, trio.current_time()
        awaited: frozenset[int] = frozenset()
        told: bytes | None = None  # the end we said we wait for
        held: bytes | None = None  # the end we said the accused hold
        while self.finished:
            if self.state.link != end:  # the end, or one that outranked it and took its place
                end, head, start = self.state.link, self.state.seq, trio.current_time()
                awaited = self._awaited()
            waiting = False
            now = trio.current_time()
            for link in self.links.values():
                peer = self.protocol.links.get(link.id)
                if link.closed or peer is None:
                    continue
                self._note_holds(link)
                # A link that came up while we linger gets ``linger`` seconds of its own: a
                # seat back just before our wait for it ran out (the chaos run: a laptop off
                # the LAN past its claim linked as the other seat left, and they never
                # exchanged the branches that would have made them agree).
                waiting = waiting or (peer.acked < head and
                                      now - max(start, link.since) < self.config.linger)
            elapsed = now - start
            patience = self._patience_for_absent()
            absent = [seat for seat in sorted(awaited) if self._holds.get(seat, 0) < head]
            missing = self._for_absent and elapsed < patience and bool(absent)
            if missing and told != end:
                told = end
                self._tell_waiting(absent, patience)
            if self.seat is None and self._for_absent and awaited and not absent \
                    and held != end:
                held = end
                self._tell_held(sorted(awaited))
            # and never past one ``linger`` beyond the longest wait (a peer that links again
            # and again cannot keep us)
            bound = self.config.linger + max(
                self.config.linger, patience if self._for_absent else 0.0)
            # What waits in our outboxes goes out first, the end we told among it (links close,
            # and drop their queues, when we leave); for ``linger`` seconds at most, as long as
            # we wait for a link's confirmation, so a peer that stops reading keeps us no longer.
            flushing = bool(self.outboxes.queued) and elapsed < self.config.linger
            if (not missing and not waiting and not flushing) or elapsed >= bound:
                return
            self._execute(self.protocol.tick(trio.current_time()))
            await trio.sleep(0.05)

    # --- links --------------------------------------------------------------------------------

    def seat_of(self, identity_key: bytes) -> int | None:
        return self.admission.seat_of(identity_key)

    def my_hello(self) -> handshake.HelloBuilder:
        key = table_key_public(self.master)
        name = self.roster[self.seat].name if self.seat is not None else "observer"
        table = self.genesis.genesis.table
        return lambda nonce, echo: make_hello(
            self.identity, key, table, name, nonce=nonce, echo=echo, seat=self.seat
        )

    def _add_link(self, stream: FramedStream, hello: Hello, *, dialed: bool = False,
                  held: list[Frame] | None = None) -> Link:
        """Adopt an authenticated connection as the link to its peer (``held``: frames it sent
        while it was on hold, handed to the protocol first)."""
        assert self._nursery is not None
        seat = self.seat_of(hello.identity_key)
        old = self._by_identity.get(hello.identity_key)
        if old is not None:
            old.close(old.reason or "replaced by a newer link")
            self._drop(old)
        self._next_link += 1
        _notice_silence(stream)
        link = Link(self._next_link, stream, hello, seat, dialed=dialed, outboxes=self.outboxes,
                    since=trio.current_time(), address=peer_address(stream.stream))
        self.links[link.id] = link
        self._by_identity[hello.identity_key] = link
        if seat is None:  # a spectator: the table's genesis before anything else
            link.post({"t": "genesis", "genesis": self.genesis.raw})
            self._watchers_changed.set()
        self._nursery.start_soon(self._run_link, link, held or [])
        watcher = hello.identity_key if hello.identity_key in self.observers else None
        self._execute(self.protocol.link_up(link.id, seat, trio.current_time(),
                                            watcher=watcher))
        self.events(Linked(link))
        return link

    def _drop(self, link: Link) -> bool:
        """Forget a link (closed or closing); True if it was the current link of its peer."""
        link.close()
        current = self.links.get(link.id) is link
        if current:
            del self.links[link.id]
            self._note_holds(link)
            self.protocol.link_down(link.id)
            if link.seat is None:
                self._watchers_changed.set()
        if self._by_identity.get(link.hello.identity_key) is link:
            del self._by_identity[link.hello.identity_key]
        return current

    async def _run_link(self, link: Link, held: list[Frame]) -> None:
        """A link's reader and writer, in the link's scope; when they end, the link is gone: its
        stream is closed, its queue dropped, and its peer dialed again if it has a seat."""
        try:
            with link.scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, link)
                    nursery.start_soon(self._reader, link, held)
        finally:
            link.close()
            current = self._drop(link)
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await link.stream.aclose()
            if link.seat is None and link.offence:  # a stranger's garbage: its address pays
                self.door.refused(link.address, trio.current_time())
            if current:
                self._redial(link, after=self.admission.after_losing(
                    link.hello.identity_key, link.seat, lived=trio.current_time() - link.since,
                    offence=link.offence, now=trio.current_time()))

    async def _writer(self, link: Link) -> None:
        """Send what the link's queue holds, one frame at a time, each within the deadline."""
        try:
            while True:
                data = await link.take()
                if data is None:
                    break
                before = link.stream.bytes_sent
                with trio.move_on_after(SEND_DEADLINE if not link.closed else 1.0) as deadline:
                    await link.stream.send(data)
                if deadline.cancelled_caught:
                    link.close(f"took more than {SEND_DEADLINE:.0f} s to take one frame")
                    break
                link.sent()
                self.outboxes.frames_sent += 1
                self.outboxes.bytes_sent += link.stream.bytes_sent - before
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s lost while sending: %s", link.name, exc)
        link.close()

    async def _reader(self, link: Link, held: list[Frame]) -> None:
        burst, rate = (READ_BURST, READ_RATE) if link.seat is not None else \
            (OBSERVER_READ_BURST, OBSERVER_READ_RATE)
        reads = Bucket.full(burst, rate, trio.current_time())
        try:
            for frame in held:
                self._on_frame(link, frame)
            with link.reading:
                while not link.closed:
                    while not reads.take(trio.current_time()):
                        await trio.sleep((1 - reads.tokens) / rate)
                    frame = await link.stream.receive()
                    self.frames_received += 1
                    if link.closed:
                        break
                    self._on_frame(link, frame)
                return
        except trio.EndOfChannel:
            log.info("%s closed the connection", link.name)
        except FrameError as exc:
            log.warning("disconnecting %s: bad frame: %s", link.name, exc)
            link.offence = "garbage"
            self._bye(link, f"bad frame: {exc}")
            return
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s lost: %s", link.name, exc)
        link.close()

    def _on_frame(self, link: Link, frame: Frame) -> None:
        kind = frame["t"]
        if frame["t"] == "ping":
            link.post({"t": "pong", "nonce": frame["nonce"]})
        elif frame["t"] == "pong":
            waiter = link.pongs.pop(frame["nonce"], None)
            if waiter is not None:
                waiter.set()
        else:
            try:
                actions = self.protocol.receive(link.id, frame, trio.current_time())
            except Exception:  # noqa: BLE001 (any bug of ours, by its nature unforeseen)
                # A bug of ours that a peer's frame reached (red team 5's vote for record 0
                # ended every honest process at head 0): the frame is dropped, the link kept
                # (the peer may be honest), and the process plays on if the protocol's
                # invariants hold; the first traceback of a kind is logged whole.
                self._on_fault(link, kind)
                actions = self.protocol.after_fault()
            self._execute(actions)
            if frame["t"] == "ack":
                self._note_acked(frame["seq"])

    def _on_fault(self, link: Link, kind: str) -> None:
        """Log a frame that met a bug of ours: the first of its kind whole, then a line each up
        to ten, then a line every thousand (a peer that sends it in a storm fills no disk)."""
        self._faults[kind] += 1
        count = self._faults[kind]
        if count == 1:
            log.exception("a %s frame from %s met a bug in spycraft: dropped, and play goes "
                          "on (please report this traceback)", kind, link.name)
        elif count <= 10 or count % 1000 == 0:
            log.error("a %s frame from %s met the same bug in spycraft again (%d times, "
                      "dropped): %s", kind, link.name, count, sys.exc_info()[1])

    def _note_acked(self, seq: int) -> None:
        """For the benchmark: when every other seat confirmed one of our records."""
        if seq not in self.created_at or seq in self.all_acked_at:
            return
        seated = 0
        for link in self.links.values():
            peer = self.protocol.links.get(link.id) if link.seat is not None else None
            if peer is not None:
                if peer.acked < seq:
                    return  # one that has not confirmed it: no need to look at the others
                seated += 1
        if seated == len(self.roster) - 1:
            self.all_acked_at[seq] = trio.current_time()

    def _redial(self, link: Link, after: float = REDIAL_AFTER) -> None:
        """Either seat of a lost link dials the other back (the lower one a little later, so
        they seldom cross; if they do, ``_settle`` keeps one link on both sides); an observer,
        whom no seat dials, dials every seat it loses. After we cut a seat off for what it sent
        we dial it again too, later: a seat is cut off only while it misbehaves, never for good
        (it may be honest and the frame a relay's)."""
        if self._nursery is None or self._leaving or link.seat is None:
            return
        self._nursery.start_soon(self._dial, link.seat,
                                 self.admission.redial_delay(link.seat, after))

    def _bye(self, link: Link, reason: str) -> None:
        link.finish({"t": "bye", "reason": reason[:200]}, reason)

    def _spectators(self) -> dict[bytes, str]:
        """The spectators linked to us now (the table's named observers are not), and their
        addresses."""
        return {key: link.address for key, link in self._by_identity.items()
                if link.seat is None and key not in self.observers}

    def _admit(self, hello: Hello, address: str, tickets: list[int]) -> str | None:
        """Admission's answer to a hello at our door; a newcomer spectator let in holds a slot
        (its ticket in ``tickets``) until its handshake is over."""
        spectators = self._spectators()
        refusal = self.admission.admit(hello.identity_key, address, trio.current_time(),
                                       spectators)
        if refusal is None:
            ticket = self.admission.reserve(hello.identity_key, address, spectators)
            if ticket is not None:
                tickets.append(ticket)
        return refusal

    def _linked(self, identity: bytes) -> bool:
        """Whether we hold a live link to the holder of ``identity``."""
        link = self._by_identity.get(identity)
        return link is not None and not link.closed

    def _offer(self, stream: FramedStream, hello: Hello, *, dialed: bool) -> None:
        """A connection that passed the handshake: the link to its peer, unless that peer has a
        live link already; then the new one is held and ``_settle`` decides."""
        assert self._nursery is not None
        old = self._by_identity.get(hello.identity_key)
        if old is None or old.closed:
            self._add_link(stream, hello, dialed=dialed)
            return
        if hello.identity_key in self.admission.settling:
            self._nursery.start_soon(self._refuse, stream, "already connecting")
            return
        self.admission.settling.add(hello.identity_key)
        self._nursery.start_soon(self._settle, old, stream, hello, dialed)

    async def _settle(self, old: Link, stream: FramedStream, hello: Hello, dialed: bool) -> None:
        """A second connection with a peer we hold a live link to. A live authenticated link is
        never replaced without its failure being seen: the new connection is held (its frames
        kept, its probes answered) while the old link is probed. If the old one does not answer
        within ``PROBE_TIMEOUT``, or fails, it is dead and the new one takes its place. If it
        answers, both are alive (the two seats dialed each other at once, or the peer dialed
        again): both ends keep the same one, the link the lower seat dialed, or with one dialer
        the older link; the other is closed with a goodbye."""
        held = _Held()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._hold, stream, held, nursery.cancel_scope)
                alive = await self._probe(old)
                nursery.cancel_scope.cancel()
        finally:
            self.admission.settling.discard(hello.identity_key)
        if held.error is not None:  # the held connection misbehaved: it loses
            log.warning("%s: refused a second connection: %s", old.name, held.error)
            await self._refuse(stream, f"bad frame: {held.error}")
            return
        if held.gone:
            return
        if not alive:
            if old.closed:
                log.info("%s: its old link failed: its new connection replaces it", old.name)
            else:
                log.warning("%s did not answer a probe: its new connection replaces the old "
                            "link", old.name)
            old.close("did not answer a probe")
            self._add_link(stream, hello, dialed=dialed, held=held.frames)
        elif self.admission.keep_new(old.seat, old.dialed, dialed):
            log.info("%s: both seats dialed; keeping the link the lower seat dialed", old.name)
            self._bye(old, "replaced by the link the lower seat dialed")
            self._add_link(stream, hello, dialed=dialed, held=held.frames)
        else:
            await self._refuse(stream, "already linked")

    async def _probe(self, link: Link) -> bool:
        """Whether ``link`` answers a ping within ``PROBE_TIMEOUT``."""
        nonce = handshake.fresh_nonce()[:PING_SIZE]
        answered = link.pongs[nonce] = trio.Event()
        link.post({"t": "ping", "nonce": nonce})
        with trio.move_on_after(PROBE_TIMEOUT):
            while not link.closed and not answered.is_set():
                with trio.move_on_after(0.05):
                    await answered.wait()
        link.pongs.pop(nonce, None)
        return answered.is_set() and not link.closed

    @staticmethod
    async def _hold(stream: FramedStream, held: _Held, scope: trio.CancelScope) -> None:
        """Read a held connection: answer its pings, keep the rest (``HOLD_BYTES`` at most)."""
        start = stream.bytes_received
        pings = 0
        try:
            while True:
                frame = await stream.receive()
                pings += frame["t"] == "ping"
                if stream.bytes_received - start > HOLD_BYTES or \
                        len(held.frames) + pings > HOLD_FRAMES:  # pings too (red team 7)
                    raise FrameError(f"sent more than {HOLD_FRAMES} frames or "
                                     f"{HOLD_BYTES} bytes while on hold")
                if frame["t"] == "ping":
                    with trio.move_on_after(1):
                        await stream.send({"t": "pong", "nonce": frame["nonce"]})
                elif frame["t"] == "bye":
                    raise trio.EndOfChannel
                else:
                    held.frames.append(frame)
        except FrameError as exc:
            held.error = str(exc)
        except (trio.EndOfChannel, trio.BrokenResourceError, trio.ClosedResourceError,
                OSError):
            held.gone = True
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await stream.aclose()
        scope.cancel()

    async def _refuse(self, stream: FramedStream, reason: str) -> None:
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            try:
                await stream.send({"t": "bye", "reason": reason})
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
            await stream.aclose()

    async def _announce(self) -> None:
        """Announce the table in play for spectators, and how many watch through us."""
        genesis = self.genesis.genesis
        try:
            async with Announcer(
                self.seat_file.interface, port=self.listener.socket.getsockname()[1],
                game=genesis.game, options=genesis.options,
                table_id=genesis.table, fingerprint=self.identity.fingerprint,
                seats_total=len(genesis.seats), seats_taken=len(genesis.seats),
                watching=self.watching, source=str(self.seat),
            ) as ad:
                while True:
                    await self._watchers_changed.wait()
                    self._watchers_changed = trio.Event()
                    await ad.update(watching=self.watching)
        except (DiscoveryError, OSError) as exc:
            log.warning("the table is not announced to spectators: %s", exc)

    async def _serve(self) -> None:
        table = self.genesis.genesis.table

        async def handle(stream: trio.SocketStream) -> None:
            tickets: list[int] = []  # a spectator's slot, held until the link is adopted
            outcome = "failed"
            try:
                outcome = await knock(stream, tickets)
            finally:  # a handshake that gave way to newer ones is not its peer's failure
                for ticket in tickets:
                    self.admission.release(ticket, failed=outcome == "failed",
                                           now=trio.current_time())

        async def knock(stream: trio.SocketStream, tickets: list[int]) -> Knocked:
            """The handshake of one connection: linked, failed, or gave way to newer ones."""
            address = peer_address(stream)
            if not self.door.open(address, trio.current_time()):
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    await stream.aclose()
                return "failed"
            framed = FramedStream(stream)
            try:
                with self.door.knocking(address) as scope, scope:
                    hello = await handshake.accept(framed, self.my_hello(), table,
                                                   lambda hello: self._admit(hello, address,
                                                                             tickets))
                if scope.cancelled_caught:
                    log.warning("refused a connection: gave way to newer connections")
                    self.door.refused(address, trio.current_time())
                    with trio.CancelScope(shield=True), trio.move_on_after(1):
                        await framed.aclose()
                    return "gave way"
            except handshake.Refused as refused:
                # counted, but for two connections of one peer crossing: one signed hello,
                # replayed where it is refused, cost a signature check each (red team 7)
                if str(refused) != ALREADY_CONNECTING:
                    self.door.refused(address, trio.current_time())
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    await framed.aclose()
                return "failed"
            except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
                    OSError) as exc:
                log.warning("refused a connection: %s", str(exc) or type(exc).__name__)
                self.door.refused(address, trio.current_time())
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    await framed.aclose()
                return "failed"
            self._offer(framed, hello, dialed=False)
            return "linked"

        async with trio.open_nursery() as nursery:
            while True:
                stream = await self.listener.accept()
                nursery.start_soon(handle, stream)

    async def _dial(self, seat: int, after: float = 0.0) -> None:
        """Connect to a seat (the mesh after genesis, everyone after a resume), retrying, one
        dialer per seat at a time; each attempt gives up after ``CONNECT_TIMEOUT`` (a SYN into
        a LAN that is down would otherwise wait out the kernel's retries, minutes)."""
        if seat in self._dialing:
            return
        self._dialing.add(seat)
        try:
            await self._dial_until_linked(seat, after)
        finally:
            self._dialing.discard(seat)

    async def _dial_until_linked(self, seat: int, after: float) -> None:
        entry = self.roster[seat]
        table = self.genesis.genesis.table
        await trio.sleep(after)
        await trio.sleep_until(self.admission.dial_not_before(entry.identity))
        timeout = self.config.dial_timeout
        with trio.move_on_after(float("inf") if timeout is None else timeout):
            delay = 0.1
            while not self._linked(entry.identity) and not self._leaving:
                stream = None
                try:
                    with trio.move_on_after(CONNECT_TIMEOUT):
                        stream = await trio.open_tcp_stream(entry.host, entry.port)
                except (OSError, ValueError) as exc:  # ValueError: an address that is none
                    log.debug("dialing seat %d: %s", seat, exc)
                if stream is not None:
                    framed = FramedStream(stream)
                    try:
                        hello = await handshake.dial(framed, self.identity, self.my_hello(), table)
                        if hello.identity_key != entry.identity:
                            raise FrameError(
                                f"seat {seat}'s address answered with another identity"
                            )
                    except (FrameError, trio.TooSlowError, trio.EndOfChannel,
                            trio.BrokenResourceError, OSError) as exc:
                        log.info("dialing seat %d: %s", seat, str(exc) or type(exc).__name__)
                        with trio.CancelScope(shield=True), trio.move_on_after(1):
                            await framed.aclose()
                    else:
                        self._offer(framed, hello, dialed=True)
                        return
                await trio.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _broadcast(self, frame: Frame) -> None:
        for link in list(self.links.values()):
            link.post(frame)


@dataclass
class _Held:
    """What a connection on hold sent: frames for after its adoption, or why it lost."""

    frames: list[Frame] = field(default_factory=list)
    error: str | None = None
    gone: bool = False


Knocked = Literal["linked", "failed", "gave way"]
"""How one connection's handshake at our door ended (``Session._serve``)."""


def peer_address(stream: trio.abc.Stream) -> str:
    """The peer's address of a TCP stream ("?" for another kind of stream)."""
    try:
        return str(stream.socket.getpeername()[0])  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return "?"


__all__ = ["Link", "RosterSeat", "Session", "SessionConfig", "SpycraftError"]

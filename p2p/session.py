"""A peer in play: the trio shell around the sans-IO peer protocol (``p2p.protocol``).

Theory of operation
-------------------
One ``Session`` runs per peer once the genesis is signed. Every rule that decides what to
accept, when a seat is absent, what is evidence and how to resync lives in ``PeerProtocol``;
this module only moves bytes and time:

* **Links.** Every connection starts with the handshake of ``p2p.handshake`` (each side answers
  a fresh nonce with its identity key), so a link is authenticated before its first frame
  reaches the protocol. A seat that connects again (after a crash) replaces its old link, with a
  warning: only the holder of its key can, and a half-open old link would otherwise hold it
  out. The mesh heals from the higher seat's side; an observer dials every seat it loses.
* **Actions.** Each frame, tick and record of ours goes into the protocol, and its actions are
  carried out in order: ``Remember`` and ``Store`` are written and fsynced inline (a fsync
  costs far less than a thread hop here), so nothing that follows them in the same list, our
  record or an ack, leaves before it is durable; ``Send`` queues a frame on the link's bounded
  outbox (a peer that does not read is dropped); ``Close`` says goodbye and drops the link.
* **Writing.** When the protocol says it is our turn, the seat builds its record in a worker
  thread (a person may think), or on the event loop for a bot that decides at once
  (``inline_agent``: a thread hop costs more than most records); the record goes to the
  protocol, which remembers it with the memo of private choices before it is sent.
* **Time.** A ticker feeds the clock to the protocol (timeouts, votes, reports, result). The
  turn timeout is the table's, from the genesis (``config.turn_timeout`` is set from it, so a
  screen that shows the timer shows the table's), whatever this peer's own setting was.
* **The end.** Once the result is recorded, the session lingers until every link has
  confirmed our head, or ``linger`` seconds pass.
* **Spectators.** A seat admits up to ``watchers`` strangers as observers (a spectator's
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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import trio

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.errors import BadKey, SpycraftError
from spycraft.crypto.identity import Identity
from spycraft.crypto.keys import check_identity_key, check_table_key
from spycraft.crypto.records import SeatKeys, SignedGenesis, SignedRecord
from spycraft.crypto.transcript import Transcript
from spycraft.engines.agent import Agent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import TableSeat, table_key_public
from spycraft.engines.table import TableState
from spycraft.p2p import frames as _frames  # noqa: F401  (registers the session's frame types)
from spycraft.p2p import handshake
from spycraft.p2p.chat import ChatLine
from spycraft.p2p.discovery import Announcer, DiscoveryError
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
from spycraft.p2p.storage import GameStore, SeatFile
from spycraft.p2p.wire import FramedStream, FrameError, Hello, encode_frame, make_hello

log = logging.getLogger("spycraft.p2p")

OUTBOX = 1024
REDIAL_AFTER_BYE = 3.0


@dataclass(frozen=True)
class RosterSeat:
    """A seat as the lobby fixed it: its keys and where it listens."""

    name: str
    identity: bytes
    table_key: bytes
    beacon: bytes
    host: str
    port: int

    def to_bytes(self) -> bytes:
        return encode(
            {
                "name": self.name,
                "identity": self.identity,
                "table_key": self.table_key,
                "beacon": self.beacon,
                "host": self.host,
                "port": self.port,
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> RosterSeat:
        m = decode(data)
        fields = {"name": str, "identity": bytes, "table_key": bytes, "beacon": bytes, "host": str,
                  "port": int}
        if not isinstance(m, dict) or set(m) != set(fields):
            raise FrameError(
                "roster seat must be a map of name, identity, table_key, beacon, host, port"
            )
        for name, kind in fields.items():
            if not isinstance(m[name], kind) or isinstance(m[name], bool):
                raise FrameError(f"roster seat {name} must be {kind.__name__}")
        if not 0 < m["port"] < 65536 or len(m["beacon"]) != 32 or not 0 < len(m["name"]) <= 64:
            raise FrameError("roster seat has a bad port, beacon or name")
        try:
            check_identity_key(m["identity"])
            check_table_key(m["table_key"])
        except BadKey as exc:
            raise FrameError(f"roster seat {m['name']!r}: {exc}") from None
        return cls(m["name"], m["identity"], m["table_key"], m["beacon"], m["host"], m["port"])

    def keys(self) -> SeatKeys:
        return SeatKeys(self.name, self.identity, self.table_key, self.beacon)

    def to_cbor(self) -> dict[str, Any]:
        return {"identity": self.identity, "host": self.host, "port": self.port, "name": self.name}


@dataclass
class SessionConfig:
    turn_timeout: float = 300.0  # what an opener proposes; in play, the genesis's (``Session``)
    linger: float = 3.0
    dial_timeout: float = 30.0
    grace: float | None = None  # between a last call and a vote; default min(2 s, timeout / 4)
    answer_delay: float = 0.0  # our records of the game's ``paced`` kinds (a person's or a bot's,
    # asked or forced) leave this long after their place began, or when built if that is later,
    # so their timing tells nothing about who decided (DESIGN §4)
    inline_agent: bool = False  # a bot that decides at once: build our records on the event loop
    # (no thread hop; while it is our turn nothing else is urgent), never for a person
    watchers: int = 8  # spectators we admit at once (0: none)
    announce: bool = False  # announce the table in play for spectators (a seated peer only)


@dataclass
class Link:
    """One authenticated connection to one peer."""

    id: LinkId
    stream: FramedStream
    hello: Hello
    seat: int | None  # None for an observer
    send_channel: trio.MemorySendChannel[dict[str, Any] | bytes] = field(init=False)
    receive_channel: trio.MemoryReceiveChannel[dict[str, Any] | bytes] = field(init=False)
    closed: bool = False

    def __post_init__(self) -> None:
        self.send_channel, self.receive_channel = trio.open_memory_channel[dict[str, Any] | bytes](
            OUTBOX
        )

    @property
    def name(self) -> str:
        who = "observer" if self.seat is None else f"seat {self.seat}"
        return f"{who} ({self.hello.name})"

    def post(self, frame: dict[str, Any] | bytes) -> None:
        if self.closed:
            return
        try:
            self.send_channel.send_nowait(frame)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            log.warning("%s does not keep up; closing the link", self.name)
            self.close()

    def close(self) -> None:
        self.closed = True
        self.send_channel.close()


Events = Callable[[str, Any], None]


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
        self.events = events or (lambda kind, data: None)
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
            config=ProtocolConfig(self.config.turn_timeout, self.config.grace),
            now=trio.current_time(),
            chat=store.load_chat(),
        )
        self.links: dict[LinkId, Link] = {}
        self._by_identity: dict[bytes, Link] = {}
        self._next_link = 0
        self._changed = trio.Event()
        self._watchers_changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self.created_at: dict[int, float] = {}
        self.all_acked_at: dict[int, float] = {}
        self.frames_sent = 0
        self.bytes_sent = 0
        self.frames_received = 0

    # --- state --------------------------------------------------------------------------------

    @property
    def state(self) -> TableState[Any]:
        return self.protocol.state

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

    def _bump(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # --- actions ------------------------------------------------------------------------------

    def _execute(self, actions: list[Action]) -> None:
        encoded: dict[int, bytes] = {}  # a frame that goes to several links is encoded once
        for action in actions:
            if isinstance(action, Send):
                link = self.links.get(action.link)
                if link is not None:
                    key = id(action.frame)
                    if key not in encoded:
                        try:
                            encoded[key] = encode_frame(action.frame)
                        except FrameError as exc:
                            log.error("refused to send a %s frame: %s", action.frame["t"], exc)
                            continue
                    link.post(encoded[key])
            elif isinstance(action, Store):
                self.store.append(*action.records)
            elif isinstance(action, StoreChat):
                self.store.append_chat(action.raw)
            elif isinstance(action, Remember):
                self.store.remember_own(action.seq, action.prev, action.raw, self.seat_file.memo)
            elif isinstance(action, Rewrite):
                self.store.truncate_to(action.transcript)
            elif isinstance(action, Close):
                link = self.links.get(action.link)
                if link is not None:
                    log.warning("disconnecting %s: %s", link.name, action.reason)
                    self.events("closed", (link.name, action.reason))
                    self._bye(link, action.reason)
                    self._redial(link, after=REDIAL_AFTER_BYE)
            elif isinstance(action, Notice):
                self._notice(action)
        if actions:
            self._bump()

    def _notice(self, notice: Notice) -> None:
        kind, data = notice.kind, notice.data
        if kind == "record":
            self.events("record", data)
            if data[2].result is not None:
                self.seat_file.finished = True
                self.store.save_seat(self.seat_file)
        elif kind == "fraud":
            signed, error = data
            log.warning("rejected record %d of seat %d: %s", signed.seq, signed.seat, error)
            self.events("fraud", error)
        elif kind == "equivocation":
            a, _ = data
            log.warning(
                "seat %d signed two different records for seq %d: equivocation", a.seat, a.seq
            )
            self.events("equivocation", data)
        elif kind == "rollback":
            log.warning("rolling back to record %d (dropping %d records)", *data)
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
        elif kind == "bye":
            log.info("seat %s said goodbye: %s", *data)
        elif kind == "chat":
            self.events("chat", data)
        elif kind == "muted":
            log.warning("chat of seat %d: %s", *data)
            self.events("muted", data)

    # --- running ------------------------------------------------------------------------------

    async def run(self) -> TableState[Any]:
        """Play to the end (the result record), then linger so the others get the last record."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._serve)
            for stream, hello in self._initial_links:
                self._add_link(stream, hello)
            for seat in self._initial_dial:
                nursery.start_soon(self._dial, seat)
            nursery.start_soon(self._ticker)
            if self.config.announce and self.seat is not None:
                nursery.start_soon(self._announce)
            await self._drive()
            await self._linger()
            nursery.cancel_scope.cancel()
        for link in list(self.links.values()):
            link.close()
        return self.state

    async def _drive(self) -> None:
        while not self.finished:
            changed = self._changed
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
        changed = self._changed
        try:
            if self.config.inline_agent:
                signed = seat.build(state, agent)
            else:
                signed = await trio.to_thread.run_sync(
                    seat.build, state, agent, abandon_on_cancel=True
                )
        except SpycraftError as exc:
            # What another seat sent keeps us from building (the engines make this a proof at
            # the final reveal wherever they can): say so, never crash, wait for the table.
            log.error("seat %s cannot write record %d: %s", self.seat, state.seq + 1, exc)
            self.events("stuck", exc)
            await changed.wait()
            return
        if signed.record.kind in self.definition.paced and self.config.answer_delay > 0:
            # the longer of the delay and the decision: the record waits, never the decision
            await trio.sleep_until(self.protocol.since + self.config.answer_delay)
        # The memo of the choice just made is kept with the record (``Remember``), durably,
        # before the record leaves.
        if self.protocol.state is not state:
            return  # the table moved on while we thought (an abandon, a rollback): build again
        self.created_at[signed.seq] = trio.current_time()
        self._execute(self.protocol.submit(signed, trio.current_time()))

    async def _ticker(self) -> None:
        period = min(0.25, self.config.turn_timeout / 8)
        while True:
            await trio.sleep(period)
            self._execute(self.protocol.tick(trio.current_time()))

    async def _linger(self) -> None:
        """Give the others time to receive the last record (until every link confirmed it)."""
        head = self.state.seq
        with trio.move_on_after(self.config.linger):
            while any(
                not link.closed and self.protocol.links.get(link.id, None) is not None
                and self.protocol.links[link.id].acked < head
                for link in self.links.values()
            ):
                self._execute(self.protocol.tick(trio.current_time()))
                await trio.sleep(0.05)

    # --- links --------------------------------------------------------------------------------

    def seat_of(self, identity_key: bytes) -> int | None:
        for i, seat in enumerate(self.roster):
            if seat.identity == identity_key:
                return i
        return None

    def my_hello(self) -> handshake.HelloBuilder:
        key = table_key_public(self.master)
        name = self.roster[self.seat].name if self.seat is not None else "observer"
        table = self.genesis.genesis.table
        return lambda nonce, echo: make_hello(
            self.identity, key, table, name, nonce=nonce, echo=echo, seat=self.seat
        )

    def _add_link(self, stream: FramedStream, hello: Hello) -> Link:
        assert self._nursery is not None
        seat = self.seat_of(hello.identity_key)
        old = self._by_identity.get(hello.identity_key)
        if old is not None:
            log.warning("%s connected again: its new authenticated link replaces the old one",
                        old.name)
            self._drop(old)
        self._next_link += 1
        link = Link(self._next_link, stream, hello, seat)
        self.links[link.id] = link
        self._by_identity[hello.identity_key] = link
        if seat is None:  # a spectator: the table's genesis before anything else
            link.post({"t": "genesis", "genesis": self.genesis.raw})
            self._watchers_changed.set()
        self._nursery.start_soon(self._writer, link)
        self._nursery.start_soon(self._reader, link)
        self._execute(self.protocol.link_up(link.id, seat, trio.current_time()))
        self.events("link", link)
        return link

    def _drop(self, link: Link) -> None:
        link.close()
        if self.links.get(link.id) is link:
            del self.links[link.id]
            self.protocol.link_down(link.id)
            if link.seat is None:
                self._watchers_changed.set()
        if self._by_identity.get(link.hello.identity_key) is link:
            del self._by_identity[link.hello.identity_key]

    async def _writer(self, link: Link) -> None:
        try:
            async for frame in link.receive_channel:
                before = link.stream.bytes_sent
                await link.stream.send(frame)
                self.frames_sent += 1
                self.bytes_sent += link.stream.bytes_sent - before
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s lost while sending: %s", link.name, exc)
        except FrameError as exc:
            log.error("refused to send a frame to %s: %s", link.name, exc)
        finally:
            link.close()
            with trio.CancelScope(shield=True):
                with trio.move_on_after(1):
                    await link.stream.aclose()

    async def _reader(self, link: Link) -> None:
        try:
            while not link.closed:
                frame = await link.stream.receive()
                self.frames_received += 1
                if link.closed:
                    break
                self._execute(self.protocol.receive(link.id, frame, trio.current_time()))
                if frame["t"] == "ack":
                    self._note_acked(frame["seq"])
        except trio.EndOfChannel:
            log.info("%s closed the connection", link.name)
        except FrameError as exc:
            log.warning("disconnecting %s: bad frame: %s", link.name, exc)
            self._bye(link, f"bad frame: {exc}")
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s lost: %s", link.name, exc)
        finally:
            was_current = self.links.get(link.id) is link
            self._drop(link)
            if was_current:
                self._redial(link)

    def _note_acked(self, seq: int) -> None:
        """For the benchmark: when every other seat confirmed one of our records."""
        if seq not in self.created_at or seq in self.all_acked_at:
            return
        peers = [self.protocol.links[link.id] for link in self.links.values()
                 if link.seat is not None and link.id in self.protocol.links]
        if len(peers) == len(self.roster) - 1 and all(p.acked >= seq for p in peers):
            self.all_acked_at[seq] = trio.current_time()

    def _redial(self, link: Link, after: float = 1.0) -> None:
        """The mesh heals from the higher seat's side (it dials the lower seat it lost); an
        observer, whom no seat dials, dials every seat it loses. After we closed a link for a
        bad frame we dial again too, later: a seat is cut off only while it misbehaves, never
        for good (it may be honest and the frame a relay's)."""
        if (
            self._nursery is not None
            and not self.finished
            and link.seat is not None
            and (self.seat is None or self.seat > link.seat)
        ):
            self._nursery.start_soon(self._dial, link.seat, after)

    def _bye(self, link: Link, reason: str) -> None:
        link.post({"t": "bye", "reason": reason[:200]})
        self._drop(link)

    def _admit(self, hello: Hello) -> str | None:
        if self.seat_of(hello.identity_key) is not None or hello.identity_key in self.observers:
            return None
        if self.seat is None:
            return "not seated at this table (watch through a seat)"
        if hello.identity_key in self._by_identity:
            return None  # a spectator that connects again replaces its old link
        if self.watching >= self.config.watchers:
            return "no room for more spectators here (watch through another seat)"
        return None

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
            framed = FramedStream(stream)
            try:
                hello = await handshake.accept(framed, self.my_hello(), table, self._admit)
            except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
                    OSError) as exc:
                log.warning("refused a connection: %s", exc or type(exc).__name__)
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    await framed.aclose()
                return
            self._add_link(framed, hello)

        async with trio.open_nursery() as nursery:
            while True:
                stream = await self.listener.accept()
                nursery.start_soon(handle, stream)

    async def _dial(self, seat: int, after: float = 0.0) -> None:
        """Connect to a seat (the mesh after genesis, everyone after a resume), retrying."""
        entry = self.roster[seat]
        table = self.genesis.genesis.table
        await trio.sleep(after)
        with trio.move_on_after(self.config.dial_timeout):
            delay = 0.1
            while entry.identity not in self._by_identity and not self.finished:
                try:
                    stream = await trio.open_tcp_stream(entry.host, entry.port)
                except OSError as exc:
                    log.debug("dialing seat %d: %s", seat, exc)
                else:
                    framed = FramedStream(stream)
                    try:
                        hello = await handshake.dial(framed, self.identity, self.my_hello(), table)
                        if hello.identity_key != entry.identity:
                            raise FrameError(
                                f"seat {seat}'s address answered with another identity"
                            )
                    except (FrameError, trio.TooSlowError, trio.EndOfChannel,
                            trio.BrokenResourceError, OSError) as exc:
                        log.info("dialing seat %d: %s", seat, exc or type(exc).__name__)
                        with trio.CancelScope(shield=True), trio.move_on_after(1):
                            await framed.aclose()
                    else:
                        self._add_link(framed, hello)
                        return
                await trio.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _broadcast(self, frame: dict[str, Any]) -> None:
        for link in list(self.links.values()):
            link.post(frame)


__all__ = ["Link", "RosterSeat", "Session", "SessionConfig", "SpycraftError"]

"""A peer in play: records in engine order over a full TCP mesh, persisted, gossiped, acked.

Theory of operation
-------------------
One ``Session`` runs per peer once the genesis is signed. It holds the table engine's state and
one ``Link`` per connected peer (every seat, plus observers such as a host without a seat).

* **Writing.** When the engine names this seat, the seat builds its record (asking its agent
  for a decision, in a worker thread so a human can think), the memo of private choices is
  persisted, the record goes through the engine like anyone else's, is appended (fsync) and
  broadcast.
* **Disk.** One task owns the transcript file and works in a thread: it appends accepted
  records in order (one fsync for all that are waiting) and rewrites the file after a rollback.
  Nothing is announced before it is durable: our own records are broadcast, and others'
  acknowledged, only once fsynced, so the event loop never waits for the disk.
* **Receiving.** A record for the next seq goes through the engine; if it passes it is appended
  (fsync) and acknowledged to every link with its link hash. Acks are small and go everywhere,
  so they do the work of gossip: a peer that hears of a record it lacks asks that peer to
  ``sync``, and a peer that hears of a different record for a seq it holds sends its own (so an
  equivocation cannot stay hidden, and a broken mesh link loses nothing). A record from the
  future is held and the sender is asked to ``sync``; a record for a seq we hold is compared
  with ours (see conflicts).
* **Bad input.** A frame that fails the wire gates, or an invalid record, disconnects the link
  that sent it, with the reason logged; nothing recorded is lost. When the seat expected next
  signs a record the engine rejects, its first successor in seat order writes a ``fraud``
  record with that record as evidence.
* **Conflicts.** Two records for one seq. If one seat signed both on the same ``prev``, that is
  equivocation: the evidence is broadcast and the culprit's successor writes a ``fraud`` record
  at that seq. Otherwise one rule decides everywhere: fraud beats abandon beats an ordinary
  record (a late record loses to the abandon that declared it late); peers that held the loser
  roll back to the seq before it (the loser survives as evidence, nothing honest is lost).
* **Stalls.** If the expected seat writes nothing for ``turn_timeout`` seconds, the seat d places
  after it writes an ``abandon`` record after d timeouts (so one writer is normal).
* **Catching up.** Every new connection starts with hellos then ``head`` frames; whoever is
  behind asks for the records it misses. A peer restarted with ``spycraft resume`` replays its
  file, dials every seat and catches up the same way.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.errors import (
    BadSignature,
    ChainBroken,
    MalformedRecord,
    RecordError,
    SpycraftError,
)
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    SeatKeys,
    SignedGenesis,
    SignedRecord,
    parse_record,
    verify_record_signature,
)
from spycraft.crypto.transcript import Transcript
from spycraft.engines.agent import Agent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import TableSeat, table_key_public
from spycraft.engines.table import TableState
from spycraft.p2p import frames as _frames  # noqa: F401  (registers the session's frame types)
from spycraft.p2p.storage import GameStore, SeatFile
from spycraft.p2p.wire import FramedStream, FrameError, Hello, make_hello, verify_hello

log = logging.getLogger("spycraft.p2p")

HELLO_TIMEOUT = 10.0
SYNC_CHUNK_BYTES = 512 * 1024
OUTBOX = 4096
FUTURE_WINDOW = 4096


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
        if not isinstance(m, dict) or set(m) != {"name", "identity", "table_key", "beacon", "host", "port"}:
            raise FrameError("roster seat must be a map of name, identity, table_key, beacon, host, port")
        return cls(m["name"], m["identity"], m["table_key"], m["beacon"], m["host"], m["port"])

    def keys(self) -> SeatKeys:
        return SeatKeys(self.name, self.identity, self.table_key, self.beacon)

    def to_cbor(self) -> dict[str, Any]:
        return {"identity": self.identity, "host": self.host, "port": self.port, "name": self.name}


@dataclass
class SessionConfig:
    turn_timeout: float = 300.0
    linger: float = 3.0
    dial_timeout: float = 30.0


@dataclass
class Link:
    """One connection to one peer."""

    stream: FramedStream
    hello: Hello
    seat: int | None  # None for an observer
    send_channel: trio.MemorySendChannel[dict[str, Any]] = field(init=False)
    receive_channel: trio.MemoryReceiveChannel[dict[str, Any]] = field(init=False)
    closed: bool = False
    acked: int = 0

    def __post_init__(self) -> None:
        self.send_channel, self.receive_channel = trio.open_memory_channel[dict[str, Any]](OUTBOX)

    @property
    def name(self) -> str:
        who = "observer" if self.seat is None else f"seat {self.seat}"
        return f"{who} ({self.hello.name})"

    def post(self, frame: dict[str, Any]) -> None:
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
DiskJob = tuple[str, Any, bool]  # ("append", record, ours) or ("rewrite", transcript, False)


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
        self.config = config or SessionConfig()
        self.events = events or (lambda kind, data: None)
        self.states: list[TableState[Any]] = [self.table.start(genesis)]
        self.records: list[SignedRecord] = []
        for signed in records:
            self.states.append(self.table.apply(self.states[-1], signed))
            self.records.append(signed)
        self.table_seat = (
            TableSeat(self.table, genesis.genesis, seat, identity, master, definition.seat,
                      seat_file.memo)
            if seat is not None
            else None
        )
        self.links: dict[bytes, Link] = {}
        self.future: dict[int, tuple[SignedRecord, Link]] = {}  # seq -> (record, who sent it)
        self._changed = trio.Event()
        self._last_change = trio.current_time()
        self._abandoned_at: int | None = None
        self._reported: set[int] = set()
        self._nursery: trio.Nursery | None = None
        self._disk_send, self._disk_recv = trio.open_memory_channel[DiskJob](math.inf)
        self._disk_jobs = 0
        self._disk_idle = trio.Event()
        self.created_at: dict[int, float] = {}
        self.all_acked_at: dict[int, float] = {}
        self.frames_sent = 0
        self.bytes_sent = 0
        self.frames_received = 0

    # --- state --------------------------------------------------------------------------------

    @property
    def state(self) -> TableState[Any]:
        return self.states[-1]

    @property
    def finished(self) -> bool:
        return self.state.result is not None

    @property
    def transcript(self) -> Transcript:
        return Transcript(self.genesis, tuple(self.records))

    def _bump(self) -> None:
        self._last_change = trio.current_time()
        self._changed.set()
        self._changed = trio.Event()

    def _accept(self, signed: SignedRecord, *, own: bool = False) -> None:
        """Engine, then memory, then disk (queued): raises RecordError, changing nothing, if
        invalid. Once durable, our own record is broadcast, anyone else's acknowledged."""
        new_state = self.table.apply(self.state, signed)
        self.records.append(signed)
        self.states.append(new_state)
        self._to_disk(("append", signed, own))
        self.events("record", (self.states[-2], signed, new_state))
        if new_state.result is not None:
            self.seat_file.finished = True
            self.store.save_seat(self.seat_file)
        self._bump()

    def _rollback(self, seq: int) -> None:
        """Keep records 1..seq; used only when a conflict rule picks another record at seq+1."""
        dropped = self.records[seq:]
        log.warning("rolling back to record %d (dropping %d records)", seq, len(dropped))
        del self.records[seq:]
        del self.states[seq + 1 :]
        self._to_disk(("rewrite", self.transcript, False))
        self.future.clear()
        self._bump()

    def _to_disk(self, job: DiskJob) -> None:
        self._disk_jobs += 1
        self._disk_send.send_nowait(job)

    async def _disk(self) -> None:
        """The one writer of the transcript file (see Disk in the module docstring)."""
        async for job in self._disk_recv:
            jobs = [job]
            while True:
                try:
                    jobs.append(self._disk_recv.receive_nowait())
                except trio.WouldBlock:
                    break
            appends: list[SignedRecord] = []
            for kind, item, _ in jobs:
                if kind == "rewrite":
                    if appends:
                        await trio.to_thread.run_sync(self.store.append, *appends)
                        appends = []
                    await trio.to_thread.run_sync(self.store.truncate_to, item)
                else:
                    appends.append(item)
            if appends:
                await trio.to_thread.run_sync(self.store.append, *appends)
            for kind, item, own in jobs:
                current = kind == "append" and len(self.records) >= item.seq
                if current and self.records[item.seq - 1] is item:  # not rolled back meanwhile
                    if own:
                        self._broadcast({"t": "record", "record": item.raw})
                    else:
                        self._broadcast({"t": "ack", "seq": item.seq, "link": item.link})
            self._disk_jobs -= len(jobs)
            if self._disk_jobs == 0:
                self._disk_idle.set()
                self._disk_idle = trio.Event()

    async def _flush(self) -> None:
        while self._disk_jobs:
            await self._disk_idle.wait()

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
            nursery.start_soon(self._watchdog)
            nursery.start_soon(self._disk)
            await self._drive()
            await self._flush()
            await self._linger()
            nursery.cancel_scope.cancel()
        for link in list(self.links.values()):
            link.close()
        return self.state

    async def _drive(self) -> None:
        while not self.finished:
            changed = self._changed
            if self.table_seat is not None and self.table_seat.my_turn(self.state) is not None:
                await self._write_turn()
                continue
            await changed.wait()

    async def _write_turn(self) -> None:
        assert self.table_seat is not None
        state = self.state
        seat = self.table_seat
        agent = self.agent
        if agent is None:
            raise RuntimeError("a seated session needs an agent")
        signed = await trio.to_thread.run_sync(seat.build, state, agent, abandon_on_cancel=True)
        self.store.save_seat(self.seat_file)  # the memo holds any private choice just made
        if self.state is not state:
            return  # the table moved on while we thought (an abandon, a rollback): build again
        self.created_at[signed.seq] = trio.current_time()
        self._accept(signed, own=True)

    async def _linger(self) -> None:
        """Give the others time to receive the last record (until every link acked it)."""
        with trio.move_on_after(self.config.linger):
            while any(not l.closed and l.acked < self.state.seq for l in self.links.values()):
                await trio.sleep(0.05)

    # --- links --------------------------------------------------------------------------------

    def seat_of(self, identity_key: bytes) -> int | None:
        for i, seat in enumerate(self.roster):
            if seat.identity == identity_key:
                return i
        return None

    def my_hello(self) -> dict[str, Any]:
        return make_hello(
            self.identity,
            table_key_public(self.master),
            self.genesis.genesis.table,
            self.roster[self.seat].name if self.seat is not None else "observer",
            seat=self.seat,
        )

    def _add_link(self, stream: FramedStream, hello: Hello) -> Link:
        assert self._nursery is not None
        seat = self.seat_of(hello.identity_key)
        old = self.links.get(hello.identity_key)
        if old is not None:
            old.close()
        link = Link(stream, hello, seat)
        self.links[hello.identity_key] = link
        self._nursery.start_soon(self._writer, link)
        self._nursery.start_soon(self._reader, link)
        link.post({"t": "head", "seq": self.state.seq, "link": self.state.link})
        self.events("link", link)
        return link

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
                self._dispatch(link, frame)
        except trio.EndOfChannel:
            log.info("%s closed the connection", link.name)
        except FrameError as exc:
            log.warning("disconnecting %s: bad frame: %s", link.name, exc)
            self._bye(link, f"bad frame: {exc}")
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s lost: %s", link.name, exc)
        finally:
            link.close()
            if self.links.get(link.hello.identity_key) is link:
                del self.links[link.hello.identity_key]
                self._redial(link)

    def _redial(self, link: Link) -> None:
        """The mesh heals from the higher seat's side (it dials the lower seat it lost); an
        observer, whom no seat dials, dials every seat it loses."""
        if (
            self._nursery is not None
            and not self.finished
            and link.seat is not None
            and (self.seat is None or self.seat > link.seat)
        ):
            self._nursery.start_soon(self._dial, link.seat, 1.0)

    def _bye(self, link: Link, reason: str) -> None:
        link.post({"t": "bye", "reason": reason[:200]})
        link.close()

    async def _serve(self) -> None:
        async def handle(stream: trio.SocketStream) -> None:
            framed = FramedStream(stream)
            try:
                with trio.fail_after(HELLO_TIMEOUT):
                    hello = verify_hello(await framed.receive(), table_id=self.genesis.genesis.table)
                    if self.seat_of(hello.identity_key) is None and hello.identity_key not in self.observers:
                        await framed.send({"t": "bye", "reason": "not seated at this table"})
                        await framed.aclose()
                        return
                    await framed.send(self.my_hello())
            except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError, OSError) as exc:
                log.warning("refused a connection: %s", exc)
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
        await trio.sleep(after)
        with trio.move_on_after(self.config.dial_timeout):
            delay = 0.1
            while entry.identity not in self.links and not self.finished:
                try:
                    stream = await trio.open_tcp_stream(entry.host, entry.port)
                    framed = FramedStream(stream)
                    await framed.send(self.my_hello())
                    with trio.fail_after(HELLO_TIMEOUT):
                        reply = await framed.receive()
                    if reply.get("t") == "bye":
                        log.info("seat %d refused us: %s", seat, reply.get("reason"))
                    else:
                        hello = verify_hello(reply, table_id=self.genesis.genesis.table)
                        if hello.identity_key != entry.identity:
                            raise FrameError(f"seat {seat}'s address answered with another identity")
                        self._add_link(framed, hello)
                        return
                    await framed.aclose()
                except (OSError, FrameError, trio.TooSlowError, trio.EndOfChannel,
                        trio.BrokenResourceError) as exc:
                    log.debug("dialing seat %d: %s", seat, exc)
                await trio.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _broadcast(self, frame: dict[str, Any], *, skip: Link | None = None) -> None:
        for link in list(self.links.values()):
            if link is not skip:
                link.post(frame)

    # --- frames ------------------------------------------------------------------------------

    def _dispatch(self, link: Link, frame: dict[str, Any]) -> None:
        kind = frame["t"]
        if kind == "record":
            self._on_record(link, frame["record"])
        elif kind == "ack":
            self._on_ack(link, frame["seq"], frame["link"])
        elif kind == "head":
            self._on_head(link, frame["seq"], frame["link"])
        elif kind == "sync":
            self._send_records(link, frame["from_seq"])
        elif kind == "sync_reply":
            for raw in frame["records"]:
                if link.closed:
                    break
                self._on_record(link, raw)
        elif kind == "evidence":
            self._on_evidence(link, frame["records"])
        elif kind == "bye":
            log.info("%s said goodbye: %s", link.name, frame["reason"])
            link.close()
        else:
            log.debug("ignoring a %s frame from %s", kind, link.name)

    def _on_record(self, link: Link, raw: bytes) -> None:
        try:
            signed = parse_record(raw)
        except MalformedRecord as exc:
            log.warning("disconnecting %s: %s", link.name, exc)
            self._bye(link, str(exc))
            return
        seq = signed.seq
        if seq == 0:
            self._bye(link, "a record cannot have seq 0")
            return
        if seq <= self.state.seq:
            mine = self.records[seq - 1]
            if mine.raw != signed.raw:
                self._on_conflict(link, mine, signed)
            return
        if seq > self.state.seq + 1:
            if seq <= self.state.seq + FUTURE_WINDOW:
                self.future[seq] = (signed, link)
                link.post({"t": "sync", "from_seq": self.state.seq + 1})
            return
        try:
            self._accept(signed)
        except RecordError as exc:
            self._on_invalid(link, signed, exc)
            return
        while self.state.seq + 1 in self.future:
            nxt, sender = self.future.pop(self.state.seq + 1)
            try:
                self._accept(nxt)
            except RecordError as exc:
                self._on_invalid(sender, nxt, exc)
                return

    def _on_invalid(self, link: Link, signed: SignedRecord, error: RecordError) -> None:
        if isinstance(error, ChainBroken):
            # Not a lie: the sender's chain forked from ours (a conflict being resolved, or a
            # record from a branch we rolled back). Tell it where we are; the conflict rule or a
            # sync settles it.
            log.info("record %d from %s does not follow ours: %s", signed.seq, link.name, error)
            link.post({"t": "head", "seq": self.state.seq, "link": self.state.link})
            return
        log.warning("rejected record %d from %s: %s", signed.seq, link.name, error)
        turn = self.table.expect(self.state)
        provable = (
            turn is not None
            and signed.seat == turn.seat
            and signed.record.prev == self.state.link
            and not isinstance(error, BadSignature)
            and self._signed_by_its_seat(signed)
        )
        if provable and signed.seq not in self._reported:
            self._reported.add(signed.seq)
            self.events("fraud", error)
            if self._is_reporter_for(signed.seat):
                self._write_interrupt("fraud", {"evidence": [signed.raw]})
        if link.seat == signed.seat or isinstance(error, (BadSignature, MalformedRecord)):
            self._bye(link, f"invalid record {signed.seq}: {error}")

    def _signed_by_its_seat(self, signed: SignedRecord) -> bool:
        seats = self.genesis.genesis.seats
        if signed.seat >= len(seats):
            return False
        try:
            verify_record_signature(signed, seats[signed.seat].identity)
        except BadSignature:
            return False
        return True

    def _on_conflict(self, link: Link, mine: SignedRecord, theirs: SignedRecord) -> None:
        seq = mine.seq
        if not self._signed_by_its_seat(theirs):
            self._bye(link, f"record {seq} is not signed by the seat it names")
            return
        if theirs.seat == mine.seat and theirs.record.prev == mine.record.prev:
            self._on_equivocation(mine, theirs)
            return
        before = self.states[seq - 1]
        try:
            self.table.apply(before, theirs)
        except RecordError:
            link.post({"t": "record", "record": mine.raw})  # they may roll back to ours
            return
        if _priority(theirs) < _priority(mine):
            self._rollback(seq - 1)
            self._accept(theirs)
        else:
            link.post({"t": "record", "record": mine.raw})

    def _on_evidence(self, link: Link, raws: tuple[bytes, ...]) -> None:
        try:
            a, b = (parse_record(r) for r in raws)
        except (MalformedRecord, ValueError) as exc:
            self._bye(link, f"bad evidence: {exc}")
            return
        if a.seq <= self.state.seq and a.seat == b.seat and a.seq == b.seq and a.record.prev == b.record.prev:
            mine = self.records[a.seq - 1]
            other = b if mine.raw == a.raw else a
            self._on_equivocation(mine, other)

    def _on_equivocation(self, mine: SignedRecord, theirs: SignedRecord) -> None:
        seq = mine.seq
        if seq in self._reported or not self._signed_by_its_seat(theirs):
            return
        self._reported.add(seq)
        log.warning("seat %d signed two different records for seq %d: equivocation", mine.seat, seq)
        self.events("equivocation", (mine, theirs))
        self._broadcast({"t": "evidence", "records": [mine.raw, theirs.raw]})
        if self._is_reporter_for(mine.seat):
            self._rollback(seq - 1)
            self._write_interrupt("fraud", {"evidence": [mine.raw, theirs.raw]})

    def _on_ack(self, link: Link, seq: int, link_hash: bytes) -> None:
        if seq > self.state.seq:
            link.acked = max(link.acked, seq)  # if the record itself does not come, the
            return  # watchdog asks this peer for it
        if seq == 0 or self.records[seq - 1].link != link_hash:
            log.warning("%s holds another record %d than we do: sending ours", link.name, seq)
            self._send_records(link, max(seq, 1))
            return
        link.acked = max(link.acked, seq)
        if seq in self.created_at and seq not in self.all_acked_at:
            others = [l for l in self.links.values() if l.seat is not None and not l.closed]
            if others and all(l.acked >= seq for l in others) and len(others) == len(self.roster) - 1:
                self.all_acked_at[seq] = trio.current_time()

    def _on_head(self, link: Link, seq: int, link_hash: bytes) -> None:
        link.acked = max(link.acked, min(seq, self.state.seq))
        if seq < self.state.seq:
            same = seq == 0 or (seq <= len(self.records) and self.records[seq - 1].link == link_hash)
            self._send_records(link, seq + 1 if same else 1)
        elif seq > self.state.seq:
            link.post({"t": "sync", "from_seq": self.state.seq + 1})

    def _send_records(self, link: Link, from_seq: int) -> None:
        chunk: list[bytes] = []
        size = 0
        start = max(from_seq, 1)
        for signed in self.records[start - 1 :]:
            if chunk and size + len(signed.raw) > SYNC_CHUNK_BYTES:
                link.post({"t": "sync_reply", "from_seq": start, "records": chunk})
                start += len(chunk)
                chunk, size = [], 0
            chunk.append(signed.raw)
            size += len(signed.raw)
        if chunk:
            link.post({"t": "sync_reply", "from_seq": start, "records": chunk})

    # --- interrupts ---------------------------------------------------------------------------

    def _is_reporter_for(self, culprit: int, distance: int = 1) -> bool:
        n = len(self.roster)
        return self.seat is not None and (self.seat - culprit) % n == distance

    def _write_interrupt(self, kind: str, body: dict[str, Any]) -> None:
        assert self.table_seat is not None
        signed = self.table_seat.sign(self.state, kind, body)
        try:
            self._accept(signed, own=True)
        except RecordError as exc:
            log.error("our own %s record was refused: %s", kind, exc)
            return
        log.warning("wrote %s record %d", kind, signed.seq)

    async def _watchdog(self) -> None:
        n = len(self.roster)
        behind_since: float | None = None
        while True:
            await trio.sleep(min(0.5, self.config.turn_timeout / 4))
            ahead = [link for link in self.links.values() if link.acked > self.state.seq]
            if not ahead:
                behind_since = None
            elif behind_since is None:
                behind_since = trio.current_time()
            elif trio.current_time() - behind_since >= 0.5:
                ahead[0].post({"t": "sync", "from_seq": self.state.seq + 1})
                behind_since = None
            turn = self.table.expect(self.state)
            if turn is None or self.seat is None or turn.seat == self.seat:
                continue
            distance = (self.seat - turn.seat) % n
            waited = trio.current_time() - self._last_change
            if waited >= self.config.turn_timeout * distance and self._abandoned_at != self.state.seq:
                self._abandoned_at = self.state.seq
                assert self.table_seat is not None
                result = self.table_seat.sign_result(self.state)
                if result is not None:  # the writer of the result is gone: we write it
                    log.warning("seat %d did not write the result; writing it", turn.seat)
                    self._accept(result, own=True)
                    continue
                reason = f"no record from seat {turn.seat} in {math.floor(waited)} s"
                log.warning("declaring seat %d absent: %s", turn.seat, reason)
                self._write_interrupt("abandon", {"seat": turn.seat, "reason": reason})


def _priority(signed: SignedRecord) -> tuple[int, bytes]:
    rank = {"fraud": 0, "abandon": 1}.get(signed.record.kind, 2)
    return (rank, signed.raw)


__all__ = ["Link", "RosterSeat", "Session", "SessionConfig", "SpycraftError"]

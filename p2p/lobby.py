"""From an announced table to a signed genesis: the lobby, then the session.

Every rule of the lobby (who is seated, the roster, the genesis signatures, who stops the table
and why) is the sans-IO ``p2p.seating``'s; this module is its trio shell: it listens and dials,
runs the handshake, announces the table, reads a frame from a link while the machine wants one,
carries out the actions in order (one task, so frames on a link leave in the order decided),
ticks the clock, and stores the signed genesis.

Theory of operation
-------------------
* The **opener** listens on the chosen interface, announces the table (``discovery.Announcer``)
  and seats peers in the order they arrive, as players sit down at a real table. It may take a
  seat itself (``play``) or only keep the lobby and watch (``host``). It is trusted with nothing:
  it proposes a seat order; everyone signs the genesis built from it or the table never starts.
* A **joiner** listens for the mesh first, connects to the opener, sends a signed hello (its
  identity and table keys) and a ``join`` frame (its beacon chain tip, and the address it
  listens on for the mesh, signed with its identity for this table: ``seating.sign_address``).
  Where a seat listens is its own word, never the opener's: every peer refuses a roster in
  which a seat's address is not signed by that seat (an opener that could name the others'
  addresses could be the only path between two honest seats, and get one voted absent while
  it is online, by reading nothing it sends).
* When the seats are full, the opener withdraws the announcement and sends everyone the
  **roster** (with the table's turn timeout, the opener's ``SessionConfig.turn_timeout``); each
  peer builds the same genesis from it, checks that its own entry is exactly what it sent,
  signs, and sends its signature; the opener relays every signature to everyone. The turn
  timeout is thus the table's, in the genesis, the same for every peer: a joiner's own
  ``turn_timeout`` is never used (the session takes the genesis's).
  A peer that holds all signatures assembles and verifies the genesis, stores it, connects to
  every seat before it in seat order (the full mesh), and the game session begins.
* A **spectator** (``watch_table``) dials one seat of a table in play (its ad), proves its own
  identity, takes the genesis that seat sends, checks it, and follows the game through that
  seat as an observer: it checks every record as a seat would and writes none.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import MAX_TURN_TIMEOUT_MS, SignedGenesis
from spycraft.engines.agent import Agent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import table_key_public
from spycraft.p2p import handshake
from spycraft.p2p.discovery import Announcer, TableAd, interface_address
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.events import (
    Event,
    Events,
    SeatFreed,
    Seating,
    SeatTaken,
    TableOpen,
    ignore,
)
from spycraft.p2p.handshake import HelloBuilder
from spycraft.p2p.seating import (
    JOIN_TIMEOUT,
    MIN_TURN_TIMEOUT_MS,
    Action,
    Announce,
    Close,
    Failed,
    Full,
    Joiner,
    LinkId,
    Mesh,
    Notice,
    Opener,
    RosterSeat,
    Send,
    Signed,
    watched,
)
from spycraft.p2p.session import (
    CONNECT_TIMEOUT,
    Session,
    SessionConfig,
    peer_address,
)
from spycraft.p2p.storage import GameExists, GameStore, SeatFile, stored_games_of
from spycraft.p2p.wire import FramedStream, FrameError, Hello, make_hello

log = logging.getLogger("spycraft.p2p")

__all__ = ["MIN_TURN_TIMEOUT_MS", "LobbyError", "Me", "join_table", "open_table",
           "resume_session", "turn_timeout_ms", "watch_table"]

EARLY_LINKS_WAIT = 1.0
"""Seconds a joiner that holds the signed genesis waits for the early links' handshakes under
way to end (``_EarlyMesh``); what is not linked then, the session dials as before."""
TICK = 0.25
"""Seconds between two ticks of a lobby machine's clock (its timeouts are 10 s and more)."""
LINK_ERRORS = (FrameError, trio.EndOfChannel, trio.BrokenResourceError,
               trio.ClosedResourceError, OSError)


def told(notice: Notice) -> Event:
    """What the lobby's machine notes, as the person is told it."""
    if notice.kind == "lobby":
        return Seating(*notice.data)
    hello: Hello = notice.data
    return (SeatTaken if notice.kind == "joined" else SeatFreed)(hello.name, hello.fingerprint)


class LobbyError(Exception):
    """The table could not start: refused, full, closed, or a genesis that does not check."""


@dataclass
class Me:
    """Who this peer is at the table."""

    identity: Identity
    name: str
    master: bytes

    @classmethod
    def fresh(cls, identity: Identity, name: str) -> Me:
        return cls(identity, name, SystemEntropy().take(32))

    def hello(self, table: bytes, seat: int | None = None) -> HelloBuilder:
        """Our hello at ``table`` for the handshake: (nonce, echo) -> signed frame."""
        key = table_key_public(self.master)
        return lambda nonce, echo: make_hello(
            self.identity, key, table, self.name, nonce=nonce, echo=echo, seat=seat
        )


def turn_timeout_ms(config: SessionConfig | None) -> int:
    """The turn timeout an opener proposes, in whole milliseconds, within what a genesis holds."""
    seconds = (config or SessionConfig()).turn_timeout
    return max(MIN_TURN_TIMEOUT_MS, min(MAX_TURN_TIMEOUT_MS, round(seconds * 1000)))


def _store(
    root: Any, genesis: SignedGenesis, definition: GameDefinition, roster: list[RosterSeat],
    seat: int | None, me: Me, interface: str, port: int, bot: dict[str, Any] | None,
) -> tuple[GameStore, SeatFile]:
    try:
        store = GameStore.create(root, genesis.genesis.table, seat)
    except GameExists as exc:
        raise LobbyError(str(exc)) from None
    seat_file = SeatFile(
        game=definition.name,
        table=genesis.genesis.table,
        seat=seat,
        master=me.master,
        memo={},
        roster=[r.to_cbor() for r in roster],
        identity=me.identity.secret if bot else None,
        listen_port=port,
        interface=interface,
        extra=dict(bot) if bot else {},
    )
    store.save_seat(seat_file)
    store.write_genesis(genesis)
    return store, seat_file


class _OpenerShell:
    """The opener's machine over trio: links by id, one task that carries out the actions in
    the order the machine gave them, and how the lobby ended."""

    def __init__(self, opener: Opener, hello: HelloBuilder, emit: Events) -> None:
        self.opener = opener
        self.hello = hello
        self.emit = emit
        self.links: dict[LinkId, tuple[FramedStream, Hello]] = {}
        self.full = trio.Event()
        self.done = trio.Event()
        self.signed: Signed | None = None
        self.failure: str | None = None
        self._send, self._actions = trio.open_memory_channel[Action](math.inf)
        self._next = 0
        self._taken: int | None = None  # the seats taken the announcement should show
        self._recount = trio.Event()  # set when that changes

    def feed(self, actions: list[Action]) -> None:
        for action in actions:
            self._send.send_nowait(action)

    async def knock(self, stream: trio.SocketStream, readers: trio.Nursery, door: handshake.Door,
                    address: str) -> None:
        """One connection: the handshake, then its frames to the machine while it wants them."""
        framed = FramedStream(stream)
        opener = self.opener
        try:
            with door.knocking(address) as scope, scope:
                hello = await handshake.accept(framed, self.hello, opener.table, opener.refusal)
            if scope.cancelled_caught:
                raise trio.TooSlowError("gave way to newer connections")
        except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
                OSError) as exc:
            log.warning("lobby refused a peer: %s", str(exc) or type(exc).__name__)
            if not isinstance(exc, handshake.Refused):  # a full table's refusal is no offence
                door.refused(address, trio.current_time())
            await _close_quietly(framed)
            return
        link = self._next = self._next + 1
        self.links[link] = (framed, hello)
        self.feed(opener.admitted(link, hello, trio.current_time()))
        readers.start_soon(self.read, link, framed)

    async def read(self, link: LinkId, framed: FramedStream) -> None:
        try:
            while self.opener.reading(link):
                frame = await framed.receive()
                self.feed(self.opener.receive(link, frame, trio.current_time()))
        except LINK_ERRORS as exc:
            self.feed(self.opener.link_down(link, str(exc), trio.current_time()))

    async def tick(self) -> None:
        while True:
            await trio.sleep(TICK)
            self.feed(self.opener.tick(trio.current_time()))

    async def carry_out(self) -> None:
        async for action in self._actions:
            if isinstance(action, Send):
                try:
                    await self.links[action.link][0].send(action.frame)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    if action.lost is not None:
                        self._end(failure=action.lost)
                        return
            elif isinstance(action, Close):
                await self._close(action)
            elif isinstance(action, Notice):
                self.emit(told(action))
            elif isinstance(action, Announce):  # (``republish`` shows it, never in the way)
                self._taken = action.taken
                self._recount.set()
            elif isinstance(action, Full):
                self.full.set()
            elif isinstance(action, Signed):
                self._end(signed=action)
                return
            elif isinstance(action, Failed):
                self._end(failure=action.reason)
                return
            # (``Mesh`` is a joiner's: the opener holds a link to every seat already)

    async def republish(self, ad: Announcer) -> None:
        """Show the latest count of seats taken in the announcement, one update at a time.
        An update waits out zeroconf's three announcements (about 0.45 s), so it runs here
        rather than among the actions: there it held up the next knock's admission, and a
        table that ten bots joined at once took four seconds more to fill. Counts that change
        during an update are shown together by the next."""
        while True:
            await self._recount.wait()
            self._recount = trio.Event()
            if self._taken is not None:
                await ad.update(self._taken)

    async def _close(self, action: Close) -> None:
        if action.why is not None:
            log.warning("%s", action.why)
        framed = self.links[action.link][0]
        if action.bye is not None:
            try:
                await framed.send({"t": "bye", "reason": action.bye})
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        await framed.aclose()

    def _end(self, *, signed: Signed | None = None, failure: str | None = None) -> None:
        self.signed, self.failure = signed, failure
        self.done.set()


async def open_table(
    *,
    definition: GameDefinition,
    options: dict[str, Any],
    players: int,
    me: Me,
    seated: bool,
    interface: str,
    root: Any,
    agent: Agent | None = None,
    config: SessionConfig | None = None,
    events: Events | None = None,
    on_open: Callable[[bytes, int], Awaitable[None] | None] | None = None,
    cooperating_responders: bool = False,
) -> Session:
    """Open a table, fill it from the LAN, sign the genesis; return the session, ready to run."""
    address = interface_address(interface)
    listener = (await trio.open_tcp_listeners(0, host=address))[0]
    port = listener.socket.getsockname()[1]
    table = SystemEntropy().take(16)
    opener = Opener(table=table, game=definition.name, options=options, players=players,
                    identity=me.identity, name=me.name, master=me.master, seated=seated,
                    host=address, port=port, turn_timeout_ms=turn_timeout_ms(config))
    shell = _OpenerShell(opener, me.hello(table, 0 if seated else None),
                         events or ignore)

    async with trio.open_nursery() as lobby:
        lobby.start_soon(shell.carry_out)
        lobby.start_soon(shell.tick)
        async with Announcer(
            interface,
            port=port,
            game=definition.name,
            options=options,
            opener=me.name if seated else None,
            table_id=table,
            fingerprint=me.identity.fingerprint,
            seats_total=players,
            seats_taken=opener.taken,
            cooperating_responders=cooperating_responders,
        ) as ad:
            shell.emit(TableOpen(table, port))
            if on_open is not None:
                started = on_open(table, port)
                if started is not None:
                    await started

            async with trio.open_nursery() as door:
                guard = handshake.Door()  # a stranger's flood costs a bounded share (red team 7:
                # 1,100 silent connections ended the opener with EMFILE before anyone sat)

                async def accept_loop() -> None:
                    while True:
                        try:
                            stream = await listener.accept()
                        except OSError as exc:  # out of descriptors: wait, go on
                            log.warning("lobby: cannot accept now: %s", exc)
                            await trio.sleep(0.1)
                            continue
                        address = peer_address(stream)
                        if not guard.open(address, trio.current_time()):
                            await _close_quietly(FramedStream(stream))
                            continue
                        door.start_soon(shell.knock, stream, lobby, guard, address)

                door.start_soon(accept_loop)
                door.start_soon(shell.republish, ad)
                await shell.full.wait()
                door.cancel_scope.cancel()  # (an update under way stops with its broadcast)
            # The seats are full: the roster goes out while the announcement is withdrawn (its
            # goodbyes take about 0.25 s, a sixth of a ten-seat table's setup when the roster
            # waited for them; the seats' count in the ad is not changed again meanwhile).
            shell.feed(opener.withdrawn(trio.current_time()))
        await shell.done.wait()
        lobby.cancel_scope.cancel()
    if shell.signed is None:
        raise LobbyError(shell.failure)
    signed = shell.signed
    roster = list(signed.roster)
    store, seat_file = _store(root, signed.genesis, definition, roster, signed.seat, me,
                              interface, port, bot=None)
    return Session(
        definition=definition, genesis=signed.genesis, roster=roster, seat=signed.seat,
        identity=me.identity, master=me.master, store=store, seat_file=seat_file,
        listener=listener, agent=agent, observers=signed.observers,
        config=config, events=events, links=[shell.links[link] for link in signed.links],
    )


class _EarlyMesh:
    """A joiner's links to the other seats, made while the genesis is signed (``seating.Mesh``):
    it dials the seats before it and lets in those after it, each through the handshake of play
    (bound to the table, the identity the roster's); what is linked by the genesis goes to the
    session, the rest the session dials, or is dialed by, as before. It only ever helps: nothing
    in it ends the lobby (an error of one link is that link's, logged), strangers meet the same
    door as in play (``handshake.Door``: handshakes under way bounded, an address whose
    handshakes fail backed off), each handshake is bounded in time, and a table that does not
    start closes every link."""

    def __init__(self, me: Me, table: bytes, listener: trio.SocketListener) -> None:
        self.me, self.table, self.listener = me, table, listener
        self.links: dict[bytes, tuple[FramedStream, Hello]] = {}  # by the peer's identity
        self._mesh = Mesh(-1, (), frozenset())
        self._door = handshake.Door()
        self._under_way = 0  # handshakes begun and not yet done
        self._done = trio.Event()  # set whenever the last one under way ends

    async def settled(self) -> None:
        """Until no handshake is under way (the genesis often comes while they are: each has
        begun, and ends well within a second on a LAN, where a new one would start over)."""
        while self._under_way:
            self._done = trio.Event()
            await self._done.wait()

    @contextmanager
    def _handshake(self) -> Iterator[None]:
        self._under_way += 1
        try:
            yield
        finally:
            self._under_way -= 1
            if not self._under_way:
                self._done.set()

    def start(self, nursery: trio.Nursery, mesh: Mesh) -> None:
        self._mesh = mesh
        for seat, entry in mesh.dial:
            nursery.start_soon(self._dial, seat, entry)
        if mesh.accept:
            nursery.start_soon(self._serve, nursery)

    def _hello(self) -> HelloBuilder:
        return self.me.hello(self.table, self._mesh.seat)

    async def _dial(self, seat: int, entry: RosterSeat) -> None:
        with self._handshake():
            framed: FramedStream | None = None
            try:
                with trio.move_on_after(CONNECT_TIMEOUT):
                    framed = FramedStream(await trio.open_tcp_stream(entry.host, entry.port))
                if framed is None:
                    return
                hello = await handshake.dial(framed, self.me.identity, self._hello(), self.table)
                if hello.identity_key != entry.identity:
                    raise FrameError(f"seat {seat}'s address answered with another identity")
            except Exception as exc:  # noqa: BLE001 (that link's: the session dials it again)
                log.info("early link to seat %d: %s", seat, str(exc) or type(exc).__name__)
                if framed is not None:
                    await _close_quietly(framed)
                return
            except BaseException:
                if framed is not None:
                    await _close_quietly(framed)
                raise
            await self._keep(framed, hello)

    async def _serve(self, nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await self.listener.accept()
            except OSError as exc:  # out of descriptors (a stranger's flood): wait, go on
                log.warning("early links: cannot accept now: %s", exc)
                await trio.sleep(0.1)
                continue
            address = peer_address(stream)
            if not self._door.open(address, trio.current_time()):
                await _close_quietly(FramedStream(stream))
                continue
            nursery.start_soon(self._let_in, stream, address)

    async def _let_in(self, stream: trio.SocketStream, address: str) -> None:
        framed = FramedStream(stream)

        def admit(hello: Hello) -> str | None:
            if hello.identity_key not in self._mesh.accept:
                return "not a seat after ours at this table"
            return None

        with self._handshake():
            try:
                with self._door.knocking(address) as scope, scope:
                    hello = await handshake.accept(framed, self._hello(), self.table, admit)
                if scope.cancelled_caught:
                    raise trio.TooSlowError("gave way to newer connections")
            except Exception as exc:  # noqa: BLE001 (a stranger's, or that link's alone)
                log.info("early link refused: %s", str(exc) or type(exc).__name__)
                if not isinstance(exc, handshake.Refused):
                    self._door.refused(address, trio.current_time())
                await _close_quietly(framed)
                return
            except BaseException:
                await _close_quietly(framed)
                raise
            await self._keep(framed, hello)

    async def _keep(self, framed: FramedStream, hello: Hello) -> None:
        if hello.identity_key in self.links:  # one link per seat: the first stays
            await _close_quietly(framed)
        else:
            self.links[hello.identity_key] = (framed, hello)

    async def close(self) -> None:
        for framed, _ in self.links.values():
            await _close_quietly(framed)
        self.links.clear()


async def _close_quietly(framed: FramedStream) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(1):
        await framed.aclose()


async def _seat_me_linking(framed: FramedStream, joiner: Joiner, opener: Hello, emit: Events,
                           mesh: _EarlyMesh) -> Signed:
    """``_seat_me``, with the early mesh linking beside it once the roster is taken; what is
    not linked soon after the genesis, the session links. Whatever ends the lobby is raised as
    itself, never wrapped in the nursery's group (a person reads it in one line)."""
    ended: list[BaseException] = []
    signed: Signed | None = None
    async with trio.open_nursery() as linking:
        try:
            signed = await _seat_me(framed, joiner, opener, emit,
                                    lambda wanted: mesh.start(linking, wanted))
            with trio.move_on_after(EARLY_LINKS_WAIT):
                await mesh.settled()
        except BaseException as exc:  # noqa: BLE001 (raised again below, as it is)
            ended.append(exc)
        linking.cancel_scope.cancel()
    if ended:
        raise ended[0]
    assert signed is not None
    return signed


async def _seat_me(framed: FramedStream, joiner: Joiner, opener: Hello,
                   emit: Events, mesh: Callable[[Mesh], None]) -> Signed:
    """The joiner's machine over its one link, until the genesis is signed."""
    actions = joiner.opened(opener)
    while True:
        for action in actions:
            if isinstance(action, Send):
                await framed.send(action.frame)
            elif isinstance(action, Notice):
                emit(told(action))
            elif isinstance(action, Mesh):
                mesh(action)
            elif isinstance(action, Signed):
                return action
            elif isinstance(action, Failed):
                raise LobbyError(action.reason)
        actions = []
        with trio.move_on_after(TICK):  # a frame cut short stays pending in ``framed``
            frame = await framed.receive()
            actions = joiner.receive(frame, trio.current_time())
        actions += joiner.tick(trio.current_time())


async def join_table(
    ad: TableAd,
    *,
    definition: GameDefinition,
    me: Me,
    interface: str,
    root: Any,
    agent_for: Callable[[int], Agent],
    config: SessionConfig | None = None,
    events: Events | None = None,
    bot: dict[str, Any] | None = None,
    session_class: type[Session] = Session,
) -> Session:
    """Take a seat at an announced table; return the session once the genesis is signed. A
    table whose id is that of a game stored here is refused before we knock (it would overwrite
    that game)."""
    emit = events or ignore
    for stored in stored_games_of(Path(root), ad.table_id):
        raise LobbyError(f"refused to join table {ad.table_id.hex()}: it has the id of "
                         f"{stored.describe()}, which it would overwrite")
    address = interface_address(interface)
    listener = (await trio.open_tcp_listeners(0, host=address))[0]
    port = listener.socket.getsockname()[1]
    joiner = Joiner(table=ad.table_id, game=ad.game, digest=ad.options_digest,
                    fingerprint=ad.fingerprint, identity=me.identity, name=me.name,
                    master=me.master, host=address, port=port)
    try:
        stream = await trio.open_tcp_stream(ad.address, ad.port)
    except (OSError, ValueError) as exc:
        await listener.aclose()
        raise LobbyError(f"cannot reach the table at {ad.address}:{ad.port}: {exc}") from None
    framed = FramedStream(stream)
    mesh = _EarlyMesh(me, ad.table_id, listener)
    try:
        try:
            opener = await handshake.dial(framed, me.identity, me.hello(ad.table_id), ad.table_id)
        except handshake.Refused as exc:
            raise LobbyError(f"the table said goodbye: {exc}") from None
        signed = await _seat_me_linking(framed, joiner, opener, emit, mesh)
    except (FrameError, trio.TooSlowError, trio.EndOfChannel,
            trio.BrokenResourceError, OSError) as exc:
        await mesh.close()
        await framed.aclose()
        await listener.aclose()
        raise LobbyError(f"joining failed: {str(exc) or type(exc).__name__}") from None
    except BaseException:
        await mesh.close()
        await framed.aclose()
        await listener.aclose()
        raise
    seat = signed.seat
    assert seat is not None
    roster = list(signed.roster)
    store, seat_file = _store(root, signed.genesis, definition, roster, seat, me, interface,
                              port, bot)
    if signed.observers:  # a host that watches: let it back in after a resume
        seat_file.extra["observers"] = sorted(signed.observers)
        store.save_seat(seat_file)
    return session_class(
        definition=definition, genesis=signed.genesis, roster=roster, seat=seat,
        identity=me.identity, master=me.master, store=store, seat_file=seat_file,
        listener=listener, agent=agent_for(seat), observers=signed.observers,
        config=config, events=events, links=[(framed, opener), *mesh.links.values()],
        dial=[i for i in signed.dial if roster[i].identity not in mesh.links],
    )


async def resume_session(
    store: GameStore,
    *,
    definition: GameDefinition,
    identity: Identity,
    agent_for: Callable[[int], Agent],
    config: SessionConfig | None = None,
    events: Events | None = None,
) -> Session:
    """A session rebuilt from disk: replay the transcript, listen again, dial every seat."""
    seat_file = store.load_seat()
    transcript = store.load_transcript()
    if transcript is None:
        raise LobbyError(f"{store.folder} holds no transcript")
    genesis = transcript.genesis
    if genesis.genesis.protocol != PROTOCOL_VERSION:  # the others would refuse every frame
        raise LobbyError(f"this game was started with protocol version "
                         f"{genesis.genesis.protocol} and this spycraft speaks "
                         f"{PROTOCOL_VERSION}: resume it with the release it was started with")
    seats = genesis.genesis.seats
    roster = [
        RosterSeat(k.name, k.identity, k.table_key, k.beacon, r["host"], r["port"])
        for k, r in zip(seats, seat_file.roster)
    ]
    address = interface_address(seat_file.interface)
    try:
        listener = (await trio.open_tcp_listeners(seat_file.listen_port, host=address))[0]
    except OSError:
        listener = (await trio.open_tcp_listeners(0, host=address))[0]
    seat = seat_file.seat
    session = Session(
        definition=definition, genesis=genesis, roster=roster, seat=seat, identity=identity,
        master=seat_file.master, store=store, seat_file=seat_file, listener=listener,
        agent=agent_for(seat) if seat is not None else None, records=transcript.records,
        observers=frozenset(seat_file.extra.get("observers", [])),
        config=config, events=events, dial=[i for i in range(len(roster)) if i != seat],
    )
    return session


async def watch_table(
    ad: TableAd,
    *,
    also: Sequence[TableAd] = (),
    definition_for: Callable[[str], GameDefinition],
    identity: Identity,
    interface: str,
    root: Path,
    config: SessionConfig | None = None,
    events: Events | None = None,
) -> Session:
    """Sit beside a table in play as a spectator, through the seat behind ``ad``: the handshake
    (our own identity, no seat), then the genesis that seat sends, checked (every seat's
    signature, the table we asked for, a game we know); return an observer's session linked to
    that seat, which syncs every record from it and checks each as a seat would. ``also``: ads
    of other seats of the table, which the session dials too (a seat that feeds us what does not
    check is cut off, and the others carry the game on)."""
    address = interface_address(interface)
    try:
        stream = await trio.open_tcp_stream(ad.address, ad.port)
    except (OSError, ValueError) as exc:
        raise LobbyError(f"cannot reach the table at {ad.address}:{ad.port}: {exc}") from None
    framed = FramedStream(stream)
    me = Me.fresh(identity, "spectator")
    try:
        peer = await handshake.dial(framed, identity, me.hello(ad.table_id), ad.table_id)
        with trio.fail_after(JOIN_TIMEOUT):
            frame = await framed.receive()
    except handshake.Refused as exc:
        await framed.aclose()
        raise LobbyError(f"the table said goodbye: {exc}") from None
    except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
            OSError) as exc:
        await framed.aclose()
        raise LobbyError(f"watching failed: {str(exc) or type(exc).__name__}") from None
    checked = watched(frame, table=ad.table_id, game=ad.game, peer=peer)
    try:
        if isinstance(checked, Failed):
            raise LobbyError(checked.reason)
        signed, seat = checked
        genesis = signed.genesis
        try:
            definition = definition_for(genesis.game)
        except KeyError:
            raise LobbyError(f"watching failed: this spycraft does not know {genesis.game}"
                             ) from None
    except LobbyError:
        await framed.aclose()
        raise
    where = {int(other.source): (other.address, other.port) for other in also
             if other.table_id == ad.table_id and other.source is not None
             and other.source.isdigit() and int(other.source) < len(genesis.seats)}
    where[seat] = (ad.address, ad.port)
    roster = [
        RosterSeat(keys.name, keys.identity, keys.table_key, keys.beacon,
                   *where.get(i, ("", 0)))
        for i, keys in enumerate(genesis.seats)
    ]
    listener = (await trio.open_tcp_listeners(0, host=address))[0]
    name = f"{genesis.table.hex()}-{identity.fingerprint[:4]}"
    store = GameStore(root / "watching" / name)
    again = 1
    while store.holds_a_game():  # a game watched before under this id: keep both apart
        again += 1
        store = GameStore(root / "watching" / f"{name}-{again}")
    store.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    seat_file = SeatFile(game=genesis.game, table=genesis.table, seat=None, master=me.master,
                         memo={}, roster=[r.to_cbor() for r in roster], identity=None,
                         listen_port=listener.socket.getsockname()[1], interface=interface,
                         extra={"watching": seat})
    store.save_seat(seat_file)
    store.write_genesis(signed)
    return Session(
        definition=definition, genesis=signed, roster=roster, seat=None, identity=identity,
        master=me.master, store=store, seat_file=seat_file, listener=listener,
        config=config, events=events, links=[(framed, peer)],
        dial=sorted(i for i in where if i != seat),
    )

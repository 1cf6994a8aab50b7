"""From an announced table to a signed genesis: the lobby, then the session.

Theory of operation
-------------------
* The **opener** listens on the chosen interface, announces the table (``discovery.Announcer``)
  and seats peers in the order they arrive, as players sit down at a real table. It may take a
  seat itself (``play``) or only keep the lobby and watch (``host``). It is trusted with nothing:
  it proposes a seat order; everyone signs the genesis built from it or the table never starts.
* A **joiner** listens for the mesh first, connects to the opener, sends a signed hello (its
  identity and table keys) and a ``join`` frame (its beacon chain tip, and the address it
  listens on for the mesh, signed with its identity for this table: ``session.sign_address``).
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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.identity import Identity, fingerprint
from spycraft.crypto.records import (
    MAX_TURN_TIMEOUT_MS,
    Genesis,
    SignedGenesis,
    assemble_genesis,
    genesis_signature,
    genesis_signature_valid,
    parse_genesis,
    verify_genesis,
)
from spycraft.engines.agent import Agent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import BEACON_LENGTH, seat_keys, table_key_public
from spycraft.p2p import handshake
from spycraft.p2p.discovery import Announcer, TableAd, interface_address, options_digest
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.handshake import HelloBuilder
from spycraft.p2p.session import Events, RosterSeat, Session, SessionConfig, sign_address
from spycraft.p2p.storage import GameExists, GameStore, SeatFile, stored_games_of
from spycraft.p2p.wire import FramedStream, FrameError, Hello, make_hello

log = logging.getLogger("spycraft.p2p")

JOIN_TIMEOUT = 10.0
MIN_TURN_TIMEOUT_MS = 1000
"""A joiner refuses a table whose turn timeout is shorter (nobody could answer in time)."""


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


def build_genesis(
    table: bytes, game: str, options: dict[str, Any], roster: list[RosterSeat],
    turn_timeout_ms: int,
) -> Genesis:
    return Genesis(
        protocol=PROTOCOL_VERSION,
        table=table,
        game=game,
        options=options,
        seats=tuple(r.keys() for r in roster),
        beacon_length=BEACON_LENGTH,
        turn_timeout_ms=turn_timeout_ms,
    )


def turn_timeout_ms(config: SessionConfig | None) -> int:
    """The turn timeout an opener proposes, in whole milliseconds, within what a genesis holds."""
    seconds = (config or SessionConfig()).turn_timeout
    return max(MIN_TURN_TIMEOUT_MS, min(MAX_TURN_TIMEOUT_MS, round(seconds * 1000)))


async def _receive(framed: FramedStream, timeout: float | None = None) -> dict[str, Any]:
    if timeout is None:
        frame = await framed.receive()
    else:
        with trio.fail_after(timeout):
            frame = await framed.receive()
    if frame["t"] == "bye":
        raise LobbyError(f"the table said goodbye: {frame['reason']}")
    return frame


@dataclass
class Joined:
    framed: FramedStream
    hello: Hello
    beacon: bytes
    host: str
    port: int
    sig: bytes  # its signature over (table, host, port): the roster cannot change its address


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
    emit = events or (lambda kind, data: None)
    address = interface_address(interface)
    listener = (await trio.open_tcp_listeners(0, host=address))[0]
    port = listener.socket.getsockname()[1]
    table = SystemEntropy().take(16)
    mine = seat_keys(me.name, me.identity, me.master, BEACON_LENGTH)
    joined: list[Joined] = []
    full = trio.Event()
    wanted = players - (1 if seated else 0)

    async with Announcer(
        interface,
        port=port,
        game=definition.name,
        options=options,
        opener=me.name if seated else None,
        table_id=table,
        fingerprint=me.identity.fingerprint,
        seats_total=players,
        seats_taken=players - wanted,
        cooperating_responders=cooperating_responders,
    ) as ad:
        emit("open", (table, port))
        if on_open is not None:
            started = on_open(table, port)
            if started is not None:
                await started

        async def admit(stream: trio.SocketStream) -> None:
            framed = FramedStream(stream)

            def refusal(hello: Hello) -> str | None:
                taken = {j.hello.identity_key for j in joined} | (
                    {me.identity.public} if seated else set()
                )
                if full.is_set():
                    return "table full"
                return "already seated" if hello.identity_key in taken else None

            try:
                hello = await handshake.accept(framed, me.hello(table, 0 if seated else None),
                                               table, refusal)
                join = await _receive(framed, JOIN_TIMEOUT)
                if join["t"] != "join":
                    raise FrameError(f"expected a join, got {join['t']}")
                if not RosterSeat(hello.name, hello.identity_key, hello.table_key,
                                  join["beacon"], join["host"], join["port"],
                                  join["sig"]).address_signed(table):
                    raise FrameError("a join whose address its identity did not sign")
                late = refusal(hello)
                if late is not None:  # another connection took the seat during the handshake
                    await framed.send({"t": "bye", "reason": late})
                    await framed.aclose()
                    return
            except (FrameError, LobbyError, trio.TooSlowError, trio.EndOfChannel,
                    trio.BrokenResourceError, OSError) as exc:
                log.warning("lobby refused a peer: %s", str(exc) or type(exc).__name__)
                await framed.aclose()
                return
            # Where it listens is its own word (signed), not the address it dialed us from.
            joiner = Joined(framed, hello, join["beacon"], join["host"], join["port"],
                            join["sig"])
            joined.append(joiner)
            emit("joined", hello)
            await seats_changed()
            if full.is_set():
                return
            # A joiner says nothing until the roster: anything it sends now, or its connection
            # closing, means it got up from the table before the game started.
            try:
                frame = await framed.receive()
                reason = f"sent a {frame['t']} frame in the lobby"
            except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, OSError) as exc:
                reason = f"left the lobby: {exc or 'connection closed'}"
            if full.is_set():
                return
            joined.remove(joiner)
            log.warning("%s [%s] %s", hello.name, hello.fingerprint, reason)
            emit("left", hello)
            await framed.aclose()
            await seats_changed()

        async def seats_changed() -> None:
            seats = ([me.identity.public] if seated else []) + [
                j.hello.identity_key for j in joined
            ]
            for j in joined:
                try:
                    await j.framed.send({"t": "lobby", "seats": seats, "total": players})
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            if len(joined) == wanted:
                full.set()
            else:
                await ad.update(players - wanted + len(joined))

        async with trio.open_nursery() as nursery:
            async def accept_loop() -> None:
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(admit, stream)

            nursery.start_soon(accept_loop)
            await full.wait()
            nursery.cancel_scope.cancel()
    # The announcement is withdrawn: the game starts.
    roster = (
        [RosterSeat(me.name, mine.identity, mine.table_key, mine.beacon, address, port,
                    sign_address(me.identity, table, address, port))]
        if seated
        else []
    )
    roster += [
        RosterSeat(j.hello.name, j.hello.identity_key, j.hello.table_key, j.beacon, j.host, j.port,
                   j.sig)
        for j in joined
    ]
    timeout = turn_timeout_ms(config)
    genesis = build_genesis(table, definition.name, options, roster, timeout)
    sigs: dict[int, bytes] = {}
    if seated:
        sigs[0] = genesis_signature(genesis, me.identity)
    roster_frame = {
        "t": "roster",
        "game": definition.name,
        "options": encode(options),
        "total": players,
        "beacon_length": BEACON_LENGTH,
        "turn_timeout_ms": timeout,
        "seats": [r.to_bytes() for r in roster],
    }
    offset = 1 if seated else 0

    async def send(seat: int, j: Joined, frame: dict[str, Any]) -> None:
        """The roster and the signatures so far: a joiner gone already stops the table."""
        try:
            await j.framed.send(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            raise LobbyError(f"the link to seat {seat} broke before it had the roster: the "
                             f"table did not start") from None

    for index, j in enumerate(joined):
        await send(index + offset, j, roster_frame)
        for seat, sig in sigs.items():
            await send(index + offset, j, {"t": "gsig", "seat": seat, "sig": sig})

    async def collect(index: int, j: Joined) -> None:
        """A joiner's genesis signature, passed on to the others. A joiner that falls silent
        or whose link breaks now (its Wi-Fi dropped) stops the table before it starts, in one
        line (chaos run, issue 22: it was a traceback)."""
        seat = index + offset
        try:
            with trio.fail_after(60):
                frame = await j.framed.receive()
        except (FrameError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
                OSError) as exc:
            why = "no answer in 60 s" if isinstance(exc, trio.TooSlowError) else \
                str(exc) or type(exc).__name__
            raise LobbyError(f"seat {seat} did not sign the genesis ({why}): the table did "
                             f"not start") from None
        if frame["t"] == "bye":  # a joiner that got up: it is the one saying goodbye
            raise LobbyError(f"seat {seat} got up before the table started: {frame['reason']}")
        if (
            frame["t"] != "gsig"
            or frame["seat"] != seat
            or not genesis_signature_valid(genesis, seat, frame["sig"])
        ):
            raise LobbyError(f"seat {seat} sent no valid genesis signature")
        sigs[seat] = frame["sig"]
        for number, other in enumerate(joined):
            if other is not j:
                try:
                    await other.framed.send(frame)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    raise LobbyError(f"the link to seat {number + offset} broke before it had "
                                     f"every genesis signature: the table did not start"
                                     ) from None

    async with trio.open_nursery() as nursery:
        for index, j in enumerate(joined):
            nursery.start_soon(collect, index, j)
    signed = assemble_genesis(genesis, tuple(sigs[i] for i in range(players)))
    store, seat_file = _store(root, signed, definition, roster, 0 if seated else None, me,
                              interface, port, bot=None)
    session = Session(
        definition=definition, genesis=signed, roster=roster, seat=0 if seated else None,
        identity=me.identity, master=me.master, store=store, seat_file=seat_file,
        listener=listener, agent=agent,
        observers=frozenset({me.identity.public}) if not seated else frozenset(),
        config=config, events=events, links=[(j.framed, j.hello) for j in joined],
    )
    return session


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
    emit = events or (lambda kind, data: None)
    for stored in stored_games_of(Path(root), ad.table_id):
        raise LobbyError(f"refused to join table {ad.table_id.hex()}: it has the id of "
                         f"{stored.describe()}, which it would overwrite")
    address = interface_address(interface)
    listener = (await trio.open_tcp_listeners(0, host=address))[0]
    port = listener.socket.getsockname()[1]
    mine = seat_keys(me.name, me.identity, me.master, BEACON_LENGTH)
    try:
        stream = await trio.open_tcp_stream(ad.address, ad.port)
    except OSError as exc:
        await listener.aclose()
        raise LobbyError(f"cannot reach the table at {ad.address}:{ad.port}: {exc}") from None
    framed = FramedStream(stream)
    try:
        try:
            opener = await handshake.dial(framed, me.identity, me.hello(ad.table_id), ad.table_id)
        except handshake.Refused as exc:
            raise LobbyError(f"the table said goodbye: {exc}") from None
        if fingerprint(opener.identity_key) != ad.fingerprint:  # the key people read aloud
            raise LobbyError(f"the table is opened by {fingerprint(opener.identity_key)}, not "
                             f"by {ad.fingerprint} as its announcement says")
        await framed.send({"t": "join", "beacon": mine.beacon, "host": address, "port": port,
                           "sig": sign_address(me.identity, ad.table_id, address, port)})
        while True:
            frame = await _receive(framed)
            if frame["t"] == "lobby":
                emit("lobby", (len(frame["seats"]), frame["total"]))
            elif frame["t"] == "roster":
                break
        options = decode(frame["options"])
        if not isinstance(options, dict):
            raise LobbyError("roster options are not a map")
        options = {k: v for k, v in options.items()}
        if frame["game"] != ad.game or options_digest(ad.game, options) != ad.options_digest:
            raise LobbyError("the roster's game or options differ from the announcement")
        roster = [RosterSeat.from_bytes(s) for s in frame["seats"]]
        if len(roster) != frame["total"] or frame["beacon_length"] != BEACON_LENGTH:
            raise LobbyError("the roster is not full or uses another beacon length")
        timeout = frame["turn_timeout_ms"]
        if not MIN_TURN_TIMEOUT_MS <= timeout <= MAX_TURN_TIMEOUT_MS:
            raise LobbyError(f"the table's turn timeout of {timeout / 1000:g} s is not playable "
                             f"({MIN_TURN_TIMEOUT_MS // 1000} s to "
                             f"{MAX_TURN_TIMEOUT_MS // 3_600_000} h)")
        matches = [
            i for i, r in enumerate(roster)
            if (r.identity, r.table_key, r.beacon, r.host, r.port)
            == (mine.identity, mine.table_key, mine.beacon, address, port)
        ]
        if len(matches) != 1:
            raise LobbyError("the roster does not seat us as we asked")
        for i, r in enumerate(roster):  # where each seat listens is its own signed word
            if not r.address_signed(ad.table_id):
                raise LobbyError(f"the roster gives seat {i} ({r.name}) an address it did not "
                                 f"sign ({r.host}:{r.port}): only the opener's word")
        seat = matches[0]
        genesis = build_genesis(ad.table_id, ad.game, options, roster, timeout)
        sigs = {seat: genesis_signature(genesis, me.identity)}
        await framed.send({"t": "gsig", "seat": seat, "sig": sigs[seat]})
        while len(sigs) < len(roster):
            frame = await _receive(framed, 90)
            if frame["t"] != "gsig" or not 0 <= frame["seat"] < len(roster):
                continue
            if not genesis_signature_valid(genesis, frame["seat"], frame["sig"]):
                raise LobbyError(f"seat {frame['seat']}'s genesis signature does not verify")
            sigs[frame["seat"]] = frame["sig"]
        signed = assemble_genesis(genesis, tuple(sigs[i] for i in range(len(roster))))
    except (FrameError, trio.TooSlowError, trio.EndOfChannel,
            trio.BrokenResourceError, OSError) as exc:
        await framed.aclose()
        await listener.aclose()
        raise LobbyError(f"joining failed: {str(exc) or type(exc).__name__}") from None
    except LobbyError:
        await framed.aclose()
        await listener.aclose()
        raise
    store, seat_file = _store(root, signed, definition, roster, seat, me, interface, port, bot)
    opener_seated = any(r.identity == opener.identity_key for r in roster)
    if not opener_seated:  # a host that watches: let it back in after a resume
        seat_file.extra["observers"] = [opener.identity_key]
        store.save_seat(seat_file)
    session = session_class(
        definition=definition, genesis=signed, roster=roster, seat=seat, identity=me.identity,
        master=me.master, store=store, seat_file=seat_file, listener=listener,
        agent=agent_for(seat),
        observers=frozenset() if opener_seated else frozenset({opener.identity_key}),
        config=config, events=events, links=[(framed, opener)],
        dial=[i for i in range(seat) if roster[i].identity != opener.identity_key],
    )
    return session


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
    except OSError as exc:
        raise LobbyError(f"cannot reach the table at {ad.address}:{ad.port}: {exc}") from None
    framed = FramedStream(stream)
    me = Me.fresh(identity, "spectator")
    try:
        peer = await handshake.dial(framed, identity, me.hello(ad.table_id), ad.table_id)
        frame = await _receive(framed, JOIN_TIMEOUT)
        if frame["t"] != "genesis":
            raise LobbyError(f"the seat sent a {frame['t']} frame, not the table's genesis")
        signed = parse_genesis(frame["genesis"])
        verify_genesis(signed)
    except handshake.Refused as exc:
        await framed.aclose()
        raise LobbyError(f"the table said goodbye: {exc}") from None
    except (FrameError, SpycraftError, trio.TooSlowError, trio.EndOfChannel,
            trio.BrokenResourceError, OSError) as exc:
        await framed.aclose()
        raise LobbyError(f"watching failed: {str(exc) or type(exc).__name__}") from None
    except LobbyError:
        await framed.aclose()
        raise
    genesis = signed.genesis
    seats = [i for i, keys in enumerate(genesis.seats) if keys.identity == peer.identity_key]
    problem = (
        "the genesis is for another table" if genesis.table != ad.table_id
        else f"the genesis is for {genesis.game}, the ad says {ad.game}" if genesis.game != ad.game
        else "the peer that answered has no seat at its table" if not seats else None
    )
    try:
        definition = definition_for(genesis.game) if problem is None else None
    except KeyError:
        definition, problem = None, f"this spycraft does not know {genesis.game}"
    if problem is not None or definition is None:
        await framed.aclose()
        raise LobbyError(f"watching failed: {problem}")
    seat = seats[0]
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

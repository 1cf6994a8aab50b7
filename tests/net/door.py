"""The cheater at the door: a modified client that attacks the handshake, the frame gates and the
memory of honest peers, for the network tests of issue 18 (``tests/net/test_door_attacks.py``).

    python -m tests.net.door MODE INTERFACE OUT_FILE TABLE_ID [--game G] [--turn-timeout T]

Theory of operation: a seated mode joins an announced table as a bot peer (``spycraft bots``
would) and plays honestly apart from its attack, which runs beside the session's ticker; a
stranger's mode never sits down: it finds the table's seats by their ads of the table in play
and knocks. Each prints one line per attempt and what the honest peer answered.

MODE is one of
  relay       (seated; seat 0) hangs up on seat 1, which dials back; sends that live hello on to
              another seat T and puts T's challenge into its own hello to seat 1, then forwards
              seat 1's auth to T (so, if T took it, T's link to seat 1 would be ours); once for
              every seat after seat 1
  bomb        (a stranger) volleys of connections to every seat whose first frame is a 1 MiB
              array of a million empty maps, a 1 MiB hello, and a frame header that announces
              4 GiB
  bomb-seated (seated) after the handshake: a frame of a million empty maps, then a record of
              its own whose payload is a million empty maps, each on a fresh link
  no-read     (seated) asks every seat for the whole transcript again and again and never reads
              what comes back; reconnects each time it is cut off, with a fresh handshake
  spectators  (a stranger) opens as many spectator links to every seat as it is let in, with a
              fresh identity each, asks each for the whole transcript and never reads
  stall       (seated) plays until its first team vote, then says nothing (its links stay up):
              how long the others wait is the table's turn timeout, whatever theirs would be
"""

from __future__ import annotations

import argparse
import inspect
import os
from pathlib import Path
from typing import Any, ClassVar

import cbor2
import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.encoding import encode
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import PROTECTED_SIGN1
from spycraft.engines import registry
from spycraft.engines.seat import table_key_public
from spycraft.p2p import handshake
from spycraft.p2p.discovery import TableAd, browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import Me, join_table
from spycraft.p2p.session import Link, Session, SessionConfig
from spycraft.p2p.wire import (
    HEADER_SIZE,
    NO_ECHO,
    FramedStream,
    FrameError,
    make_hello,
    verify_hello,
)

ONE_MIB = 1 << 20
RELAY_FROM = 4
"""Records the table holds before the relays begin (the mesh is up by then)."""
NO_READ_SECONDS = 40.0
BOMB_VOLLEYS = 3
"""How long ``no-read`` and ``spectators`` keep at it."""


def say(text: str) -> None:
    print(text, flush=True)


def million_empty_maps() -> bytes:
    """The canonical CBOR of an array of empty maps, as many as fit in 1 MiB with its head."""
    count = ONE_MIB - 5
    return bytes([0x9A]) + count.to_bytes(4, "big") + b"\xa0" * count


def raw_frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(HEADER_SIZE, "big") + payload


class Door(Session):
    mode: ClassVar[str] = ""
    victim = 1
    relaying: int | None = None
    relay_done: trio.Event

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.relay_done = trio.Event()

    # --- an honest peer redials; we do what the attack needs ---------------------------------

    def _redial(self, link: Link, after: float = 1.0) -> None:
        if self.mode != "relay":
            super()._redial(link, after)

    async def _ticker(self) -> None:
        assert self._nursery is not None
        attack = {"relay": self._relay_all, "bomb-seated": self._bomb_seated,
                  "no-read": self._no_read}.get(self.mode)
        if attack is not None:
            self._nursery.start_soon(attack)
        await super()._ticker()

    async def _wait_for(self, seq: int) -> None:
        while self.state.seq < seq and not self.finished:
            await self._changed.wait()

    def _link_of(self, seat: int) -> Link | None:
        return next((link for link in self.links.values() if link.seat == seat), None)

    async def _write_turn(self, state: Any) -> None:
        assert self.table_seat is not None
        turn = self.table_seat.my_turn(state)
        if self.mode == "stall" and turn is not None and "vote_commit" in turn.kinds:
            say(f"stalling at record {state.seq + 1}")
            await trio.sleep_forever()
        await super()._write_turn(state)

    # --- 1. relay ----------------------------------------------------------------------------

    async def _relay_all(self) -> None:
        await self._wait_for(RELAY_FROM)
        for target in range(self.victim + 1, len(self.roster)):
            if self.finished:
                return
            while self._link_of(self.victim) is None:  # it dials back after each hang-up
                await trio.sleep(0.05)
            self.relaying, self.relay_done = target, trio.Event()
            link = self._link_of(self.victim)
            assert link is not None
            say(f"hanging up on seat {self.victim}")
            self._drop(link)
            await link.stream.aclose()
            with trio.move_on_after(15):
                await self.relay_done.wait()
            if self.relaying is not None:
                say(f"seat {self.victim} never dialed back to be relayed to seat {target}")
                self.relaying = None
        say("relays done")

    async def _serve(self) -> None:
        table = self.genesis.genesis.table

        async def handle(stream: trio.SocketStream) -> None:
            framed = FramedStream(stream)
            try:
                first = await framed.receive()
                hello = verify_hello(first, table_id=table, echo=NO_ECHO)
            except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, OSError):
                await framed.aclose()
                return
            target = self.relaying
            if target is not None and hello.identity_key == self.roster[self.victim].identity:
                self.relaying = None
                outcome = await self._relay(framed, first, hello, target)
                say(f"relayed seat {self.victim}'s hello to seat {target}: {outcome}")
                self.relay_done.set()
                return
            try:
                await self._finish_accept(framed, hello)
            except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, OSError):
                await framed.aclose()
                return
            self._adopt(framed, hello)

        async with trio.open_nursery() as nursery:
            while True:
                stream = await self.listener.accept()
                nursery.start_soon(handle, stream)

    async def _finish_accept(self, framed: FramedStream, hello: Any) -> None:
        """The rest of an honest listener's handshake, after its first hello was read."""
        mine = self.my_hello()(handshake.fresh_nonce(), hello.nonce)
        await framed.send(mine)
        auth = await framed.receive()
        if "my_nonce" in inspect.signature(handshake.verify_auth).parameters:  # before issue 18
            handshake.verify_auth(auth, hello, mine["nonce"])  # type: ignore[arg-type]
        else:
            handshake.verify_auth(auth, hello, mine)

    def _adopt(self, framed: FramedStream, hello: Any) -> None:
        offer = getattr(self, "_offer", None)
        if offer is None:  # the session before issue 18 (to show an attack on it)
            self._add_link(framed, hello)
        else:
            offer(framed, hello, dialed=False)

    async def _relay(self, framed: FramedStream, first: dict[str, Any], hello: Any,
                     target: int) -> str:
        """Seat ``victim`` dialed us with ``first``: make its answer open a link to ``target``."""
        assert self._nursery is not None
        entry = self.roster[target]
        table = self.genesis.genesis.table
        try:
            with trio.fail_after(10):
                onward = FramedStream(await trio.open_tcp_stream(entry.host, entry.port))
                await onward.send(first)
                theirs = await onward.receive()
                if theirs["t"] != "hello":
                    return f"seat {target} answered the relayed hello with {theirs['t']}"
                verify_hello(theirs, table_id=table, echo=hello.nonce)
                key = table_key_public(self.master)
                name = self.roster[self.seat or 0].name
                # Our own hello to the victim, carrying the target's challenge as our nonce.
                mine = make_hello(self.identity, key, table, name, nonce=theirs["nonce"],
                                  echo=hello.nonce, seat=self.seat)
                await framed.send(mine)
                auth = await framed.receive()
                if auth["t"] != "auth":
                    return f"seat {self.victim} answered our hello with {auth['t']}"
                await onward.send(auth)
                # The victim believes it is linked to us: serve it as a link of ours.
                self._adopt(framed, hello)
                with trio.move_on_after(3):
                    answer = await onward.receive()
                    if answer["t"] == "bye":
                        await onward.aclose()
                        return f"refused by seat {target} ({answer['reason']})"
                    self._nursery.start_soon(self._swallow, onward)
                    return f"ACCEPTED by seat {target} (it sent a {answer['t']} frame)"
                self._nursery.start_soon(self._swallow, onward)
                return f"seat {target} said nothing after the auth"
        except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, trio.TooSlowError,
                OSError) as exc:
            return f"refused by seat {target} (closed: {exc or type(exc).__name__})"

    async def _swallow(self, framed: FramedStream) -> None:
        """Read and drop everything the fooled seat sends its 'seat 1' link."""
        try:
            while True:
                await framed.receive()
        except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, OSError):
            say("the relayed link was closed by its seat")

    # --- 6. bombs, seated --------------------------------------------------------------------

    async def _bomb_seated(self) -> None:
        await self._wait_for(RELAY_FROM)
        bomb = million_empty_maps()
        count = ONE_MIB - 512
        payload = bytes([0x9A]) + count.to_bytes(4, "big") + b"\xa0" * count
        # a COSE_Sign1 in a record's exact layout whose payload is a million empty maps
        record = encode(cbor2.CBORTag(18, [PROTECTED_SIGN1, {}, payload, bytes(64)]))
        kinds = {"a million empty maps": raw_frame(bomb),
                 "a record of a million empty maps": _encode_loose({"t": "record",
                                                                    "record": record})}
        for volley in range(BOMB_VOLLEYS):
            for what, data in kinds.items():
                async with trio.open_nursery() as nursery:
                    for link in list(self.links.values()):
                        if link.seat is not None and not link.closed:
                            nursery.start_soon(self._paced, link, data, 12)
                say(f"volley {volley + 1}: sent every seat linked 12 x {what}")
            await trio.sleep(6)
        say("bombs done")

    async def _paced(self, link: Link, data: bytes, count: int) -> None:
        """Post ``count`` copies of ``data`` within our own outbox's bound."""
        for _ in range(count):
            while getattr(link, "queued", 0) > 2 * ONE_MIB and not link.closed:
                await trio.sleep(0.01)
            if link.closed:
                return
            link.post(data)

    # --- 7. a seat that never reads ----------------------------------------------------------

    async def _no_read(self) -> None:
        await self._wait_for(40)
        say(f"not reading from head {self.state.seq}")
        deadline = trio.current_time() + NO_READ_SECONDS
        async with trio.open_nursery() as nursery:
            for seat in range(len(self.roster)):
                if seat != self.seat:
                    for _ in range(4):
                        nursery.start_soon(self._pester, seat, deadline)
        say("no-read done")

    async def _pester(self, seat: int, deadline: float) -> None:
        """Dial ``seat`` again and again, every half second, without closing what came before
        (a peer that leaves its sockets open and unread): on each link ask for everything."""
        entry = self.roster[seat]
        table = self.genesis.genesis.table
        opened: list[FramedStream] = []
        asks = _encode_loose({"t": "sync", "from_seq": 1}) * 64
        while trio.current_time() < deadline:
            try:
                with trio.fail_after(10):
                    framed = FramedStream(await trio.open_tcp_stream(entry.host, entry.port))
                    opened.append(framed)
                    await handshake.dial(framed, self.identity, self.my_hello(), table)
                    with trio.move_on_after(0.5):
                        while True:
                            await framed.stream.send_all(asks)
                            await trio.sleep(0.05)
            except (FrameError, trio.EndOfChannel, trio.BrokenResourceError,
                    trio.ClosedResourceError, trio.TooSlowError, OSError):
                await trio.sleep(0.1)
        say(f"pestered seat {seat} on {len(opened)} connections")
        for framed in opened:
            framed.stream.socket.close()  # type: ignore[attr-defined]


def _encode_loose(frame: dict[str, Any]) -> bytes:
    """A frame's wire bytes without the sender-side checks (the size limit above all)."""
    return raw_frame(encode({"v": PROTOCOL_VERSION, **frame}))


# --- strangers -----------------------------------------------------------------------------------


async def _ads_in_play(interface: str, table: str, seats: int) -> list[TableAd]:
    found: dict[str, TableAd] = {}
    with trio.move_on_after(30):
        async with browse_tables(interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == table \
                        and ad.watching is not None and ad.source is not None:
                    found[ad.source] = ad
                    if len(found) == seats:
                        break
    return list(found.values())


async def bomb(args: argparse.Namespace) -> None:
    """A stranger's volleys of bombs, before any handshake."""
    ads = await _ads_in_play(args.interface, args.table, args.seats)
    say(f"found {len(ads)} seats in play")
    bomb_frame = raw_frame(million_empty_maps())
    identity = Identity(SystemEntropy().take(32))
    big_hello = make_hello(identity, bytes.fromhex("09" + "00" * 31),
                           bytes.fromhex(args.table), "x" * 64, nonce=os.urandom(32))
    big = _encode_loose({**big_hello, "name": "x" * 64}) + b"\x00" * (ONE_MIB - 400)
    kinds = {
        "a million empty maps": bomb_frame,
        "a 1 MiB hello": raw_frame(big[HEADER_SIZE:][:ONE_MIB]),
        "a 4 GiB header": b"\xff\xff\xff\xff" + b"\x00" * 1024,
    }
    for volley in range(args.volleys):
        for what, data in kinds.items():
            async with trio.open_nursery() as nursery:
                for ad in ads:
                    for _ in range(24):
                        nursery.start_soon(_knock, ad, data)
            say(f"volley {volley + 1}: 24 x {what} to each of {len(ads)} seats")
    say("bombs done")


async def _knock(ad: TableAd, data: bytes) -> None:
    try:
        with trio.move_on_after(10):
            stream = await trio.open_tcp_stream(ad.address, ad.port)
            try:
                await stream.send_all(data)
                while await stream.receive_some(65536):
                    pass
            finally:
                await stream.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass


async def spectators(args: argparse.Namespace) -> None:
    """Spectators that ask for everything and never read."""
    ads = await _ads_in_play(args.interface, args.table, args.seats)
    say(f"found {len(ads)} seats in play")
    deadline = trio.current_time() + NO_READ_SECONDS
    counts: dict[str, int] = {}

    async def watcher(ad: TableAd) -> None:
        while trio.current_time() < deadline:
            identity = Identity(SystemEntropy().take(32))
            me = Me.fresh(identity, "spectator")
            try:
                with trio.fail_after(10):
                    framed = FramedStream(await trio.open_tcp_stream(ad.address, ad.port))
                    await handshake.dial(framed, identity, me.hello(ad.table_id), ad.table_id)
            except (FrameError, trio.EndOfChannel, trio.BrokenResourceError,
                    trio.TooSlowError, OSError):
                await trio.sleep(0.2)
                continue
            counts[ad.source or "?"] = counts.get(ad.source or "?", 0) + 1
            asks = _encode_loose({"t": "sync", "from_seq": 1}) * 64
            try:
                with trio.move_on_at(deadline):
                    while True:
                        await framed.stream.send_all(asks)
                        await trio.sleep(0.05)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
            await framed.aclose()

    async with trio.open_nursery() as nursery:
        for ad in ads:
            for _ in range(args.watchers):
                nursery.start_soon(watcher, ad)
    say(f"spectator links let in: {counts}")


async def main(args: argparse.Namespace) -> None:
    if args.mode == "bomb":
        await bomb(args)
        return
    if args.mode == "spectators":
        await spectators(args)
        return
    Door.mode = args.mode
    definition = registry.load(args.game)
    entropy = SystemEntropy()
    identity = Identity(entropy.take(32))
    with trio.fail_after(30):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == args.table:
                    break
    session = await join_table(
        ad, definition=definition, me=Me.fresh(identity, f"door-{args.mode}"),
        interface=args.interface, root=Path(args.out).parent / "door-home",
        agent_for=lambda seat: definition.bots["random"](entropy, seat),
        config=SessionConfig(turn_timeout=args.turn_timeout), session_class=Door,
    )
    say(f"seat {session.seat}")
    await session.run()
    Path(args.out).write_bytes(session.transcript.to_bytes())


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.net.door")
    p.add_argument("mode", choices=["relay", "bomb", "bomb-seated", "no-read", "spectators",
                                    "stall"])
    p.add_argument("interface")
    p.add_argument("out")
    p.add_argument("table")
    p.add_argument("--game", default="resistance")
    p.add_argument("--turn-timeout", type=float, default=300.0)
    p.add_argument("--seats", type=int, default=5, help="strangers: seats to find")
    p.add_argument("--volleys", type=int, default=2)
    p.add_argument("--watchers", type=int, default=12, help="spectators: links per seat")
    return p.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse())

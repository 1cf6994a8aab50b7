"""Play starts linked (issue 21, item 2): while the genesis is signed, each joiner dials the seats
before it and lets in the seats after it (``p2p.seating.Mesh``, ``p2p.lobby._EarlyMesh``), so
every session begins with a link to every other seat instead of dialing them after the genesis
(the first records waited for those links: 0.3-0.55 s at ten seats). Only the roster's seats get
in early: a stranger who knocks on a joiner's listener then is refused at the handshake. Real
TCP and zeroconf on loopback, one trio program.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.p2p import handshake
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import Me, join_table, open_table
from spycraft.p2p.session import Session
from spycraft.p2p.wire import FramedStream

pytestmark = pytest.mark.network
LO = "127.0.0.1"


def fill_a_table(tmp: Path, players: int, *, knock: Any = None, watch: Any = None
                 ) -> list[Session]:
    """Open a Resistance table on loopback and fill it with joiners; the sessions once the
    genesis is signed (not run). ``knock(ad)`` runs beside the lobby once a joiner found it;
    ``watch(table_id)`` before the table opens (``table_id()`` is awaited for its id)."""
    definition = registry.load("resistance")
    sessions: list[Session] = []

    def agent(seat: int) -> Any:
        return definition.bots["random"](SystemEntropy(), seat)

    async def main() -> None:
        opened = trio.Event()
        box: list[bytes] = []

        async def opener() -> None:
            session = await open_table(
                definition=definition, options=definition.genesis_options(players),
                players=players, me=Me.fresh(Identity(SystemEntropy().take(32)), "opener"),
                seated=True, interface=LO, root=tmp / "opener", agent=agent(0),
                on_open=lambda table, port: (box.append(table), opened.set())[-1],
                cooperating_responders=True)
            sessions.append(session)

        async def joiner(index: int) -> None:
            await opened.wait()
            async with browse_tables(LO) as ads:
                async for ad in ads:
                    if ad.change != "removed" and ad.table_id == box[0]:
                        break
            if knock is not None and index == 1:
                nursery.start_soon(knock, ad)
            session = await join_table(
                ad, definition=definition,
                me=Me.fresh(Identity(SystemEntropy().take(32)), f"joiner{index}"),
                interface=LO, root=tmp / f"joiner{index}", agent_for=agent)
            sessions.append(session)

        async def table_id() -> bytes:
            await opened.wait()
            return box[0]

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                if watch is not None:
                    await nursery.start(watch, table_id)
                nursery.start_soon(opener)
                for index in range(1, players):
                    nursery.start_soon(joiner, index)
        for session in sessions:
            session.listener.socket.close()
            for stream, _ in session._initial_links:
                await stream.aclose()

    trio.run(main)
    return sorted(sessions, key=lambda s: s.seat if s.seat is not None else -1)


def test_every_seat_starts_play_linked_to_every_other_seat(tmp_path: Path) -> None:
    sessions = fill_a_table(tmp_path, 5)
    assert [s.seat for s in sessions] == [0, 1, 2, 3, 4]
    for session in sessions:
        linked = sorted(session.seat_of(hello.identity_key) for _, hello in
                        session._initial_links)
        assert linked == [i for i in range(5) if i != session.seat], (session.seat, linked)
        assert session._initial_dial == []  # nobody left to dial after the genesis


def test_a_stranger_who_knocks_on_a_joiners_listener_before_the_genesis_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    listening: set[int] = set()  # the ports of every listener this program opened
    open_listeners = trio.open_tcp_listeners

    async def recorded(*args: Any, **kwargs: Any) -> list[trio.SocketListener]:
        listeners = await open_listeners(*args, **kwargs)
        listening.update(listener.socket.getsockname()[1] for listener in listeners)
        return listeners

    monkeypatch.setattr(trio, "open_tcp_listeners", recorded)
    said: list[str] = []

    async def knock(ad: Any) -> None:
        """A stranger with an identity of its own knocks on every listener of the table as the
        seats sit down (it may scan ports: where a joiner listens is no secret), with a hello
        for this table, and waits for an answer."""
        stranger = Me.fresh(Identity(SystemEntropy().take(32)), "stranger")
        knocked: set[int] = set()

        async def one(port: int) -> None:
            try:
                stream = await trio.open_tcp_stream(LO, port)
            except OSError:
                return
            framed = FramedStream(stream)
            try:
                with trio.move_on_after(5):
                    await handshake.dial(framed, stranger.identity,
                                         stranger.hello(ad.table_id), ad.table_id)
                    said.append(f"port {port}: let in")
            except handshake.Refused as exc:
                said.append(str(exc))
            except Exception as exc:  # noqa: BLE001 (a lobby that hangs up on it, another socket)
                said.append(f"port {port}: {type(exc).__name__}")
            await framed.aclose()

        async with trio.open_nursery() as knocks:
            for _ in range(40):
                for port in listening - knocked - {ad.port}:
                    knocked.add(port)
                    knocks.start_soon(one, port)
                await trio.sleep(0.05)

    sessions = fill_a_table(tmp_path, 5, knock=knock)
    assert len(sessions) == 5
    assert not [r for r in said if "let in" in r], said
    assert "not a seat after ours at this table" in said, said  # an early mesh said no


def test_the_early_mesh_outlives_a_listener_out_of_descriptors_and_an_address_that_is_none(
) -> None:
    """Red team 3 (stop 28, r1 and r4): a stranger's backlog of silent connections made
    ``accept`` fail with EMFILE once the roster came, and the joiner died with a traceback; a
    dial to a host that is no address raised a ValueError out of the name lookup. The early mesh
    only ever helps: it waits and accepts again, and a link it cannot make is the session's to
    make (no error of it ends the lobby)."""
    import errno

    from spycraft.p2p.lobby import _EarlyMesh
    from spycraft.p2p.seating import Mesh, RosterSeat

    class Exhausted:
        """A listener whose process is out of descriptors, three times, then quiet."""

        def __init__(self) -> None:
            self.failures = 0

        async def accept(self) -> Any:
            if self.failures < 3:
                self.failures += 1
                raise OSError(errno.EMFILE, "Too many open files")
            await trio.sleep_forever()

    me = Me.fresh(Identity(SystemEntropy().take(32)), "joiner")
    listener = Exhausted()
    mesh = _EarlyMesh(me, bytes(16), listener)  # type: ignore[arg-type]
    nowhere = RosterSeat("seat0", Identity(SystemEntropy().take(32)).public, bytes(32),
                         bytes(32), "x..y", 4000)

    async def main() -> None:
        with trio.move_on_after(1.0):
            async with trio.open_nursery() as nursery:
                mesh.start(nursery, Mesh(1, ((0, nowhere),), frozenset({bytes(32)})))
                await mesh.settled()  # the dial to "x..y" ended, as a failed link
                await trio.sleep(0.5)

    trio.run(main)
    assert listener.failures == 3 and mesh.links == {}

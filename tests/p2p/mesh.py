"""Real sessions of one table in one trio program, over loopback TCP, for the link tests.

``mesh`` builds ``n`` seats of one table (the relay race unless a game is given): a genesis
signed by all (with the turn timeout asked for), one listener each on 127.0.0.1, and a
``Session`` per seat that dials the seats before it (the lobby's mesh). Nothing is started: a
test runs ``session.run()`` for the seats it wants, and may stand in for a seat itself with
``knock`` (a handshake under that seat's identity).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import Genesis, assemble_genesis, genesis_signature
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import BEACON_LENGTH, seat_keys, table_key_public
from spycraft.p2p import handshake
from spycraft.p2p.seating import RosterSeat
from spycraft.p2p.session import Session, SessionConfig
from spycraft.p2p.storage import GameStore, SeatFile
from spycraft.p2p.wire import FramedStream, Hello, make_hello
from tests.p2p.relay import GAME


class Slow:
    """A random agent that takes ``seconds`` over each decision (in the session's thread)."""

    def __init__(self, seed: bytes, seconds: float) -> None:
        self.agent = RandomAgent(SeededEntropy(seed))
        self.seconds = seconds

    def decide(self, decision: Decision) -> int:
        time.sleep(self.seconds)
        return self.agent.decide(decision)


@dataclass
class Seat:
    identity: Identity
    master: bytes
    listener: trio.SocketListener


async def mesh(tmp: Path, n: int, *, laps: int = 3, timeout_ms: int = 20_000,
               think: float = 0.02, config: SessionConfig | None = None,
               definition: GameDefinition = GAME) -> list[Session]:
    entropy = SeededEntropy(b"mesh")
    seats = []
    for i in range(n):
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        seats.append(Seat(Identity(entropy.child(f"identity/{i}").take(32)),
                          entropy.child(f"master/{i}").take(32), listener))
    keys = tuple(seat_keys(f"seat{i}", s.identity, s.master, BEACON_LENGTH)
                 for i, s in enumerate(seats))
    options = {"laps": laps} if definition is GAME else definition.genesis_options(n)
    genesis = Genesis(PROTOCOL_VERSION, entropy.child("table").take(16), definition.name,
                      options, keys, BEACON_LENGTH, timeout_ms)
    signed = assemble_genesis(genesis, tuple(genesis_signature(genesis, s.identity)
                                             for s in seats))
    roster = [RosterSeat(k.name, k.identity, k.table_key, k.beacon, "127.0.0.1",
                         s.listener.socket.getsockname()[1]) for k, s in zip(keys, seats)]
    sessions = []
    for i, s in enumerate(seats):
        store = GameStore.create(tmp, genesis.table, i)
        store.write_genesis(signed)
        seat_file = SeatFile(game=definition.name, table=genesis.table, seat=i, master=s.master,
                             memo={}, roster=[r.to_cbor() for r in roster])
        sessions.append(Session(
            definition=definition, genesis=signed, roster=roster, seat=i, identity=s.identity,
            master=s.master, store=store, seat_file=seat_file, listener=s.listener,
            agent=Slow(f"agent/{i}".encode(), think), config=config or SessionConfig(linger=2),
            dial=list(range(i)),
        ))
    return sessions


def hello_of(session: Session) -> handshake.HelloBuilder:
    """What ``session``'s seat says in a hello (for a test that stands in for it)."""
    key = table_key_public(session.master)
    table = session.genesis.genesis.table
    name = session.roster[session.seat or 0].name
    return lambda nonce, echo: make_hello(session.identity, key, table, name, nonce=nonce,
                                          echo=echo, seat=session.seat)


async def knock(as_seat: Session, to: Session) -> tuple[FramedStream, Hello]:
    """Dial ``to`` and pass the handshake under ``as_seat``'s identity."""
    port = to.listener.socket.getsockname()[1]
    framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
    hello = await handshake.dial(framed, as_seat.identity, hello_of(as_seat),
                                 as_seat.genesis.genesis.table)
    return framed, hello


async def linked(session: Session, other: Session, timeout: float = 10) -> None:
    """Wait until ``session`` holds a live link to ``other``."""
    with trio.fail_after(timeout):
        while True:
            link = session._by_identity.get(other.identity.public)
            if link is not None and not link.closed:
                return
            await trio.sleep(0.02)


async def until(condition: Any, timeout: float = 10) -> None:
    with trio.fail_after(timeout):
        while not condition():
            await trio.sleep(0.02)

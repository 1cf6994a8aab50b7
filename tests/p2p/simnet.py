"""A simulated table for the sans-IO peer protocol: n peers, a full mesh, a clock, a scheduler.

Every peer is a real ``PeerProtocol`` with a real ``TableSeat`` (real signatures, real engine);
only the network and the clock are simulated, so a test chooses the interleaving: how long each
frame takes, which frames are lost or delivered twice, and what one adversarial seat does
instead of following the protocol. Frames go through the wire encoding both ways, as on TCP.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.records import SignedRecord, parse_record
from spycraft.crypto.transcript import Transcript
from spycraft.engines.agent import RandomAgent
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.registry import GameDefinition
from spycraft.engines.seat import TableSeat
from spycraft.p2p.protocol import (
    Action,
    Close,
    PeerProtocol,
    ProtocolConfig,
    Remember,
    Rewrite,
    Send,
    Store,
)
from spycraft.p2p.wire import decode_frames, encode_frame
from tests.p2p.relay import GAME

TICK = 0.1


@dataclass
class Peer:
    index: int
    protocol: PeerProtocol
    seat: TableSeat
    agent: RandomAgent  # an observer's is never asked
    # the transcript file, as Store/Rewrite left it
    stored: list[bytes] = field(default_factory=list)
    signed: dict[tuple[int, bytes], set[bytes]] = field(default_factory=dict)  # Remember, by place
    stored_at: dict[int, float] = field(default_factory=dict)  # when each seq was first stored
    closed: set[int] = field(default_factory=set)  # links this peer closed, by the other's index
    honest: bool = True
    writes: bool = True  # False: a staller, who never writes its turn
    think: float = 0.0  # seconds after its place began before it writes (a person, or pacing)
    think_at: dict[int, float] = field(default_factory=dict)  # ... at one seq only
    rewrites: int = 0  # rollbacks (the transcript file rewritten)
    unfinished: int = 0  # rollbacks past a result it held (never allowed)
    # for each of those, the records it dropped (the first one is where the branches forked)
    dropped: list[list[bytes]] = field(default_factory=list)


@dataclass(order=True)
class _Frame:
    at: float
    order: int
    sender: int = field(compare=False)
    receiver: int = field(compare=False)
    data: bytes = field(compare=False)


class SimNet:
    """Peers i and j share one link; peer i knows it as link id j. ``observers`` more peers
    after the seats have no seat: the table's seatless hosts (the genesis names them, so each
    seat keeps a budget for each), then ``spectators`` strangers; each is linked to every seat,
    and to no other observer."""

    def __init__(
        self,
        players: int,
        *,
        seed: int = 1,
        rng: random.Random | None = None,
        definition: GameDefinition = GAME,
        options: dict[str, Any] | None = None,
        timeout: float = 5.0,
        grace: float = 1.0,
        delay: tuple[float, float] = (0.001, 0.05),
        drop: float = 0.0,
        duplicate: float = 0.0,
        redial: float | None = None,
        observers: int = 0,
        spectators: int = 0,
    ) -> None:
        self.rng = rng or random.Random(seed)
        self.definition = definition
        self.local: LocalTable = new_local_table(
            definition, options or {}, players, SeededEntropy(seed.to_bytes(8, "big"))
        )
        self.config = ProtocolConfig(turn_timeout=timeout, grace=grace)
        self.delay = delay
        self.drop = drop
        self.duplicate = duplicate
        self.now = 0.0
        self.redial = redial
        """Seconds after a link is closed before it comes back (the session dials again), or
        never (None)."""
        self._reopen: list[tuple[float, int, int]] = []
        self._queue: list[_Frame] = []
        self._order = 0
        self.players = players
        self.peers = [
            Peer(i, PeerProtocol(table=definition.table(), genesis=self.local.genesis, seat=seat,
                                 config=self.config, now=0.0),
                 seat, RandomAgent(SeededEntropy(bytes([i, seed % 256]))))
            for i, seat in enumerate(self.local.seats)
        ]
        self.hosts = observers
        for i in range(players, players + observers + spectators):
            protocol = PeerProtocol(table=definition.table(), genesis=self.local.genesis,
                                    seat=None, config=self.config, now=0.0)
            self.peers.append(Peer(i, protocol, self.local.seats[0],
                                   RandomAgent(SeededEntropy(bytes([i, 0]))), writes=False))
        self.on_frame: Callable[[Peer, int, dict[str, Any]], bool] | None = None
        """A hook that sees every delivered frame first; True swallows it."""
        self.adversary: Callable[[SimNet, Peer], None] | None = None
        """What a dishonest peer does at each step instead of writing its turn honestly."""
        self.intercept: Callable[[Peer, Send], bool] | None = None
        """Sees every frame a dishonest peer's protocol would send; True: it was taken."""
        self.tap: Callable[[int, int, dict[str, Any]], None] | None = None
        """Sees every frame put on any link (an eavesdropper's view)."""
        for peer in self.peers:
            for other in self.linked(peer):
                self.apply(peer, self.link_up(peer, other))

    def seat_of(self, peer: Peer) -> int | None:
        return peer.index if peer.index < self.players else None

    def link_up(self, peer: Peer, other: Peer) -> list[Action]:
        """``peer``'s protocol learns of its link to ``other``."""
        watcher = (f"host{other.index}".encode()
                   if self.players <= other.index < self.players + self.hosts else None)
        return peer.protocol.link_up(other.index, self.seat_of(other), self.now, watcher=watcher)

    def linked(self, peer: Peer) -> list[Peer]:
        """The peers ``peer`` has a link to: every other seat, and the observers if a seat."""
        return [other for other in self.peers if other is not peer and
                (self.seat_of(peer) is not None or self.seat_of(other) is not None)]

    # --- moving frames -----------------------------------------------------------------------

    def send(
        self, sender: int, receiver: int, frame: dict[str, Any], *, lossless: bool = False,
        after: float | None = None,
    ) -> None:
        """Queue a frame (``after``: exactly that many seconds from now, lossless)."""
        if receiver in self.peers[sender].closed or sender in self.peers[receiver].closed:
            return
        if self.tap is not None:
            self.tap(sender, receiver, frame)
        data = encode_frame(frame)
        copies = 1
        if after is None and not lossless and self.rng.random() < self.drop:
            copies = 0
        elif after is None and not lossless and self.rng.random() < self.duplicate:
            copies = 2
        for _ in range(copies):
            self._order += 1
            at = self.now + (self.rng.uniform(*self.delay) if after is None else after)
            heapq.heappush(self._queue, _Frame(at, self._order, sender, receiver, data))

    def apply(self, peer: Peer, actions: list[Action]) -> None:
        if peer.honest:
            peer.protocol.check_invariants()
        for action in actions:
            if isinstance(action, Send):
                if peer.honest or self.intercept is None or not self.intercept(peer, action):
                    self.send(peer.index, action.link, action.frame)
            elif isinstance(action, Store):
                peer.stored.extend(r.raw for r in action.records)
                for r in action.records:
                    peer.stored_at.setdefault(r.seq, self.now)
            elif isinstance(action, Rewrite):
                kept = action.transcript.records
                if peer.stored and len(kept) < len(
                    peer.stored
                ) - 1 and parse_record(peer.stored[-1]).record.kind == "result":
                    peer.unfinished += 1
                    peer.dropped.append(peer.stored[len(kept):])
                peer.stored = [r.raw for r in kept]
                peer.rewrites += 1
            elif isinstance(action, Remember):
                peer.signed.setdefault((action.seq, action.prev), set()).add(action.raw)
            elif isinstance(action, Close):
                self.close(peer.index, action.link)

    def close(self, closer: int, other: int) -> None:
        """``closer`` says goodbye to ``other``: both ends lose the link (until a redial)."""
        if other in self.peers[closer].closed:
            return
        self.peers[closer].closed.add(other)
        self.peers[other].protocol.link_down(closer)
        if self.redial is not None:
            heapq.heappush(self._reopen, (self.now + self.redial, closer, other))

    def _reopen_due(self) -> None:
        while self._reopen and self._reopen[0][0] <= self.now:
            _, a, b = heapq.heappop(self._reopen)
            self.peers[a].closed.discard(b)
            self.peers[b].closed.discard(a)
            for one, two in ((a, b), (b, a)):
                self.peers[one].protocol.link_down(two)
                self.apply(self.peers[one], self.link_up(self.peers[one], self.peers[two]))

    def broadcast(self, sender: int, frame: dict[str, Any]) -> None:
        for other in self.linked(self.peers[sender]):
            self.send(sender, other.index, frame, lossless=True)

    # --- running -----------------------------------------------------------------------------

    def step_peer(self, peer: Peer) -> None:
        if not peer.honest and self.adversary is not None:
            self.adversary(self, peer)
            return
        if peer.writes:
            state = peer.protocol.wants_turn()
            think = peer.think_at.get(peer.protocol.head + 1, peer.think)
            if state is not None and self.now >= peer.protocol.since + think:
                signed = peer.seat.build(state, peer.agent)
                self.apply(peer, peer.protocol.submit(signed, self.now))

    def run(self, until: float, *, stop: Callable[[], bool] | None = None) -> None:
        """Advance the clock to ``until`` (or until ``stop()``), delivering frames in time order
        and ticking every peer every ``TICK`` seconds."""
        next_tick = self.now
        while self.now < until:
            if stop is not None and stop():
                return
            if self._queue and self._queue[0].at <= next_tick:
                frame = heapq.heappop(self._queue)
                self.now = max(self.now, frame.at)
                receiver = self.peers[frame.receiver]
                if frame.sender in receiver.closed:
                    continue
                (decoded,) = decode_frames(frame.data)
                if self.on_frame is not None and self.on_frame(receiver, frame.sender, decoded):
                    continue
                self.apply(receiver, receiver.protocol.receive(frame.sender, decoded, self.now))
                self.step_peer(receiver)
                continue
            self.now = next_tick
            next_tick += TICK
            self._reopen_due()
            for peer in self.peers:
                self.step_peer(peer)
                self.apply(peer, peer.protocol.tick(self.now))
                self.step_peer(peer)

    def honest(self) -> list[Peer]:
        return [p for p in self.peers if p.honest]

    def all_honest_finished(self) -> bool:
        return all(p.protocol.finished for p in self.honest())

    def settle(self, seconds: float = 3.0) -> None:
        """Run on a quiet, lossless network so the heads of the end go round. Frames are lost
        only with a link that broke (TCP), so a lossy run ends as one does: every link comes
        back and says its head."""
        lossy, self.drop, self.duplicate = self.drop, 0.0, 0.0
        if lossy:
            self.reconnect()
        self.run(self.now + seconds)

    def reconnect(self) -> None:
        """Every link breaks and comes back (both ends see it go down, then up)."""
        for peer in self.peers:
            for other in self.linked(peer):
                peer.protocol.link_down(other.index)
        for peer in self.peers:
            peer.closed.clear()
            for other in self.linked(peer):
                self.apply(peer, self.link_up(peer, other))


# --- what the tests check -------------------------------------------------------------------


def finish(net: SimNet, limit: float = 300.0) -> None:
    net.run(limit, stop=net.all_honest_finished)
    net.settle()


def agreed(net: SimNet) -> Transcript:
    """The honest peers hold one transcript, byte for byte, on disk as in memory."""
    honest = net.honest()
    assert all(p.protocol.finished for p in honest), [p.protocol.head for p in honest]
    files = {tuple(p.stored) for p in honest}
    assert len(files) == 1, "honest peers forked"
    assert all(next(iter(files)) == tuple(r.raw for r in p.protocol.records) for p in honest)
    return honest[0].protocol.transcript


def never_signed_twice(net: SimNet) -> None:
    for peer in net.honest():
        assert all(len(raws) == 1 for raws in peer.signed.values()), peer.index


def honest_seats_kept(net: SimNet, transcript: Transcript) -> Any:
    report = audit_transcript(transcript, net.definition)
    assert report.error is None, report.describe()
    assert report.result is not None
    honest = {p.index for p in net.honest()}
    assert not honest & set(report.result.forfeits), report.describe()
    return report


def adversary_of(net: SimNet, index: int, act: Any) -> Peer:
    """Seat ``index`` plays honestly, but ``act(net, peer, state)`` runs first at each step and
    may replace its turn (return True) with whatever it likes. Several seats may each have one
    (a coalition)."""
    peer = net.peers[index]
    peer.honest = False
    acts: dict[int, Any] = getattr(net, "acts", {})
    acts[index] = act
    net.acts = acts  # type: ignore[attr-defined]

    def step(net: SimNet, peer: Peer) -> None:
        state = peer.protocol.wants_turn()
        if acts[peer.index](net, peer, peer.protocol.state):
            return
        if state is not None:
            net.apply(peer, peer.protocol.submit(peer.seat.build(state, peer.agent), net.now))

    net.adversary = step
    return peer


def send_halves(
    net: SimNet, peer: Peer, one: SignedRecord, two: SignedRecord, gets_one: Callable[[Peer], bool]
) -> None:
    """``peer`` keeps ``one`` as its own record and sends each other peer ``one`` or ``two``."""
    kept = peer.protocol.submit(one, net.now)
    net.apply(peer, [a for a in kept if not isinstance(a, Send)])
    for other in net.peers:
        if other is not peer:
            raw = (one if gets_one(other) else two).raw
            net.send(peer.index, other.index, {"t": "record", "record": raw}, lossless=True)

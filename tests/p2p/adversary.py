"""An adversary that is not a list: a Byzantine seat, or a coalition, on the simulated network.

Theory of operation
-------------------
The coalition's seats run real ``PeerProtocol``s, so they know the chain as they see it and can
build valid records; but nothing they send leaves as their protocol meant. Every frame their
protocols emit is the coalition's to deliver to any subset of links at any delay, or to keep
(``intercept``), and it overhears every frame on every link (``overhear``). At each step of one
of its seats it may also make one of the moves of ``MOVES``, with weights and rates drawn for the
run (``Strategy``):

* ``replay``: any frame it ever saw (received, sent, or overheard) to any links, at any delay;
* ``record``: a record of one of its seats signed for any place it knows (the places of its
  chain, or a made-up prev), of any kind: the honest one, a leg of any value, a body no schema
  allows, an abandon of the seat expected there with its own votes and every vote it saw for
  that place, a fraud carrying any records it saw, a result;
* ``vote``: its seats' absence votes for any place of its chain, against the seat expected there;
* ``evidence``: two records of one of its seats for one place (real or made up), or any two
  records it saw;
* ``noise``: heads, acks and sync requests for any seq with real or random links; a goodbye.

At its own turn it may stall, for a while or for good. Links the honest peers close come back
after ``REDIAL`` seconds, as the session dials again. Honest seats answer at once, or like a
person within their own countdown (``think``).

``check`` asserts, after every run, the guarantees of ``p2p.protocol``: the honest peers finish,
hold byte-identical transcripts that audit, no honest seat forfeits (only as the other side's
claim where no third seat is left, at two seats or once the others forfeited, which makes no
side lose: "nobody can tell a stall from a lie") or is accused of anything, no honest seat
signed two records for one place, and every buffer stayed within its bound all along
(``bounded``, called as frames arrive).
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field, replace
from typing import Any

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.records import Record, SignedRecord, parse_record, sign_record
from spycraft.engines import absence
from spycraft.engines.audit import AuditReport, audit_transcript
from spycraft.engines.seat import TableSeat
from spycraft.engines.table import TableState
from spycraft.p2p.protocol import (
    FUTURE_BYTES_PER_LINK,
    FUTURE_BYTES_TOTAL,
    FUTURE_WINDOW,
    Send,
)
from tests.p2p.simnet import Peer, SimNet, agreed, never_signed_twice

MOVES = ("replay", "record", "vote", "evidence", "noise")
RECORD_KINDS = ("honest", "leg", "malformed", "abandon", "fraud", "result", "made-up")
REDIAL = 3.0
"""Seconds before a closed link comes back (``p2p.admission.REDIAL_AFTER_BYE``)."""
SEEN = 400
"""Frames the coalition remembers for replay (a random one is forgotten beyond that)."""
TIMEOUT = 5.0
GRACE = 1.0
LIMIT = 600.0
"""Seconds of simulated time in which the honest peers must finish."""


@dataclass(frozen=True)
class Strategy:
    """How the coalition behaves in one run."""

    faithful: float  # an emitted frame goes at once to the link it was meant for
    withhold: float  # an emitted frame is kept back (it may be replayed later)
    linger: float  # the longest a frame it sends late waits
    act: float  # a move at each step
    stall: float  # a stall at one of its turns
    moves: tuple[float, ...]  # weight of each of MOVES
    kinds: tuple[float, ...]  # weight of each of RECORD_KINDS
    budget: int  # moves at most in the run

    @classmethod
    def draw(cls, rng: random.Random) -> Strategy:
        faithful = rng.random()
        return cls(
            faithful=faithful,
            withhold=rng.random() * (1 - faithful) * 0.5,
            linger=rng.choice((0.5, 2.0, TIMEOUT, 3 * TIMEOUT)),
            act=rng.choice((0.0, 0.05, 0.2, 0.6)),
            stall=rng.choice((0.0, 0.0, 0.1, 0.3)),
            moves=tuple(rng.random() for _ in MOVES),
            kinds=tuple(rng.random() for _ in RECORD_KINDS),
            budget=rng.choice((10, 40, 120)),
        )


@dataclass
class Coalition:
    net: SimNet
    seats: tuple[int, ...]
    strategy: Strategy
    rng: random.Random
    seen: list[dict[str, Any]] = field(default_factory=list)
    records: list[SignedRecord] = field(default_factory=list)
    votes: list[dict[str, Any]] = field(default_factory=list)
    writes_at: dict[tuple[int, int, bytes], float] = field(default_factory=dict)
    moves_made: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for seat in self.seats:
            self.net.peers[seat].honest = False
        self.net.adversary = self.step
        self.net.intercept = self.intercept
        self.net.tap = self.overhear

    # --- what it knows -------------------------------------------------------------------

    def remember(self, frame: dict[str, Any]) -> None:
        if len(self.seen) >= SEEN:
            self.seen.pop(self.rng.randrange(len(self.seen)))
        self.seen.append(frame)
        kind = frame["t"]
        raws = ([frame["record"]] if kind == "record"
                else list(frame["records"]) if kind in ("sync_reply", "evidence") else [])
        for raw in raws[:4]:
            try:
                self.records.append(parse_record(raw))
            except SpycraftError:
                continue
        if kind == "absent":
            self.votes.append(frame)
        del self.records[:-SEEN]
        del self.votes[:-SEEN]

    def overhear(self, sender: int, receiver: int, frame: dict[str, Any]) -> None:
        if sender not in self.seats:  # its own frames it remembers when it sends them
            self.remember(frame)

    # --- what it does with what its protocols emit ----------------------------------------

    def intercept(self, peer: Peer, send: Send) -> bool:
        self.remember(send.frame)
        draw = self.rng.random()
        if draw < self.strategy.faithful:
            self.net.send(peer.index, send.link, send.frame)
        elif draw >= self.strategy.faithful + self.strategy.withhold:
            self.net.send(peer.index, send.link, send.frame,
                          after=self.rng.uniform(0.0, self.strategy.linger))
        return True

    def step(self, net: SimNet, peer: Peer) -> None:
        state = peer.protocol.wants_turn()
        if state is not None:
            key = (peer.index, *peer.protocol.place)
            if key not in self.writes_at:
                late = 0.0
                if self.rng.random() < self.strategy.stall:
                    late = self.rng.choice((self.rng.uniform(0, 3 * TIMEOUT), math.inf))
                self.writes_at[key] = net.now + late
            if net.now >= self.writes_at[key]:
                try:
                    signed = peer.seat.build(state, peer.agent)
                except SpycraftError:
                    signed = None
                if signed is not None:
                    net.apply(peer, peer.protocol.submit(signed, net.now))
        if self.strategy.budget > sum(self.moves_made.values()) and \
                self.rng.random() < self.strategy.act:
            self.move(peer)

    # --- moves ---------------------------------------------------------------------------

    def move(self, peer: Peer) -> None:
        move = self.rng.choices(MOVES, weights=self.strategy.moves)[0]
        self.moves_made[move] = self.moves_made.get(move, 0) + 1
        frames: list[dict[str, Any]] = []
        if move == "replay" and self.seen:
            frames.append(self.rng.choice(self.seen))
        elif move == "record":
            signed = self.forge(peer)
            if signed is not None:
                frames.append({"t": "record", "record": signed.raw})
        elif move == "vote":
            frames.extend(self.vote_frames(peer))
        elif move == "evidence":
            frames.extend(self.evidence(peer))
        elif move == "noise":
            frames.append(self.noise(peer))
        others = [p.index for p in self.net.peers if p.index != peer.index]
        targets = [o for o in others if self.rng.random() < 0.7] or [self.rng.choice(others)]
        for frame in frames:
            for target in targets:
                late = self.rng.random() < 0.5
                after = self.rng.uniform(0, self.strategy.linger) if late else None
                self.net.send(peer.index, target, frame, after=after)

    def signer(self) -> TableSeat:
        return self.net.peers[self.rng.choice(self.seats)].seat

    def some_state(self, peer: Peer) -> TableState[Any]:
        states = peer.protocol.states
        if self.rng.random() < 0.3:
            return self.rng.choice(states)
        back = min(len(states) - 1, int(self.rng.expovariate(0.5)))
        return states[len(states) - 1 - back]

    def forge(self, peer: Peer) -> SignedRecord | None:
        state = self.some_state(peer)
        kind = self.rng.choices(RECORD_KINDS, weights=self.strategy.kinds)[0]
        table = peer.protocol.table
        turn = table.expect(state)
        seat = self.signer()
        try:
            if kind == "honest" and turn is not None and turn.seat in self.seats:
                member = self.net.peers[turn.seat]
                return member.seat.build(state, member.agent)
            if kind == "abandon" and turn is not None and turn.kinds != ("result",):
                return self.abandon(state, turn.seat)
            if kind == "fraud" and self.records:
                evidence = self.rng.sample(self.records, min(len(self.records),
                                                             self.rng.choice((1, 2))))
                return seat.sign(state, "fraud", {"evidence": [r.raw for r in evidence]})
            if kind == "result":
                return seat.sign_result(state) or seat.sign(state, "result", {})
            if kind == "malformed":
                return seat.sign(state, "leg", {"speed": "fast"})
            if kind == "made-up":
                record = Record(state.genesis.table, state.seq + self.rng.randint(0, 3),
                                os.urandom(32), seat.index, "leg", {"value": 1})
                return sign_record(record, seat.identity)
            return seat.sign(state, "leg", {"value": self.rng.randint(-1, 5)})
        except SpycraftError:
            return None

    def abandon(self, state: TableState[Any], accused: int) -> SignedRecord | None:
        """An abandon with the coalition's fresh votes and every vote it saw for this place."""
        place = (state.seq + 1, state.link)
        votes = {
            int(v["voter"]): v["sig"] for v in self.votes
            if (v["seq"], v["prev"]) == place and v["seat"] == accused
        }
        for member in self.seats:
            if member != accused:
                votes[member] = self.net.peers[member].seat.absence_vote(state)
        voters = [v for v in votes if v in self.seats]
        if not voters:
            return None
        kept = {v: sig for v, sig in votes.items() if v in voters or self.rng.random() < 0.8}
        writer = self.net.peers[self.rng.choice(voters)].seat
        return writer.sign(state, "abandon", absence.abandon_body(accused, kept))

    def vote_frames(self, peer: Peer) -> list[dict[str, Any]]:
        state = self.some_state(peer)
        turn = peer.protocol.table.expect(state)
        if turn is None:
            return []
        frames = []
        for member in self.seats:
            if member != turn.seat:
                sig = self.net.peers[member].seat.absence_vote(state)
                frames.append({"t": "absent", "seq": state.seq + 1, "prev": state.link,
                               "seat": turn.seat, "voter": member, "sig": sig})
        return frames

    def evidence(self, peer: Peer) -> list[dict[str, Any]]:
        if self.records and self.rng.random() < 0.4:
            pair = [self.rng.choice(self.records).raw for _ in range(2)]
            return [{"t": "evidence", "records": pair}]
        state = self.some_state(peer)
        seat = self.signer()
        prev = state.link if self.rng.random() < 0.6 else os.urandom(32)
        pair = [
            sign_record(Record(state.genesis.table, state.seq + 1, prev, seat.index, "leg",
                               {"value": value}), seat.identity).raw
            for value in self.rng.sample(range(4), 2)
        ]
        return [{"t": "evidence", "records": pair}]

    def noise(self, peer: Peer) -> dict[str, Any]:
        head = peer.protocol.head
        links = [r.link for r in self.records[-20:]] + [os.urandom(32)]
        draw = self.rng.random()
        seq, link = self.rng.randint(0, head + 3), self.rng.choice(links)
        if draw < 0.4:
            return {"t": "head", "seq": seq, "link": link}
        if draw < 0.7:
            return {"t": "ack", "seq": seq, "link": link}
        if draw < 0.97:
            return {"t": "sync", "from_seq": self.rng.randint(0, head + 2)}
        return {"t": "bye", "reason": "see you"}


# --- one run ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """The table of one run: how many seats, which the coalition holds, the network."""

    players: int
    coalition: tuple[int, ...]
    teams: bool = False
    slowest: float = 0.05
    think: tuple[float, ...] = ()  # each honest seat's thinking time (a person)
    hosts: int = 0  # the table's seatless hosts (honest peers with no seat)
    spectators: int = 0  # strangers watching (honest peers with no seat, no budget of their own)


def draw_table(rng: random.Random) -> Table:
    """A single Byzantine seat at 2 to 5 seats, a public team at four, or f seats at 3f + 1."""
    form = rng.choice(("one", "one", "team", "f"))
    if form == "team":
        players, coalition, teams = 4, rng.choice(((0, 2), (1, 3))), True
    elif form == "f":
        players = rng.choice((4, 7))
        coalition, teams = tuple(sorted(rng.sample(range(players), (players - 1) // 3))), False
    else:
        players, teams = rng.randint(2, 5), False
        coalition = (rng.randrange(players),)
    think = tuple(rng.choice((0.0, 0.0, 0.0, rng.uniform(0, TIMEOUT - 1.0)))
                  for _ in range(players))
    return Table(players, coalition, teams, rng.choice((0.002, 0.05, 0.3)), think)


def draw_watchers(seed: int, table: Table) -> Table:
    """A third of the runs with the table's seatless host, a third with a stranger watching,
    from a generator of their own (each seed draws the rest as it did before they came)."""
    watchers = random.Random(seed + 7)
    return replace(table, hosts=watchers.choice((0, 0, 1)),
                   spectators=watchers.choice((0, 0, 1)))


def bounded(net: SimNet) -> None:
    """Every buffer of every honest peer within its bound (p2p.protocol, "Bounded")."""
    for peer in net.honest():
        protocol = peer.protocol
        assert len(protocol.records) == protocol.head == len(protocol.states) - 1, peer.index
        held = sum(len(s.raw) for s, _ in protocol.future.values())
        assert held <= FUTURE_BYTES_TOTAL, (peer.index, held)
        assert all(link.future_bytes <= FUTURE_BYTES_PER_LINK for link in protocol.links.values())
        n = len(net.peers)
        assert len(protocol.reports) <= 2 * n, (peer.index, len(protocol.reports))
        assert len(protocol.votes) <= n
        assert len(protocol.lies) <= 1, (peer.index, len(protocol.lies))
        assert len(protocol._decided) <= FUTURE_WINDOW
        assert len(protocol.future) <= FUTURE_WINDOW


def play(seed: int, table: Table | None = None, strategy: Strategy | None = None
         ) -> tuple[SimNet, Coalition]:
    rng = random.Random(seed)
    table = table or draw_watchers(seed, draw_table(rng))
    strategy = strategy or Strategy.draw(rng)
    options: dict[str, Any] = {"laps": 2}
    if table.teams:
        options["teams"] = True
    net = SimNet(table.players, seed=seed, rng=rng, timeout=TIMEOUT, grace=GRACE,
                 delay=(0.001, table.slowest), redial=REDIAL, options=options,
                 observers=table.hosts, spectators=table.spectators)
    for peer, think in zip(net.peers, table.think):
        peer.think = think
    coalition = Coalition(net, table.coalition, strategy, random.Random(seed + 1))
    frames = [0]

    def watch(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        frames[0] += 1
        if frames[0] % 25 == 0:
            bounded(net)
        if not receiver.honest:
            coalition.remember(frame)
        return False

    net.on_frame = watch
    while net.now < LIMIT:  # finished, and still finished once the last frames are in, with
        net.run(LIMIT, stop=net.all_honest_finished)  # no peer rolled back meanwhile (its new
        rewrites = [p.rewrites for p in net.honest()]  # head has yet to go round)
        net.settle(2 * REDIAL + 1)
        if net.all_honest_finished() and rewrites == [p.rewrites for p in net.honest()]:
            break
    bounded(net)
    return net, coalition


def transcript_state(net: SimNet) -> TableState[Any]:
    return next(p for p in net.honest()).protocol.state


def claimed_with_nobody_left(net: SimNet, seat: int) -> bool:
    """Whether ``seat`` was declared absent by one party's claim at a place where no seat
    outside that party, and not the accused, was still playing (at two seats, or once every
    other seat forfeited): nobody is left who could tell its stall from the party's lie, so
    either side can end the game as its claim, which no side loses by."""
    protocol = next(p for p in net.honest()).protocol
    for signed in protocol.records:
        if signed.record.kind == "abandon" and signed.record.body["seat"] == seat:
            before = protocol.states[signed.seq - 1]
            party = protocol._party(before, signed)
            gone = {forfeit.seat for forfeit in before.forfeits}
            return party is not None and len(party | gone | {seat}) == net.players
    return False


def check(net: SimNet, coalition: Coalition) -> AuditReport:
    """The guarantees, for one run (module docstring)."""
    transcript = agreed(net)
    report = audit_transcript(transcript, net.definition)
    assert report.error is None, report.describe()
    assert report.result is not None
    byzantine = set(coalition.seats)
    honest_lost = set(report.result.forfeits) - byzantine
    for seat in honest_lost:  # only the other side's claim where nobody else is left to judge
        assert claimed_with_nobody_left(net, seat), report.describe()
        assert report.result.winner is None, report.describe()
        assert "claimed by seat" in report.result.detail, report.describe()
    final = transcript_state(net)
    for incident in final.incidents:  # the engine names who each fraud and abandon was against
        if incident.seat not in byzantine:
            assert incident.kind == "abandon", report.describe()
            assert claimed_with_nobody_left(net, incident.seat), report.describe()
    never_signed_twice(net)
    # Nothing rolls back past the result, unless a quorum built on two records of one place: at
    # two seats a withheld record does that against the other seat's claim, and elsewhere the
    # half of an equivocation that a cheater and an honest seat built on before it was proven.
    # And a claim's result settles nothing while a seat outside its party is left to build on
    # the claim (rule 3): the accused's record, which a seat outside the party built on, may
    # roll back the claim and the result written on it, at any number of seats (a claim makes
    # no side lose: what comes back is a result of play or a proven fraud).
    equivocated = any("equivocation" in fraud for fraud in report.frauds)
    if net.players > 2 and not equivocated:
        for peer in net.honest():
            for dropped in peer.dropped:
                fork = parse_record(dropped[0])
                before = peer.protocol.states[fork.seq - 1]
                assert fork.record.kind == "abandon" and \
                    peer.protocol._party(before, fork) is not None, \
                    f"honest peer {peer.index} rolled back a result past record {fork.seq}"
    return report

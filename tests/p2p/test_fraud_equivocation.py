"""Red team (stop 28, R1): a seat that signs two fraud records for one place.

A fraud record carries one or two records of up to ``MAX_EVIDENCE_BYTES`` each, so it may be
twice that size, and only records within ``MAX_EVIDENCE_BYTES`` stood as evidence: two colluding
seats (C signs two junk records of 60 KiB for one place, D carries them in two different fraud
records at its own turn, or in one fraud record against its ordinary record, each half to some
of the peers) made an equivocation that no peer could prove. The peer protocol then decided
nothing between the two halves, and the honest peers forked for good: on the simulated network
two honest seats were voted absent, two others hung, and D was never named. Now a fraud record
whose own evidence fits stands as evidence too (``crypto.records.stands_as_evidence``): D is
proven; and a pair too deep to prove (a fraud record that carries fraud records) is decided by
the order, the same at every peer.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.records import MAX_EVIDENCE_BYTES, SignedRecord
from spycraft.engines.table import FRAUD, TableState
from tests.p2p.simnet import (
    Peer,
    SimNet,
    adversary_of,
    agreed,
    finish,
    honest_seats_kept,
    send_halves,
)

C, D = 2, 5
"""The colluders at seven seats: C signs the junk pair, D carries it."""
GETS_ONE = frozenset({0, 1, 3, C})
"""Who is sent D's first half (the rest, seats 4 and 6, its second)."""


def junk_pair(net: SimNet, pad: int = 60_000) -> tuple[SignedRecord, SignedRecord]:
    """Two different records C signs for place 1: an equivocation, proven by any fraud record."""
    start = net.peers[C].protocol.states[0]
    seat = net.peers[C].seat
    return (seat.sign(start, "leg", {"pad": b"\x00" * pad}),
            seat.sign(start, "leg", {"pad": b"\x01" * pad}))


def split_turn(halves: Any) -> Any:
    """D's act: at its first turn, the two records ``halves(net, peer, state)`` gives, each to
    some of the peers; honest play after that."""
    done: list[bool] = []

    def act(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        if done or peer.protocol.wants_turn() is None:
            return False
        done.append(True)
        one, two = halves(net, peer, state)
        for record in (one, two):  # both valid at the place
            peer.protocol.table.apply(state, record)
        send_halves(net, peer, one, two, lambda other: other.index in GETS_ONE)
        return True

    return act


def play(halves: Any) -> Any:
    net = SimNet(7, seed=11, options={"laps": 3})
    adversary_of(net, C, lambda net, peer, state: False)
    adversary_of(net, D, split_turn(halves))
    finish(net, 400)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    return net, transcript, report


def frauds_against(transcript: Any, seat: int) -> list[int]:
    """The seqs of the fraud records in ``transcript`` that accuse ``seat``."""
    from spycraft.crypto.records import parse_record

    found = []
    for signed in transcript.records:
        if signed.record.kind == "fraud":
            evidence = [parse_record(raw) for raw in signed.record.body["evidence"]]
            if evidence[0].seat == seat:
                found.append(signed.seq)
    return found


def two_frauds(net: SimNet, peer: Peer, state: TableState[Any]) -> tuple[SignedRecord, ...]:
    a, b = junk_pair(net)
    return (peer.seat.sign(state, "fraud", {"evidence": [a.raw, b.raw]}),
            peer.seat.sign(state, "fraud", {"evidence": [b.raw, a.raw]}))


def fraud_and_its_turn(net: SimNet, peer: Peer, state: TableState[Any]
                       ) -> tuple[SignedRecord, ...]:
    a, b = junk_pair(net)
    return (peer.seat.sign(state, "fraud", {"evidence": [a.raw, b.raw]}),
            peer.seat.build(state, peer.agent))


@pytest.mark.parametrize("halves", [two_frauds, fraud_and_its_turn],
                         ids=["two fraud records", "a fraud record and its own turn"])
def test_a_seat_that_splits_its_place_with_a_large_fraud_record_is_proven(halves: Any) -> None:
    net, transcript, report = play(halves)
    assert fraud_size(net) > MAX_EVIDENCE_BYTES  # the half that no peer could show before
    assert frauds_against(transcript, D), report.describe()  # D's two records are the proof
    assert report.state is not None  # (this test game ends at the first fraud: C goes unjudged)
    assert {f.seat: f.reason for f in report.state.forfeits} == {D: FRAUD}, report.describe()


def test_two_fraud_records_that_carry_fraud_records_are_decided_by_the_order() -> None:
    """One level deeper, no fraud record can carry the pair (it would be as large as four of
    the largest): D splits its place between two fraud records each of which carries C's two
    fraud records against a third seat's pair, and the honest peers still agree, the same at
    every peer, and nobody honest forfeits."""
    def deep(net: SimNet, peer: Peer, state: TableState[Any]) -> tuple[SignedRecord, ...]:
        start = net.peers[C].protocol.states[0]
        a, b = junk_pair(net)
        # C's two fraud records for place 1, each carrying C's own pair (the engine would refuse
        # either: a seat cannot accuse itself; but they are two records of C's for one place)
        seat = net.peers[C].seat
        f1 = seat.sign(start, "fraud", {"evidence": [a.raw, b.raw]})
        f2 = seat.sign(start, "fraud", {"evidence": [b.raw, a.raw]})
        return (peer.seat.sign(state, "fraud", {"evidence": [f1.raw, f2.raw]}),
                peer.seat.sign(state, "fraud", {"evidence": [f2.raw, f1.raw]}))

    _, transcript, report = play(deep)
    assert frauds_against(transcript, C), report.describe()  # C's pair stands, whichever won
    assert report.state is not None
    assert {f.seat: f.reason for f in report.state.forfeits} == {C: FRAUD}, report.describe()


def fraud_size(net: SimNet) -> int:
    """The size of D's fraud record that carries C's junk pair."""
    state = net.peers[D].protocol.states[0]
    return len(net.peers[D].seat.sign(state, "fraud", {
        "evidence": [r.raw for r in junk_pair(net)]}).raw)


def test_an_equivocation_only_an_observer_holds_both_halves_of_is_proven_by_the_seats() -> None:
    """Red team (stop 28): a seatless host receives evidence but could send none. At two seats
    and a host, seat 0 sends one record to seat 1 and another for the same place to the host
    only: the host holds both halves once seat 1 builds on its own (and nobody else does), so
    before, the lie stayed unproven (the host, knowing the place banned, could not tell the
    seats and adopted seat 1's branch). Now an observer passes the evidence on: seat 1 writes
    the fraud, and the host's copy is the seats' copy."""
    net = SimNet(2, seed=5, options={"laps": 10}, observers=1)
    host = net.peers[2]
    done: list[bool] = []

    def lie_to_the_host(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        if done or peer.protocol.wants_turn() is None or state.seq < 3:
            return False
        done.append(True)
        one = peer.seat.build(state, peer.agent)
        two = peer.seat.sign(state, "leg", {"value": (one.record.body["value"] + 1) % 4})
        send_halves(net, peer, one, two, lambda other: other is not host)
        return True

    adversary_of(net, 0, lie_to_the_host)
    finish(net, 300)
    transcript = agreed(net)  # the host's copy included
    report = honest_seats_kept(net, transcript)
    assert frauds_against(transcript, 0), report.describe()


def _behind_by_one(players: int = 3) -> tuple[Any, ...]:
    """A relay race of three seats played to the cheater's turn (seat 2, record 3), its two
    records for that place, and an honest peer (seat 0) that holds only the first record."""
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.engines.agent import RandomAgent
    from spycraft.engines.local import new_local_table
    from spycraft.p2p.protocol import PeerProtocol, ProtocolConfig
    from tests.p2p.relay import GAME

    local = new_local_table(GAME, {"laps": 3}, players, SeededEntropy(b"behind"))
    agents = [RandomAgent(SeededEntropy(bytes([i]))) for i in range(players)]
    local.step(agents)  # record 1, seat 0
    local.step(agents)  # record 2, seat 1
    before = local.state  # the cheater's place: record 3, seat 2's
    one = local.seats[2].sign(before, "leg", {"value": 1})
    two = local.seats[2].sign(before, "leg", {"value": 2})
    victim = PeerProtocol(table=GAME.table(), genesis=local.genesis, seat=local.seats[0],
                          records=tuple(local.records[:1]), config=ProtocolConfig(30.0))
    return local, victim, one, two


@pytest.mark.parametrize("first", ["its own half", "the others' half"])
def test_a_half_met_ahead_of_our_head_still_proves_its_seat(first: str) -> None:
    """The suite under load (stop 28): a cheater sent its second half of a place to one seat
    that was a record behind, then a made-up pair that closed its link there: the buffered half
    was forgotten with the link, the seat later took the others' half, and nobody ever proved
    the equivocation. Now a buffered record outlives its link, and two halves met in the buffer
    prove their seat once the place is ours (whichever came first)."""
    local, victim, one, two = _behind_by_one()
    cheater, honest = 2, 1
    victim.link_up(cheater, cheater, 0.0)
    victim.link_up(honest, honest, 0.0)
    if first == "its own half":
        victim.receive(cheater, {"t": "record", "record": two.raw}, 0.1)
        victim.receive(cheater, {"t": "evidence", "records": [b"\x00" * 40, b"\x01" * 40]}, 0.1)
        assert cheater not in victim.links  # a frame that proves nothing closed its link
        victim.receive(honest, {"t": "record", "record": local.records[1].raw}, 0.2)
        victim.receive(honest, {"t": "record", "record": one.raw}, 0.3)
    else:
        victim.receive(honest, {"t": "record", "record": one.raw}, 0.1)
        victim.receive(cheater, {"t": "record", "record": two.raw}, 0.1)
        victim.receive(honest, {"t": "record", "record": local.records[1].raw}, 0.2)
    assert cheater in victim.proven, victim.head

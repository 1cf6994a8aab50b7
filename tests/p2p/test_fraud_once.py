"""Red team (issue 18): a fraud record proved the same equivocation again and again.

``Table.check_evidence`` takes an equivocation pair against any seat at any time, and a fraud
record is an interrupt, first in the order at any place; a seat whose teammate equivocated once
could write a fraud record with that pair at every honest writer's place and roll it back. Now a
fraud record against a seat already proven to cheat is refused (``tests/foundation/
test_table.py`` has the engine's side), so the race gains nothing.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import Record, sign_record
from spycraft.engines.table import TableState
from tests.p2p.simnet import Peer, SimNet, adversary_of, agreed, finish


def test_repeated_fraud_records_never_roll_back_an_honest_writer() -> None:
    """Five seats of the relay race on the simulated network: seat 4 sends an equivocation pair
    (two records for place 1) once; from then on seat 3 writes a fraud record with that pair at
    every place where an honest seat writes, at the moment the place begins, as the honest
    writer does. It used to end with 4 fraud records in the agreed transcript (seat 4
    "forfeiting" at records 6, 7, 8, 9), seat 0 having rolled back its file 3 times.
    (In this test game a fifth duplicate forfeit would end play: ``Race.next`` counts
    ``len(out)``; the real games count seats, and there the race has no end.)"""
    net = SimNet(5, seed=11, options={"laps": 6})
    table = net.local.genesis.genesis.table
    culprit, accomplice = 4, 3
    pair = [sign_record(Record(table, 1, net.local.genesis.link, culprit, "x", {"v": v}),
                        net.peers[culprit].seat.identity) for v in (0, 1)]
    sent: list[bool] = []
    raced: set[tuple[int, bytes]] = set()

    def prove_once(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        if not sent and state.seq >= 3:
            sent.append(True)
            net.broadcast(culprit, {"t": "evidence", "records": [r.raw for r in pair]})
        return False

    def race(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        protocol = peer.protocol
        turn = protocol.table.expect(state)
        if not protocol.proven or protocol.finished or turn is None or \
                turn.kinds == ("result",) or turn.seat in (culprit, accomplice) or \
                protocol.place in raced:
            return False
        raced.add(protocol.place)
        fraud = peer.seat.sign(state, "fraud", {"evidence": [r.raw for r in pair]})
        net.apply(peer, protocol.submit(fraud, net.now))
        return True

    adversary_of(net, culprit, prove_once)
    adversary_of(net, accomplice, race)
    finish(net, 300)
    kinds = [r.record.kind for r in agreed(net).records]
    rewrites = [p.rewrites for p in net.honest()]
    assert kinds.count("fraud") == 1  # the one that proves it
    # the first fraud may outrank the record of the writer it raced (fraud comes first, and that
    # record had no quorum on it yet), once; none after it
    assert all(count <= 1 for count in rewrites), rewrites

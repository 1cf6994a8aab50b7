"""Red team 24: a fraud record written in play opens the key shares at once, and the accused's
record, settled after them, takes play back.

A fraud record is an interrupt any seat may write at any place, and it ranks first (rule 4 of
``p2p.protocol``): it displaces the record of the seat named there while no quorum built on that
one. A forfeit in play sends the table to the final reveal (``KeyShareRules.forfeit``), and
after a fraud nothing waits: no ready stage, the first seat left opens its key share at once.
But the fraud is not settled by one reveal, and the record it displaced can still be: a quorum
builds on it (rule 1: a settled record outranks one on which none has built), and it takes play
back with the honest key shares public. The ready stage after an abandon in play exists for
exactly this (red teams 20 to 23); the fraud record, the party's own, has none.

SpyNet at four (public teams: 0 and 2 against 1 and 3). The party is 0 and 2. At 0's action in
play, 0 sends its record to the honest seats, and 1, named next, builds on it. Then 2 writes a
fraud record at 0's place, proving an equivocation 0 signed for the purpose (two junk records
for a place of no chain): it outranks 0's record, on which only 1 built, and seat 1 opens its
key share. Then 2 writes its own record on 0's and 1's: 0's record has a quorum (1 and 2,
quorum(4) is 2) and takes the place back from the unsettled fraud. Play goes on, seat 1's key
share public (with 0's and 2's, SpyNet's whole deck opens).
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import Record, parse_record, sign_record
from spycraft.engines.registry import load
from tests.p2p.simnet import Peer, SimNet
from tests.redteam24.opened import reveals_tap

GAME = load("spynet")
N = 4
ACCUSED, PARTNER = 0, 2
PARTY = (0, 2)
HONEST = (1, 3)


def test_a_fraud_in_play_opens_key_shares_that_the_accused_record_then_takes_back():
    net = SimNet(N, definition=GAME, options=GAME.options(N), seed=5, timeout=5.0, grace=1.0)
    table = GAME.table()
    dark = False

    def at_target(state: Any) -> bool:
        turn = table.expect(state)
        return (turn is not None and turn.seat == ACCUSED and "action" in turn.kinds
                and state.game.act == "play")

    def step(net: SimNet, peer: Peer) -> None:
        if dark:
            return
        state = peer.protocol.wants_turn()
        if state is None or (peer.index == ACCUSED and at_target(state)):
            return
        net.apply(peer, peer.protocol.submit(peer.seat.build(state, peer.agent), net.now))

    for seat in PARTY:
        net.peers[seat].honest = False
    net.adversary = step
    net.intercept = lambda peer, send: dark
    net.on_frame = lambda receiver, sender, frame: dark and receiver.index in PARTY
    opened, net.tap = reveals_tap(HONEST)  # the honest seats whose key share went out

    net.run(300.0, stop=lambda: all(at_target(p.protocol.state) for p in net.peers))
    assert all(at_target(p.protocol.state) for p in net.peers)
    dark = True
    before = net.peers[1].protocol.state
    p0 = before.seq + 1

    # 0's record reaches the honest seats; 1, named next, builds on it.
    accused = net.peers[ACCUSED].seat.build(before, net.peers[ACCUSED].agent)
    s1 = table.apply(before, accused)
    assert table.expect(s1).seat == 1, table.expect(s1)
    for h in HONEST:
        net.send(ACCUSED, h, {"t": "record", "record": accused.raw}, after=0.001)

    def built() -> bytes | None:
        raws = net.peers[1].signed.get((p0 + 1, accused.link))
        return next(iter(raws)) if raws else None

    net.run(net.now + 2.0, stop=lambda: built() is not None)
    raw1 = built()
    assert raw1 is not None, "seat 1 never built on the accused's record"
    b1 = parse_record(raw1)
    s2 = table.apply(s1, b1)
    assert table.expect(s2).seat == PARTNER, table.expect(s2)

    # 2's fraud record at 0's place: 0 signed two junk records for a place of no chain.
    identity = net.peers[ACCUSED].seat.identity
    junk = [sign_record(Record(before.genesis.table, 10_000, bytes(32), ACCUSED, "beacon",
                               {"preimage": bytes([i]) * 32}), identity) for i in (1, 2)]
    fraud = net.peers[PARTNER].seat.sign(before, "fraud", {"evidence": [j.raw for j in junk]})
    table.apply(before, fraud)  # a valid record: 0 forfeits, the final reveal begins
    for h in HONEST:
        net.send(PARTNER, h, {"t": "record", "record": fraud.raw}, after=0.001)
    net.run(net.now + 1.0)
    assert all(net.peers[h].protocol.records[p0 - 1].raw == fraud.raw for h in HONEST)

    # 2 builds on 0's and 1's records: a quorum (1 and 2) built on 0's.
    b2 = net.peers[PARTNER].seat.build(s2, net.peers[PARTNER].agent)
    for h in HONEST:
        net.send(ACCUSED, h, {"t": "sync_reply", "from_seq": p0,
                              "records": [accused.raw, b1.raw, b2.raw]}, after=0.001)
    net.run(net.now + 2.0)

    for h in HONEST:
        protocol = net.peers[h].protocol
        if protocol.records[p0 - 1].raw == fraud.raw:
            continue  # the fraud stands, and the game ends on it
        assert not opened, (
            f"seat {h} took the accused's record back after seats {sorted(opened)} opened "
            f"their key shares on the fraud: play goes on at record {protocol.head}, "
            f"{table.expect(protocol.state)}")

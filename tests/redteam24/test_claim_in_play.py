"""Red team 24: after a claim in play the seat outside the party opens its key share at once, and
the accused's record, settled by the claimants themselves, takes play back.

SpyNet at four, public teams 0+2 and 1+3; the party is 1 and 3. Seat 0 writes its record, which
reaches 1 and 3 but not its partner 2 (their link is down for a while: a LAN that drops one
laptop's frames to another). 1 and 3 hold it and write a claim that 0 is absent instead (their
own votes: one party's word). Seat 2's own clock for 0 runs out, so it takes the claim (rule 3
of ``p2p.protocol``), and as the one seat outside the party it opens its key share at once (the
party is held: it opens nothing). The claim stands (2 built on it) but is not settled; then 1
and 3 write their own records on 0's, which is settled by them (quorum(4) is 2), and rule 1
comes before rule 3: 0's record takes the place back and play goes on, 2's key share public to
the side it plays against.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import parse_record
from spycraft.engines.registry import load
from tests.p2p.simnet import Peer, SimNet
from tests.redteam24.opened import reveals_tap

GAME = load("spynet")
N = 4
ACCUSED, PARTNER = 0, 2
PARTY = (1, 3)
HONEST = (0, 2)
TARGET = 13  # seed 1: 0's deck_tokens in play, then 1's, then 3's


def test_a_claim_in_play_opens_a_key_share_that_the_claimants_then_take_back():
    net = SimNet(N, definition=GAME, options=GAME.options(N), seed=1, timeout=5.0, grace=1.0)
    table = GAME.table()
    dark = False
    held: dict[int, bytes] = {}  # what the party received, by seq

    def at_target(state: Any) -> bool:
        turn = table.expect(state)
        return (turn is not None and turn.seat == ACCUSED and state.game.act == "play"
                and state.seq == TARGET - 1)

    def step(net: SimNet, peer: Peer) -> None:
        if dark:
            return
        state = peer.protocol.wants_turn()
        if state is not None:
            net.apply(peer, peer.protocol.submit(peer.seat.build(state, peer.agent), net.now))

    for seat in PARTY:
        net.peers[seat].honest = False
    net.adversary = step
    net.intercept = lambda peer, send: dark

    def on_frame(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if not dark:
            return False
        if {receiver.index, sender} == {ACCUSED, PARTNER}:
            return True  # the link between 0 and 2 drops everything for now
        if receiver.index in PARTY:
            if frame["t"] == "record":
                signed = parse_record(frame["record"])
                held.setdefault(signed.seq, frame["record"])
            return True
        return False

    net.on_frame = on_frame
    opened, net.tap = reveals_tap(HONEST)  # the honest seats whose key share went out

    net.peers[ACCUSED].think_at[TARGET] = 1e9  # 0 writes its record once all are there
    net.run(300.0, stop=lambda: all(at_target(p.protocol.state) for p in net.peers))
    assert all(at_target(p.protocol.state) for p in net.peers)
    before = net.peers[PARTNER].protocol.state
    p0 = before.seq + 1
    dark = True
    del net.peers[ACCUSED].think_at[TARGET]

    # 0 writes its record (honest); only 1 and 3 get it.
    net.run(net.now + 1.0, stop=lambda: p0 in held)
    accused = parse_record(held[p0])
    s1 = table.apply(before, accused)
    assert table.expect(s1).seat == 1, table.expect(s1)

    # 1 and 3 claim 0 absent to 2 instead; 2 takes the claim once its own clock ran out.
    votes = {seat: net.peers[seat].seat.absence_vote(before) for seat in PARTY}
    claim = net.peers[1].seat.sign_abandon(before, votes)
    net.send(1, PARTNER, {"t": "record", "record": claim.raw}, after=0.001)
    net.run(net.now + 15.0, stop=lambda: PARTNER in opened)
    assert net.peers[PARTNER].protocol.records[p0 - 1].raw == claim.raw

    # 1 and 3 build on 0's record: a quorum of seats other than 0 built on it.
    b1 = net.peers[1].seat.build(s1, net.peers[1].agent)
    s2 = table.apply(s1, b1)
    assert table.expect(s2).seat == 3, table.expect(s2)
    b3 = net.peers[3].seat.build(s2, net.peers[3].agent)
    net.send(1, PARTNER, {"t": "sync_reply", "from_seq": p0,
                          "records": [accused.raw, b1.raw, b3.raw]}, after=0.001)
    net.run(net.now + 1.0)

    protocol = net.peers[PARTNER].protocol
    if protocol.records[p0 - 1].raw != claim.raw:
        assert not opened, (
            f"seat 2 took the accused's record back after seats {sorted(opened)} opened their "
            f"key shares on the claim: play goes on at record {protocol.head}, "
            f"{table.expect(protocol.state)}")

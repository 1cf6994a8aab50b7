"""Red team 2 (issue 18): when a ban kept no pair past a budget of 4 MiB per seat
(``BAN_BYTES_PER_SEAT``, now gone), a cheater that filled its own budget first kept the pair
that bans its half from the one honest peer that needed to be shown it, and the honest peers
forked. Now every pair is kept (each at most 2 * ``MAX_EVIDENCE_BYTES``), and the same scene,
padded pairs for every old place first, ends in one transcript.

Three seats of the relay race, seat 2 the cheater. At its place ``s`` it sends nothing; seats 0
and 1 vote it absent. Seat 0's vote reaches seat 1, then the link between them is down (seat 1's
vote never reached seat 0). Seat 1 writes the abandon ``V`` at ``s``. Only then does the cheater
send seat 0 a valid record ``A`` for ``s`` (seat 0's vote dies, it accepts ``A`` and builds its
own record on it), and sends seat 1 padded pairs of its own for old places until its ban budget is
spent, then a pair ``(A, B)`` for ``s``: seat 1 bans ``s`` but keeps no pair (``banned[key] =
()``; the pair went to every link once, while seat 0 was away). The link comes back:

* seat 1 holds ``V``; ``A`` is a banned half, so ``V`` stays (rule 2) and it sends seat 0 ``V``,
  and, when the pair was dropped, ``_show_ban`` had nothing to send;
* seat 0 does not know ``A`` is banned; seat 0 voted in ``V`` and built on ``A``, so ``V``'s vote
  died (the next rule) and ``A`` stays.

Each proved its record to the other and neither moved: the honest peers forked for good
(measured: after 60 simulated seconds seat 0 at head 10, seat 1 at 9, neither finished, and the
proofs they kept trading cost 40 s of CPU). Now seat 1 shows the pair, seat 0 rolls ``A`` back
and takes ``V``, with the padded pairs or without.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import MAX_EVIDENCE_BYTES, Record, SignedRecord, sign_record
from spycraft.engines.table import TableState
from tests.p2p.simnet import Peer, SimNet, finish

CHEAT = 2


def padded_pair(net: SimNet, seq: int, prev: bytes, half: int) -> list[SignedRecord]:
    table = net.local.genesis.genesis.table
    cheat = net.peers[CHEAT].seat

    def pair(pad: int) -> list[SignedRecord]:
        return [sign_record(Record(table, seq, prev, CHEAT, "leg", {"pad": bytes([i]) * pad}),
                            cheat.identity) for i in range(2)]

    overhead = len(pair(0)[0].raw) + 8
    return pair(max(0, half - overhead))


def cut(net: SimNet, a: int, b: int) -> None:
    net.peers[a].closed.add(b)
    net.peers[b].closed.add(a)
    net.peers[a].protocol.link_down(b)
    net.peers[b].protocol.link_down(a)


def heal(net: SimNet, a: int, b: int) -> None:
    net.peers[a].closed.discard(b)
    net.peers[b].closed.discard(a)
    for one, two in ((a, b), (b, a)):
        net.apply(net.peers[one], net.peers[one].protocol.link_up(two, two, net.now))


def run(fill_budget: bool) -> SimNet:
    net = SimNet(3, seed=5, options={"laps": 10})
    h0, h1 = net.peers[0], net.peers[1]
    plan: dict[str, Any] = {"phase": 0}

    def on_frame(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if plan["phase"] != 1 or frame["t"] != "absent":
            return False
        if receiver.index == 0 and sender == 1:
            return True  # seat 1's vote never reaches seat 0
        if receiver.index == 1 and sender == 0 and "cut" not in plan:
            net.apply(receiver, receiver.protocol.receive(sender, frame, net.now))
            plan["cut"] = net.now
            cut(net, 0, 1)  # seat 0 is away from seat 1 from here
            return True
        return False

    def step(net: SimNet, peer: Peer) -> None:
        protocol = peer.protocol
        state: TableState[Any] | None = protocol.wants_turn()
        if plan["phase"] == 0:
            if state is not None and state.seq >= 6:
                s = state.seq + 1
                plan.update(phase=1, s=s, prev=state.link,
                            A=peer.seat.build(state, peer.agent))
                PLACE[:] = [s]
                plan["B"] = sign_record(
                    Record(net.local.genesis.genesis.table, s, state.link, CHEAT, "leg",
                           {"other": 1}), peer.seat.identity)
                return  # stall at s
            if state is not None:
                net.apply(peer, protocol.submit(peer.seat.build(state, peer.agent), net.now))
            return
        s = plan["s"]
        p1 = h1.protocol
        if plan["phase"] == 1:
            if p1.head >= s and p1.records[s - 1].record.kind == "abandon":
                a: SignedRecord = plan["A"]
                net.send(CHEAT, 0, {"t": "record", "record": a.raw}, lossless=True)
                if fill_budget:
                    for seq in range(1, s - 1):  # the largest pairs, for every old place
                        pair = padded_pair(net, seq, p1.states[seq - 1].link,
                                           MAX_EVIDENCE_BYTES)
                        net.apply(h1, p1.receive(CHEAT, {"t": "evidence",
                                                         "records": [r.raw for r in pair]},
                                                 net.now))
                evidence = {"t": "evidence", "records": [a.raw, plan["B"].raw]}
                net.apply(h1, p1.receive(CHEAT, evidence, net.now))
                plan["phase"] = 2
            return
        if plan["phase"] == 2:
            p0 = h0.protocol
            if p0.head >= s + 1 and p0.records[s - 1].raw == plan["A"].raw:
                plan["phase"] = 3
                heal(net, 0, 1)
            return
        # phase 3: the cheater is out on seat 1's chain; it stays silent

    h2 = net.peers[CHEAT]
    h2.honest = False
    net.adversary = step
    net.on_frame = on_frame
    # from its place on, the cheater's own protocol says nothing: it sends only what it chooses
    net.intercept = lambda peer, send: plan["phase"] >= 1
    finish(net, 20)
    assert plan["phase"] == 3, plan["phase"]  # the scene played as described
    return net


def same_transcript(net: SimNet) -> bool:
    h0, h1 = net.peers[0].protocol, net.peers[1].protocol
    return [r.raw for r in h0.records] == [r.raw for r in h1.records]


def test_control_with_the_pair_kept_seat_1_shows_it_and_the_honest_peers_agree() -> None:
    net = run(fill_budget=False)
    assert same_transcript(net)
    assert net.peers[0].protocol.finished and net.peers[1].protocol.finished


def test_a_cheater_that_pads_pairs_for_every_old_place_first_forks_nobody() -> None:
    net = run(fill_budget=True)
    p1 = net.peers[1].protocol
    # seat 1 banned s with its pair; the padded pairs for old places (legs no engine takes)
    # ban nothing, and prove the cheater once
    assert [key[0] for key in p1.banned] == [PLACE[0]]
    assert 2 in p1.proven
    assert same_transcript(net)


PLACE: list[int] = []

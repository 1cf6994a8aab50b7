"""Red team 2 (stop 28, r2): a seat that signs junk pairs for every place of the chain.

Five seats of the relay race on the simulated network, seat 4 colluding with a spectator: for
each of the 120 places of the chain, seat 4 signs two fraud records of 132 KiB (the most that
stands as evidence) whose evidence is junk, and the spectator sends each pair to every seat.
Every pair is a real equivocation, but none of those records could ever take its place. Each
honest seat kept every pair as a ban (30 MiB) and sent every pair to every link (30 MiB per
link). Now such a pair proves its seat once and bans nothing: one pair is kept and sent round,
and the game still ends the same for every honest seat, with the colluder proven.
"""

from __future__ import annotations

from spycraft.crypto.records import MAX_EVIDENCE_BYTES, parse_record
from spycraft.p2p.protocol import Send
from tests.p2p.simnet import SimNet, adversary_of, agreed, honest_seats_kept

X, SPY, N = 4, 5, 5


def test_junk_pairs_for_every_place_cost_one_pair_of_memory_and_traffic_not_one_per_place(
) -> None:
    net = SimNet(N, seed=3, options={"laps": 40}, timeout=5.0, grace=1.0, spectators=1)
    for accomplice in (X, SPY):  # seat 4 plays its turns honestly, and signs the junk
        adversary_of(net, accomplice, lambda net, peer, state: False)
    sent = {i: 0 for i in range(N)}
    flooding: list[bool] = []
    original = net.apply

    def apply(peer, actions):  # type: ignore[no-untyped-def]
        if flooding and peer.index < N:
            sent[peer.index] += sum(sum(map(len, a.frame["records"])) for a in actions
                                    if isinstance(a, Send) and a.frame["t"] == "evidence")
        original(peer, actions)

    net.apply = apply  # type: ignore[method-assign]
    net.run(60, stop=lambda: net.peers[0].protocol.head >= 120)
    pad = MAX_EVIDENCE_BYTES - 200
    colluder = net.peers[X]
    records = list(net.peers[0].protocol.records)
    for i in range(1, len(records) + 1):
        before = net.peers[0].protocol.states[i - 1]
        one = colluder.seat.sign(before, "fraud", {"evidence": [b"\x01" * pad, b"\x02" * pad]})
        two = colluder.seat.sign(before, "fraud", {"evidence": [b"\x03" * pad, b"\x04" * pad]})
        for seat in range(N - 1):
            net.send(SPY, seat, {"t": "evidence", "records": [one.raw, two.raw]},
                     after=0.001 * i)
    flooding.append(True)
    net.run(net.now + 0.5)
    pair = len(one.raw) + len(two.raw)
    for i in range(N - 1):
        protocol = net.peers[i].protocol
        kept = sum(len(a) + len(b) for a, b in protocol.banned.values())
        assert kept == 0, (i, kept)  # nothing banned: no half could take its place
        assert set(protocol.proven) == {X}  # the colluder proven, by one pair
        assert sent[i] <= pair * (N + 1), (i, sent[i])  # one pair to each link, not 120
    net.run(400, stop=net.all_honest_finished)
    net.settle(5)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    frauds = [parse_record(r.record.body["evidence"][0]).seat for r in transcript.records
              if r.record.kind == "fraud"]
    assert frauds == [X], report.describe()

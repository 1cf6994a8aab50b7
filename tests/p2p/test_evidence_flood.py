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


def test_junk_copies_of_a_shuffle_cost_at_most_what_the_senders_budget_pays_for() -> None:
    """Red team 4 (stop 28): a pair of copies of the cheater's own shuffle, each with one proof
    scalar swapped, decodes, passes every cheap check and fails only at the end of a full proof
    check (90 ms a frame, 95 times what signing them cost, up to 512 frames a second). Asking
    the engine is now paid from the sender's budget, so however many such frames a seat sends,
    we check only the halves its budget pays for; the rest are as if lost."""
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.crypto.records import Record, sign_record
    from spycraft.engines import registry
    from spycraft.engines.agent import RandomAgent
    from spycraft.engines.local import new_local_table
    from spycraft.p2p.protocol import (
        EVIDENCE_CHECK_COST,
        RESEND_BURST,
        PeerProtocol,
        ProtocolConfig,
    )

    definition = registry.load("spynet")
    local = new_local_table(definition, {"situation": "off"}, 4, SeededEntropy(b"red team 4"))
    agents = [RandomAgent(SeededEntropy(bytes([i]))) for i in range(4)]
    while sum(r.record.kind == "deck_shuffle" for r in local.records) < 4:
        local.step(agents)
    shuffle = next(r for r in local.records if r.record.kind == "deck_shuffle" and r.seat == 0)
    proof = list(shuffle.record.body["proof"])
    scalars = list(proof[3])
    copies = []
    for i in range(1, 40):  # the same shuffle, one response swapped: a full check to refuse
        swapped = list(scalars)
        swapped[0], swapped[i % len(scalars)] = swapped[i % len(scalars)], swapped[0]
        proof[3] = swapped if swapped != scalars else scalars[::-1]
        body = {**shuffle.record.body, "proof": list(proof)}
        record = shuffle.record
        copies.append(sign_record(Record(record.table, record.seq, record.prev, record.seat,
                                         record.kind, body), local.seats[0].identity))
    victim = PeerProtocol(table=definition.table(), genesis=local.genesis, seat=local.seats[1],
                          records=tuple(local.records), config=ProtocolConfig(turn_timeout=30))
    victim.link_up(0, 0, 0.0)
    checked: list[int] = []
    apply = victim.table.apply

    def counted(state, signed):  # type: ignore[no-untyped-def]
        checked.append(signed.seq)
        return apply(state, signed)

    victim.table.apply = counted  # type: ignore[method-assign]
    for i in range(0, len(copies) - 1, 2):
        victim.receive(0, {"t": "evidence", "records": [copies[i].raw, copies[i + 1].raw]}, 1.0)
    assert 0 in victim.proven and 0 in victim.links  # proven, by a real equivocation
    # the halves checked: 16 of the 38, what its budget pays for at once
    assert checked.count(shuffle.seq) <= RESEND_BURST // EVIDENCE_CHECK_COST

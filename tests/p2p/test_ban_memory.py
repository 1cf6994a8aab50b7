"""Red team (issue 18): one ban per culprit and place still let one seat make every honest peer
hold a megabyte per place of the chain.

Each ban keeps the first pair that proves it (to show a peer that offers a half, rule 2), and a
pair was bounded only by the frame (1 MiB): a seat that signed, for every place of a finished
31-record game, two padded records of its own made an honest peer hold 31 MiB, 1 MiB more per
place a longer game has. Now a half is at most ``MAX_EVIDENCE_BYTES`` (64 KiB, four times the
largest record a game writes; a larger one closes the link: no engine takes it), and every ban
keeps its pair (red team 2 showed that a ban kept without its pair forks a peer that was away
when it went round: ``tests/p2p/test_ban_budget_fork.py``). And since stop 28 a pair bans a
place only where one half could take it: junk for every place costs one pair, the proof.
"""

from __future__ import annotations

from spycraft.crypto.records import MAX_EVIDENCE_BYTES, Record, SignedRecord, sign_record
from spycraft.p2p.protocol import PeerProtocol, Send
from tests.p2p.simnet import SimNet, finish

CHEAT = 2


def padded_pair(net: SimNet, honest: PeerProtocol, seq: int, size: int) -> list[SignedRecord]:
    """Two records of the cheater for place ``seq`` of the honest peer's chain, ``size`` bytes
    or a little under."""
    table = net.local.genesis.genesis.table
    prev = honest.states[seq - 1].link
    cheat = net.peers[CHEAT].seat

    def pair(pad: int) -> list[SignedRecord]:
        return [sign_record(Record(table, seq, prev, CHEAT, "leg", {"pad": bytes([i]) * pad}),
                            cheat.identity) for i in range(2)]

    overhead = len(pair(0)[0].raw) + 8
    return pair(size - overhead)


def test_evidence_for_every_past_place_keeps_an_honest_peers_memory_bounded() -> None:
    """Padded legs (no engine takes a leg with a pad) for every place: each pair proves the
    cheater, but bans nothing, so one pair is kept and sent round, not one per place (red team 2
    of stop 28: 30 MiB for 120 places, and as much queued to every link)."""
    net = SimNet(3, seed=5, options={"laps": 10})
    finish(net, 300)
    honest = net.peers[0].protocol
    relayed = 0
    for seq in range(1, honest.head + 1):
        pair = padded_pair(net, honest, seq, MAX_EVIDENCE_BYTES)
        assert all(len(r.raw) <= MAX_EVIDENCE_BYTES for r in pair)
        actions = honest.receive(CHEAT, {"t": "evidence", "records": [r.raw for r in pair]},
                                 net.now)
        relayed += sum(isinstance(a, Send) and a.frame["t"] == "evidence" for a in actions)
    assert honest.head == 31 and CHEAT in honest.links  # a pair that fits is evidence
    assert not honest.banned and CHEAT in honest.proven  # proven once, nothing banned
    assert relayed == len(honest.links)  # the one pair that proves it went round once


def test_pairs_with_a_record_the_engine_takes_ban_only_the_cheaters_own_places() -> None:
    """Where one half could take its place (a leg the cheater could have written there) the
    place is banned and the pair kept: only at the cheater's own places, at most a record and a
    padded one each (``MAX_EVIDENCE_BYTES``), whatever it signs for the others' places."""
    net = SimNet(3, seed=5, options={"laps": 10})
    finish(net, 300)
    honest = net.peers[0].protocol
    own = []
    for seq in range(1, honest.head + 1):
        before = honest.states[seq - 1]
        turn = honest.table.expect(before)
        leg = net.peers[CHEAT].seat.sign(before, "leg", {"value": 3})
        padded = padded_pair(net, honest, seq, MAX_EVIDENCE_BYTES)[0]
        honest.receive(CHEAT, {"t": "evidence", "records": [leg.raw, padded.raw]}, net.now)
        if turn is not None and turn.seat == CHEAT:  # its leg of 3, or the one it wrote there
            own.append(seq)
    assert own and sorted(key[0] for key in honest.banned) == own
    held = sum(len(a) + len(b) for a, b in honest.banned.values())
    assert held <= len(own) * 2 * MAX_EVIDENCE_BYTES


def test_a_half_larger_than_a_record_may_be_is_no_evidence_and_closes_its_link() -> None:
    net = SimNet(3, seed=5, options={"laps": 10})
    finish(net, 300)
    honest = net.peers[0].protocol
    pair = padded_pair(net, honest, 5, MAX_EVIDENCE_BYTES + 64)
    assert any(len(r.raw) > MAX_EVIDENCE_BYTES for r in pair)
    honest.receive(CHEAT, {"t": "evidence", "records": [r.raw for r in pair]}, net.now)
    assert CHEAT not in honest.links and not honest.banned and CHEAT not in honest.proven

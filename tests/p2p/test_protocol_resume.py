"""A resumed seat whose transcript is behind catches up from any one peer (issue 22): whoever
wrote the records it lacks, the one peer it reaches sends them (each checked as it arrives, as
every record is), and it plays on from exactly there, signing nothing twice.

The seat restarts from a prefix of its transcript (the records after it reached its peers while
it was away) and its ``own.cbor`` (what it signed, by place), with one link up: to each other
seat in turn, never the ones that wrote what it lacks alone.
"""

from __future__ import annotations

from spycraft.crypto.records import parse_record
from spycraft.p2p.protocol import PeerProtocol
from tests.p2p.simnet import SimNet, agreed, finish, never_signed_twice


def restart_behind(net: SimNet, index: int, kept: int, reach: int) -> None:
    """Seat ``index`` restarts holding its first ``kept`` records, linked to ``reach`` only."""
    peer = net.peers[index]
    for other in net.peers:
        if other is not peer:
            other.protocol.link_down(index)
            other.closed.add(index)
            peer.closed.add(other.index)
    records = tuple(parse_record(raw) for raw in peer.stored[:kept])
    own = {place: next(iter(raws)) for place, raws in peer.signed.items()}
    peer.stored = [r.raw for r in records]
    peer.protocol = PeerProtocol(table=net.definition.table(), genesis=net.local.genesis,
                                 seat=peer.seat, records=records, own=own, config=net.config,
                                 now=net.now)
    link(net, index, reach)


def link(net: SimNet, a: int, b: int) -> None:
    net.peers[a].closed.discard(b)
    net.peers[b].closed.discard(a)
    for one, two in ((a, b), (b, a)):
        net.apply(net.peers[one], net.peers[one].protocol.link_up(two, two, net.now))


def test_a_resumed_seat_behind_catches_up_from_whichever_peer_it_reaches():
    players, behind = 4, 3
    for reach in (0, 1, 2):
        net = SimNet(players, seed=70 + reach, timeout=30.0, grace=1.0)
        net.run(300, stop=lambda n=net: len(n.peers[behind].stored) >= 24)
        head = max(p.protocol.head for p in net.peers)
        restart_behind(net, behind, kept=6, reach=reach)
        writers = {parse_record(raw).seat for raw in net.peers[reach].stored[6:head]}
        assert writers - {reach}, writers  # it lacks records its one peer did not write
        net.run(net.now + 5.0, stop=lambda n=net, h=head: n.peers[behind].protocol.head >= h)
        assert net.peers[behind].protocol.head >= head, (net.peers[behind].protocol.head, head)
        assert net.peers[behind].stored[:head] == net.peers[reach].stored[:head]
        for other in range(players):
            if other not in (behind, reach):
                link(net, behind, other)
        finish(net)
        transcript = agreed(net)
        assert not [r for r in transcript.records if r.record.kind in ("abandon", "fraud")]
        never_signed_twice(net)

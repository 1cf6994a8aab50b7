"""Red team 3 (stop 28, r3): a record sent to the seatless host alone.

Three seats and the table's seatless host on the simulated network. Seat 0, named to write the
result, signs it and sends it to the host only; seat 1 writes the result after its wait. Both
are valid and equal but for their writer, and the order puts seat 0's first (the smaller
bytes), so the host kept it; but an observer could send no record, so it could never show it,
and every seat sent it its branch every half second for good: the host's transcript was not
the seats'. Now an observer answers a seat's branch with its proof as a seat does, and the
seats take the record the order puts first.
"""

from __future__ import annotations

from typing import Any

from spycraft.engines.table import TableState
from spycraft.p2p.protocol import Send
from tests.p2p.simnet import Peer, SimNet, adversary_of, agreed


def test_a_result_sent_only_to_the_host_reaches_the_seats_through_the_hosts_proof() -> None:
    net = SimNet(3, seed=5, observers=1, timeout=5.0, grace=1.0, options={"laps": 2})
    host = net.peers[3]
    done: list[Any] = []

    def to_the_host_only(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        turn = peer.protocol.table.expect(state)
        if turn is None or turn.kinds != ("result",) or turn.seat != peer.index:
            return False
        if not done:
            signed = peer.seat.sign_result(state)
            assert signed is not None
            actions = peer.protocol.submit(signed, net.now)
            net.apply(peer, [a for a in actions if not isinstance(a, Send)])
            net.send(peer.index, host.index, {"t": "record", "record": signed.raw})
            done.append(signed)
        return True

    adversary_of(net, 0, to_the_host_only)
    net.intercept = lambda peer, send: bool(done) and send.link != host.index
    net.run(120, stop=net.all_honest_finished)
    frames: list[str] = []
    net.tap = lambda sender, receiver, frame: frames.append(frame["t"])
    net.settle(30)
    transcript = agreed(net)  # the host's copy is the seats'
    assert transcript.records[-1].raw == done[0].raw  # the result the order puts first
    assert len(frames) < 40, frames  # and then quiet: nobody keeps showing anybody anything

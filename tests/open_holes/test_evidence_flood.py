"""red25: fresh equivocation pairs for one place grow every honest peer's ``banned`` without end.

A cheater signs any number of distinct records for the place after the head (its turn or not)
and sends them as ``evidence`` pairs. Each pair is valid evidence, so the link stays open, and
each new half is stored in ``PeerProtocol.banned`` (and clears ``_decided``): nothing bounds it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.p2p.simnet import Peer, SimNet, adversary_of, finish

PAIRS = 400


@pytest.mark.xfail(strict=True, reason="red25: evidence pairs for one place are stored unbounded")
def test_a_flood_of_equivocation_pairs_keeps_memory_bounded() -> None:
    net = SimNet(3, seed=12)
    flooded: list[int] = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if not flooded and state.seq >= 2:
            flooded.append(state.seq)
            for i in range(PAIRS):
                one = peer.seat.sign(state, "leg", {"value": 1, "pad": i.to_bytes(4, "big") * 500})
                two = peer.seat.sign(state, "leg", {"value": 2, "pad": i.to_bytes(4, "big") * 500})
                net.broadcast(peer.index, {"t": "evidence", "records": [one.raw, two.raw]})
        return False

    adversary_of(net, 2, cheat)
    finish(net)
    assert flooded
    for peer in net.honest():
        held = sum(len(raw) for raw in peer.protocol.banned)
        # a handful of pairs per culprit would be enough to prove it
        assert len(peer.protocol.banned) <= 8, (peer.index, len(peer.protocol.banned), held)

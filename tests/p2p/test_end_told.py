"""The end is told at once (found in stop 31: 2 of 35 ten-bot tables hung 30 s at the end).

A seat leaves only once every other seat confirmed holding the result (``Session._linger``, for
bot peers and for anyone who waits for the absent). An ack goes to a record's author alone, so
the others learn that a seat holds the result from its head frame. That frame was sent by the
protocol's next tick; a seat that found every other's confirmation already there when it took
the result left before that tick, and the rest waited for it a turn timeout. Now the record that
ends the game makes the head frame go to every link in the same actions as its storing."""

from __future__ import annotations

from typing import Any

from tests.p2p.simnet import SimNet


def test_a_seat_tells_every_link_its_head_as_it_takes_the_end() -> None:
    for seed in (1, 2, 3):
        net = SimNet(4, seed=seed)
        heads: dict[tuple[int, int], list[tuple[int, float]]] = {}

        def tap(sender: int, receiver: int, frame: dict[str, Any], net: SimNet = net,
                heads: dict[tuple[int, int], list[tuple[int, float]]] = heads) -> None:
            if frame["t"] == "head":
                heads.setdefault((sender, receiver), []).append((frame["seq"], net.now))

        net.tap = tap
        net.run(300.0, stop=net.all_honest_finished)
        final = net.peers[0].protocol.head
        assert all(p.protocol.finished and p.protocol.head == final for p in net.peers)
        for peer in net.peers:
            took = peer.stored_at[final]
            for other in net.peers:
                if other is peer:
                    continue
                told = [at for seq, at in heads.get((peer.index, other.index), []) if seq == final]
                assert told and told[0] == took, (seed, peer.index, other.index, took, told)
        net.settle(1.0)
        for peer in net.peers:  # and so every seat knows every other holds the end
            assert all(link.acked == final for link in peer.protocol.links.values()), seed

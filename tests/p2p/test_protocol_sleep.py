"""A peer that does not run for a while (a laptop asleep, a stopped process; issue 22) counts
that time against nobody: when it wakes it reads what arrived meanwhile before it judges, so
the others' votes against it stand and it never claims a game the others played on.

``SleepyNet`` is the simulated table of ``tests/p2p/simnet.py`` with one peer asleep for a
while: nobody ticks it, the frames sent to it wait in its socket, and when it wakes it ticks
once before it reads them (the worst order a woken process can take).
"""

from __future__ import annotations

import heapq
from typing import Any

from spycraft.p2p.wire import decode_frames
from tests.p2p.simnet import TICK, SimNet, agreed, finish, never_signed_twice


class SleepyNet(SimNet):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sleeper: int | None = None
        self.wakes = 0.0
        self.votes_sent: list[dict[str, Any]] = []
        super().__init__(*args, **kwargs)

    def asleep(self, index: int) -> bool:
        return index == self.sleeper and self.now < self.wakes

    def send(self, sender: int, receiver: int, frame: dict[str, Any], *,
             lossless: bool = False) -> None:
        if sender == self.sleeper and frame["t"] == "absent":
            self.votes_sent.append(frame)
        super().send(sender, receiver, frame, lossless=lossless)

    def run(self, until: float, *, stop: Any = None) -> None:
        next_tick = self.now
        while self.now < until:
            if stop is not None and stop():
                return
            if self._queue and self._queue[0].at <= next_tick:
                frame = heapq.heappop(self._queue)
                self.now = max(self.now, frame.at)
                if self.asleep(frame.receiver):  # it waits in the socket until the peer wakes
                    frame.at = self.wakes + 1.5 * TICK  # after its first tick awake
                    heapq.heappush(self._queue, frame)
                    continue
                receiver = self.peers[frame.receiver]
                if frame.sender in receiver.closed:
                    continue
                (decoded,) = decode_frames(frame.data)
                self.apply(receiver, receiver.protocol.receive(frame.sender, decoded, self.now))
                self.step_peer(receiver)
                continue
            self.now = next_tick
            next_tick += TICK
            for peer in self.peers:
                if self.asleep(peer.index):
                    continue
                self.step_peer(peer)
                self.apply(peer, peer.protocol.tick(self.now))
                self.step_peer(peer)


def just_wrote(net: SimNet, seat: int, records: int) -> bool:
    held = net.peers[seat].protocol.records
    return len(held) >= records and held[-1].seat == seat


def test_a_peer_that_slept_past_the_timeout_takes_the_abandon_and_claims_nothing():
    for players in (2, 3):
        net = SleepyNet(players, seed=40 + players, timeout=5.0, grace=1.0, options={"laps": 5})
        # asleep right after its own record: the next one is the others', then its turn comes
        net.run(300, stop=lambda n=net, p=players: just_wrote(n, 1, p + 1))
        net.sleeper, net.wakes = 1, net.now + 3 * 5.0
        finish(net)
        transcript = agreed(net)
        abandons = [r for r in transcript.records if r.record.kind == "abandon"]
        assert [r.record.body["seat"] for r in abandons] == [1], abandons
        assert not [v for v in net.votes_sent if v["seat"] != 1], net.votes_sent
        never_signed_twice(net)

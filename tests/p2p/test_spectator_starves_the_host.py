"""Red team 2 (stop 28, r1): a sore loser starves a seatless host through a spectator.

Two seats and the table's seatless host on the simulated network, and a spectator the loser
runs. B (seat 0, the loser, who writes the result) never writes it on A's last leg R; right
after R it sends the host alone its claim against A at R's place with its own result on top
(settled by that result, the claim outranks R there, so the host takes it), and its spectator
asks A for syncs in a storm while A writes its result. Every observer shared one resend budget
at a seat, so A refused the host's requests to walk back, nothing ever asked again, and the
host left with "abandoned, claimed by seat 0" while A held its win: two transcripts, both
auditing without error. Now the table's host has a budget of its own at every seat, a peer
whose head differs from ours is shown ours again until it no longer does, and an observer
answers with its proof as a seat does: the host and A hold one transcript. (Which one is the
order's: at two seats a claim with its result is settled as any result is, since nobody is left
who could tell a stall from a lie, and it comes before any other record of its place; so A
ends with the loser's claim, which makes no side lose, and never with a loss.)
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.engines.audit import audit_transcript
from spycraft.engines.table import TableState
from tests.p2p.simnet import Peer, SimNet, adversary_of

B, A, HOST, SPY = 0, 1, 2, 3
TIMEOUT = 5.0


class Pick:
    """A relay runner that always takes its last option (3 laps ahead) or its first."""

    def __init__(self, last: bool) -> None:
        self.last = last

    def decide(self, decision: Any) -> int:
        return len(decision.options) - 1 if self.last else 0


def sore_loser(storm: bool) -> Any:
    done: list[bool] = []

    def act(net: SimNet, peer: Peer, state: TableState[Any]) -> bool:
        p = peer.protocol
        if p.head == 6 and p.records[5].seat == A and not done:
            done.append(True)
            before = p.states[5]
            claim = peer.seat.sign_abandon(before, {B: peer.seat.absence_vote(before)})
            after = p.table.apply(before, claim)
            result = peer.seat.sign_result(after)
            assert result is not None
            net.send(B, HOST, {"t": "sync_reply", "from_seq": 6,
                               "records": [claim.raw, result.raw]}, after=0.2)
            if storm:  # around A's result, from B's spectator: syncs of the whole game, then
                t = 0.5  # of its last records (each costs one or two)
                k = 0
                while t < 8.0:
                    frm = 1 if t < TIMEOUT - 1.0 else (6, 6, 7)[k % 3]
                    net.send(SPY, A, {"t": "sync", "from_seq": frm}, after=t)
                    k += 1
                    t += 0.00025 if t < TIMEOUT - 1.0 else 0.0001
            return True
        return p.head >= 6  # it never writes the result on R, nor anything else

    return act, done


@pytest.mark.parametrize("seed", [7, 4])
def test_a_spectator_cannot_starve_the_tables_host_into_leaving_with_a_sore_losers_claim(
    seed: int,
) -> None:
    net = SimNet(2, seed=seed, options={"laps": 3}, timeout=TIMEOUT, grace=1.0, observers=1,
                 spectators=1)
    net.peers[A].agent, net.peers[B].agent = Pick(True), Pick(False)  # type: ignore[assignment]
    act, done = sore_loser(storm=True)
    adversary_of(net, B, act)
    adversary_of(net, SPY, lambda net, peer, state: False)
    net.intercept = lambda peer, action: bool(done)  # after its claim B answers nobody
    net.run(60)
    net.settle(10)
    winner, host = net.peers[A].protocol, net.peers[HOST].protocol
    assert done
    assert [r.raw for r in host.records] == [r.raw for r in winner.records], \
        audit_transcript(host.transcript, net.definition).describe()
    report = audit_transcript(winner.transcript, net.definition)
    assert report.error is None and report.result is not None, report.describe()
    assert report.result.winner == "seat1" or (  # the win of play, or the loser's claim
        report.result.winner is None and "claimed by seat 0" in report.result.detail), \
        report.describe()

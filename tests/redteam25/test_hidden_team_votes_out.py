"""Red team 25: at Shady Agents with an even number of seats a team is exactly ``quorum(n)``
seats (n/2 of each), and as teams are hidden its votes are a proof, not a claim. So one side's
word decides another seat's fate: the two Corrupt seats of a four-seat table sign their absence
votes the moment a Law-abiding seat's turn begins (a vote proves no time), the abandon outranks
that seat's record, written at once and sent to all, because nobody built on it yet, and the
honest seat, online all along, forfeits "deserted": its team loses.

DESIGN §6: "a peer that stalls past its timeout is recorded as having abandoned only when a
majority of the others saw it stall"; the brief: "one seat's or one side's word must never
decide another seat's fate" (Shady Agents' teams may act together).
"""

from __future__ import annotations

from spycraft.engines import registry
from spycraft.engines.game import PLAY
from tests.p2p.simnet import SimNet, adversary_of, agreed, finish

N = 4
SEED = 1  # roles at this seed: seats 0 and 1 Law-abiding, 2 and 3 Corrupt (the final reveal)
CORRUPT = (2, 3)


def test_a_hidden_team_at_half_the_table_cannot_declare_an_online_seat_absent():
    definition = registry.load("shady-agents")
    net = SimNet(N, definition=definition, options=definition.genesis_options(N, {}),
                 seed=SEED, timeout=5.0, grace=1.0)
    done: list[int] = []

    def vote_out(net, peer, state):
        table = peer.protocol.table
        turn = table.expect(state)
        if done or state.game.act != PLAY or turn is None or turn.seat in CORRUPT:
            return False
        votes = {c: net.peers[c].seat.absence_vote(state) for c in CORRUPT}
        abandon = peer.seat.sign_abandon(state, votes)
        done.append(turn.seat)
        net.apply(peer, peer.protocol.submit(abandon, net.now))
        return True

    adversary_of(net, CORRUPT[0], vote_out)
    adversary_of(net, CORRUPT[1], lambda net, peer, state: False)  # its partner: plays on
    finish(net, limit=400.0)
    transcript = agreed(net)
    roles = net.peers[0].protocol.state.game.roles
    assert [roles[c] for c in CORRUPT] == ["C", "C"] and roles[0] == roles[1] == "L", roles
    (victim,) = done
    outcome = net.peers[0].protocol.state.result
    assert outcome is not None
    assert victim not in outcome.forfeits, outcome  # it was: Corrupt won, the seat "deserted"
    # The two votes are a claim (``hidden_side``): held until each honest peer's own clock for
    # the victim ran out, and the victim's record, written at once, came first and stayed.
    assert not [r for r in transcript.records if r.record.kind == "abandon"]
    assert outcome.forfeits == () and outcome.winner is not None, outcome.describe()


def test_a_losing_hidden_team_cannot_win_by_voting_out_a_winner_at_its_final_reveal():
    """The same quorum at the final reveal: at this seed the Law-abiding team wins by play; the
    Corrupt seats vote seat 1 (Law-abiding, online) absent at its ``reveal`` turn."""
    definition = registry.load("shady-agents")
    net = SimNet(N, definition=definition, options=definition.genesis_options(N, {}),
                 seed=SEED, timeout=5.0, grace=1.0)
    done: list[int] = []

    def vote_out(net, peer, state):
        turn = peer.protocol.table.expect(state)
        if done or turn is None or turn.kinds != ("reveal",) or turn.seat in CORRUPT:
            return False
        if turn.seat != 1:
            return False
        votes = {c: net.peers[c].seat.absence_vote(state) for c in CORRUPT}
        done.append(turn.seat)
        net.apply(peer, peer.protocol.submit(peer.seat.sign_abandon(state, votes), net.now))
        return True

    adversary_of(net, CORRUPT[0], vote_out)
    adversary_of(net, CORRUPT[1], lambda net, peer, state: False)
    finish(net, limit=400.0)
    agreed(net)
    outcome = net.peers[0].protocol.state.result
    assert done == [1]
    assert 1 not in outcome.forfeits and outcome.winner != "Corrupt", outcome

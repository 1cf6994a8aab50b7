"""Red team 26, over the real protocol (SimNet: real engines, signatures, peers): at The
Resistance with five seats the three Resistance seats, acting together, sign their absence votes
the moment an online Spy's first turn of play begins and send the abandon at once. Three votes
were quorum(5) and Resistance's ``hidden_side`` was 0 (before stop 36), so a proof: it
outranked the Spy's record, written at once, at every honest peer (the other Spy too). The
honest, online Spy forfeited "deserted" and the Resistance won: one side's word decided another
seat's fate."""

from __future__ import annotations

from typing import Any

from spycraft.engines.resistance import GAME
from spycraft.engines.resistance import rules as resistance_rules
from tests.p2p.simnet import SimNet, adversary_of, agreed, finish, honest_seats_kept

N, SEED = 5, 3


def _net() -> SimNet:
    return SimNet(N, seed=SEED, definition=GAME, options=GAME.options(players=N),
                  timeout=5.0, grace=1.0)


def _roles() -> tuple[str | None, ...]:
    net = _net()
    finish(net)
    end = net.peers[0].protocol.state
    return tuple(GAME.rules.side_of(end.game, s) for s in range(N))


def test_resistance_votes_evict_an_online_spy() -> None:
    roles = _roles()
    loyal = [s for s in range(N) if roles[s] == resistance_rules.R.RESISTANCE]
    spies = [s for s in range(N) if roles[s] == resistance_rules.R.SPIES]
    assert len(loyal) == 3 and len(spies) == 2, roles
    net = _net()
    done: set[int] = set()
    accused: list[int] = []

    def act(net: SimNet, peer: Any, state: Any) -> bool:
        turn = net.local.table.expect(state)
        if (peer.index != loyal[0] or turn is None or turn.seat not in spies
                or state.game.act != "play" or done):
            return False
        if (state.seq + 1, state.link) not in net.peers[turn.seat].signed:
            return False  # the Spy is online: it has signed and sent its record
        done.add(state.seq)
        accused.append(turn.seat)
        votes = {v: net.peers[v].seat.absence_vote(state) for v in loyal}
        abandon = peer.seat.sign_abandon(state, votes)
        net.apply(peer, peer.protocol.submit(abandon, net.now))
        return True

    for seat in loyal:
        adversary_of(net, seat, act)
    finish(net)
    transcript = agreed(net)
    assert done, "no Spy turn in play"
    (seq,) = done
    assert any(place[0] == seq + 1 for place in net.peers[accused[0]].signed), (
        "the Spy signed its record for the place: it was online")
    report = honest_seats_kept(net, transcript)  # the Spies are the honest, online seats
    assert report.result.winner != resistance_rules.R.RESISTANCE, report.describe()

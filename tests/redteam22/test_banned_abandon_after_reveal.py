"""Red team 22: the ready stage settles the abandon before the first key share opens, but a
settled abandon still loses to a settled accused's record when its writer is proven to have
equivocated at its place (rule 2 of ``p2p.protocol``: both settled, "half of a proven
equivocation never takes a place"). The abandon's writer can be the accused's teammate, and it
proves its own equivocation whenever it likes: any record it signs at that place (``ready``,
junk) bans the abandon, since the abandon holds its place in the honest chain
(``_may_take_its_place``).

SpyNet at four, teams 0+2 (honest) and 1+3 (a coalition). Seat 1 withholds its card R at a
place where seat 2 writes next, then seat 3. Seat 0's clock runs out and it votes; seat 3
writes the abandon A with votes {0, 3} (a proof) and sends it to seat 0 only, while seat 1
hands R to seat 2, which never held A: seat 2 takes R and builds on it (r2). Only one seat
besides R's author built on R, so when A reaches seat 2 (with seat 0's ready on it) A ranks
first (rule 4: seat 2 is no voter of A, nothing dies) and seat 2 switches to A, as this test
checks with a real ``PeerProtocol``. The ready stage runs (0, 2, 3: A is settled) and seats 0
and 2 open their key shares. Then seat 3 signs its own record on r2 (R is now settled too: seats
2 and 3 built on it) and a second record at A's place, and sends the pair and the branch R, r2,
rec3 to the honest seats: both settled, A banned, R first: play goes on with every honest key
share public.
"""

from __future__ import annotations

from spycraft.engines.game import PLAY
from spycraft.p2p.protocol import PeerProtocol
from tests.conformance.games import Config, new_table


def test_a_writer_that_equivocates_after_the_reveal_takes_play_back() -> None:
    local, agents = new_table(Config("spynet", 4, ()), 0)
    table = local.table
    found = None
    while True:
        turn = table.expect(local.state)
        assert turn is not None, "no place found"
        if turn.seat == 1 and local.state.game.act == PLAY and local.state.seq > 40:
            before = local.state
            rec_r = local.seats[1].build(before, agents[1])
            s1 = table.apply(before, rec_r)
            nxt = table.expect(s1)
            if nxt is not None and nxt.seat == 2 and s1.game.act == PLAY:
                r2 = local.seats[2].build(s1, agents[2])
                s2 = table.apply(s1, r2)
                nxt = table.expect(s2)
                if nxt is not None and nxt.seat == 3 and s2.game.act == PLAY:
                    found = (before, rec_r, r2, s2)
                    break
        local.step(agents)
    before, rec_r, r2, s2 = found
    place = before.seq + 1
    prefix = list(local.records)

    # Seat 3 writes the abandon with its own vote and seat 0's: a proof, nobody held.
    votes = {0: local.seats[0].absence_vote(before), 3: local.seats[3].absence_vote(before)}
    abandon = local.seats[3].sign_abandon(before, votes)
    local.state = table.apply(before, abandon)
    local.records.append(abandon)
    ready0 = local.step(agents)
    assert ready0 is not None and ready0.seat == 0 and ready0.record.kind == "ready"

    # Honest seat 2 took R (a valid record at its head) and built on it before A reached it;
    # then A comes with seat 0's ready: seat 2 switches to A, as any honest peer does.
    seat2 = PeerProtocol(table=table, genesis=local.genesis, seat=local.seats[2],
                         records=tuple(prefix + [rec_r, r2]))
    seat2.link_up(0, 0, 0.0)
    seat2.receive(0, {"t": "sync_reply", "from_seq": place,
                      "records": [abandon.raw, ready0.raw]}, 1.0)
    assert seat2.records[place - 1].record.kind == "abandon", "seat 2 kept R: no attack"

    # The ready stage (0, 2, 3: A settled) and the final reveal, seat 3 playing along.
    while table.expect(local.state) is not None:
        local.step(agents)
    after = local.records[place - 1:]
    opened = sorted(r.seat for r in after if r.record.kind == "reveal")
    assert {0, 2} <= set(opened), [r.record.kind for r in after]

    # Now seat 3 settles R (its record on r2) and proves its own equivocation at A's place.
    rec3 = local.seats[3].build(s2, agents[3])
    junk = local.seats[3].sign(before, "ready", {})
    for honest in (0, 2):
        peer = PeerProtocol(table=table, genesis=local.genesis, seat=local.seats[honest],
                            records=tuple(local.records))
        peer.link_up(3, 3, 0.0)
        peer.receive(3, {"t": "evidence", "records": [abandon.raw, junk.raw]}, 1.0)
        peer.receive(3, {"t": "sync_reply", "from_seq": place,
                         "records": [rec_r.raw, r2.raw, rec3.raw]}, 2.0)
        kept = peer.records[place - 1]
        assert kept.record.kind == "abandon" or peer.state.game.act != PLAY, (
            f"seat {honest} took seat 1's record back into play after seats {opened} opened "
            f"their key shares on the abandon (head {peer.head}, act {peer.state.game.act})")

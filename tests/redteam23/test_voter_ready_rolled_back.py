"""Red team 23: a voter of the abandon (the accused's fellow spy) proves its own equivocation at
the place of its ``ready`` just after the first key share opened, while its ``ready`` is not yet
settled (rule 1 of ``p2p.protocol``: fewer than ``quorum(n)`` other seats built on it). Every
honest peer rolls back to before that ``ready`` (``_on_equivocation``: neither half settled), so
the voter has no ``ready`` on the honest chain any more, and the abandon's own builders fall below
a quorum. The voter built on the accused's record R on another branch: its vote dies (``_dead``
no longer sees it among the abandon's builders), both records are unsettled, and R takes play back
with the first revealer's key share public.

The Resistance at five. X (accused) and V (voter) are the two spies, V's turn follows
X's. Voters {L, H, V, W} (every other seat: since stop 36 the Resistance are a quorum, so a
proof at five needs them all), W writes the abandon. Readies: L, H, V (the voters but the
writer, in seat order), then W; L opens its key share first. V's ready has two builders after it
(W and L) when L's reveal lands: not settled. V signs junk at its ready's place and sends the
pair and the branch R, r_V to L.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto import recognition
from spycraft.crypto.records import SignedRecord
from spycraft.engines.game import PLAY
from spycraft.engines.local import LocalTable
from spycraft.engines.table import TableState
from spycraft.p2p.protocol import PeerProtocol
from tests.conformance.games import Config, new_table

N = 5
SEED = 3  # spies 2 and 3: seat 3 votes after seat 2 at a vote


def spies_of_the_seed(config: Config) -> set[int]:
    final, agents = new_table(config, SEED)
    return {i for i, role in enumerate(final.run(agents).game.roles) if role == recognition.SPY}


ReadyStage = tuple[int, SignedRecord, dict[int, TableState[Any]], list[tuple[int, str]]]


def abandon_then_ready_stage(local: LocalTable, agents: list[Any], before: TableState[Any],
                             v: int, h: int, w: int, low: int) -> ReadyStage:
    """The abandon of the seat expected at ``before`` by votes of V, H, W and L (W writes it),
    then honest play up to the first reveal: (its place, the abandon, the state after each
    record from the abandon on, the records after the abandon as (seat, kind))."""
    place = before.seq + 1
    votes = {s: local.seats[s].absence_vote(before) for s in (v, h, w, low)}
    abandon = local.seats[w].sign_abandon(before, votes)
    local.state = local.table.apply(before, abandon)
    local.records.append(abandon)
    states = {place: local.state}
    order = []
    while True:
        rec = local.step(agents)
        assert rec is not None
        states[rec.seq] = local.state
        order.append((rec.seat, rec.record.kind))
        if rec.record.kind == "reveal":
            return place, abandon, states, order


def ready_of(local: LocalTable, place: int, v: int) -> int:
    """Where in ``local.records`` V's ``ready`` after the abandon at ``place`` is (its seq less
    one: the state before it is ``states`` of that number)."""
    return next(i for i in range(place, len(local.records))
                if local.records[i].seat == v and local.records[i].record.kind == "ready")


def test_a_voter_that_unreadies_itself_takes_play_back_after_a_reveal() -> None:
    config = Config("resistance", N, ())
    spies = spies_of_the_seed(config)
    local, agents = new_table(config, SEED)
    table = local.table
    found = None
    while True:
        turn = table.expect(local.state)
        assert turn is not None, "no place found"
        if local.state.game.act == PLAY and local.state.seq > 30 and turn.seat in spies:
            x = turn.seat
            before = local.state
            rec_r = local.seats[x].build(before, agents[x])
            s1 = table.apply(before, rec_r)
            nxt = table.expect(s1)
            if nxt is not None and s1.game.act == PLAY and nxt.seat != x and nxt.seat in spies and \
                    rec_r.record.kind != "beacon":
                v = nxt.seat
                others = sorted(set(range(N)) - {x, v})
                lower = [s for s in others if s < v]
                if len(lower) >= 2:
                    r_v = local.seats[v].build(s1, agents[v])
                    found = (before, x, v, rec_r, r_v, others, lower)
                    break
        local.step(agents)
    before, x, v, rec_r, r_v, others, lower = found
    low, h = lower[0], lower[1]
    w = next(s for s in others if s not in (low, h))
    place, _, states, order = abandon_then_ready_stage(local, agents, before, v, h, w, low)
    expected = [(low, "ready"), (h, "ready"), (v, "ready"), (w, "ready"), (low, "reveal")]
    assert order == expected, order
    at = ready_of(local, place, v)
    ready_v = local.records[at]
    junk = local.seats[v].sign(states[at], "ready", {"again": 1})

    peer = PeerProtocol(table=table, genesis=local.genesis, seat=local.seats[low],
                        records=tuple(local.records))
    peer.link_up(v, v, 0.0)
    peer.receive(v, {"t": "evidence", "records": [ready_v.raw, junk.raw]}, 1.0)
    peer.receive(v, {"t": "sync_reply", "from_seq": place, "records": [rec_r.raw, r_v.raw]},
                 1.5)
    kept = peer.records[place - 1]
    assert kept.record.kind == "abandon" or peer.state.game.act != PLAY, (
        f"seat {low} took seat {x}'s record back into play after opening its key share on the "
        f"abandon (head {peer.head}, act {peer.state.game.act}, kinds "
        f"{[r.record.kind for r in peer.records[place - 1:]]})")


def test_a_peer_behind_the_reveal_comes_back_to_the_ready_it_rolled_back() -> None:
    """The same attack, seen by the voter H, which held every ready but not L's reveal when the
    pair came: it rolls V's ready back (unsettled there) and may write the fraud at its place;
    L's branch with the reveal must bring it back, and seat X's record must not take play."""
    config = Config("resistance", N, ())
    spies = spies_of_the_seed(config)
    local, agents = new_table(config, SEED)
    table = local.table
    while True:
        turn = table.expect(local.state)
        assert turn is not None
        if local.state.game.act == PLAY and local.state.seq > 30 and turn.seat in spies:
            before = local.state
            x = turn.seat
            rec_r = local.seats[x].build(before, agents[x])
            s1 = table.apply(before, rec_r)
            nxt = table.expect(s1)
            if nxt is not None and s1.game.act == PLAY and nxt.seat in spies and nxt.seat != x:
                v = nxt.seat
                r_v = local.seats[v].build(s1, agents[v])
                break
        local.step(agents)
    others = sorted(set(range(N)) - {x, v})
    low, h = others[0], others[1]
    w = others[2]
    place, abandon, states, _ = abandon_then_ready_stage(local, agents, before, v, h, w, low)
    at = ready_of(local, place, v)
    ready_v = local.records[at]
    junk = local.seats[v].sign(states[at], "ready", {"again": 1})

    peer = PeerProtocol(table=table, genesis=local.genesis, seat=local.seats[h],
                        records=tuple(local.records[:-1]))
    peer.link_up(v, v, 0.0)
    peer.link_up(low, low, 0.0)
    peer.receive(v, {"t": "evidence", "records": [ready_v.raw, junk.raw]}, 1.0)
    for t in range(2, 8):
        peer.tick(float(t))
    peer.receive(low, {"t": "sync_reply", "from_seq": at + 1,
                       "records": [r.raw for r in local.records[at:]]}, 9.0)
    peer.receive(v, {"t": "sync_reply", "from_seq": place, "records": [rec_r.raw, r_v.raw]},
                 10.0)
    for t in range(11, 20):
        peer.tick(float(t))
    kinds = [(r.seat, r.record.kind) for r in peer.records[place - 1:]]
    assert peer.records[place - 1].raw == abandon.raw, kinds
    assert peer.records[at].raw == ready_v.raw, kinds
    assert peer.state.game.act != PLAY, kinds

"""Red team 21, second attack: a voter that forfeits before its ``ready`` keeps a vote that can
still die, and fa798f3 then let the seats left open their key shares once more than a quorum
of them had written one: the abandon is settled, but so can the accused's record be, and then
rule 2 (a dead vote) puts the accused's record first and play goes on with every honest key
share public.

The Resistance at six, seed 0: spies 1 and 4. Seat 1 withholds its ``vote_commit`` R (record
39); seats 2 and 3, which write next, got R before the abandon reached them and built on it
(honest: a valid record at their head), then took the abandon (R was not settled, the abandon
ranks first) and built on it like everyone. The abandon carries the votes of every other seat
(0 writes it; since stop 36 a proof needs them all at six: the Resistance are a quorum). Spy 4,
at its ``ready`` after seats 2 and 3, stalls and is declared absent: a voter lost,
so (fa798f3) every seat left writes a ``ready`` and then opens its key share. Then spy 4 signs
its record on R after seats 2 and 3's: three seats other than R's author built on R (settled),
and its vote, which it never built on the abandon to keep, dies.
"""

from __future__ import annotations

from spycraft.engines.game import PLAY
from spycraft.p2p.protocol import PeerProtocol
from tests.conformance.games import Config, declare_absent, new_table, play_fresh


def test_a_voter_lost_before_its_ready_cannot_take_play_back_after_the_reveal() -> None:
    local, agents = new_table(Config("resistance", 6, ()), 0)
    while local.state.seq + 1 < 39:
        local.step(agents)
    rules = local.table.rules
    turn = local.table.expect(local.state)
    assert turn is not None and turn.seat == 1 and local.state.game.act == PLAY
    spies = [s for s in range(6) if rules.side_of(local.state.game, s) == "spies"] or [1, 4]
    assert 1 in spies and 4 in spies, spies
    place = local.state.seq + 1
    branch = []
    state = local.state
    for seat in (1, 2, 3, 4):  # R, then seats 2, 3 and spy 4 on it
        nxt = local.table.expect(state)
        assert nxt is not None and nxt.seat == seat, (nxt, seat)
        record = local.seats[seat].build(state, agents[seat])
        state = local.table.apply(state, record)
        branch.append(record)
    accused, _ = declare_absent(local, by=(0, 4, 5))
    assert accused == 1
    # The Resistance are a quorum (``hidden_side``): a proof at six carries every other vote,
    # and the voters ready in seat order; seats 2 and 3 write theirs, spy 4 stalls at its own.
    while (nxt := local.table.expect(local.state)) is not None and nxt.seat != 4:
        assert nxt.kinds == ("ready",), nxt
        local.step(agents)
    assert nxt is not None and nxt.kinds == ("ready",), nxt
    declare_absent(local, gone=(1,))
    while local.table.expect(local.state) is not None:
        local.step(agents)
    kinds = [r.record.kind for r in local.records[place - 1:]]
    opened = sorted(r.seat for r in local.records[place - 1:] if r.record.kind == "reveal")
    seat0 = PeerProtocol(table=local.table, genesis=local.genesis, seat=local.seats[0],
                         records=tuple(local.records))
    seat0.link_up(4, 4, 0.0)
    seat0.receive(4, {"t": "sync_reply", "from_seq": place,
                      "records": [r.raw for r in branch]}, 1.0)
    kept = seat0.records[place - 1]
    # Both branches settled and a vote dead: rule 2 may still put R first (the one case the
    # theory of operation allows a rollback past a result); what must not be is a key share
    # opened on the branch it leaves.
    assert kept.record.kind == "abandon" or not opened, (
        f"seat 0 took seat 1's record back into play after seats {opened} opened their key "
        f"shares on the abandon ({kinds})")


def test_at_ten_seats_a_spy_voter_lost_before_its_ready_leaves_every_key_share_closed() -> None:
    """Red team 21's case where it can still happen (stop 36 made a proof need one vote more
    than the Resistance count: every other seat at five and six, so the six-seat test above no
    longer reaches it). At ten a proof is seven votes of nine, and a spy may be among them: spy
    A withholds its ``vote_commit``, the abandon carries the vote of its fellow spy B, and B
    stalls at its ``ready`` and is proven absent by every seat left but one. B's vote never
    built on the abandon, so it can still die: B signs on A's record, and with two spies more
    and the two honest seats that held A's record in time, A's record is settled and takes
    play back. Nothing may open before that can no longer happen (``_voter_lost``): before
    fa798f3 every seat left readied and opened its key share once more than a quorum had."""
    config = Config("resistance", 10, ())
    ended = play_fresh(config, 0).local  # the sides, open at its end (the same deal)
    spies = [s for s in range(10) if ended.table.rules.side_of(ended.state.game, s) == "spies"]
    assert len(spies) == 4, spies
    local, agents = new_table(config, 0)
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if (local.state.game.act == PLAY and turn.seat in spies
                and turn.kinds == ("vote_commit",)):
            break
        local.step(agents)
    accused = turn.seat
    fellow = next(s for s in spies if s != accused)
    place = local.state.seq + 1
    assert declare_absent(local, by=(fellow,))[0] == accused
    voters = {vote[0] for vote in local.records[-1].record.body["votes"]}
    assert fellow in voters and len(voters) == 7, voters  # a proof: seven of nine
    while (nxt := local.table.expect(local.state)) is not None and nxt.seat != fellow:
        assert nxt.kinds == ("ready",), nxt
        local.step(agents)
    assert nxt is not None and nxt.kinds == ("ready",), nxt
    gone, _ = declare_absent(local, gone=(accused,))
    assert gone == fellow
    forfeits = {f.seat for f in local.state.forfeits}
    assert {accused, fellow} <= forfeits, forfeits
    while local.step(agents) is not None:
        pass
    kinds = [r.record.kind for r in local.records[place - 1:]]
    assert "reveal" not in kinds, (
        f"key shares opened while spy {fellow}'s vote could still die ({kinds})")
    assert local.state.result is not None

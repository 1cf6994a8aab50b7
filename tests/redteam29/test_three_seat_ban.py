"""Red team 29: at three seats the ready stage opens a key share on an abandon that the
protocol's rule 1 does not count as settled, and its writer bans it afterwards.

SpyNet at three seats: seat 2 (the accused) withholds its record in play; seat 1 (its
accomplice) keeps its absence vote from seat 0 and writes the abandon with seat 0's vote and
its own. The ready stage asks seat 0 and then seat 1 (``_built``: every seat but the accused
readied, ``built >= n - 1``), and seat 0 opens its key share first. But only seat 0 built on
the abandon besides its writer, fewer than ``quorum(3) = 2``: rule 1 does not hold it settled.
Seat 1 then proves its own equivocation at the abandon's place (it signs a second record
there, any record), which bans the abandon (rule 2), and seat 2 sends its withheld record:
seat 0 rolls back past its own key share and takes the accused's record, on which play goes
on, chosen with seat 0's secret in hand.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import Record, sign_record
from tests.p2p.simnet import SimNet, adversary_of
from tests.redteam29.three_seats import (
    assert_forfeit_kept,
    hold_back,
    opened_on_abandon,
    spynet_three,
)

HONEST, WRITER, ACCUSED = 0, 1, 2


def test_a_key_share_opened_at_three_seats_is_not_rolled_back_by_the_writers_ban() -> None:
    net = spynet_three()
    honest = net.peers[HONEST]
    plan: dict[str, Any] = {}

    def accused(net: SimNet, peer: Any, state: Any) -> bool:
        if hold_back(plan, peer):
            return True  # stall at the place
        if plan.get("sent"):
            return False
        if plan.get("banned") and not plan.get("sent"):
            plan["sent"] = True
            net.send(ACCUSED, HONEST, {"t": "record", "record": plan["withheld"].raw},
                     after=0.01)
        return "place" in plan

    def writer(net: SimNet, peer: Any, state: Any) -> bool:
        place = plan.get("place")
        if place is None or plan.get("banned"):
            return False
        records = honest.protocol.records
        if opened_on_abandon(records, place, HONEST) and records[place - 1].seat == WRITER:
            plan["opened"] = len(records)
            abandon = records[place - 1]
            junk = sign_record(Record(abandon.record.table, place, abandon.record.prev, WRITER,
                                      "ready", {}), peer.seat.identity)
            net.send(WRITER, HONEST, {"t": "evidence", "records": [abandon.raw, junk.raw]},
                     after=0.005)
            plan["banned"] = True
        return False

    def keep_vote(peer: Any, send: Any) -> bool:
        # the accomplice's vote never reaches the honest seat, which cannot write the abandon;
        # once the ban is under way the accused's own client says nothing but its record (its
        # protocol would write the fraud against the writer at the place itself)
        if peer.index == ACCUSED:
            return bool(plan.get("banned"))
        return peer.index == WRITER and send.link == HONEST and send.frame["t"] == "absent"

    adversary_of(net, ACCUSED, accused)
    adversary_of(net, WRITER, writer)
    net.intercept = keep_vote
    net.run(400.0, stop=lambda: "banned" in plan and net.now > plan.setdefault("t", net.now) + 4)
    assert "opened" in plan, "the stage never opened the honest seat's key share"
    assert_forfeit_kept(honest, plan["place"])

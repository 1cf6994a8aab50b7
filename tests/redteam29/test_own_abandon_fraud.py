"""Red team 29: at three seats an honest writer's abandon is not settled by its own key share,
and a fraud record at its place outranks it (rule 4) and is then banned by its own writer.

SpyNet at three seats: seat 0 (the accused) withholds its record in play; seat 1 (honest,
closest after it) writes the abandon with its vote and seat 2's. Seat 2 readies, seat 1
readies, and seat 1 opens its key share first. Only seat 2 built on the abandon besides its
writer (fewer than ``quorum(3) = 2``), so rule 1 does not hold it settled. Seat 2 then sends
seat 1 a fraud record for the abandon's place (proving an old equivocation of its accomplice,
seat 0): a fraud comes before an abandon (rule 4), and seat 1 rolls back past its key share.
Seat 2 proves its own equivocation at that place (any second record it signs there), the
fraud is banned and rolled back too, and seat 0 sends its withheld record: seat 1 takes it
and play goes on, with seat 1's secret known to both.
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

ACCUSED, HONEST, ACCOMPLICE = 0, 1, 2


def test_an_abandon_its_writer_opened_a_key_share_on_is_not_displaced_by_a_banned_fraud(
) -> None:
    net = spynet_three()
    honest = net.peers[HONEST]
    plan: dict[str, Any] = {}

    def accused(net: SimNet, peer: Any, state: Any) -> bool:
        if "place" not in plan and hold_back(plan, peer):
            old = next(r for r in reversed(peer.protocol.records) if r.seat == ACCUSED)
            junk = sign_record(Record(old.record.table, old.seq, old.record.prev, ACCUSED,
                                      old.record.kind, {"junk": 1}), peer.seat.identity)
            plan["pair"] = [old.raw, junk.raw]
        return hold_back(plan, peer)

    def accomplice(net: SimNet, peer: Any, state: Any) -> bool:
        place = plan.get("place")
        if place is None or plan.get("struck"):
            return False
        records = honest.protocol.records
        if opened_on_abandon(records, place, HONEST):
            plan["struck"] = True
            abandon = records[place - 1]
            table, prev = abandon.record.table, abandon.record.prev
            fraud = sign_record(Record(table, place, prev, ACCOMPLICE, "fraud",
                                       {"evidence": plan["pair"]}), peer.seat.identity)
            junk = sign_record(Record(table, place, prev, ACCOMPLICE, "ready", {}),
                               peer.seat.identity)
            net.send(ACCOMPLICE, HONEST, {"t": "record", "record": fraud.raw}, after=0.005)
            net.send(ACCOMPLICE, HONEST, {"t": "evidence", "records": [fraud.raw, junk.raw]},
                     after=0.05)
            net.send(ACCUSED, HONEST, {"t": "record", "record": plan["withheld"].raw},
                     after=0.06)
            plan["at"] = net.now
        return False

    adversary_of(net, ACCUSED, accused)
    adversary_of(net, ACCOMPLICE, accomplice)
    # once it strikes, the coalition's clients say nothing but what the attack sends
    net.intercept = lambda peer, send: bool(plan.get("struck"))
    net.run(400.0, stop=lambda: "at" in plan and net.now > plan["at"] + 4)
    assert "at" in plan, "the stage never opened the honest seat's key share"
    assert_forfeit_kept(honest, plan["place"])

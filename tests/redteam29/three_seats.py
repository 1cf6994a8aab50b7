"""What red team 29's two attacks share: SpyNet at three seats on ``SimNet``, the accused's
record held back at a place in play, the moment the honest seat has opened its key share on
the abandon of that place, and what must then hold at the place."""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import SignedRecord
from spycraft.engines import registry
from spycraft.engines.game import PLAY
from spycraft.engines.table import INTERRUPTS
from tests.p2p.simnet import Peer, SimNet


def spynet_three() -> SimNet:
    definition = registry.load("spynet")
    return SimNet(3, seed=29, definition=definition, options=definition.options(3),
                  timeout=5.0, grace=1.0)


def hold_back(plan: dict[str, Any], peer: Peer) -> bool:
    """The accused builds its record at a place in play past record 30 and keeps it (in
    ``plan``: the place, the record); True where the place is still ours to stall at."""
    turn = peer.protocol.wants_turn()
    if "place" not in plan and turn is not None and turn.game.act == PLAY and turn.seq > 30:
        plan["place"] = turn.seq + 1
        plan["withheld"] = peer.seat.build(turn, peer.agent)  # kept, not sent
    return "place" in plan and peer.protocol.head + 1 == plan["place"]


def opened_on_abandon(records: list[SignedRecord], place: int, honest: int) -> bool:
    """Whether the abandon at ``place`` holds and ``honest`` opened its key share after it."""
    return len(records) >= place + 2 and records[place - 1].record.kind == "abandon" \
        and any(r.seat == honest and r.record.kind == "reveal" for r in records[place:])


def assert_forfeit_kept(peer: Peer, place: int) -> None:
    at_place = peer.protocol.records[place - 1]
    assert at_place.record.kind in INTERRUPTS, (
        f"seat {peer.index} opened its key share on the abandon at {place}, then took the "
        f"accused's {at_place.record.kind} there and play went on to {peer.protocol.head}: "
        f"{[(r.seat, r.record.kind) for r in peer.protocol.records[place - 1:]]}")

"""Nothing hidden reaches a seat before rules §12 allow it (DESIGN.md §4).

* The deck state: with its own key and every published token, a seat never shown a card cannot
  read it, at any point of a game (``leaks.unreadable_by_outsiders``).
* Every byte a seat receives: four peers play a whole game over the real peer protocol on a
  simulated network (``tests.p2p.simnet``: real signatures, real frames through the wire
  encoding); every frame each peer receives before the final reveal, the records it signed and
  its memo are scanned for the tokens and secrets that would open a card it may not know,
  including its teammate's face-down missions (``leaks.scan``). The stored session folders of
  real processes are scanned the same way in ``test_spynet_lan``.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.records import parse_record
from spycraft.engines.local import new_local_table
from spycraft.engines.spynet import GAME
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.rules import State
from spycraft.engines.spynet.scoring import teammate
from spycraft.p2p.wire import encode_frame
from tests.p2p.simnet import SimNet, agreed, finish
from tests.spynet.leaks import (
    forbidden,
    mates_missions,
    scan,
    texts,
    unreadable_by_outsiders,
)


def test_no_seat_can_read_a_card_it_was_not_shown_before_the_final_reveal() -> None:
    entropy = SeededEntropy(22)
    local = new_local_table(GAME, {"situation": "off"}, 2, entropy)
    agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(2)]
    while True:
        turn = local.table.expect(local.state)
        if turn is None or turn.kinds == ("reveal",):
            break
        if local.state.seq % 25 == 0:
            unreadable_by_outsiders(local.state.game, local.seats)
        local.step(agents)
    unreadable_by_outsiders(local.state.game, local.seats)


def test_a_face_down_mission_shows_nothing_new_even_to_the_teammate() -> None:
    entropy = SeededEntropy(31)
    local = new_local_table(GAME, {"situation": "off"}, 4, entropy)
    agents = [BOTS["random"](entropy.child(f"bot/{i}"), i) for i in range(4)]
    checked = 0
    while checked < 3:
        turn = local.table.expect(local.state)
        if turn is None or turn.kinds == ("reveal",):
            break
        before = local.state.game.ops
        signed = local.step(agents)
        assert signed is not None
        if signed.record.kind == "play_mission":
            after = local.state.game.ops
            assert after.viewers == before.viewers and after.public == before.public
            position = signed.record.body["card"]
            mate = teammate(signed.record.seat, 4)
            assert mate is not None
            if mate not in after.viewers[position]:
                assert local.seats[mate].game.face(local.state.game, position) is None
            checked += 1
    assert checked, "no mission was played"


def frame_bytes(frame: dict[str, Any], cutoff: int) -> list[bytes]:
    """What a frame carries from before the final reveal: its records before ``cutoff`` (a
    record, a sync reply, evidence), or the whole frame when it carries none."""
    if "record" in frame:
        raws = [frame["record"]]
    elif "records" in frame:
        raws = list(frame["records"])
    else:
        return [encode_frame(frame)]
    return [raw for raw in raws if parse_record(raw).record.seq < cutoff]


@pytest.mark.parametrize("seed", [3])
def test_no_frame_a_peer_receives_before_the_final_reveal_opens_a_card_it_may_not_know(
    seed: int,
) -> None:
    net = SimNet(4, seed=seed, definition=GAME, options={"situation": "off"})
    received: dict[int, list[dict[str, Any]]] = {p.index: [] for p in net.peers}
    sampled: set[int] = set()

    def hook(peer: Any, sender: int, frame: dict[str, Any]) -> bool:
        received[peer.index].append(frame)
        state = peer.protocol.state
        if peer.index == 0 and state.seq // 100 not in sampled and state.game.act == "play":
            sampled.add(state.seq // 100)  # the deck state on the way, a few times a game
            unreadable_by_outsiders(state.game, net.local.seats)
        return False

    net.on_frame = hook
    finish(net)
    transcript = agreed(net)
    kinds = [r.record.kind for r in transcript.records]
    cutoff = transcript.records[kinds.index("reveal")].seq
    final: State = net.peers[0].protocol.state.game
    assert final.final is not None and not final.violations
    assert {"pass_card", "play_mission"} <= set(kinds), "a game without what we scan for"
    masters = [p.seat.context.master for p in net.peers]
    hidden_missions = 0
    for peer in net.peers:
        seat = peer.index
        blobs = [b for frame in received[seat] for b in frame_bytes(frame, cutoff)]
        blobs += [
            raw for (seq, _), raws in peer.signed.items() if seq < cutoff for raw in raws
        ]
        blobs.append(encode(peer.seat.memo))
        what = forbidden(final, seat, masters)
        result = scan(what, blobs, texts(peer.seat.memo))
        assert not result.leaks, result.leaks
        assert result.hidden > 0 and result.controls == len(what.public) > 0
        # the scan finds a leak where there is one: add the one token a hidden card lacks
        position, tokens = next(iter(what.tokens.items()))
        lacking = [t for t in tokens.values() if all(t not in b for b in blobs)]
        assert scan(what, [*blobs, *lacking]).leaks == (
            f"seat {seat} holds every token it lacks of hidden card {position}",
        )
        hidden_missions += mates_missions(final, what)
    assert hidden_missions, "no teammate's face-down mission was hidden from a seat"

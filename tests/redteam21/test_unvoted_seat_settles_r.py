"""Red team 21: an abandon proven in play is not settled when its first key share opens.

SpyNet at four, teams 0+2 (honest) and 1+3 (a coalition). Seat 1 withholds its record R at a
place after which seat 3 writes, then seat 2. Seat 0's clock runs out and it votes; seat 3
writes the abandon A with exactly the quorum, its own vote and seat 0's ({0, 3}: a proof, not a
claim), and sends it to seat 0 only. ``confirm`` is {0}: seat 0 writes its ``ready`` and then,
first in seat order, its ``reveal``. Only seat 0 has built on A (its writer does not count), so
A is not settled (quorum(4) = 2 builders). At the same moment the coalition hands seat 2, which
never held A (and whose vote, if it voted, A does not carry), R and seat 3's record on it; seat
2 accepts R as any honest seat accepts a valid record at its head, and builds on it: two seats
other than R's author built on R, R is settled (rule 1), A is not, and every honest peer rolls
back into play with seat 0's key share public.

The ruling says "the accused's record can take the place back only by a quorum built on it,
which needs honest seats that held it in time (and then never voted)": seat 2 did not hold R in
time (its own clock ran out; it may have voted), it was simply not among the votes the
coalition's writer picked.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.group import Scalar
from spycraft.crypto.records import parse_record
from spycraft.engines import registry
from spycraft.engines.evolve import evolve
from spycraft.engines.spynet.rules import open_without_forfeiters
from tests.p2p.simnet import SimNet, adversary_of


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_first_key_share_opens_on_an_abandon_an_unvoted_honest_seat_can_still_outbuild(
        seed: int) -> None:
    spynet = registry.load("spynet")
    net = SimNet(4, seed=seed, definition=spynet, options=spynet.genesis_options(4),
                 timeout=5.0, grace=1.0)
    plan: dict[str, Any] = {}
    opened: dict[int, bytes] = {}  # honest key shares that reached seat 1 or 3

    def tap(sender: int, receiver: int, frame: dict[str, Any]) -> None:
        raws = [frame["record"]] if frame.get("t") == "record" else \
            list(frame["records"]) if frame.get("t") == "sync_reply" else []
        for raw in raws:
            signed = parse_record(raw)
            if signed.record.kind == "reveal" and signed.seat in (0, 2) and receiver in (1, 3):
                opened.setdefault(signed.seat, signed.record.body["secret"])
        if ("R" in plan and frame.get("t") == "absent" and sender == 0 and receiver == 3
                and frame["seq"] == plan["R"].seq and "vote0" not in plan):
            plan["vote0"], plan["vote0_at"] = frame["sig"], net.now

    net.tap = tap

    def silenced(peer: Any, action: Any) -> bool:
        # From the withheld place on, seat 3's own protocol says nothing: the coalition speaks.
        return peer.index == 3 and "R" in plan

    net.intercept = silenced

    def seat1(net: SimNet, peer: Any, state: Any) -> bool:
        if "R" in plan:
            return peer.protocol.head + 1 == plan["R"].seq  # keep R to itself
        turn = peer.protocol.wants_turn()
        if turn is None or turn.game.act != "play" or turn.seq < 150:
            return False
        table = peer.protocol.table
        record = peer.seat.build(turn, peer.agent)
        after_r = table.apply(turn, record)
        nxt = table.expect(after_r)
        if nxt is None or nxt.seat != 3 or after_r.game.act != "play":
            return False
        partner = net.peers[3]
        rec3 = partner.seat.build(after_r, partner.agent)
        after_3 = table.apply(after_r, rec3)
        nxt = table.expect(after_3)
        if nxt is None or nxt.seat != 2 or after_3.game.act != "play":
            return False
        plan["R"], plan["rec3"], plan["before"] = record, rec3, turn
        return True

    def seat3(net: SimNet, peer: Any, state: Any) -> bool:
        if "R" not in plan:
            return False
        if "vote0" in plan and "sent" not in plan and net.now >= plan["vote0_at"] + 0.05:
            before = plan["before"]
            votes = {0: plan["vote0"], 3: peer.seat.absence_vote(before)}
            abandon = peer.seat.sign_abandon(before, votes)
            plan["A"] = abandon
            # at once: seat 0 writes its ready and its reveal on A, seat 2 takes R and rec3
            # (a valid record at its head: it never held A) and builds on them
            land = 0.02
            net.send(3, 0, {"t": "record", "record": abandon.raw}, after=land)
            net.send(3, 2, {"t": "sync_reply", "from_seq": plan["R"].seq,
                            "records": [plan["R"].raw, plan["rec3"].raw]}, after=land)
            plan["sent"] = net.now
        return True  # its protocol never writes from here on

    adversary_of(net, 1, seat1)
    adversary_of(net, 3, seat3)
    net.run(600.0, stop=lambda: "sent" in plan and net.now > plan["sent"] + 5.0)
    assert "sent" in plan, "the attack did not run"
    place = plan["R"].seq
    kinds = {seat: net.peers[seat].protocol.records[place - 1].record.kind for seat in (0, 2)}
    acts = {seat: net.peers[seat].protocol.state.game.act for seat in (0, 2)}
    assert not (opened and "play" in acts.values()), (
        f"seats {sorted(opened)} opened their key shares on the abandon, then rolled back into "
        f"play on seat 1's record (seats 0, 2 at the place: {kinds}, acts {acts}); seats 1 and "
        f"3 read {read_by_coalition(net, opened)} cards of seat 0's never shown to them")


def read_by_coalition(net: SimNet, opened: dict[int, bytes]) -> int:
    """The cards neither public nor shown to seat 1 or 3 that seats 1 and 3 open with the key
    shares they were sent and their own two (seat 2's tokens sealed to seat 0 open with seat
    0's share): each checked against what its honest viewer was shown."""
    game = net.peers[0].protocol.state.game
    secrets = [None] * 4
    for seat, raw in opened.items():
        secrets[seat] = Scalar.decode(raw)
    for seat in (1, 3):
        secrets[seat] = net.peers[seat].seat.game.key
    faces = open_without_forfeiters(evolve(game, secrets=tuple(secrets)))
    ops = game.ops
    read = 0
    for card, face in faces.items():
        if ops.face(card) is not None or {1, 3} & set(ops.viewers[card]):
            continue
        for honest in set(ops.viewers[card]) & {0, 2}:
            assert face == net.peers[honest].seat.game.hand.peek(ops, card)
        read += 1
    return read

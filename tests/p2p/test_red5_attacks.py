"""Red team 5 (stop 28): two ways one seat hurt every honest process, on the simulated network.

1. An absence vote for record 0, signed by its voter as any vote: a peer at head 0 (before
   record 1, or a spectator that has just begun to watch) read ``records[-1]`` of an empty chain
   and its process died (real tables: all four honest bots and the host; where only one died,
   the others voted it absent and the transcript audited VALID with it forfeiting).
2. A seat's ``sync_reply`` was free, and each record in it at a place ahead of us had its
   signature checked before anything looked at the place: 6,280 tiny records of the seat's own
   for one place, signed once and sent again and again in 1 MiB frames, cost each honest peer
   466 ms of CPU per frame (25 times the attacker's cost; a 14 s game still in mission 2 after
   150 s). Now a reply is paid from its sender's budget whoever sends it, and a record for a
   buffered place is checked only if it could be the other half of an equivocation.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.encoding import encode
from spycraft.crypto.records import Record, SignedRecord, sign_record
from spycraft.engines import absence
from spycraft.p2p import protocol as protocol_module
from spycraft.p2p import wire
from spycraft.p2p.protocol import PeerProtocol
from spycraft.p2p.wire import FrameError
from tests.p2p.simnet import SimNet, agreed, honest_seats_kept

X = 4  # the cheater's seat
SPECTATOR = 5


def vote_for_record_zero(net: SimNet, accused: int) -> dict[str, Any]:
    seat = net.peers[X].seat
    table = net.local.genesis.genesis.table
    prev = bytes(32)
    return {"t": "absent", "seq": 0, "prev": prev, "seat": accused, "voter": X,
            "sig": absence.sign_vote(seat.identity, table, 0, prev, accused, X)}


def test_a_vote_for_record_zero_closes_its_link_and_crashes_nobody() -> None:
    net = SimNet(5, seed=4, redial=1.0, spectators=1)
    net.peers[X].honest = False
    for other in (0, 1, 2, 3, SPECTATOR):  # at head 0, before anyone wrote record 1
        net.send(X, other, vote_for_record_zero(net, 1 if other == 0 else 0), after=0.0)
    net.run(0.01)
    for other in (0, 1, 2, 3, SPECTATOR):
        assert X in net.peers[other].closed, other  # the voter's link, and no other
        assert net.peers[other].closed == {X}, (other, net.peers[other].closed)
    net.run(30, stop=lambda: net.peers[0].protocol.head >= 10)
    net.send(X, SPECTATOR, vote_for_record_zero(net, 0), after=0.0)  # a watcher mid-game too
    net.run(400, stop=net.all_honest_finished)
    net.settle(5)
    honest_seats_kept(net, agreed(net))


def tiny_records(net: SimNet, seq: int, count: int, *, prevs: bool) -> list[bytes]:
    """``count`` small records of the cheater's own for place ``seq`` (one made-up prev for all,
    or one each), none of which can ever take its place."""
    identity = net.peers[X].seat.identity
    table = net.local.genesis.genesis.table
    return [sign_record(Record(table, seq, i.to_bytes(32, "big") if prevs else bytes(32), X,
                               "x", i), identity).raw for i in range(count)]


def five_records_in() -> tuple[SimNet, PeerProtocol]:
    """Five seats of the relay race, the cheater's among them, five records in; seat 0's
    protocol, the victim."""
    net = SimNet(5, seed=6)
    net.peers[X].honest = False
    net.run(30, stop=lambda: net.peers[0].protocol.head >= 5)
    return net, net.peers[0].protocol


@pytest.mark.parametrize("prevs", [False, True], ids=["one prev", "a prev each"])
def test_a_seats_reply_of_many_records_for_one_place_costs_a_few_signature_checks(
    monkeypatch: pytest.MonkeyPatch, prevs: bool,
) -> None:
    net, victim = five_records_in()
    checked: list[SignedRecord] = []
    verify = protocol_module.verify_record_signature

    def counting(signed: SignedRecord, key: Any) -> None:
        checked.append(signed)
        verify(signed, key)

    monkeypatch.setattr(protocol_module, "verify_record_signature", counting)
    junk = tiny_records(net, victim.head + 2, 1000, prevs=prevs)  # 2 MiB: within a budget
    for i in range(20):
        net.send(X, 0, {"t": "sync_reply", "from_seq": victim.head + 2, "records": junk},
                 after=0.01 * i)
    net.run(net.now + 0.3)
    ours = [s for s in checked if s.seat == X and s.record.kind == "x"]
    assert len(ours) <= 2, len(ours)  # the first for the place, and its other half
    checked.clear()
    junk = tiny_records(net, victim.head + 2, 50, prevs=prevs)
    for i, raw in enumerate(junk):  # and one record a frame, as records
        net.send(X, 0, {"t": "record", "record": raw}, after=0.0001 * i)
    net.run(net.now + 0.01)
    ours = [s for s in checked if s.seat == X and s.record.kind == "x"]
    assert len(ours) <= 2, len(ours)
    net.run(400, stop=net.all_honest_finished)
    net.settle(5)
    honest_seats_kept(net, agreed(net))


def test_a_seats_replies_are_paid_from_its_budget_as_an_observers_are() -> None:
    """Past its budget a seat's reply is not even read: here 20 frames of 1,000 records each
    (2 MiB of budget each, at 2 KiB a record) in 0.2 s, where 4 MiB and 1 MiB a second are the
    budget: two are read."""
    net, victim = five_records_in()
    read: list[int] = []
    on_sync_reply = victim._on_sync_reply

    def counting(link: int, raws: Any, now: float) -> None:
        read.append(link)
        on_sync_reply(link, raws, now)

    victim._on_sync_reply = counting  # type: ignore[method-assign]
    junk = tiny_records(net, victim.head + 2, 1000, prevs=True)
    for i in range(20):
        net.send(X, 0, {"t": "sync_reply", "from_seq": victim.head + 2, "records": junk},
                 after=0.01 * i)
    net.run(net.now + 0.3)
    assert read.count(X) == 2, read
    net.run(400, stop=net.all_honest_finished)
    net.settle(5)
    honest_seats_kept(net, agreed(net))


def test_a_reply_of_more_records_than_a_budget_can_pay_for_is_a_bad_frame() -> None:
    """Red team 6: 65,500 entries of 15 bytes in one 1 MiB reply cost 73 ms to decode, priced
    128 MiB, and were dropped unread with the link kept, again and again. Such a reply is now a
    bad frame (its link closes, its seat's offences count); ours never hold more."""
    assert wire.MAX_REPLY_RECORDS == protocol_module.SYNC_CHUNK_RECORDS
    payload = encode({"v": PROTOCOL_VERSION, "t": "sync_reply", "from_seq": 1,
                      "records": [bytes(15)] * (wire.MAX_REPLY_RECORDS + 1)})
    with pytest.raises(FrameError, match="sync_reply.records is longer than 1024"):
        wire.decode_payload(payload)
    full = encode({"v": PROTOCOL_VERSION, "t": "sync_reply", "from_seq": 1,
                   "records": [bytes(15)] * wire.MAX_REPLY_RECORDS})
    assert wire.decode_payload(full)["records"][0] == bytes(15)


def test_a_catch_up_is_cut_into_replies_a_budget_can_pay_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat far behind gets its records in replies of at most ``SYNC_CHUNK_RECORDS`` (here
    made 3, so a short game shows it), each of which its budget at the receiver pays for."""
    monkeypatch.setattr(protocol_module, "SYNC_CHUNK_RECORDS", 3)
    net = SimNet(3, seed=2, spectators=1)
    late = net.peers[3]  # a spectator that comes in late
    for seat in range(3):
        net.close(3, seat)
    net.run(60, stop=lambda: net.peers[0].protocol.head >= 12)
    target = net.peers[0].protocol.head
    assert target > 6
    replies: list[int] = []
    net.tap = lambda sender, receiver, frame: replies.append(len(frame["records"])) if (
        receiver == 3 and frame["t"] == "sync_reply") else None
    for seat in range(3):
        late.closed.discard(seat)
        net.peers[seat].closed.discard(3)
        net.apply(late, net.link_up(late, net.peers[seat]))
        net.apply(net.peers[seat], net.link_up(net.peers[seat], late))
    net.run(net.now + 10, stop=lambda: late.protocol.head >= target)
    assert late.protocol.head >= target and len(replies) >= 3 and max(replies) == 3, replies

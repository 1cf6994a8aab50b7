"""The peer protocol's fairness rules, one attack or accident at a time, without sockets.

Each test plays a whole relay race (``tests/p2p/relay.py``) between real ``PeerProtocol``s on a
simulated network (``tests/p2p/simnet.py``) and checks what the honest peers end with.
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.records import Record, sign_record
from spycraft.engines import absence
from spycraft.engines.audit import audit_transcript
from spycraft.p2p.protocol import (
    FUTURE_BYTES_PER_LINK,
    FUTURE_BYTES_TOTAL,
    RESEND_BURST,
    RESEND_RATE,
    PeerProtocol,
    Store,
)
from tests.p2p.relay import GAME
from tests.p2p.simnet import (
    Peer,
    SimNet,
    adversary_of,
    agreed,
    finish,
    honest_seats_kept,
    never_signed_twice,
    send_halves,
)

# --- honest play ---------------------------------------------------------------------------


def test_honest_peers_finish_with_one_transcript_at_every_count():
    for players in (2, 3, 5, 7):
        net = SimNet(players, seed=players)
        finish(net)
        report = honest_seats_kept(net, agreed(net))
        assert report.valid and report.result.reason == "points"
        never_signed_twice(net)


def test_a_plain_record_costs_its_author_one_frame_per_peer_and_each_peer_one_ack():
    net = SimNet(5, seed=2)
    sent: list[tuple[int, str]] = []
    original = net.send

    def counting(
        sender: int, receiver: int, frame: dict[str, Any], *, lossless: bool = False
    ) -> None:
        sent.append((sender, frame["t"]))
        original(sender, receiver, frame, lossless=lossless)

    net.send = counting  # type: ignore[method-assign]
    net.run(300, stop=net.all_honest_finished)
    records = net.peers[0].protocol.head
    kinds = [t for _, t in sent]
    assert kinds.count("record") == 4 * records
    assert kinds.count("ack") == 4 * records
    assert len(kinds) - kinds.count("head") <= 2 * 4 * records


# --- absence ---------------------------------------------------------------------------------


def test_a_staller_is_voted_absent_by_a_majority_within_a_bounded_time():
    for players in (3, 5, 7):
        net = SimNet(players, seed=10 + players, timeout=5.0, grace=1.0)
        staller = net.peers[1]
        staller.writes = False
        watcher = net.peers[0].protocol
        net.run(300, stop=lambda w=watcher: any(r.record.kind == "abandon" for r in w.records))
        abandon = next(r for r in net.peers[0].protocol.records if r.record.kind == "abandon")
        voters = [v for v, _ in abandon.record.body["votes"]]
        assert len(voters) >= absence.quorum(players) and 1 not in voters
        assert net.now <= 5.0 + (players + 1) * 1.0 + 1.0  # seat 1 writes first after seat 0
        staller.honest = False
        finish(net)
        report = audit_transcript(agreed(net), GAME)
        assert report.result.forfeits == (1,) and report.result.reason == "abandoned"


def test_with_two_players_an_abandon_is_a_claim_and_says_so():
    net = SimNet(2, seed=4)
    net.peers[0].writes = False
    net.peers[0].honest = False
    finish(net)
    report = audit_transcript(agreed(net), GAME)
    assert report.result.winner is None
    assert "claimed by seat 1" in report.describe()


def test_a_false_abandon_at_once_is_refused_and_costs_its_writer_only():
    net = SimNet(4, seed=5)
    sent = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        turn = peer.protocol.table.expect(state)
        if sent or turn is None or turn.seat == peer.index or state.seq < 2:
            return False
        vote = peer.seat.absence_vote(state)
        for body in (absence.abandon_body(turn.seat, {peer.index: vote}),
                     {"seat": turn.seat, "reason": "gone"}):
            record = peer.seat.sign(state, "abandon", body)
            net.broadcast(peer.index, {"t": "record", "record": record.raw})
        sent.append(turn.seat)
        return False

    adversary_of(net, 2, cheat)
    finish(net)
    assert sent
    transcript = agreed(net)
    honest_seats_kept(net, transcript)
    assert all(r.record.kind != "abandon" or r.record.body["seat"] == 2 for r in transcript.records)
    assert all(2 in p.closed for p in net.honest())  # the liar is cut off, and only the liar


def test_a_retroactive_abandon_with_forged_votes_rolls_nothing_back():
    net = SimNet(5, seed=6)
    rewrites: list[int] = []
    sent = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if sent or state.seq < 6:
            return False
        protocol = peer.protocol
        place = 3
        before = protocol.states[place - 1]
        accused = protocol.table.expect(before).seat
        votes = {peer.index: absence.sign_vote(peer.seat.identity, before.genesis.table, place,
                                               before.link, accused, peer.index)}
        for voter in range(5):  # signatures it can only make with its own key
            if voter not in (accused, peer.index):
                votes[voter] = absence.sign_vote(peer.seat.identity, before.genesis.table, place,
                                                 before.link, accused, voter)
        record = peer.seat.sign(before, "abandon", absence.abandon_body(accused, votes))
        net.broadcast(peer.index, {"t": "record", "record": record.raw})
        sent.append(record)
        return False

    adversary_of(net, 3, cheat)
    original = net.apply

    def watching(peer: Peer, actions: list[Any]) -> None:
        rewrites.extend(
            peer.index for a in actions if type(a).__name__ == "Rewrite" and peer.honest
        )
        original(peer, actions)

    net.apply = watching  # type: ignore[method-assign]
    finish(net)
    assert sent and rewrites == []
    honest_seats_kept(net, agreed(net))
    assert all(3 in p.closed for p in net.honest())  # the forger is disconnected


def test_a_record_that_reached_one_honest_peer_beats_the_others_timeouts():
    """Seat 2's links to everyone but seat 0 lose its records; seat 0 holds it and answers the
    last call, so nobody votes and seat 2 plays on."""
    net = SimNet(4, seed=7, timeout=5.0, grace=1.0)

    def lossy(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        return sender == 2 and receiver.index != 0 and frame["t"] in ("record", "sync_reply")

    net.on_frame = lossy
    finish(net)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.valid
    assert all(r.record.kind != "abandon" for r in transcript.records)


# --- equivocation and evidence ------------------------------------------------------------


def test_an_equivocation_is_proven_and_its_author_forfeits():
    net = SimNet(4, seed=8)
    done = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        turn = peer.protocol.table.expect(state)
        if done or turn is None or turn.seat != peer.index:
            return False
        one = peer.seat.sign(state, "leg", {"value": 1})
        two = peer.seat.sign(state, "leg", {"value": 2})
        send_halves(net, peer, one, two, lambda other: other.index % 2 == 1)
        done.append(state.seq + 1)
        return True

    adversary_of(net, 1, cheat)
    finish(net)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result.forfeits == (1,)
    assert any("equivocation" in f and "by seat 1" in f for f in report.frauds), report.frauds
    never_signed_twice(net)


def test_a_malformed_body_signed_by_the_expected_seat_is_proven_and_attributed():
    """Half the table gets a valid record, the other half one with a body no schema allows: the
    second is that seat's own signed lie, so it is evidence, not line noise."""
    net = SimNet(4, seed=15)
    done = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        turn = peer.protocol.table.expect(state)
        if done or turn is None or turn.seat != peer.index or state.seq < 4:
            return False
        good = peer.seat.sign(state, "leg", {"value": 1})
        bad = peer.seat.sign(state, "leg", {"speed": "fast"})
        send_halves(net, peer, good, bad, lambda other: other.index % 2 == 1)
        done.append(state.seq + 1)
        return True

    adversary_of(net, 1, cheat)
    finish(net)
    report = honest_seats_kept(net, agreed(net))
    assert report.result.forfeits == (1,)
    assert report.frauds and all("seat 1" in f for f in report.frauds), report.frauds


def test_evidence_that_proves_nothing_convicts_nobody_and_rolls_nothing_back():
    net = SimNet(4, seed=9)
    other_table = SimNet(4, seed=99)
    sent = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if sent or state.seq < 5:
            return False
        victim = next(r for r in peer.protocol.records if r.seat == 0)
        # a record of its own for the same place, a record of another table, a forgery
        mine = sign_record(Record(victim.record.table, victim.seq, victim.record.prev, peer.index,
                                  "leg", {"value": 3}), peer.seat.identity)
        foreign = sign_record(Record(other_table.local.genesis.genesis.table, victim.seq,
                                     victim.record.prev, 0, "leg", {"value": 3}),
                              other_table.local.seats[0].identity)
        forged = victim.raw[:-64] + bytes(64)
        for fake in (mine.raw, foreign.raw, forged):
            net.broadcast(peer.index, {"t": "evidence", "records": [victim.raw, fake]})
        sent.append(victim.seq)
        return False

    adversary_of(net, 3, cheat)
    finish(net)
    assert sent
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert not report.frauds
    never_signed_twice(net)


def test_a_seat_asked_again_at_a_place_sends_what_it_signed_there():
    net = SimNet(3, seed=11)
    peer = net.peers[0]
    state = peer.protocol.wants_turn()
    first = peer.seat.sign(state, "leg", {"value": 1})
    second = peer.seat.sign(state, "leg", {"value": 2})
    fresh = PeerProtocol(table=peer.protocol.table, genesis=net.local.genesis, seat=peer.seat,
                         own={(1, state.link): first.raw})
    actions = fresh.submit(second, 0.0) + fresh.check_own(0.0)
    sent = [a.frame["record"] for a in actions if type(a).__name__ == "Send"]
    assert fresh.records[0].raw == first.raw and sent == [] or all(s == first.raw for s in sent)


# --- bounds --------------------------------------------------------------------------------


def test_our_record_leaves_before_our_own_engine_checks_it_and_nothing_comes_between():
    """Issue 21: the others' checks and the next writer do not wait for ours. ``submit``
    remembers our record and sends it; ``check_own`` (or any other input, first) takes it into
    our chain as the engine would anyone's; until then we are asked for nothing."""
    net = SimNet(3, seed=11)
    peer = net.peers[0]
    protocol = peer.protocol
    state = protocol.wants_turn()
    assert state is not None
    signed = peer.seat.build(state, peer.agent)
    sent = protocol.submit(signed, 0.0)
    kinds = [type(a).__name__ for a in sent]
    assert kinds[0] == "Remember" and kinds.count("Send") == 2 and "Store" not in kinds
    assert protocol.head == 0 and protocol.wants_turn() is None
    checked = protocol.check_own(0.0)
    assert isinstance(checked[0], Store) and protocol.head == 1
    # a frame that comes before the shell asked: our record is checked first all the same
    other = net.peers[1]
    other_state = other.protocol.states[0]
    fresh = PeerProtocol(table=protocol.table, genesis=net.local.genesis, seat=peer.seat)
    fresh.link_up(1, 1, 0.0)
    fresh.submit(peer.seat.build(fresh.state, peer.agent), 0.0)
    assert fresh.head == 0
    fresh.receive(1, {"t": "head", "seq": 0, "link": other_state.link}, 0.1)
    assert fresh.head == 1


def test_a_flood_of_future_records_stays_within_the_buffer_bounds():
    net = SimNet(3, seed=12)
    flooded = []
    highest: list[int] = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if not flooded and state.seq >= 2:
            flooded.append(True)
            for ahead in range(2, 502):
                record = Record(state.genesis.table, state.seq + ahead, bytes(32), peer.index,
                                "leg", {"value": 1, "pad": bytes(8000)})
                net.broadcast(
                    peer.index,
                    {"t": "record", "record": sign_record(record, peer.seat.identity).raw},
                )
        return False

    adversary_of(net, 2, cheat)

    def measure(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if receiver.honest:
            held = sum(len(s.raw) for s, _ in receiver.protocol.future.values())
            highest.append(held)
            assert held <= FUTURE_BYTES_TOTAL
            assert all(
                link.future_bytes <= FUTURE_BYTES_PER_LINK
                for link in receiver.protocol.links.values()
            )
        return False

    net.on_frame = measure
    finish(net)
    assert flooded and max(highest) > 0
    honest_seats_kept(net, agreed(net))


def test_sync_storms_and_fake_heads_cost_the_asker_its_budget():
    net = SimNet(3, seed=13)
    resent = [0]
    storms = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if state.seq >= 3 and len(storms) < 300:
            storms.append(net.now)
            net.broadcast(peer.index, {"t": "sync", "from_seq": 1})
            net.broadcast(peer.index, {"t": "head", "seq": 10**9, "link": bytes(32)})
            net.broadcast(peer.index, {"t": "ack", "seq": 10**9, "link": bytes(32)})
        return False

    adversary_of(net, 2, cheat)
    original = net.send

    def counting(
        sender: int, receiver: int, frame: dict[str, Any], *, lossless: bool = False
    ) -> None:
        if receiver == 2 and sender == 0 and frame["t"] == "sync_reply":
            resent[0] += sum(len(r) for r in frame["records"])
        original(sender, receiver, frame, lossless=lossless)

    net.send = counting  # type: ignore[method-assign]
    finish(net)
    assert len(storms) == 300
    assert resent[0] <= RESEND_BURST + RESEND_RATE * (storms[-1] - storms[0] + 1)
    honest_seats_kept(net, agreed(net))


def test_fraud_outranks_abandon_outranks_a_record_and_bytes_break_ties():
    net = SimNet(3, seed=14)
    state = net.peers[0].protocol.state
    leg = net.peers[0].seat.sign(state, "leg", {"value": 0})
    vote = net.peers[1].seat.absence_vote(state)
    abandon = net.peers[1].seat.sign_abandon(
        state, {1: vote, 2: net.peers[2].seat.absence_vote(state)}
    )
    fraud = net.peers[1].seat.sign(state, "fraud", {"evidence": [leg.raw]})
    rank = net.peers[2].protocol.rank
    assert rank(state, fraud) < rank(state, abandon) < rank(state, leg)

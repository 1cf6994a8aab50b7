"""Issue 18's attacks on the session protocol, each played on the simulated network.

The second hostile review found ways for one modified client, or one side, to make an honest
seat lose while every honest transcript audited VALID. Each test below plays one of them between
real ``PeerProtocol``s and real engines (``tests/p2p/simnet.py``) and asserts what the
guarantees of ``p2p.protocol`` promise instead: identical transcripts that audit, the right
result, and nothing gained by the attacker. (Attacks 2 and 3 are also played by real processes
in ``tests/net/test_session_attacks.py``.)
"""

from __future__ import annotations

import os
from typing import Any

from spycraft.crypto.records import Record, SignedRecord, sign_record
from spycraft.engines import absence, registry
from spycraft.engines.audit import audit_transcript
from spycraft.p2p.protocol import ProtocolConfig, Rewrite
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

TIMEOUT = 5.0
GRACE = 1.0


def rollbacks_of(net: SimNet) -> list[tuple[int, int]]:
    """Watch every honest peer's rewrites: (peer, records kept) for each rollback."""
    seen: list[tuple[int, int]] = []
    original = net.apply

    def watching(peer: Peer, actions: list[Any]) -> None:
        if peer.honest:
            seen.extend((peer.index, len(a.transcript.records)) for a in actions
                        if isinstance(a, Rewrite))
        original(peer, actions)

    net.apply = watching  # type: ignore[method-assign]
    return seen


def leg(peer: Peer, seq: int, prev: bytes, value: int) -> SignedRecord:
    """A leg of ``peer``'s signed for any place it likes (prev made up or not)."""
    table = peer.protocol.state.genesis.table
    return sign_record(Record(table, seq, prev, peer.index, "leg", {"value": value}),
                       peer.seat.identity)


# --- 2. one bogus evidence frame hides an equivocation ---------------------------------------


def test_a_bogus_evidence_frame_hides_no_equivocation_and_closes_only_its_senders_link():
    """Seat 1 sends ONE to all but seat 3 and TWO to seat 3, then on every link two records of
    its own for that seq on a made-up prev. That pair is for no place of the chain: it closes
    seat 1's links and changes nothing else, and the equivocation is proven."""
    net = SimNet(5, seed=21, timeout=TIMEOUT, grace=GRACE)
    done: list[int] = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        turn = peer.protocol.table.expect(state)
        if done or turn is None or turn.seat != peer.index or state.seq < 5:
            return False
        seq, made_up = state.seq + 1, os.urandom(32)
        one, two = peer.seat.sign(state, "leg", {"value": 1}), peer.seat.sign(state, "leg",
                                                                               {"value": 2})
        send_halves(net, peer, one, two, lambda other: other.index != 3)
        bogus = [leg(peer, seq, made_up, v).raw for v in (0, 3)]
        for other in net.peers:  # right behind the record on each link, as TCP keeps them
            if other is not peer:
                net.send(peer.index, other.index, {"t": "evidence", "records": bogus},
                         after=net.delay[1] + 0.001)
        done.append(seq)
        return True

    adversary_of(net, 1, cheat)
    finish(net)
    assert done
    report = honest_seats_kept(net, agreed(net))
    assert report.result.forfeits == (1,)
    assert any("equivocation" in f and "by seat 1" in f for f in report.frauds), report.frauds
    assert all(1 in p.closed for p in net.honest())  # the bogus pair: its sender is cut off
    never_signed_twice(net)


def test_evidence_for_a_place_held_by_another_record_changes_nothing():
    """A made-up pair of an honest seat's records cannot be built; a cheater's own pair for a
    place the chain holds with another record of its is a real equivocation, proven at the head
    (the place itself stays: a quorum has built on it)."""
    net = SimNet(4, seed=22, timeout=TIMEOUT, grace=GRACE, options={"laps": 6})
    rollbacks = rollbacks_of(net)
    sent: list[int] = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        if sent or state.seq < 10:
            return False
        held = next(r for r in peer.protocol.records[:-5] if r.seat == peer.index)
        other = leg(peer, held.seq, held.record.prev, (held.record.body["value"] + 1) % 4)
        net.broadcast(peer.index, {"t": "evidence", "records": [held.raw, other.raw]})
        sent.append(held.seq)
        return False

    adversary_of(net, 2, cheat)
    finish(net)
    assert sent
    report = honest_seats_kept(net, agreed(net))
    assert report.result.forfeits == (2,)
    frauds = [r for r in agreed(net).records if r.record.kind == "fraud"]
    assert len(frauds) == 1 and frauds[0].seq > sent[0] + 5  # proven at the head
    # nothing that a quorum built on was rolled back: at most the head, where the fraud went
    assert all(kept >= frauds[0].seq - 1 for _, kept in rollbacks), rollbacks


def test_a_flood_of_equivocation_pairs_for_one_place_keeps_one_ban_and_bans_every_half():
    """red25 (B2): a cheater signs 400 distinct pairs for the place after the head and sends
    them as evidence. Each is a real equivocation, so its link stays open; but every peer keeps
    one ban for that seat and place, whatever the count, and that ban refuses a third record of
    the seat for the place that no pair named. The equivocation is proven once. (Each pair
    holds one record the engine takes there, its leg of 1: a pair of which it takes neither
    half bans nothing, ``tests/p2p/test_evidence_flood.py``.)"""
    net = SimNet(3, seed=12)
    flooded: list[SignedRecord] = []

    def cheat(net: SimNet, peer: Peer, state: Any) -> bool:
        turn = peer.protocol.table.expect(state)
        if flooded or turn is None or turn.seat != peer.index or state.seq < 2:
            return False
        one = peer.seat.sign(state, "leg", {"value": 1})
        for i in range(400):
            pad = {"pad": i.to_bytes(4, "big") * 500}
            two = peer.seat.sign(state, "leg", {"value": 2, **pad})
            net.broadcast(peer.index, {"t": "evidence", "records": [one.raw, two.raw]})
        flooded.append(peer.seat.sign(state, "leg", {"value": 3}))
        net.broadcast(peer.index, {"t": "record", "record": flooded[0].raw})
        return True

    adversary_of(net, 2, cheat)
    finish(net)
    assert flooded
    report = honest_seats_kept(net, agreed(net))
    assert report.result.forfeits == (2,)
    assert flooded[0].raw not in {r.raw for r in agreed(net).records}
    for peer in net.honest():
        assert len(peer.protocol.banned) == 1, (peer.index, len(peer.protocol.banned))
        assert 2 not in peer.closed  # real evidence never closes a link
    never_signed_twice(net)


# --- 3. a record withheld from the next writer ----------------------------------------------


def test_a_record_withheld_from_the_next_writer_reaches_it_from_the_others_in_its_time():
    """Seat 1 sends its record to everyone but seat 2, the seat that writes next. The others
    pass it on, and seat 2's time counts from then at every peer: not even a person who takes
    nearly its whole turn (by its own clock) is voted absent."""
    for think in (0.0, TIMEOUT - 0.5):
        withheld: list[int] = []
        arrived: dict[int, float] = {}
        net = SimNet(5, seed=31, timeout=TIMEOUT, grace=GRACE)

        def cheat(
            net: SimNet, peer: Peer, state: Any, withheld: list[int] = withheld,
            think: float = think,
        ) -> bool:
            if withheld or peer.protocol.wants_turn() is None or state.seq < 4:
                return False
            signed = peer.seat.build(state, peer.agent)
            kept = peer.protocol.submit(signed, net.now)
            net.apply(peer, [a for a in kept if type(a).__name__ != "Send"])
            for other in net.peers:
                if other.index not in (peer.index, 2):
                    net.send(peer.index, other.index, {"t": "record", "record": signed.raw})
            withheld.append(signed.seq)
            net.peers[2].think_at[signed.seq + 1] = think
            return True

        def note(
            receiver: Peer, sender: int, frame: dict[str, Any], withheld: list[int] = withheld,
            arrived: dict[int, float] = arrived, net: SimNet = net,
        ) -> bool:
            if receiver.index == 2 and frame["t"] == "record" and withheld:
                arrived.setdefault(withheld[0], net.now)
            return False

        adversary_of(net, 1, cheat)
        net.on_frame = note
        finish(net)
        assert withheld
        transcript = agreed(net)
        report = honest_seats_kept(net, transcript)
        assert report.result.reason == "points", report.describe()
        assert all(r.record.kind != "abandon" for r in transcript.records)
        first = min(p.stored_at[withheld[0]] for p in net.honest() if p.index != 2)
        # passed on after relay_patience (at the tick after it), plus a frame's delay
        assert arrived[withheld[0]] <= first + net.config.relay_patience + 0.1 + 0.05


# --- 4. a vote kept in a pocket -------------------------------------------------------------


def test_a_vote_kept_in_a_pocket_rolls_no_finished_game_back():
    """Seat 1 is late once: seat 0 (whose clock runs first) votes, then the record comes and
    play goes on. Seat 3 keeps seat 0's vote and, once the result is written, plays it with its
    own for that place. A quorum has built on seat 1's record and the result follows it:
    nothing rolls back, and the attacker is not even heard twice."""
    net = SimNet(4, seed=41, timeout=TIMEOUT, grace=GRACE)
    rollbacks = rollbacks_of(net)
    pocket: dict[str, Any] = {}
    late = 6  # seat 1 writes record 6 late (relay order: seats 0, 1, 2, 3, 0, 1, ...)
    patience = net.config.relay_patience
    net.peers[1].think_at[late] = patience + TIMEOUT + GRACE + 0.3

    def delay_seat_2(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        # Seat 2 gets record 5 a second late, so its clock for seat 1 runs a second later.
        if (receiver.index == 2 and frame["t"] in ("record", "sync_reply") and net.now < 1.0
                and receiver.protocol.head == late - 2):
            net.send(sender, 2, frame, after=1.0 - net.now)
            return True
        if receiver.index == 3 and frame["t"] == "absent" and frame["seq"] == late:
            pocket.setdefault("vote", frame)
        return False

    def pocketed(net: SimNet, peer: Peer, state: Any) -> bool:
        vote = pocket.get("vote")
        if state.result is None or vote is None or "played" in pocket:
            return False
        before = peer.protocol.states[late - 1]
        votes = {vote["voter"]: vote["sig"], peer.index: absence.sign_vote(
            peer.seat.identity, before.genesis.table, late, before.link, 1, peer.index)}
        record = peer.seat.sign(before, "abandon", absence.abandon_body(1, votes))
        net.broadcast(peer.index, {"t": "record", "record": record.raw})
        pocket["played"] = record
        return False

    pocketer = adversary_of(net, 3, pocketed)
    pocketer.protocol.config = ProtocolConfig(turn_timeout=1e9)  # it never votes itself
    net.on_frame = delay_seat_2
    finish(net)
    net.settle()
    assert "played" in pocket and pocket["vote"]["voter"] == 0
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result.reason == "points" and not report.result.forfeits
    assert rollbacks == []


def test_at_two_seats_the_loser_voids_no_finished_game_with_its_own_vote():
    """With two seats one vote is the quorum, and it is only a claim: after the result the loser
    signs its vote for a place the winner wrote and plays the abandon. The winner built nothing
    on it and the loser built on the winner's record, so its vote had died: nothing moves."""
    for place in (3, 9, 21):
        net = SimNet(2, seed=42 + place, timeout=TIMEOUT, grace=GRACE,
                     options={"laps": 12})
        rollbacks = rollbacks_of(net)
        played: list[SignedRecord] = []

        def loser(
            net: SimNet, peer: Peer, state: Any, place: int = place,
            played: list[SignedRecord] = played,
        ) -> bool:
            if state.result is None or played:
                return False
            before = peer.protocol.states[place - 1]
            accused = peer.protocol.table.expect(before).seat
            if accused == peer.index:
                before = peer.protocol.states[place]
                accused = 1 - peer.index
            vote = absence.sign_vote(peer.seat.identity, before.genesis.table, before.seq + 1,
                                     before.link, accused, peer.index)
            record = peer.seat.sign(before, "abandon", absence.abandon_body(accused,
                                                                            {peer.index: vote}))
            net.broadcast(peer.index, {"t": "record", "record": record.raw})
            played.append(record)
            return False

        adversary_of(net, 1, loser)
        finish(net)
        net.settle()
        assert played
        transcript = agreed(net)
        report = audit_transcript(transcript, net.definition)
        assert report.error is None and report.result.reason == "points", report.describe()
        assert rollbacks == []


# --- 5. one team alone evicts an online opponent -------------------------------------------


def team_claim(net: SimNet, peer: Peer, state: Any, sent: list[int]) -> bool:
    """Seats 0 and 2 are one team: at the first turns of seat 1 after some play they sign both
    their votes at once, without waiting any timeout, and send the abandon to everyone."""
    turn = peer.protocol.table.expect(state)
    if (len(sent) >= 2 or turn is None or turn.seat != 1 or turn.kinds == ("result",)
            or state.seq < 6 or state.seq + 1 in sent or peer.index != 0):
        return False
    votes = {seat: net.peers[seat].seat.absence_vote(state) for seat in (0, 2)}
    record = net.peers[0].seat.sign_abandon(state, votes)
    net.broadcast(0, {"t": "record", "record": record.raw})
    sent.append(state.seq + 1)
    return False


def test_one_team_alone_cannot_evict_an_online_opponent_in_a_team_relay():
    net = SimNet(4, seed=51, timeout=TIMEOUT, grace=GRACE, options={"laps": 4, "teams": True})
    sent: list[int] = []
    adversary_of(net, 0, lambda net, peer, state: team_claim(net, peer, state, sent))
    adversary_of(net, 2, lambda net, peer, state: False)
    finish(net)
    assert len(sent) == 2
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result.reason == "points" and not report.result.forfeits, report.describe()
    assert all(r.record.kind != "abandon" for r in transcript.records)


def test_one_team_alone_cannot_evict_an_online_opponent_in_spynet_at_four():
    """SpyNet at four: the quorum of the others is 2, and seats 0 and 2 are one team. Their
    abandon of seat 1 is only a claim: seat 1's teammate (seat 3) keeps seat 1's record, which
    the claim never displaces, and nobody who has not waited out seat 1's time accepts it."""
    spynet = registry.load("spynet")
    net = SimNet(4, seed=52, definition=spynet, options=spynet.genesis_options(4),
                 timeout=30.0, grace=2.0)
    sent: list[int] = []
    adversary_of(net, 0, lambda net, peer, state: team_claim(net, peer, state, sent))
    adversary_of(net, 2, lambda net, peer, state: False)
    finish(net, limit=3000.0)
    assert len(sent) == 2
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert not report.result.forfeits, report.describe()
    assert all(r.record.kind != "abandon" for r in transcript.records)


def test_a_stall_that_only_its_opponents_vote_on_is_reported_as_their_claim():
    """Seats 1 and 3 (one team) both go silent in the team relay: only seats 0 and 2, their
    opponents, can vote, so each abandon is a claim: no winner, "claimed by seats 0, 2"."""
    net = SimNet(4, seed=53, timeout=TIMEOUT, grace=GRACE, options={"laps": 3, "teams": True})
    for seat in (1, 3):
        net.peers[seat].writes = False
        net.peers[seat].honest = False
    net.on_frame = lambda receiver, sender, frame: sender in (1, 3)  # nothing of theirs arrives
    finish(net)
    report = audit_transcript(agreed(net), net.definition)
    assert report.error is None
    assert report.result.winner is None and report.result.forfeits == (1, 3)
    assert "result: abandoned, claimed by seats 0, 2: no winner" in report.describe(), \
        report.describe()


# --- two abandons for one place (tests/net: the at-the-vote staller's rollbacks) ----------


def test_a_staller_gets_one_abandon_when_votes_arrive_after_their_voters_reach_the_quorum():
    """Seat 2 stalls at five seats; the votes of seat 3, the closest voter after it, take 0.6 s
    to arrive (less than a grace). A voter used to count only the closer voters whose votes it
    held, so seat 4 reached the quorum with the votes of 4, 0 and 1 and wrote at once beside
    seat 3, and the losing abandon (and the record the next seat built on it) was rolled back.
    Each closer voter that can write now has its grace: one abandon, no rollback."""
    for seed in range(61, 66):
        net = SimNet(5, seed=seed, timeout=TIMEOUT, grace=GRACE, options={"laps": 3})
        rollbacks = rollbacks_of(net)
        net.peers[2].think_at[3] = 1e9
        net.peers[2].honest = False

        delayed: set[tuple[int, int, bytes]] = set()

        def slow_votes(receiver: Peer, sender: int, frame: dict[str, Any], net: SimNet = net,
                       delayed: set[tuple[int, int, bytes]] = delayed) -> bool:
            key = (sender, receiver.index, frame.get("sig", b""))
            if frame["t"] == "absent" and sender == 3 and key not in delayed:
                delayed.add(key)
                net.send(sender, receiver.index, frame, after=0.6)
                return True
            return False

        net.on_frame = slow_votes
        finish(net)
        transcript = agreed(net)
        abandons = [r for r in transcript.records if r.record.kind == "abandon"]
        assert len(abandons) == 1 and abandons[0].record.body["seat"] == 2
        assert rollbacks == [], (seed, rollbacks)

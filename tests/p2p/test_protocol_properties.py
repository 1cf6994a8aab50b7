"""The peer protocol's invariants (``p2p/protocol.py``) over random interleavings.

Hypothesis chooses the player count, the delays (every frame its own, so frames overtake each
other), duplicated frames, lost frames, and at most one adversarial seat with one of the
attacks below; the honest peers must still end with one transcript that audits, in which no
honest seat forfeits, having never signed two records for one place, within their buffer bounds.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.records import Record, sign_record
from spycraft.engines import absence
from spycraft.engines.audit import audit_transcript
from spycraft.p2p.protocol import FUTURE_BYTES_PER_LINK, FUTURE_BYTES_TOTAL
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


def stall(net: SimNet, peer: Peer, state: Any) -> bool:
    return peer.protocol.wants_turn() is not None and state.seq >= 2  # writes nothing more


def equivocate(net: SimNet, peer: Peer, state: Any) -> bool:
    if peer.protocol.wants_turn() is None or net.rng.random() < 0.5:
        return False
    one = peer.seat.sign(state, "leg", {"value": 1})
    two = peer.seat.sign(state, "leg", {"value": 2})
    send_halves(net, peer, one, two, lambda other: net.rng.random() < 0.5)
    return True


def false_abandon(net: SimNet, peer: Peer, state: Any) -> bool:
    turn = peer.protocol.table.expect(state)
    if (
        turn is not None
        and turn.seat != peer.index
        and turn.kinds != ("result",)
        and net.rng.random() < 0.3
    ):
        vote = peer.seat.absence_vote(state)
        record = peer.seat.sign_abandon(state, {peer.index: vote})
        net.broadcast(peer.index, {"t": "record", "record": record.raw})
    return False


def frame_by_evidence(net: SimNet, peer: Peer, state: Any) -> bool:
    others = [r for r in peer.protocol.records if r.seat != peer.index]
    if others and net.rng.random() < 0.3:
        victim = net.rng.choice(others)
        mine = sign_record(Record(victim.record.table, victim.seq, victim.record.prev, peer.index,
                                  "leg", {"value": 0}), peer.seat.identity)
        net.broadcast(peer.index, {"t": "evidence", "records": [victim.raw, mine.raw]})
    return False


def flood(net: SimNet, peer: Peer, state: Any) -> bool:
    if net.rng.random() < 0.3:
        for ahead in range(2, 40):
            record = Record(state.genesis.table, state.seq + ahead, bytes(32), peer.index, "leg",
                            {"value": 1, "pad": bytes(4000)})
            net.broadcast(
                peer.index, {"t": "record", "record": sign_record(record, peer.seat.identity).raw}
            )
        net.broadcast(peer.index, {"t": "sync", "from_seq": 1})
        net.broadcast(peer.index, {"t": "head", "seq": 10**6, "link": bytes(32)})
        net.broadcast(peer.index, {"t": "ack", "seq": 10**6, "link": bytes(32)})
    return False


def replay(net: SimNet, peer: Peer, state: Any) -> bool:
    records = peer.protocol.records
    if records and net.rng.random() < 0.3:
        old = net.rng.choice(records)
        net.broadcast(peer.index, {"t": "record", "record": old.raw})
        if peer.protocol.votes:
            voter, sig = next(iter(peer.protocol.votes.items()))
            turn = peer.protocol.table.expect(state)
            if turn is not None:
                net.broadcast(peer.index, {"t": "absent", "seq": state.seq + 1, "prev": state.link,
                                           "seat": turn.seat, "voter": voter, "sig": sig})
    return False


ATTACKS = {
    "stall": stall,
    "equivocate": equivocate,
    "false_abandon": false_abandon,
    "frame_by_evidence": frame_by_evidence,
    "flood": flood,
    "replay": replay,
}


def bounded(net: SimNet) -> None:
    for peer in net.honest():
        held = sum(len(s.raw) for s, _ in peer.protocol.future.values())
        assert held <= FUTURE_BYTES_TOTAL
        assert all(
            link.future_bytes <= FUTURE_BYTES_PER_LINK for link in peer.protocol.links.values()
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 5),
    seed=st.integers(1, 10**6),
    rng=st.randoms(use_true_random=False),
    slowest=st.floats(0.002, 0.3),
    duplicate=st.floats(0.0, 0.3),
    attack=st.sampled_from([None, *ATTACKS]),
)
def test_honest_peers_agree_and_no_honest_seat_forfeits(
    players: int, seed: int, rng: random.Random, slowest: float, duplicate: float,
    attack: str | None,
) -> None:
    if players == 2 and attack in ("false_abandon", "stall"):
        attack = "replay"  # with two seats one claim is the quorum: see the next test
    net = SimNet(players, seed=seed, rng=rng, timeout=TIMEOUT, grace=GRACE,
                 delay=(0.001, slowest), duplicate=duplicate)
    cheater = None
    if attack is not None:
        cheater = rng.randrange(players)
        adversary_of(net, cheater, ATTACKS[attack])
    checks = [0]

    def watch(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        checks[0] += 1
        if checks[0] % 50 == 0:
            bounded(net)
        return False

    net.on_frame = watch
    finish(net, limit=200.0 + 20 * players)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    never_signed_twice(net)
    if attack == "stall" and cheater is not None:
        assert report.result.forfeits == (cheater,)
    if attack == "equivocate" and report.frauds:
        assert all(f"by seat {cheater}" in f for f in report.frauds), report.frauds


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(1, 10**6), rng=st.randoms(use_true_random=False), staller=st.integers(0, 1))
def test_with_two_seats_a_stall_or_a_claim_ends_as_a_claim(
    seed: int, rng: random.Random, staller: int
) -> None:
    net = SimNet(2, seed=seed, rng=rng, timeout=TIMEOUT, grace=GRACE)
    adversary_of(net, staller, stall)
    finish(net)
    report = audit_transcript(agreed(net), net.definition)
    assert report.error is None
    if report.result.forfeits:
        assert report.result.forfeits == (staller,) and report.result.winner is None
        assert f"claimed by seat {1 - staller}" in report.describe()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 5),
    seed=st.integers(1, 10**6),
    rng=st.randoms(use_true_random=False),
    drop=st.floats(0.0, 0.25),
)
def test_lost_frames_delay_the_game_but_never_fork_it(
    players: int, seed: int, rng: random.Random, drop: float
) -> None:
    """TCP loses nothing within a connection, but links break: here any frame may be lost. An
    honest seat whose frames are all lost may then be voted absent (it was not delivered in
    time); what must hold is that the honest peers end with one valid transcript."""
    net = SimNet(players, seed=seed, rng=rng, timeout=TIMEOUT, grace=GRACE, drop=drop)
    finish(net, limit=400.0)
    transcript = agreed(net)
    report = audit_transcript(transcript, net.definition)
    assert report.error is None and report.result is not None, report.describe()
    assert not report.frauds
    never_signed_twice(net)


def test_the_abandon_quorum_is_a_majority_of_the_other_seats() -> None:
    assert [absence.quorum(n) for n in range(2, 11)] == [1, 2, 2, 3, 3, 4, 4, 5, 5]

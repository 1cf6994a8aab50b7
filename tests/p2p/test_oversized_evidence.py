"""Red team (issue 18): an equivocation pair that just fits one frame made the fraud record an
honest peer must write from it too big for a record or for a frame.

The ``evidence`` frame's two records were bounded only by the frame (1 MiB), so a seat could
sign two records for its own place, each padded to ~512 KiB, and send the pair. Every honest
peer then signed a ``fraud`` record carrying both, some 150 bytes more than the pair:

* pair within ~135 bytes of the frame limit: the fraud record's payload exceeded
  ``MAX_RECORD_BYTES`` and ``sign_record`` raised out of ``PeerProtocol.receive`` itself, which
  the shell does not catch: one frame of a seat stopped an honest peer's session;
* pair ~140 to ~195 bytes under the limit: each honest peer stored its own fraud record, whose
  frame the wire refuses: they forked, and the cheater's votes got each honest seat declared
  absent in the other's valid transcript.

Now no record larger than ``MAX_EVIDENCE_BYTES`` takes a place or stands as evidence (the pair
closes its link), so a fraud record always fits a record and a frame.
"""

from __future__ import annotations

from typing import Any

import trio

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.records import MAX_EVIDENCE_BYTES, Record, SignedRecord, sign_record
from spycraft.crypto.transcript import Transcript
from spycraft.engines import absence
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import new_local_table
from spycraft.engines.seat import TableSeat
from spycraft.engines.table import TableState
from spycraft.p2p.wire import MAX_FRAME_SIZE, FrameError, encode_frame
from tests.p2p.relay import GAME
from tests.p2p.simnet import Peer, SimNet, agreed, finish, honest_seats_kept

CHEAT = 2


def padded_pair(seat: TableSeat, state: TableState[Any], short: int) -> list[SignedRecord]:
    """Two different legs of ``seat`` for the place after ``state``, padded so that their
    ``evidence`` frame is ``short`` bytes (give or take a few) under the frame limit."""
    def pair(size: int) -> list[SignedRecord]:
        return [sign_record(Record(state.genesis.table, state.seq + 1, state.link, seat.index,
                                   "leg", {"value": 1, "pad": bytes([i]) * size}), seat.identity)
                for i in range(2)]

    probe = pair(0)
    overhead = len(encode_frame({"t": "evidence", "records": [r.raw for r in probe]}))
    records = pair((MAX_FRAME_SIZE - overhead - short) // 2)
    assert len(encode_frame({"t": "evidence", "records": [r.raw for r in records]})) <= \
        MAX_FRAME_SIZE  # it is a frame the wire carries
    return records


class ShellNet(SimNet):
    """The simulated table, where a frame the wire cannot carry is refused and dropped, as the
    session's ``_execute`` does ("refused to send a record frame"), instead of raising."""

    refused: int = 0

    def send(self, sender: int, receiver: int, frame: dict[str, Any], **kwargs: Any) -> None:
        try:
            encode_frame(frame)
        except FrameError:
            self.refused += 1
            return
        super().send(sender, receiver, frame, **kwargs)


def cheat_with_padded_pair(net: SimNet, short: int) -> None:
    """Seat 2, at its first turn, sends every peer the padded pair for its place and then
    stalls (it has equivocated: it forfeits, and the others play on without it)."""
    sent = []

    def act(net: SimNet, peer: Peer) -> None:
        state = peer.protocol.wants_turn()
        if state is not None and not sent:
            sent.append(True)
            pair = padded_pair(peer.seat, state, short)
            net.broadcast(peer.index, {"t": "evidence", "records": [r.raw for r in pair]})

    net.peers[CHEAT].honest = False
    net.adversary = act


def test_a_pair_at_the_frame_limit_never_makes_receive_raise() -> None:
    """Pair 40 bytes under the frame limit: the honest peers' ``receive`` of the evidence used
    to raise (``payload: item of ... bytes exceeds the limit``). Now the pair is refused as
    larger than a record may be; the peers finish, agree, and seat 2 forfeits alone."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_pair(net, short=40)
    finish(net, 120)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result is not None and report.result.forfeits == (CHEAT,)


def test_the_shell_survives_a_pair_at_the_frame_limit(tmp_path: Any) -> None:
    """The same frame given to a real ``Session``'s frame handler (what ``_reader`` calls for
    every frame read from a link): the exception used to leave it, and ``_reader``/``_run_link``
    do not catch it, so it ended the session's nursery. Now the frame is handled (the pair is
    refused) and the session goes on."""
    from tests.p2p.test_session_shell import seat_zero

    local = new_local_table(GAME, {}, 3, SeededEntropy(b"shell"))  # seat_zero's very table

    class FakeLink:  # only what ``Session._on_frame`` reads of a link
        id = CHEAT

    async def main() -> None:
        session = await seat_zero(tmp_path, None)
        session.protocol.link_up(CHEAT, CHEAT, trio.current_time())
        state = session.protocol.state
        pair = padded_pair(local.seats[CHEAT], state, short=40)
        session._on_frame(FakeLink(), {"t": "evidence", "records": [r.raw for r in pair]})  # type: ignore[arg-type]
        await session.listener.aclose()

    trio.run(main)


def test_a_pair_near_the_frame_limit_never_forks_the_honest_peers() -> None:
    """Pair 160 bytes under the limit: seat 0 and seat 1 each used to sign, store and keep a
    fraud record of 1 048 611 bytes at record 3, which neither could send (``refused`` counts
    the frames the wire refused), and never finish. Now they agree and no frame is refused."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_pair(net, short=160)
    finish(net, 120)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result is not None and report.result.forfeits == (CHEAT,)
    assert net.refused == 0


def test_the_cheater_cannot_turn_the_fork_into_blame_of_an_honest_seat() -> None:
    """The fork that was, and seat 2 (forfeited, but a vote is a vote) signs an absence vote at
    each place an honest peer's last call (its head frame) names, against the seat the engine
    expects there. Each honest peer, its records refused by the other (ChainBroken: they build
    on a fraud record the other never got), waits out its timeout, votes too, and writes an
    abandon with seat 2's vote: seat 0 ends with "winner: seat0; forfeit by seat 1, 2 ... seat 1
    abandoned", seat 1 with "winner: seat1; forfeit by seat 0, 2 ... seat 0 abandoned". Both
    transcripts audited valid, both blaming an honest seat that was reachable all along. Now
    there is no fork to use: no transcript blames an honest seat, and the honest peers agree."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_pair(net, short=160)
    table = net.local.genesis.genesis.table
    voted: set[tuple[int, bytes]] = set()

    def vote_at_last_calls(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if receiver.index == CHEAT and frame["t"] == "head" and receiver.protocol.head:
            seq, prev = frame["seq"] + 1, frame["link"]
            honest = net.peers[sender].protocol
            # who writes there is public: the chain it names, with the fraud against seat 2
            turn = honest.table.expect(honest.state) if honest.state.link == prev else None
            if turn is not None and turn.seat != CHEAT and (seq, prev) not in voted:
                voted.add((seq, prev))
                sig = absence.sign_vote(receiver.seat.identity, table, seq, prev, turn.seat, CHEAT)
                net.send(CHEAT, sender, {"t": "absent", "seq": seq, "prev": prev,
                                         "seat": turn.seat, "voter": CHEAT, "sig": sig},
                         lossless=True)
        return False

    net.on_frame = vote_at_last_calls
    net.run(120)
    for peer in net.honest():
        if peer.protocol.finished:
            report = audit_transcript(peer.protocol.transcript, net.definition)
            assert report.result is not None
            blamed = set(report.result.forfeits) - {CHEAT}
            assert not blamed, f"seat {peer.index}'s transcript: {report.result.describe()}"
    finish(net, 120)
    agreed(net)


def test_a_pair_of_the_largest_records_is_proven_by_a_fraud_record_every_peer_can_send() -> None:
    """Each half just within ``MAX_EVIDENCE_BYTES``: the pair is evidence, and the fraud record
    that carries it fits a record and a frame, so the honest peers prove it to each other."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_pair(net, short=MAX_FRAME_SIZE - 2 * MAX_EVIDENCE_BYTES + 64)
    finish(net, 120)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result is not None and report.result.forfeits == (CHEAT,)
    assert net.refused == 0
    frauds = [r for r in transcript.records if r.record.kind == "fraud"]
    assert len(frauds) == 1 and len(frauds[0].raw) > 2 * (MAX_EVIDENCE_BYTES - 256)


# --- the same with one record: a lie at its own turn, padded to the frame limit ------------------


def cheat_with_padded_lie(net: SimNet, short: int) -> None:
    """Seat 2, at its first turn, sends every peer one leg the engine rejects (value 9, and a
    pad), ``short`` bytes under the frame limit: a lie at its own place, which honest peers used
    to prove with a fraud record carrying it (``_on_invalid``), too big for a record or a frame."""
    sent = []

    def act(net: SimNet, peer: Peer) -> None:
        state = peer.protocol.wants_turn()
        if state is None or sent:
            return
        sent.append(True)

        def lie(size: int) -> SignedRecord:
            return sign_record(Record(state.genesis.table, state.seq + 1, state.link, peer.index,
                                      "leg", {"value": 9, "pad": b"x" * size}), peer.seat.identity)

        overhead = len(encode_frame({"t": "record", "record": lie(0).raw}))
        raw = lie(MAX_FRAME_SIZE - overhead - short).raw
        assert len(encode_frame({"t": "record", "record": raw})) <= MAX_FRAME_SIZE
        net.broadcast(peer.index, {"t": "record", "record": raw})

    net.peers[CHEAT].honest = False
    net.adversary = act


def test_a_lie_at_the_frame_limit_never_makes_receive_raise() -> None:
    """A lone cheater, no pair needed: its record 40 bytes under the frame limit made
    ``receive`` raise at each honest peer that got it. Now it is refused as larger than a record
    may be, proves nothing, and the seat is voted absent."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_lie(net, short=40)
    finish(net, 120)
    report = honest_seats_kept(net, agreed(net))
    assert report.result is not None and report.result.forfeits == (CHEAT,)


def test_a_lie_near_the_frame_limit_never_forks_the_honest_peers() -> None:
    """Its record 160 bytes under the limit: seats 0 and 1 each kept their own fraud record of
    1 048 581 bytes at record 3 that the wire refused to carry, and never finished."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_lie(net, short=160)
    finish(net, 120)
    report = honest_seats_kept(net, agreed(net))
    assert report.result is not None and report.result.forfeits == (CHEAT,)
    assert net.refused == 0


def test_what_an_honest_peer_stores_for_a_padded_lie_audits() -> None:
    """The fork that was left each honest peer a transcript file (the ``Store`` actions, as
    ``GameStore`` writes them) whose record 3 was its own fraud record of 1 048 581 bytes, which
    ``audit`` read back as "not a record: item of 1048581 bytes exceeds the limit of 1048576"
    (seen on real processes too: both honest bots' files of a three-seat SpyNet table), so
    neither ``audit`` nor ``resume`` could read what the honest peer kept. Now it reads."""
    net = ShellNet(3, seed=3)
    cheat_with_padded_lie(net, short=160)
    net.run(30)
    for peer in net.honest():
        data = net.local.genesis.raw + b"".join(peer.stored)
        try:
            transcript = Transcript.from_bytes(data)
        except MalformedRecord as exc:
            raise AssertionError(f"seat {peer.index}'s file does not read back: {exc}") from None
        report = audit_transcript(transcript, net.definition)
        assert report.error is None, f"seat {peer.index}'s file: {report.describe()}"

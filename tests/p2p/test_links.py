"""Links between real sessions over loopback TCP: a live authenticated link is never replaced
without its failure being seen, either seat dials a lost link back, and two seats that dial
each other at once keep one link (issue 18, attack 1 and "What to build" item 1)."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

import pytest
import trio
import trio.testing

from spycraft.crypto.identity import Identity
from spycraft.engines.seat import table_key_public
from spycraft.p2p import admission, handshake, wire
from spycraft.p2p import session as session_module
from spycraft.p2p.session import Link, Outboxes, Session
from spycraft.p2p.wire import FramedStream, FrameError, Hello, encode_frame, make_hello
from tests.p2p.mesh import hello_of, knock, linked, mesh, until


def same_transcripts(sessions: list[Session]) -> None:
    first = sessions[0].transcript.to_bytes()
    assert all(s.finished for s in sessions)
    assert all(s.transcript.to_bytes() == first for s in sessions)
    result = sessions[0].state.result
    assert result is not None and result.forfeits == (), result


def test_a_second_connection_of_a_linked_seat_is_held_and_refused_while_its_link_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Seat 1's key opens a new connection to seat 0 while seat 1's link is alive: seat 0 holds
    it, probes the live link, which answers, and refuses the newcomer; the link stays."""
    answers: list[str] = []

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2, laps=20)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            nursery.start_soon(one.run)
            await linked(zero, one)
            before = zero._by_identity[one.identity.public]
            framed, _ = await knock(one, zero)
            with trio.fail_after(session_module.PROBE_TIMEOUT + 5):
                while True:
                    said = await framed.receive()
                    if said["t"] == "bye":
                        answers.append(said["reason"])
                        break
            assert zero._by_identity[one.identity.public] is before
            assert not before.closed
        same_transcripts([zero, one])

    with caplog.at_level(logging.INFO, logger="spycraft.p2p"):
        trio.run(main)
    assert answers == ["already linked"]
    assert "did not answer a probe" not in caplog.text


def test_a_link_that_answers_no_probe_gives_way_to_its_seats_new_connection(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A half-open link (its peer froze: it reads nothing, answers nothing) holds seat 1's
    place at seat 0; when the real seat 1 connects, the old link fails its probe and the new
    connection replaces it, and the game plays to the end."""

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2, laps=4)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            frozen, _ = await knock(one, zero)  # authenticated as seat 1, then never a word
            await linked(zero, one)
            stale = zero._by_identity[one.identity.public]
            nursery.start_soon(one.run)
            await until(lambda: stale.closed, session_module.PROBE_TIMEOUT + 5)
        await frozen.aclose()
        same_transcripts([zero, one])

    with caplog.at_level(logging.INFO, logger="spycraft.p2p"):
        trio.run(main)
    assert "did not answer a probe: its new connection replaces the old link" in caplog.text


def test_two_seats_that_dial_each_other_at_once_keep_the_same_one_link(tmp_path: Path) -> None:
    """Both ends lose their link and dial at the same moment, five times over: each time both
    end with one link, the same TCP connection at both ends, and play goes on over it. Where
    both connections were up at once, it is the one the lower seat dialed (a dial that met the
    other being settled is refused and tried again, and may find the link made)."""
    rounds: list[tuple[bool, bool]] = []

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2, laps=1000)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            nursery.start_soon(one.run)
            for _ in range(5):
                await linked(zero, one)
                await linked(one, zero)
                for me, other in ((zero, one), (one, zero)):
                    me._by_identity[other.identity.public].close("a test cuts it")
                for me, other in ((zero, one), (one, zero)):
                    me._nursery.start_soon(me._dial, other.seat, 0.0)  # type: ignore[union-attr]
                await trio.sleep(0.5)
                await until(lambda: not zero.admission.settling and not one.admission.settling
                            and len(zero.links) == len(one.links) == 1, 15)
                await linked(zero, one)
                await linked(one, zero)
                a = zero._by_identity[one.identity.public]
                b = one._by_identity[zero.identity.public]
                ends_a = a.stream.stream.socket.getsockname(), a.stream.stream.socket.getpeername()
                ends_b = b.stream.stream.socket.getpeername(), b.stream.stream.socket.getsockname()
                assert ends_a == ends_b, (ends_a, ends_b)
                assert [link.seat for link in zero.links.values()] == [1]
                assert [link.seat for link in one.links.values()] == [0]
                rounds.append((a.dialed, b.dialed))
                head = zero.state.seq
                await until(lambda: min(zero.state.seq, one.state.seq) > head + 2)  # noqa: B023
            nursery.cancel_scope.cancel()  # a thousand laps: the race needs no end
        shorter = min(len(zero.records), len(one.records))
        assert zero.records[:shorter] == one.records[:shorter]

    trio.run(main)
    assert len(rounds) == 5
    assert all(dialed_by_zero != dialed_at_one for dialed_by_zero, dialed_at_one in rounds)
    assert any(dialed_by_zero for dialed_by_zero, _ in rounds)


def test_the_lower_seat_dials_a_lost_link_back_too(tmp_path: Path) -> None:
    """Seat 1 loses its link to seat 0 and (here) never dials back: seat 0 does, and play goes
    on over the new link."""

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2, laps=1000)
        one._redial = lambda link, after=0.0: None  # type: ignore[method-assign]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            nursery.start_soon(one.run)
            await linked(zero, one)
            first = zero._by_identity[one.identity.public]
            one._by_identity[zero.identity.public].close("a test cuts it")
            await until(lambda: first.closed)
            await linked(zero, one, timeout=15)
            assert zero._by_identity[one.identity.public].dialed
            head = zero.state.seq
            await until(lambda: min(zero.state.seq, one.state.seq) > head + 2)
            nursery.cancel_scope.cancel()

    trio.run(main)


# --- bounded queues and send deadlines (attack 7) -------------------------------------------


def _link(outboxes: Outboxes, seat: int | None = 1) -> Link:
    a, _ = trio.testing.memory_stream_pair()
    return Link(len(outboxes.links) + 1, FramedStream(a), _hello(), seat, outboxes=outboxes)


def _hello() -> Hello:
    identity = Identity(b"\x05" * 32)
    key = table_key_public(b"\x06" * 32)
    return wire.hello_of(make_hello(identity, key, b"\x07" * 16, "peer", nonce=b"\x08" * 32))


def _record_frame(size: int) -> bytes:
    return encode_frame({"t": "record", "record": b"\x00" * size})


def test_a_link_that_does_not_keep_up_is_cut_off_and_what_waited_is_dropped() -> None:
    async def main() -> None:
        outboxes = Outboxes()
        link = _link(outboxes)
        frame = _record_frame(512 * 1024)
        posted = 0
        while not link.closed:
            link.post(frame)
            posted += 1
        assert posted == session_module.OUTBOX_BYTES // len(frame) + 1
        assert "does not keep up" in link.reason
        assert link.queued == 0 and outboxes.queued == 0 and not link.queue

    trio.run(main)


def test_over_the_total_the_link_that_holds_the_most_is_cut_not_the_one_that_reads() -> None:
    async def main() -> None:
        outboxes = Outboxes(total=3 << 20)
        slow, quick = _link(outboxes), _link(outboxes)
        for _ in range(5):
            slow.post(_record_frame(512 * 1024))  # 2.5 MiB waiting: under its own bound
        quick.post(_record_frame(100 * 1024))
        quick.post(_record_frame(512 * 1024))  # over the total: the slow link goes
        assert slow.closed and "holds the most" in slow.reason
        assert not quick.closed and outboxes.queued == quick.queued

    trio.run(main)


def test_a_spectators_link_may_keep_less_waiting_than_a_seats() -> None:
    async def main() -> None:
        outboxes = Outboxes()
        spectator, seat = _link(outboxes, None), _link(outboxes, 1)
        for _ in range(6):
            for link in (spectator, seat):
                link.post(_record_frame(512 * 1024))
        assert spectator.closed and not seat.closed

    trio.run(main)


def test_a_peer_that_takes_no_frame_for_the_send_deadline_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer gives each frame ``SEND_DEADLINE`` seconds; a peer that reads nothing (here
    a stream that hands over nothing until read) loses its link, and its queue with it."""
    monkeypatch.setattr(session_module, "SEND_DEADLINE", 0.3)

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2)
        zero.config.dial_timeout = 0.1  # seat 1 is a test's stand-in: nobody to dial
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            await until(lambda: zero._nursery is not None)
            ours, _theirs = trio.testing.lockstep_stream_pair()
            one_hello = wire.hello_of(hello_of(one)(b"\x09" * 32, wire.NO_ECHO))
            link = zero._add_link(FramedStream(ours), one_hello)
            await until(lambda: link.closed, 5)
            assert "took more than" in link.reason
            assert zero.outboxes.queued == 0
            nursery.cancel_scope.cancel()

    trio.run(main)


# --- budgets and backoff that outlive a link ------------------------------------------------


def test_a_seats_resend_budget_is_its_own_across_links_and_spectators_share_one(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        zero, _ = await mesh(tmp_path, 2)
        protocol = zero.protocol
        protocol.link_up(100, 1, 0.0)
        assert protocol.links[100].spend(3 << 20, 0.0)
        protocol.link_down(100)
        protocol.link_up(101, 1, 0.0)  # connected again at once: no fresh budget
        assert not protocol.links[101].spend(2 << 20, 0.0)
        protocol.link_up(102, None, 0.0)
        protocol.link_up(103, None, 0.0)
        assert protocol.links[102].resends is protocol.links[103].resends

    trio.run(main)


def test_a_seat_that_sends_garbage_is_let_back_in_only_after_a_backoff_that_doubles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its bucket of offences spent (one, here), a seat that sent garbage waits 3 s before it
    is let back in, then 6 s, and so on."""
    monkeypatch.setattr(admission, "OFFENCE_BURST", 1.0)
    refusals: list[str] = []

    async def garbage(framed: FramedStream) -> str:
        await framed.stream.send_all((8).to_bytes(4, "big") + b"\xff" * 8)  # no CBOR at all
        with trio.fail_after(5):
            while True:
                frame = await framed.receive()
                if frame["t"] == "bye":
                    return str(frame["reason"])

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2)
        zero.config.dial_timeout = 0.1
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            framed, _ = await knock(one, zero)
            refusals.append(await garbage(framed))  # paid from its bucket: back at once
            for round_ in range(2):
                if round_:
                    await trio.sleep(admission.REDIAL_AFTER_BYE + 0.2)
                framed, _ = await knock(one, zero)
                refusals.append(await garbage(framed))
                with pytest.raises(handshake.Refused) as refused:
                    await knock(one, zero)
                refusals.append(str(refused.value))
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert all(refusals[i].startswith("bad frame") for i in (0, 1, 3))
    assert refusals[2] == "cut off for what it sent: try again in 3 s"
    assert refusals[4] == "cut off for what it sent: try again in 6 s"


# --- the door before the handshake (attack 6) -----------------------------------------------


def test_an_address_whose_handshakes_keep_failing_is_backed_off_until_its_bucket_refills() -> None:
    door = handshake.Door(burst=3, rate=1.0)
    for _ in range(3):
        assert door.open("10.0.0.9", 0.0)
        door.refused("10.0.0.9", 0.0)
    assert not door.open("10.0.0.9", 0.0)
    assert door.open("10.0.0.8", 0.0)  # another address is not held to its neighbour's deeds
    assert door.open("10.0.0.9", 1.0)


def test_handshakes_in_progress_are_bounded_and_the_oldest_gives_way() -> None:
    async def main() -> None:
        door = handshake.Door(total=3, per_address=2)
        with door.knocking("a") as first, door.knocking("a") as second, \
                door.knocking("a") as third:
            assert first.cancel_called and not second.cancel_called  # two per address
            assert not third.cancel_called
            with door.knocking("b"), door.knocking("c"):
                assert second.cancel_called  # three in all: the oldest waiting gave way
        assert door.pending == []

    trio.run(main)


def test_strangers_that_hold_connections_open_without_a_word_keep_no_seat_out(
    tmp_path: Path,
) -> None:
    """Twice as many silent connections as the door lets wait: the oldest give way, and seat
    1's handshake goes through at once."""

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2)
        zero.config.dial_timeout = 0.1
        zero.door = handshake.Door(total=4, per_address=4)
        port = zero.listener.socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(8)]
            await trio.sleep(0.2)
            with trio.fail_after(3):
                framed, _ = await knock(one, zero)
            await linked(zero, one)
            await framed.aclose()
            for stream in silent:
                await stream.aclose()
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_held_connection_that_floods_loses_and_the_live_link_stays(tmp_path: Path) -> None:
    """Seat 1's key opens a second connection and floods it while it is held: it is refused
    for what it sent, and seat 1's live link carries the game on."""
    answers: list[str] = []

    async def main() -> None:
        zero, one = await mesh(tmp_path, 2, laps=20)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            nursery.start_soon(one.run)
            await linked(zero, one)
            live = zero._by_identity[one.identity.public]
            framed, _ = await knock(one, zero)
            head = encode_frame({"t": "head", "seq": 0, "link": bytes(32)})
            await framed.stream.send_all(head * (session_module.HOLD_FRAMES + 10))
            with trio.fail_after(session_module.PROBE_TIMEOUT + 5):
                while True:
                    said = await framed.receive()
                    if said["t"] == "bye":
                        answers.append(said["reason"])
                        break
            assert zero._by_identity[one.identity.public] is live and not live.closed
        same_transcripts([zero, one])

    trio.run(main)
    assert answers and "while on hold" in answers[0]


def test_a_stranger_refused_at_the_door_again_and_again_is_backed_off(tmp_path: Path) -> None:
    """Red team 7: a handshake that ``_admit`` refused was never counted against its address,
    so one signed hello, replayed where it is refused (a seat with no room for spectators, the
    seatless host), cost a signature check each, 23-26k in 15 s. It counts now: past the door's
    burst the stranger's connections are closed before a byte is read."""
    said: list[str] = []

    async def main() -> None:
        zero, _ = await mesh(tmp_path, 2)
        zero.admission.watchers = 0
        zero.door = handshake.Door(burst=3, rate=0.001)
        stranger = Identity(bytes(range(32)))
        table = zero.genesis.genesis.table
        port = zero.listener.socket.getsockname()[1]

        def hello(nonce: bytes, echo: bytes) -> Hello:
            return make_hello(stranger, table_key_public(bytes(32)), table, "stranger",
                              nonce=nonce, echo=echo, seat=None)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            for _ in range(6):
                framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
                try:
                    with trio.fail_after(3):
                        await handshake.dial(framed, stranger, hello, table)
                except handshake.Refused as exc:
                    said.append(str(exc))
                except (trio.EndOfChannel, trio.BrokenResourceError, FrameError):
                    said.append("closed unread")
                await framed.aclose()
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert said[:3] == ["no room for more spectators here (watch through another seat)"] * 3
    assert said[3:] == ["closed unread"] * 3, said


def test_one_address_cannot_take_every_spectator_slot_of_a_seat(tmp_path: Path) -> None:
    """Red team 7: silent strangers held every spectator slot for good (an identity costs
    nothing). From one address, a seat takes ``WATCHERS_PER_ADDRESS`` spectators; the next is
    refused at the door, and the slots left stay open to other addresses."""
    said: list[str | None] = []

    async def main() -> None:
        zero, _ = await mesh(tmp_path, 2)
        table = zero.genesis.genesis.table
        port = zero.listener.socket.getsockname()[1]
        held = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            for n in range(admission.WATCHERS_PER_ADDRESS + 1):
                stranger = Identity(bytes([n + 1]) * 32)

                def hello(nonce: bytes, echo: bytes, who: Identity = stranger) -> Hello:
                    return make_hello(who, table_key_public(bytes(32)), table, "watcher",
                                      nonce=nonce, echo=echo, seat=None)

                framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
                held.append(framed)
                try:
                    with trio.fail_after(3):
                        await handshake.dial(framed, stranger, hello, table)
                    said.append(None)
                    await until(lambda: zero.watching == len(said), 5)
                except handshake.Refused as exc:
                    said.append(str(exc))
            assert zero.watching == admission.WATCHERS_PER_ADDRESS < zero.config.watchers
            for framed in held:
                await framed.aclose()
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert said == [None] * admission.WATCHERS_PER_ADDRESS + [
        "no room for more spectators from your address here"]


def test_strangers_handshakes_in_flight_at_once_take_no_more_slots_than_one_at_a_time(
    tmp_path: Path,
) -> None:
    """Red team 8: the slots were counted at each first hello, over linked spectators only, so
    sixteen handshakes from one address in flight at once were all let in, past both bounds.
    Each newcomer let in now holds its slot from its hello on."""
    outcomes: list[str | None] = []

    async def main() -> None:
        zero, _ = await mesh(tmp_path, 2)
        table = zero.genesis.genesis.table
        port = zero.listener.socket.getsockname()[1]
        held: list[FramedStream] = []
        go = trio.Event()

        async def watcher(n: int) -> None:
            stranger = Identity(bytes([n + 1]) * 32)

            def hello(nonce: bytes, echo: bytes) -> Hello:
                return make_hello(stranger, table_key_public(bytes(32)), table, "watcher",
                                  nonce=nonce, echo=echo, seat=None)

            framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
            held.append(framed)
            await go.wait()
            try:
                with trio.fail_after(5):
                    await handshake.dial(framed, stranger, hello, table)
                outcomes.append(None)
            except handshake.Refused as exc:
                outcomes.append(str(exc))
            except (trio.EndOfChannel, trio.BrokenResourceError, FrameError):
                outcomes.append("closed unread")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            async with trio.open_nursery() as dials:
                for n in range(12):
                    dials.start_soon(watcher, n)
                await trio.sleep(0.2)
                go.set()
            await until(lambda: zero.watching == outcomes.count(None), 5)
            assert zero.watching == admission.WATCHERS_PER_ADDRESS
            assert zero.admission.reserved == {}  # every handshake over: no slot still held
            for framed in held:
                await framed.aclose()
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert outcomes.count(None) == admission.WATCHERS_PER_ADDRESS, outcomes
    assert len(outcomes) == 12


def test_a_held_connection_answers_no_more_pings_than_it_may_hold_frames() -> None:
    """Red team 7: a held connection's pings were answered without limit (13,646 a second, for
    the 3 s a probe of the old link may take, again at each reconnection). They count as any
    frame held: past ``HOLD_FRAMES`` the connection has lost."""
    pongs: list[bytes] = []

    async def main() -> None:
        ours, theirs = trio.testing.memory_stream_pair()
        held = session_module._Held()
        scope = trio.CancelScope()
        peer = FramedStream(theirs)

        async def flood() -> None:
            ping = encode_frame({"t": "ping", "nonce": bytes(8)})
            for _ in range(session_module.HOLD_FRAMES + 50):
                await peer.stream.send_all(ping)

        async def read() -> None:
            with contextlib.suppress(trio.EndOfChannel, trio.BrokenResourceError):
                while True:
                    pongs.append((await peer.receive())["nonce"])

        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(flood)
                nursery.start_soon(read)
                await session_module.Session._hold(FramedStream(ours), held, scope)
                nursery.cancel_scope.cancel()
        assert held.error is not None and "while on hold" in held.error, held

    trio.run(main)
    assert len(pongs) <= session_module.HOLD_FRAMES, len(pongs)


def test_a_spectator_that_sends_frames_in_a_storm_is_read_at_a_bounded_pace(
    tmp_path: Path,
) -> None:
    """Two hundred sync requests at once from a spectator: its reader takes a burst, then a few
    a second (TCP slows the sender down), so the storm costs a bounded share of the loop."""
    taken: list[int] = []

    async def main() -> None:
        zero, _ = await mesh(tmp_path, 2)
        zero.config.dial_timeout = 0.1
        port = zero.listener.socket.getsockname()[1]
        stranger = Identity(b"\x0c" * 32)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(zero.run)
            framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
            table = zero.genesis.genesis.table
            await handshake.dial(framed, stranger, lambda nonce, echo: make_hello(
                stranger, table_key_public(b"\x0d" * 32), table, "spectator", nonce=nonce,
                echo=echo), table)
            before = zero.frames_received
            sync = encode_frame({"t": "sync", "from_seq": 1})
            await framed.stream.send_all(sync * 200)
            await trio.sleep(1.0)
            taken.append(zero.frames_received - before)
            nursery.cancel_scope.cancel()

    trio.run(main)
    burst, rate = session_module.OBSERVER_READ_BURST, session_module.OBSERVER_READ_RATE
    assert burst <= taken[0] <= burst + 2 * rate, taken

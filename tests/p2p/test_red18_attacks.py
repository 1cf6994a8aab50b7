"""A red team's attacks on the session protocol after issue 18's fixes (red18), each a rule.

Each test plays what a modified client can do and asserts what ``p2p.protocol``'s guarantees
promise an honest seat. Those that still fail on main are marked ``xfail(strict=True)`` with
the reason, so the day they pass the mark must go.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from spycraft.crypto.chat import ChatMessage, check_chat_log, sign_chat
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import sign_record
from spycraft.engines import registry
from spycraft.p2p import handshake
from spycraft.p2p.chat import Heard
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import LobbyError, Me, join_table, open_table
from spycraft.p2p.protocol import PeerProtocol, Rewrite, StoreChat
from spycraft.p2p.seating import RosterSeat, sign_address
from spycraft.p2p.wire import FramedStream
from tests.p2p.simnet import Peer, SimNet, adversary_of, agreed, finish, honest_seats_kept

# --- the opener's roster decides who can reach whom ------------------------------------------


def test_a_joiner_refuses_a_roster_that_gives_another_seat_an_address_it_did_not_sign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A three-seat SpyNet table opened by a cheater, over real TCP and mDNS: its roster tells
    each joiner that the other one listens at 127.0.0.2, where nobody does (the genesis they
    sign names no address, and a joiner checked only its own entry). Played out (red18, on the
    main before this), the two honest seats never linked, every frame between them went
    through the opener, and by reading nothing from seat 2 it got seat 2 voted absent by seat
    1's honest vote and its own: "forfeit by seat 2; abandoned", seat 2 online all along. Each
    seat's address is now its own signed word: each joiner refuses that roster, naming the
    seat whose address the opener changed, and sits down nowhere."""
    definition = registry.load("spynet")
    cheater = Identity(SystemEntropy().take(32))
    rosters = 0
    honest_send = FramedStream.send

    async def misroute(self: FramedStream, frame: Any) -> None:
        nonlocal rosters
        if isinstance(frame, dict) and frame.get("t") == "roster":
            other = 2 - rosters  # the roster for seat 1 misroutes seat 2, and the reverse
            rosters += 1
            seats = list(frame["seats"])
            seats[other] = replace(RosterSeat.from_bytes(seats[other]), host="127.0.0.2").to_bytes()
            frame = {**frame, "seats": seats}
        await honest_send(self, frame)

    monkeypatch.setattr(FramedStream, "send", misroute)
    refused: list[str] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def opener() -> None:
                try:
                    with trio.move_on_after(30):
                        await open_table(definition=definition, options=definition.options(),
                                         players=3, me=Me.fresh(cheater, "cheater"),
                                         seated=True, interface="127.0.0.1",
                                         root=tmp_path / "cheater")
                except* LobbyError:
                    pass  # the joiners hung up on it, as they should

            nursery.start_soon(opener)
            with trio.fail_after(15):
                async with browse_tables("127.0.0.1") as ads:
                    async for ad in ads:
                        if ad.change != "removed" and ad.fingerprint == cheater.fingerprint:
                            break

            async def joiner(name: str) -> None:
                try:
                    await join_table(ad, definition=definition,
                                     me=Me.fresh(Identity(SystemEntropy().take(32)), name),
                                     interface="127.0.0.1", root=tmp_path / name,
                                     agent_for=lambda seat: definition.bots["random"](
                                         SystemEntropy(), seat))
                except LobbyError as exc:
                    refused.append(str(exc))

            with trio.fail_after(20):
                async with trio.open_nursery() as joiners:
                    for name in ("ada", "bea"):
                        joiners.start_soon(joiner, name)
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert rosters == 2
    pattern = (r"the roster gives seat ([12]) \((ada|bea)\) an address it did not sign "
               r"\(127\.0\.0\.2:\d+\): only the opener's word")
    matched = [re.fullmatch(pattern, text) for text in refused]
    assert len(refused) == 2 and all(matched), refused
    assert {m.group(1) for m in matched if m} == {"1", "2"}, refused
    assert not (tmp_path / "ada" / "games").exists() and not (tmp_path / "bea" / "games").exists()


# --- a rollback leaves a kept chat line past the transcript's end --------------------------


def chat_files_of(net: SimNet) -> dict[int, list[bytes]]:
    """Each peer's chat file, as its StoreChat actions left it."""
    files: dict[int, list[bytes]] = {peer.index: [] for peer in net.peers}
    original = net.apply

    def storing(peer: Peer, actions: list[Any]) -> None:
        for action in actions:
            if isinstance(action, StoreChat):
                files[peer.index].append(action.raw)
            elif isinstance(action, Rewrite) and action.chat is not None:
                files[peer.index] = list(action.chat)
        original(peer, actions)

    net.apply = storing  # type: ignore[method-assign]
    return files


def test_a_rollback_never_leaves_an_honest_chat_file_that_fails_its_audit() -> None:
    """Five seats of The Resistance. Seat 0 signs two records for its first key share, sends
    the honest one to everyone and keeps the other; seats 1 and 2 build on it, and honest seat
    2 says a line (tied to its own record). Seat 0 then shows seat 3 its second record: the
    equivocation is proven, unsettled (two builders of the three a quorum needs), so every
    honest peer rolls back, writes the fraud, and the game ends at once (no role was dealt).
    Every honest peer's chat file must still audit against the transcript it ends with."""
    definition = registry.load("resistance")
    net = SimNet(5, seed=18, definition=definition, options=definition.options(),
                 timeout=5.0, grace=1.0)
    files = chat_files_of(net)
    net.peers[3].think = 2.0  # seat 3 is slow to write on seat 2's record
    plan: dict[str, Any] = {}

    def act(net: SimNet, peer: Peer, state: Any) -> bool:
        speaker = net.peers[2]
        if "second" in plan and "said" not in plan and speaker.protocol.head >= plan["seq"] + 2:
            plan["said"] = True
            net.apply(speaker, speaker.protocol.say("I built on it", net.now))
            net.send(0, 3, {"t": "record", "record": plan["second"].raw}, lossless=True)
        turn = peer.protocol.wants_turn()
        if turn is None or "second" in plan:
            return False
        one = peer.seat.build(turn, peer.agent)
        two = sign_record(replace(one.record, body={"a lie": 1}), peer.seat.identity)
        plan.update(seq=one.seq, second=two)
        net.apply(peer, peer.protocol.submit(one, net.now))
        return True

    adversary_of(net, 0, act)
    finish(net, 120)
    transcript = agreed(net)
    report = honest_seats_kept(net, transcript)
    assert report.result is not None and report.result.forfeits == (0,), report.describe()
    assert plan.get("said"), "the attack did not run"
    head = len(transcript.records)
    for peer in net.honest():
        audit = check_chat_log(b"".join(files[peer.index]), transcript.genesis.genesis, head)
        assert audit.valid, (peer.index, audit.describe())


def test_an_honest_seat_that_talks_after_a_rollback_never_equivocates_in_chat() -> None:
    """Five seats of the relay race. Seat 0 signs two legs for its second turn; seats 1 and 2
    build on the first and seat 2 says a line; seat 0 shows seat 3 the second leg, and every
    honest peer rolls back below seat 2's line. Seat 2 says two more lines at once (each tied
    to where its last line was, so they wait), and the game goes on past that record: no
    honest peer may hold two messages of seat 2 under one counter."""
    net = SimNet(5, seed=18, timeout=5.0, grace=1.0)
    files = chat_files_of(net)
    net.peers[3].think = 2.0
    plan: dict[str, Any] = {"turns": 0}

    def act(net: SimNet, peer: Peer, state: Any) -> bool:
        speaker = net.peers[2]
        if "second" in plan and "said" not in plan and speaker.protocol.head >= plan["seq"] + 2:
            plan["said"] = True
            net.apply(speaker, speaker.protocol.say("I built on it", net.now))
            net.send(0, 3, {"t": "record", "record": plan["second"].raw}, lossless=True)
        if "said" in plan and "again" not in plan and speaker.rewrites:
            plan["again"] = speaker.protocol.head
            for text in ("that was rolled back", "so I say it again"):
                net.apply(speaker, speaker.protocol.say(text, net.now))
        turn = peer.protocol.wants_turn()
        if turn is None or "second" in plan:
            return False
        plan["turns"] += 1
        if plan["turns"] < 2:
            return False
        one = peer.seat.build(turn, peer.agent)
        two = sign_record(replace(one.record, body={"value": 3 - one.record.body["value"]}),
                          peer.seat.identity)
        plan.update(seq=one.seq, second=two)
        net.apply(peer, peer.protocol.submit(one, net.now))
        return True

    adversary_of(net, 0, act)
    finish(net, 120)
    transcript = agreed(net)
    honest_seats_kept(net, transcript)
    assert plan.get("again") is not None and plan["again"] < plan["seq"] + 2, plan
    head = len(transcript.records)
    assert head > plan["seq"] + 2
    for peer in net.honest():
        audit = check_chat_log(b"".join(files[peer.index]), transcript.genesis.genesis, head)
        assert audit.valid, (peer.index, audit.describe())
        assert not audit.equivocations, (peer.index, audit.describe())
        counters = [line.counter for line in audit.lines if line.seat == 2]
        assert counters == sorted(set(counters)), (peer.index, counters)
    speaker = [line.text for line in net.peers[2].protocol.chat.lines]
    assert speaker == ["I built on it", "that was rolled back", "so I say it again"]


def test_a_stored_chat_line_past_the_transcripts_end_waits_for_its_record_after_a_restart(
) -> None:
    """A crash between the transcript's rewrite and the chat file's leaves a line tied past the
    head: on restart it waits for its record (it is not shown, nor stored again, before)."""
    net = SimNet(3, seed=5)
    finish(net, 60)
    peer = net.peers[1]
    line = peer.protocol.chat.compose("tied to the end", peer.protocol.head, net.now)
    records = peer.protocol.records[:2]
    again = PeerProtocol(table=peer.protocol.table, genesis=peer.protocol.genesis,
                         seat=peer.seat, records=tuple(records), chat=(line,))
    assert again.chat.lines == [] and again.chat.pending == [line]
    assert again.chat.compose("next", 2, 0.0).counter == 2


def test_one_speakers_lines_tied_far_ahead_never_crowd_out_an_honest_line_waiting_its_record(
) -> None:
    """A cheater signs lines tied to records far ahead (``seen`` 10**9, its own valid
    messages: they wait for a record that never comes, paying no bucket). However many it
    sends, an honest line that arrives just before its record (tied to the next seq, by
    another path than the record) still waits, and is kept when the record comes."""
    net = SimNet(3, seed=7)
    peer = net.peers[2]
    book = peer.protocol.chat
    genesis = peer.protocol.genesis.genesis
    cheater, honest = net.peers[0].seat.identity, net.peers[1].seat.identity
    for counter in range(1, 1000):
        lie = sign_chat(ChatMessage(genesis.table, 0, counter, 10**9, f"later {counter}"),
                        cheater)
        assert book.offer(lie.raw, 0, 0.0) == []
    line = sign_chat(ChatMessage(genesis.table, 1, 1, 1, "good luck"), honest)
    assert book.offer(line.raw, 0, 0.0) == []
    taken = book.advance(1, 0.1)
    assert [verdict.line.text for verdict in taken if isinstance(verdict, Heard)] == ["good luck"]


# --- the lobby's end: a joiner that gets up instead of signing -------------------------------


async def _knock_and_leave(table: bytes, port: int, then: dict[str, Any] | None) -> None:
    """A joiner that sits down (hello, join), takes the roster and, instead of its genesis
    signature, hangs up (``then`` None) or sends ``then``."""
    me = Me.fresh(Identity(SystemEntropy().take(32)), "leaver")
    framed = FramedStream(await trio.open_tcp_stream("127.0.0.1", port))
    await handshake.dial(framed, me.identity, me.hello(table), table)
    listen = 40000
    await framed.send({"t": "join", "beacon": bytes(32), "host": "127.0.0.1", "port": listen,
                       "sig": sign_address(me.identity, table, "127.0.0.1", listen)})
    while (await framed.receive())["t"] != "roster":
        pass
    if then is not None:
        await framed.send(then)
    await framed.aclose()


@pytest.mark.parametrize("then", [
    pytest.param(None, id="hangs-up"),
    pytest.param({"t": "bye", "reason": "no"}, id="says-bye"),
    pytest.param({"t": "gsig", "seat": 1, "sig": bytes(64)}, id="false-signature"),
])
def test_an_opener_whose_joiner_gets_up_before_signing_says_so_and_never_crashes(
    tmp_path: Path, then: dict[str, Any] | None,
) -> None:
    """The opener of a two-seat table has sent the roster; its joiner hangs up, says goodbye,
    or signs falsely. ``open_table`` ends with a LobbyError naming the seat (what ``spycraft
    play`` prints in one line), never with a connection error of the nursery (a traceback)."""
    definition = registry.load("spies-and-lies")

    async def main() -> None:
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                await open_table(
                    definition=definition, options=definition.options(), players=2,
                    me=Me.fresh(Identity(SystemEntropy().take(32)), "opener"), seated=True,
                    interface="127.0.0.1", root=tmp_path,
                    on_open=lambda table, port: nursery.start_soon(
                        _knock_and_leave, table, port, then))

    with pytest.raises(BaseException) as caught:
        trio.run(main)
    leaves = _leaves(caught.value)
    assert leaves and all(isinstance(leaf, LobbyError) for leaf in leaves), leaves
    assert all("seat 1" in str(leaf) for leaf in leaves), leaves


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]

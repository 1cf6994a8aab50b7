"""The trio shell around the peer protocol: what it does with what the protocol cannot decide."""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import OpeningError
from spycraft.engines.agent import Decision, RandomAgent
from spycraft.engines.local import new_local_table
from spycraft.engines.registry import GameDefinition
from spycraft.p2p import protocol as protocol_module
from spycraft.p2p.protocol import InvariantBroken, Remember, Store, StoreChat
from spycraft.p2p.seating import RosterSeat
from spycraft.p2p.session import Session, SessionConfig
from spycraft.p2p.storage import GameStore, SeatFile, StorageError
from tests.chaos.disk import fill, small_disk
from tests.p2p.relay import GAME


class BrokenSeal:
    """An agent whose decision fails on a toolkit check (an opening that does not open)."""

    def decide(self, decision: Decision) -> int:
        raise OpeningError("the sealed token does not open")


async def seat_zero(
    tmp_path: Path, agent: Any, definition: GameDefinition = GAME,
    config: SessionConfig | None = None, store: GameStore | None = None,
    options: dict[str, Any] | None = None,
) -> Session:
    """Seat 0 of a three-seat relay race, alone (nobody else connects), ready to write (from
    what ``store`` holds, if given: a resume)."""
    local = new_local_table(definition, options or {}, 3, SeededEntropy(b"shell"))
    seat = local.seats[0]
    genesis = local.genesis
    if store is None:
        store = GameStore.create(tmp_path, genesis.genesis.table, 0)
        store.write_genesis(genesis)
    seat_file = SeatFile(game="relay", table=genesis.genesis.table, seat=0,
                         master=seat.context.master, memo={}, roster=[])
    roster = [RosterSeat(k.name, k.identity, k.table_key, k.beacon, "127.0.0.1", 1)
              for k in genesis.genesis.seats]
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    return Session(definition=definition, genesis=genesis, roster=roster, seat=0,
                   identity=seat.identity, master=seat.context.master, store=store,
                   seat_file=seat_file, listener=listener, agent=agent, config=config)


def test_a_record_we_cannot_build_is_logged_and_never_crashes_the_peer(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        session = await seat_zero(tmp_path, BrokenSeal())
        listener = session.listener
        state = session.protocol.wants_turn()
        assert state is not None
        with trio.move_on_after(0.5):
            await session._write_turn(state)
        assert session.records == []  # nothing was signed or sent
        await listener.aclose()

    with caplog.at_level(logging.ERROR, logger="spycraft.p2p"):
        trio.run(main)
    assert "seat 0 cannot write record 1" in caplog.text
    assert "does not open" in caplog.text


def test_a_frame_that_meets_a_bug_of_ours_is_dropped_and_the_peer_plays_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Red team 5: a vote for record 0 made the protocol read past an empty chain, and the
    IndexError ended every honest process at head 0 (fixed in the protocol). Whatever bug a
    peer's frame reaches next, the frame is dropped and the peer plays on, with the traceback
    logged once per kind of frame (and a line for each of the next nine, then one in a
    thousand); the protocol's own checks of its state still stand."""
    seen: list[str] = []

    async def main() -> None:
        session = await seat_zero(tmp_path, RandomAgent(SeededEntropy(b"a")))

        def broken(link: int, frame: dict[str, Any], now: float) -> list[Any]:
            seen.append(frame["t"])
            raise IndexError("list index out of range")

        session.protocol.receive = broken  # type: ignore[method-assign]
        link: Any = SimpleNamespace(id=7, name="seat 1")
        for _ in range(30):
            session._on_frame(link, {"t": "absent"})
        state = session.protocol.wants_turn()  # still seat 0's turn, and the peer alive
        assert state is not None
        await session._write_turn(state)
        assert len(session.records) == 1
        session.protocol.at.voted = True  # a state the invariants refuse is not played on
        with pytest.raises(AssertionError):
            session._on_frame(link, {"t": "absent"})
        await session.listener.aclose()

    with caplog.at_level(logging.ERROR, logger="spycraft.p2p"):
        trio.run(main)
    assert seen == ["absent"] * 31
    assert caplog.text.count("Traceback") == 1, caplog.text
    assert "met a bug in spycraft: dropped" in caplog.text
    assert "again (2 times, dropped): list index out of range" in caplog.text
    assert caplog.text.count("again (") == 9, caplog.text  # ten lines, not thirty


def test_a_record_in_memory_that_the_store_was_never_told_of_is_not_played_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team 7: a bug between taking a record into memory and handing it to the store would
    have passed the checks and left the file behind memory. The checks now count what the
    store was told; a fault that leaves them apart ends the process (it resumes from disk)."""

    def a_bug(*args: Any) -> None:
        raise RuntimeError("a bug of ours")

    async def main() -> None:
        session = await seat_zero(tmp_path, RandomAgent(SeededEntropy(b"a")))
        protocol, seat = session.protocol, session.table_seat
        state = protocol.wants_turn()
        assert state is not None and seat is not None and session.agent is not None
        signed = seat.build(state, session.agent)
        session._execute(protocol.submit(signed, trio.current_time()))
        monkeypatch.setattr(protocol_module, "Store", a_bug)  # the record taken, then the bug
        with pytest.raises(RuntimeError, match="a bug of ours"):
            protocol.check_own(trio.current_time())
        assert protocol.head == 1
        with pytest.raises(InvariantBroken, match="handed to the store"):
            protocol.after_fault()
        await session.listener.aclose()

    trio.run(main)


def test_the_protocols_checks_of_its_state_run_under_python_minus_o(tmp_path: Path) -> None:
    """They are code, not ``assert`` statements, which ``python -O`` would skip."""
    script = (
        "from spycraft.p2p.protocol import InvariantBroken, PeerProtocol, InvariantBroken\n"
        "class P(PeerProtocol):\n"
        "    def __init__(self): pass\n"
        "p = P(); p.states, p.records = [None], [None]\n"
        "try:\n"
        "    p.check_invariants()\n"
        "except InvariantBroken as exc:\n"
        "    print('refused:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True,
                          check=False,
                          timeout=60)
    assert done.stdout.strip() == "refused: one state per record and the genesis", done


def test_a_persons_paced_answers_leave_no_sooner_than_the_answer_delay(tmp_path: Path) -> None:
    """In a game whose answers could tell that a person decided (Confusion's Double Agent), an
    automatic answer waits as long as an asked one: it leaves ``answer_delay`` after the
    question at the earliest."""
    paced = replace(GAME, paced=frozenset({"leg"}))
    waited: list[float] = []

    async def main() -> None:
        session = await seat_zero(tmp_path, RandomAgent(SeededEntropy(b"a")), paced,
                                  SessionConfig(answer_delay=0.4, inline_agent=True))
        asked_at = session.protocol.since
        state = session.protocol.wants_turn()
        assert state is not None
        await session._write_turn(state)
        assert len(session.records) == 1
        waited.append(session.created_at[1] - asked_at)
        await session.listener.aclose()

    trio.run(main)
    assert waited[0] >= 0.4


def test_when_a_record_may_leave_is_the_protocols_rule_and_only_paced_kinds_wait(
    tmp_path: Path,
) -> None:
    """The pacing rule is the sans-IO protocol's (the shell only sleeps until it says): a paced
    kind leaves ``answer_delay`` after its place began, any other kind at once, and with no
    delay set nothing waits."""
    paced = replace(GAME, paced=frozenset({"leg"}))

    async def main() -> None:
        for delay, expected in ((0.4, 0.4), (0.0, None)):
            session = await seat_zero(tmp_path / str(delay), RandomAgent(SeededEntropy(b"a")),
                                      paced, SessionConfig(answer_delay=delay))
            since = session.protocol.since
            leaves = session.protocol.leaves_at("leg")
            assert leaves == (None if expected is None else since + expected)
            assert session.protocol.leaves_at("not-paced") is None
            await session.listener.aclose()

    trio.run(main)


def test_a_seat_that_resumes_where_it_signed_sends_the_remembered_record_without_deciding_again(
    tmp_path: Path,
) -> None:
    """A record of ours is durable in own.cbor before it leaves, and its transcript copy may not
    have reached the disk when the peer crashed: resumed at that place, the seat sends the
    record it remembered, as it was, and its agent is not asked again (here it could not
    answer)."""

    async def main() -> None:
        first = await seat_zero(tmp_path, RandomAgent(SeededEntropy(b"first")))
        state = first.protocol.wants_turn()
        assert state is not None
        assert first.table_seat is not None
        signed = first.table_seat.build(state, first.agent)
        first.store.remember_own(signed.seq, signed.record.prev, signed.raw, {})
        await first.listener.aclose()
        first.store.close()  # the crash: own.cbor holds the record, the transcript does not

        resumed = await seat_zero(tmp_path, BrokenSeal(), store=GameStore(first.store.folder))
        assert resumed.store.load_transcript().records == ()
        state = resumed.protocol.wants_turn()
        assert state is not None
        with trio.move_on_after(0.5):
            await resumed._write_turn(state)
        assert [r.raw for r in resumed.records] == [signed.raw]
        await resumed.listener.aclose()

    trio.run(main)


def test_after_a_write_failed_the_session_carries_out_no_action_until_it_has_stopped(
    tmp_path: Path,
) -> None:
    """The chaos run, seed 44: the failed append stopped the session, but a reader already
    running read on through the frames it had buffered (no checkpoint between them) and stored
    the next record, which the full disk still had room for. Now, once a write has failed,
    every later list of actions is dropped whole: nothing stored, remembered, said or sent."""
    laps = {"laps": 100}  # 300 records, more than the room a full disk leaves in a page
    local = new_local_table(GAME, laps, 3, SeededEntropy(b"shell"))
    agents = [RandomAgent(SeededEntropy(b"shell").child(f"b{i}")) for i in range(3)]
    while local.step(agents) is not None:
        pass

    async def main(disk: Path) -> None:
        store = GameStore.create(disk, local.genesis.genesis.table, 0)
        store.write_genesis(local.genesis)
        session = await seat_zero(disk, RandomAgent(SeededEntropy(b"a")), store=store,
                                  options=laps)
        filler = fill(disk)
        stored = 0
        with pytest.raises(StorageError):
            for signed in local.records:
                session._execute([Store((signed,))])
                stored += 1
        assert stored < len(local.records) - 1, "the disk never filled"
        filler.unlink()  # room again: a write would now succeed
        before = store.transcript_path.read_bytes()
        later = local.records[stored]
        session._execute([Store((later,)), StoreChat(b"\x80"),
                          Remember(later.seq, later.record.prev, later.raw)])
        assert store.transcript_path.read_bytes() == before
        assert not store.chat_path.exists() and not store.own_path.exists()
        await session.listener.aclose()

    with small_disk(tmp_path / "disk") as disk:
        trio.run(main, disk)

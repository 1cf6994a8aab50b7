"""A disk that fills and a crash inside an append (issue 22): every write of a stored game is
all or nothing, a failed one says what and why, and the next run reads every whole item back.

The full-disk tests mount a small tmpfs of their own (root; skipped otherwise) and fill it, so
the writes meet the real ENOSPC, short writes included, as a laptop's disk gives them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.chat import ChatMessage, sign_chat
from spycraft.crypto.identity import Identity
from spycraft.p2p.storage import GameStore, SeatFile, StorageError
from tests.chaos.disk import fill, small_disk
from tests.p2p.test_storage import played


def _files(store: GameStore) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(store.folder.iterdir())}


def _seat_file(table: bytes) -> SeatFile:
    return SeatFile(game="spies-and-lies", table=table, seat=1, master=b"\x02" * 32,
                    memo={"deploy/1": [1, 2, 3, 5]}, roster=[])


def test_a_full_disk_refuses_each_write_whole_naming_it_and_keeps_nothing_half_written(
    tmp_path: Path,
) -> None:
    local = played(40)
    records = local.records
    with small_disk(tmp_path / "disk") as disk:
        store = GameStore.create(disk, local.genesis.genesis.table, 1)
        store.save_seat(_seat_file(local.genesis.genesis.table))
        store.write_genesis(local.genesis)
        store.append(*records[:5])
        store.remember_own(2, records[1].record.prev, records[1].raw, {"deploy/1": [1]})
        filler = fill(disk)

        stored = 5  # the files' last pages still have room: append until the disk says no
        with pytest.raises(StorageError) as full:
            for signed in records[5:]:
                store.append(signed)
                stored += 1
        assert stored < len(records), "the disk never filled"
        message = str(full.value)
        assert f"cannot write record {stored + 1} to {store.transcript_path}" in message
        assert "No space left on device" in message and "nothing half-written" in message
        before = _files(store)
        assert before["transcript.cbor"] == local.genesis.raw + b"".join(
            r.raw for r in records[:stored])

        for write in (
            lambda: store.append(records[stored]),
            lambda: store.remember_own(9, records[8].record.prev, records[8].raw * 20, {"m": 9}),
            lambda: store.save_seat(_seat_file(b"\x07" * 16)),
        ):
            with pytest.raises(StorageError, match="No space left on device"):
                write()
            assert _files(store) == before  # no torn item, no .tmp beside the seat file

        filler.unlink()  # room again: the game goes on from exactly what was kept
        store.append(*records[stored:])
        transcript = store.load_transcript()
        assert transcript is not None and transcript.records == tuple(records)
        own, memo = store.load_own()
        assert own == {(2, records[1].record.prev): records[1].raw} and memo == {"deploy/1": [1]}
        assert store.load_seat() == _seat_file(local.genesis.genesis.table)


def test_a_record_of_ours_torn_by_a_crash_is_cut_off_so_the_ones_after_it_are_not_lost(
    tmp_path: Path,
) -> None:
    """Before, the torn item stayed: every record remembered after a resume sat behind it,
    unreadable, so a second crash would forget them and the seat could sign those places
    again, differently."""
    local = played(8)
    store = GameStore.create(tmp_path, local.genesis.genesis.table, 0)
    first = [(r.seq, r.record.prev, r.raw) for r in local.records[:3]]
    for seq, prev, raw in first:
        store.remember_own(seq, prev, raw, {"at": seq})
    with open(store.own_path, "ab") as f:  # the crash: half of the fourth item
        f.write(store.own_path.read_bytes()[:20])
    own, memo = store.load_own()
    assert own == {(seq, prev): raw for seq, prev, raw in first} and memo == {"at": 3}

    later = local.records[3]  # the resumed seat signs on
    store.remember_own(later.seq, later.record.prev, later.raw, {"at": 4})
    own, memo = store.load_own()
    assert own[(later.seq, later.record.prev)] == later.raw and memo == {"at": 4}
    assert len(own) == 4


def test_a_line_of_talk_torn_by_a_crash_is_cut_off_so_the_lines_after_it_are_kept(
    tmp_path: Path,
) -> None:
    local = played(4)
    genesis = local.genesis.genesis
    identity = Identity(b"\x05" * 32)
    store = GameStore.create(tmp_path, genesis.table, 0)
    lines = [sign_chat(ChatMessage(genesis.table, 0, n, 1, f"line {n}"), identity)
             for n in (1, 2, 3)]
    store.append_chat(lines[0].raw)
    store.append_chat(lines[1].raw[:30])  # a crash inside the second append
    assert [c.raw for c in store.load_chat()] == [lines[0].raw]
    store.append_chat(lines[1].raw)
    store.append_chat(lines[2].raw)
    assert [c.raw for c in store.load_chat()] == [c.raw for c in lines]


def test_after_a_record_the_full_disk_refused_the_transcript_takes_none_after_it_until_it_is_in(
    tmp_path: Path,
) -> None:
    """The chaos run, seed 44: a task of the session woken before the failure stopped it handed
    over the next record, small enough for the room left in the file's last page, and the file
    held records 99 and 101 without 100 (the resume refused it: the chain was broken)."""
    local = played(60)
    records = local.records
    with small_disk(tmp_path / "disk") as disk:
        store = GameStore.create(disk, local.genesis.genesis.table, 1)
        store.write_genesis(local.genesis)
        filler = fill(disk)
        stored = 0
        with pytest.raises(StorageError):
            for signed in records:
                store.append(signed)
                stored += 1
        assert stored < len(records) - 2, "the disk never filled"
        before = _files(store)
        smallest = min(records[stored + 1:], key=lambda r: len(r.raw))
        for later in (records[stored + 1], smallest):
            with pytest.raises(StorageError) as refused:
                store.append(later)
            assert str(refused.value).startswith(
                f"record {later.seq} not stored: record {stored + 1} before it could not be "
                f"(cannot write record {stored + 1} to {store.transcript_path}: No space left")
            assert _files(store) == before

        filler.unlink()
        store.append(records[stored])  # the missing record first: then the rest follows
        store.append(*records[stored + 1:])
        transcript = store.load_transcript()
        assert transcript is not None and transcript.records == tuple(records)


def test_a_transcript_with_a_gap_loads_to_the_gap_and_is_cut_there(tmp_path: Path) -> None:
    """A file an older spycraft left after a failed append: the records that follow each other
    are kept, the rest is cut (the peers send it back at the resume); before, the resume
    stopped on ChainBroken, every time."""
    local = played(12)
    records = local.records
    store = GameStore.create(tmp_path, local.genesis.genesis.table, 0)
    store.write_genesis(local.genesis)
    store.append(*records[:6])
    store.append(*records[7:])  # record 7 missing
    transcript = store.load_transcript()
    assert transcript is not None and transcript.records == tuple(records[:6])
    assert store.transcript_path.read_bytes() == local.genesis.raw + b"".join(
        r.raw for r in records[:6])

    store.append(*records[6:])  # what sync brings back follows on
    transcript = store.load_transcript()
    assert transcript is not None and transcript.records == tuple(records)


def test_a_record_of_another_chain_after_the_genesis_is_cut_off_too(tmp_path: Path) -> None:
    """A first record whose ``prev`` is not this genesis's link (the file of another table's
    game pasted in): nothing after the genesis chains, so only the genesis is kept."""
    local, other = played(3), played(3, seed=5)
    store = GameStore.create(tmp_path, local.genesis.genesis.table, 0)
    store.write_genesis(local.genesis)
    store.append(*other.records)
    transcript = store.load_transcript()
    assert transcript is not None and transcript.records == ()
    assert store.transcript_path.read_bytes() == local.genesis.raw

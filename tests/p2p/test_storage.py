"""What a peer stores survives a crash: the transcript, and the seat's secrets in a 0600 file."""

from __future__ import annotations

import os
import stat

import pytest
import trio

from spycraft.crypto.encoding import encode
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.engines.local import new_local_table
from spycraft.p2p.discovery import TableAd
from spycraft.p2p.lobby import LobbyError, Me, join_table
from spycraft.p2p.storage import GameExists, GameStore, SeatFile, stored_games_of


def played(records: int = 20, seed: int = 4):
    definition = registry.load("spies-and-lies")
    local = new_local_table(definition, {}, 2, SeededEntropy(seed))
    agents = [definition.bots["random"](SeededEntropy(seed).child(f"b{i}"), i) for i in range(2)]
    for _ in range(records):
        local.step(agents)
    return local


def test_a_torn_last_record_is_cut_off_and_everything_before_it_is_kept(tmp_path):
    local = played()
    store = GameStore.create(tmp_path, local.genesis.genesis.table)
    store.write_genesis(local.genesis)
    for signed in local.records:
        store.append(signed)
    with open(store.transcript_path, "ab") as f:  # a crash in the middle of the next append
        f.write(local.records[-1].raw[:17])
    transcript = store.load_transcript()
    assert transcript is not None
    assert transcript.records == tuple(local.records)
    assert store.transcript_path.read_bytes() == local.transcript.to_bytes()


def test_a_record_of_ours_is_synced_once_in_own_cbor_and_reaches_the_transcript_with_the_next(
    tmp_path, monkeypatch
):
    local = played(6)
    records = local.records
    store = GameStore.create(tmp_path, local.genesis.genesis.table, 0)
    store.write_genesis(local.genesis)
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the real fsync, counted by the file it made durable
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    transcript, own = store.transcript_path, store.own_path
    store.append(records[0])  # another seat's record: durable before it is acknowledged
    mine = records[1]
    store.remember_own(mine.seq, mine.record.prev, mine.raw, {"at": 2})
    store.append(mine)  # ours: own.cbor holds it durably, so no second fsync
    assert synced == [transcript.stat().st_ino, own.stat().st_ino]
    store.append(records[2])  # the next record's fsync makes ours durable in the transcript too
    assert synced[2:] == [transcript.stat().st_ino]
    store.remember_own(records[3].seq, records[3].record.prev, records[3].raw, {"at": 4})
    store.append(records[3])
    store.save_seat(SeatFile(game="spies-and-lies", table=local.genesis.genesis.table, seat=0,
                             master=b"\x02" * 32, memo={}, roster=[], finished=True))
    assert synced[3:5] == [own.stat().st_ino, transcript.stat().st_ino]  # before the seat file
    store.close()
    assert transcript.read_bytes() == local.genesis.raw + b"".join(r.raw for r in records[:4])
    loaded = GameStore(store.folder)
    assert loaded.load_transcript().records == tuple(records[:4])
    assert loaded.load_own()[1] == {"at": 4}


def test_own_cbor_keeps_only_what_the_memo_changed_and_a_restart_folds_it_back(tmp_path):
    """Each entry holds the memo's change, not the whole memo: a game of 300 records of ours,
    each adding one choice to a memo that ends with 300, writes about 300 choices, not 45,000;
    a store opened again on the folder (a restarted peer) folds the entries back, and what it
    writes next is a change against what the file holds, removals included."""
    store = GameStore.create(tmp_path, b"\x01" * 16, 0)
    memo: dict[str, object] = {"vote/1/0": [[1, b"\x00" * 32]]}
    for seq in range(1, 301):
        memo[f"place/{seq}"] = bytes([seq % 256]) * 32
        memo["vote/1/0"][0][0] = seq % 2  # a value changed in place, as the seats do
        store.remember_own(seq, bytes(32), encode(["record", seq]), memo)
    store.close()
    size = store.own_path.stat().st_size
    # each entry: its place, its record, the new choice and the vote changed (about 140 bytes);
    # the whole memo each time came to 2 MB
    assert size < 300 * 200, f"{size} bytes for 300 entries of one new choice each"
    own, loaded = GameStore(store.folder).load_own()
    assert len(own) == 300 and loaded == memo

    again = GameStore(store.folder)  # restarted, writes before it reads
    memo.pop("place/7")
    memo["card/3"] = [[0, b"\x01" * 32, b"\x02" * 48]]
    again.remember_own(301, bytes(32), encode(["record", 301]), memo)
    again.close()
    assert GameStore(store.folder).load_own()[1] == memo
    assert store.own_path.stat().st_size - size < 400  # the change, not the memo


def test_an_own_cbor_entry_of_an_older_peer_holds_the_whole_memo_and_is_folded_as_such(tmp_path):
    store = GameStore.create(tmp_path, b"\x01" * 16, 0)
    store.own_path.write_bytes(encode([1, bytes(32), b"r1", {"a": 1, "b": [2]}])
                               + encode([2, bytes(32), b"r2", {"a": 1, "c": 3}]))
    own, memo = store.load_own()
    assert own == {(1, bytes(32)): b"r1", (2, bytes(32)): b"r2"} and memo == {"a": 1, "c": 3}
    store.remember_own(3, bytes(32), b"r3", {"a": 1, "c": 4})
    store.close()
    assert GameStore(store.folder).load_own()[1] == {"a": 1, "c": 4}


def test_the_seat_file_is_private_and_round_trips(tmp_path):
    store = GameStore.create(tmp_path, b"\x01" * 16)
    seat = SeatFile(game="spies-and-lies", table=b"\x01" * 16, seat=1, master=b"\x02" * 32,
                    memo={"deploy/1": [1, 2, 3, 5], "sergeant/1": True},
                    roster=[{"identity": b"\x03" * 32, "host": "127.0.0.1", "port": 4000}],
                    extra={"bot": "heuristic"})
    store.save_seat(seat)
    assert stat.S_IMODE(store.seat_path.stat().st_mode) == 0o600
    assert store.load_seat() == seat


# --- a stored game is never overwritten (issue 18, attack 8) --------------------------------


def _stored(root, table: bytes, seat: int = 1) -> tuple[GameStore, dict[str, bytes]]:
    """A game stored under ``root`` for ``table``, and the bytes of each of its files."""
    local = played(6)
    store = GameStore.create(root, table, seat)
    store.save_seat(SeatFile(game="spies-and-lies", table=table, seat=seat, master=b"\x02" * 32,
                             memo={"deploy/1": [1, 2, 3, 5]}, roster=[]))
    store.write_genesis(local.genesis)
    store.append(*local.records)
    store.remember_own(1, b"\x00" * 32, local.records[0].raw, {"deploy/1": [1, 2, 3, 5]})
    files = {p.name: p.read_bytes() for p in store.folder.iterdir()}
    return store, files


def test_a_new_table_with_a_stored_games_id_is_refused_naming_that_game(tmp_path):
    table = b"\x0a" * 16
    store, files = _stored(tmp_path, table)
    with pytest.raises(GameExists) as refused:
        GameStore.create(tmp_path, table, 1)
    message = str(refused.value)
    assert "game spies-and-lies (seat 1, 6 records)" in message and str(store.folder) in message
    assert {p.name: p.read_bytes() for p in store.folder.iterdir()} == files  # untouched
    assert GameStore.create(tmp_path, table, 0).folder != store.folder  # another seat: apart
    assert [s.folder for s in stored_games_of(tmp_path, table)] == [store.folder]


def test_a_joiner_refuses_a_table_that_reuses_a_stored_games_id_before_it_knocks(tmp_path):
    table = b"\x0b" * 16
    store, files = _stored(tmp_path, table)
    ad = TableAd(table_id=table, game="spies-and-lies", options_digest=bytes(32),
                 seats_taken=1, seats_total=2, fingerprint="ABCD", version=1, change="added",
                 address="127.0.0.1", port=1, name="spycraft-x")
    definition = registry.load("spies-and-lies")

    async def main() -> None:
        await join_table(ad, definition=definition, me=Me.fresh(Identity(b"\x04" * 32), "me"),
                         interface="127.0.0.1", root=tmp_path,
                         agent_for=lambda seat: definition.bots["random"](SeededEntropy(1), seat))

    with pytest.raises(LobbyError, match="has the id of game spies-and-lies"):
        trio.run(main)
    assert {p.name: p.read_bytes() for p in store.folder.iterdir()} == files

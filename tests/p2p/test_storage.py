"""What a peer stores survives a crash: the transcript, and the seat's secrets in a 0600 file."""

from __future__ import annotations

import stat

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import new_local_table
from spycraft.p2p.storage import GameStore, SeatFile


def played(records: int = 20):
    definition = registry.load("spies-and-lies")
    local = new_local_table(definition, {}, 2, SeededEntropy(4))
    agents = [definition.bots["random"](SeededEntropy(4).child(f"b{i}"), i) for i in range(2)]
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


def test_the_seat_file_is_private_and_round_trips(tmp_path):
    store = GameStore.create(tmp_path, b"\x01" * 16)
    seat = SeatFile(game="spies-and-lies", table=b"\x01" * 16, seat=1, master=b"\x02" * 32,
                    memo={"deploy/1": [1, 2, 3, 5], "sergeant/1": True},
                    roster=[{"identity": b"\x03" * 32, "host": "127.0.0.1", "port": 4000}],
                    extra={"bot": "heuristic"})
    store.save_seat(seat)
    assert stat.S_IMODE(store.seat_path.stat().st_mode) == 0o600
    assert store.load_seat() == seat

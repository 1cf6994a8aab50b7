"""The trio shell around the peer protocol: what it does with what the protocol cannot decide."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import trio

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import SealError
from spycraft.engines.agent import Decision
from spycraft.engines.local import new_local_table
from spycraft.p2p.session import RosterSeat, Session
from spycraft.p2p.storage import GameStore, SeatFile
from tests.p2p.relay import GAME


class BrokenSeal:
    """An agent whose decision needs a seal another seat made badly."""

    def decide(self, decision: Decision) -> int:
        raise SealError("the sealed token does not open")


def test_a_record_we_cannot_build_is_logged_and_never_crashes_the_peer(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    local = new_local_table(GAME, {}, 3, SeededEntropy(b"shell"))
    seat = local.seats[0]
    genesis = local.genesis
    store = GameStore.create(tmp_path, genesis.genesis.table, 0)
    store.write_genesis(genesis)
    seat_file = SeatFile(game="relay", table=genesis.genesis.table, seat=0,
                         master=seat.context.master, memo={}, roster=[])
    roster = [RosterSeat(k.name, k.identity, k.table_key, k.beacon, "127.0.0.1", 1)
              for k in genesis.genesis.seats]

    async def main() -> None:
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        session = Session(definition=GAME, genesis=genesis, roster=roster, seat=0,
                          identity=seat.identity, master=seat.context.master, store=store,
                          seat_file=seat_file, listener=listener, agent=BrokenSeal())
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

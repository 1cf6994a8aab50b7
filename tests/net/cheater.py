"""A modified spycraft client for the network tests: a bot peer that lies in one chosen way.

    python -m tests.net.cheater MODE INTERFACE OUT_FILE TABLE_ID

MODE is one of
  equivocate  at its first guess, signs two different guesses and sends one to each peer
  stall       at its first guess, goes silent (connections stay open)
  forge       at its first turn, sends a record that claims to be the other seat's
  lie         at its first reveal, opens its card with a false nonce

It prints ``seat N`` once seated, then plays on (honestly, apart from the one lie).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import trio

from spycraft.crypto.identity import Identity
from spycraft.crypto.records import Record, sign_record
from spycraft.engines import registry
from spycraft.engines.table import TableState
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import Me, join_table
from spycraft.p2p.protocol import Send
from spycraft.p2p.session import Session


class Cheater(Session):
    mode = ""
    done = False

    async def _write_turn(self, state: TableState[Any]) -> None:
        assert self.table_seat is not None and self.agent is not None
        turn = self.table_seat.my_turn(state)
        assert turn is not None
        now = trio.current_time()
        if not self.done:
            if self.mode == "stall" and "guess" in turn.kinds:
                print("stalling", flush=True)
                await trio.sleep_forever()
            if self.mode == "equivocate" and "guess" in turn.kinds:
                self.done = True
                one = self.table_seat.sign(state, "guess", {"rank": 1})
                two = self.table_seat.sign(state, "guess", {"rank": 2})
                self._execute(
                    [a for a in self.protocol.submit(one, now) if not isinstance(a, Send)]
                )
                for i, link in enumerate(self.links.values()):
                    link.post({"t": "record", "record": (one if i % 2 == 0 else two).raw})
                print("equivocated", flush=True)
                return
            if self.mode == "forge":
                self.done = True
                other = 1 - self.seat if self.seat is not None else 0
                record = Record(self.genesis.genesis.table, state.seq + 1, state.link,
                                other, turn.kinds[0], {"forged": True})
                forged = sign_record(record, self.identity)
                self._broadcast({"t": "record", "record": forged.raw})
                print("forged", flush=True)
            if self.mode == "lie" and "reveal" in turn.kinds:
                self.done = True
                honest = self.table_seat.build(state, self.agent)
                body: dict[str, Any] = dict(honest.record.body)
                body["nonce"] = bytes(32)
                lie = self.table_seat.sign(state, "reveal", body)
                self._broadcast({"t": "record", "record": lie.raw})
                print("lied", flush=True)
                await trio.sleep_forever()
        await super()._write_turn(state)


async def main(mode: str, interface: str, out: str, table: str) -> None:
    Cheater.mode = mode
    definition = registry.load("spies-and-lies")
    entropy = SystemEntropy()
    identity = Identity(entropy.take(32))
    with trio.fail_after(30):
        async with browse_tables(interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == table:
                    break
    session = await join_table(
        ad, definition=definition, me=Me.fresh(identity, f"cheater-{mode}"), interface=interface,
        root=Path(out).parent / "cheater-home",
        agent_for=lambda seat: definition.bots["random"](entropy, seat),
        session_class=Cheater,
    )
    print(f"seat {session.seat}", flush=True)
    await session.run()
    Path(out).write_bytes(session.transcript.to_bytes())


if __name__ == "__main__":
    trio.run(main, *sys.argv[1:5])

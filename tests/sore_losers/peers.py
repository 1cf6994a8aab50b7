"""Red team 17's Confusion peers for the LAN tests: a loser that will not let its loss stand.

    python -m tests.sore_losers.peers MODE INTERFACE TABLE OUT [--turn-timeout S]

Theory of operation: the peer joins the announced table as ``spycraft bots`` does and plays
through the real seat and session with the random bot, except that it resigns at its first free
action (§5), so play fixes its loss at once. Then, in the final reveal:

  stall    at its own ``final`` it goes silent (its connections stay open): the honest seat
           must declare it absent after the table's turn timeout
  claim    where the winner is expected to write ``final``, it signs an abandon of the winner
           at once with its own vote (at two seats the quorum), builds it through its own
           protocol and so sends it to the winner, who is online and about to write; from the
           end of play it takes no record from the winner, so its branch (the abandon, its own
           final, the result) is built whatever the winner sent first

It prints ``seat N`` once seated and one line per step, and writes its transcript to OUT.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import trio

from spycraft.crypto.identity import Identity
from spycraft.engines import registry
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.table import TableState
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import Me, join_table
from spycraft.p2p.session import Session, SessionConfig


def say(text: str) -> None:
    print(text, flush=True)


class Resigner:
    """The random bot, but its first free action is ``resign`` (always the last option)."""

    def __init__(self, bot: Agent) -> None:
        self.bot = bot

    def decide(self, decision: Decision) -> int:
        if decision.kind == "free_action":
            return len(decision.options) - 1
        return self.bot.decide(decision)


class SoreLoser(Session):
    mode = "stall"
    claimed = False

    async def _write_turn(self, state: TableState[Any]) -> None:
        assert self.table_seat is not None and self.seat is not None
        turn = self.table_seat.my_turn(state)
        if self.mode == "stall" and turn is not None and "final" in turn.kinds:
            say(f"stalling at record {state.seq + 1}")
            await trio.sleep_forever()
        await super()._write_turn(state)
        after = self.protocol.state
        turn = self.table.expect(after)
        if self.mode == "claim" and not self.claimed and turn is not None \
                and turn.seat != self.seat and "final" in turn.kinds:
            # right behind our own last record, so the winner reads it before it can write
            votes = {self.seat: self.table_seat.absence_vote(after)}
            signed = self.table_seat.sign_abandon(after, votes)
            self.claimed = True
            self._execute(self.protocol.submit(signed, trio.current_time()))
            say(f"claimed seat {turn.seat} absent at record {signed.seq}")

    def _on_frame(self, link: Any, frame: dict[str, Any]) -> None:
        # claim: once play fixed the loss, it takes no record from the winner, so it builds its
        # own branch (the abandon, its final, the result) whatever the winner sent first; nor
        # from the host, which proves the winner's records to it as an observer's replies
        if self.mode == "claim" and frame["t"] in ("record", "sync_reply") \
                and link.seat != self.seat \
                and self.state.game.game.outcome is not None:
            return  # (a peer that keeps its record shows it as a reply of its branch too)
        super()._on_frame(link, frame)


async def main(args: argparse.Namespace) -> None:
    definition = registry.load("confusion")
    entropy = SystemEntropy()
    identity = Identity(entropy.take(32))
    out = Path(args.out)
    with trio.fail_after(30):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == args.table:
                    break
    SoreLoser.mode = args.mode
    session = await join_table(
        ad, definition=definition, me=Me.fresh(identity, f"sore-{args.mode}"),
        interface=args.interface, root=out.parent / f"home-{out.name}",
        agent_for=lambda seat: Resigner(definition.bots["random"](entropy, seat)),
        config=SessionConfig(turn_timeout=args.turn_timeout),
        session_class=SoreLoser,
    )
    say(f"seat {session.seat}")
    await session.run()
    out.write_bytes(session.transcript.to_bytes())


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.sore_losers.peers")
    p.add_argument("mode", choices=("stall", "claim"))
    p.add_argument("interface")
    p.add_argument("table")
    p.add_argument("out")
    p.add_argument("--turn-timeout", type=float, default=30.0)
    return p.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse())

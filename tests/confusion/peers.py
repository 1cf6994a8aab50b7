"""Confusion peers for the LAN tests: timing players that note when each record reached them,
and a cheater that commits 13 Double Agents.

    python -m tests.confusion.peers MODE INTERFACE TABLE OUT [--answer-delay D] [--think T]
                                    [--turns K] [--turn-timeout S]

Theory of operation: each peer joins the announced table as ``spycraft bots`` does, with the
session configuration the command line gives a seat (``cli.lan._config``: every seat holds its
paced answers to ``--answer-delay``), and plays through the real seat and session. It writes
its transcript to OUT and, for the timing modes, OUT.times: one line ``seq kind seat time`` per
record, the time (its own ``trio`` clock) at which the record was accepted here, so for its own
records the moment it sent them and for the others' the moment they arrived.

MODE is one of
  bot        every decision takes ``--think`` seconds, as ``spycraft bots --think`` does: the
             player never takes a token or a free action, announces plain moves at random
             that neither touch the briefcase nor capture the enemy's Double Agent (half of
             the time with its own Double Agent, see below), answers the Double Agent at
             random, and resigns at its first free action from turn ``--turns`` on
  person     the same player as a scripted person in the session's worker thread: a Double
             Agent's answer takes a random 0 to ``--think`` seconds of thought, a forced answer
             a tenth of that, every other decision a moment
  thirteen   at its ``assign`` record commits 13 Double Agents for the other side's spies, with
             the permutation proof of its honest order, and sends it to everyone

Every peer of the timing modes writes the other side's Double Agent (it assigned it) to
``OUT.da``; a timing player whose opponent wrote one in the same folder announces that spy half
of the time. No player at a real table could know its own Double Agent: it is the test's way to
ask about the Double Agent as often as about the rest, so that the two samples of answer delays
it compares are of similar size. It changes nothing the answerer sees or does.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import trio

from spycraft.cli.lan import Thinking, _config
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.identity import Identity
from spycraft.crypto.membership import commit, prove_permutation
from spycraft.engines import registry
from spycraft.engines.agent import Decision
from spycraft.engines.confusion.movement import TYPE_IDS
from spycraft.engines.confusion.rules import TYPE_DOMAIN
from spycraft.engines.confusion.seat import ConfusionSeat
from spycraft.engines.table import TableState
from spycraft.p2p.discovery import browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.events import Event, RecordStored
from spycraft.p2p.lobby import Me, join_table
from spycraft.p2p.session import Session


def say(text: str) -> None:
    print(text, flush=True)


class Prober:
    """The timing player's choices (see the module docstring)."""

    def __init__(self, seat: int, turns: int, folder: Path, rng: random.Random) -> None:
        self.seat = seat
        self.turns = turns
        self.own_da = folder / f"da-of-seat{seat}"
        self.rng = rng

    def decide(self, decision: Decision) -> int:
        options = decision.options
        if decision.kind == "free_action":
            resign = decision.view.game.turn_no >= self.turns
            return len(options) - 1 if resign else 0
        if decision.kind == "announce":
            view = decision.view
            board = view.game.board
            enemy_da = next((s for s, t in view.opponent_types if t == "DA"), None)
            # plain moves that neither touch the briefcase nor capture the enemy's Double
            # Agent: the game lasts its turns and both Double Agents stay to be asked about
            calm = [i for i, a in enumerate(options) if a.mode == "move"
                    and a.to != board.briefcase and board.occupant(a.to) != enemy_da] \
                or list(range(len(options)))
            da = self.own_da.read_text() if self.own_da.exists() else None
            with_da = [i for i in calm if options[i].spy == da]
            if with_da and self.rng.random() < 0.5:
                return self.rng.choice(with_da)
            return self.rng.choice(calm)
        if decision.kind == "answer":
            return self.rng.randrange(len(options))
        return 0


class ScriptedPerson:
    """A person at the prompt: thinks over a Double Agent's answer, confirms a forced one fast."""

    def __init__(self, player: Prober, think: float, rng: random.Random) -> None:
        self.player = player
        self.think = think
        self.rng = rng

    def decide(self, decision: Decision) -> int:
        if decision.kind == "answer":
            free = len(decision.options) == 2
            time.sleep(self.rng.uniform(0, self.think if free else self.think / 10))
        return self.player.decide(decision)


class Timed(Session):
    """A session that notes when each record was accepted (ours: when it left), and tells the
    opponent's DA."""

    out: Path
    times: list[str]

    def note(self, event: Event) -> None:
        if not isinstance(event, RecordStored):
            return
        signed, after = event.signed, event.after
        record = signed.record
        # our own record: when it left (it is checked and stored after it is sent, by which time
        # the other seat may have taken it and started its answer's delay); another's: now
        when = self.created_at.get(record.seq, trio.current_time()) if record.seat == self.seat \
            else trio.current_time()
        self.times.append(f"{record.seq} {record.kind} {record.seat} {when:.6f}")
        seat = self.table_seat.game if self.table_seat is not None else None
        if isinstance(seat, ConfusionSeat) and record.kind == "beacon" and not after.pending:
            da = next((s for s, t in seat.enemy_types(after.game.game).items() if t == "DA"), None)
            if da is not None:
                (self.out.parent / f"da-of-seat{1 - seat.seat}").write_text(da)


class DoubleAgents(Session):
    """Commits 13 Double Agents at its assign record, proven with its honest order's proof."""

    async def _write_turn(self, state: TableState[Any]) -> None:
        assert self.table_seat is not None
        turn = self.table_seat.my_turn(state)
        seat = self.table_seat.game
        if turn is None or turn.kinds != ("assign",) or not isinstance(seat, ConfusionSeat):
            await super()._write_turn(state)
            return
        order = seat.order()
        rs = [seat.blinding(i) for i in range(len(order))]
        honest = [commit(TYPE_DOMAIN, t, r) for t, r in zip(order, rs)]
        where = seat.context_of(state.game, state.seq + 1, "assign")
        proof = prove_permutation(honest, TYPE_DOMAIN, TYPE_IDS, order, rs, where,
                                  SeededEntropy(b"cheat"))
        lie = [commit(TYPE_DOMAIN, "DA", r).encode() for r in rs]
        signed = self.table_seat.sign(state, "assign",
                                      {"commitments": lie, "proof": proof.encode()})
        while len({link.seat for link in self.links.values() if link.seat is not None}) \
                < len(self.roster) - 1:
            await trio.sleep(0.05)  # sent to every seat at once, as an honest record would be
        self._broadcast({"t": "record", "record": signed.raw})
        say(f"sent 13 Double Agents at record {signed.seq}")
        await trio.sleep_forever()


async def main(args: argparse.Namespace) -> None:
    definition = registry.load("confusion")
    identity = Identity(SystemEntropy().take(32))
    out = Path(args.out)
    rng = random.Random()
    with trio.fail_after(30):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == args.table:
                    break
    timed = args.mode in ("bot", "person")

    def agent_for(seat: int) -> Any:
        if args.mode == "thirteen":
            return definition.bots["random"](SeededEntropy(b"cheater"), seat)
        player = Prober(seat, args.turns, out.parent, rng)
        if args.mode == "bot":
            return Thinking(player, args.think)
        return ScriptedPerson(player, args.think, rng)

    holder: list[Timed] = []

    def events(event: Event) -> None:
        if holder:
            holder[0].note(event)

    session = await join_table(
        ad, definition=definition, me=Me.fresh(identity, f"peer-{args.mode}"),
        interface=args.interface, root=out.parent / f"home-{out.name}", agent_for=agent_for,
        config=_config(args, instant_bot=args.mode == "bot" and args.think == 0),
        events=events if timed else None,
        session_class=Timed if timed else DoubleAgents,
    )
    if isinstance(session, Timed):
        session.out, session.times = out, []
        holder.append(session)
    say(f"seat {session.seat}")
    await session.run()
    out.write_bytes(session.transcript.to_bytes())
    if isinstance(session, Timed):
        out.with_name(out.name + ".times").write_text("\n".join(session.times) + "\n")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.confusion.peers")
    p.add_argument("mode", choices=("bot", "person", "thirteen"))
    p.add_argument("interface")
    p.add_argument("table")
    p.add_argument("out")
    p.add_argument("--answer-delay", type=float, default=3.0)
    p.add_argument("--think", type=float, default=0.0)
    p.add_argument("--turns", type=int, default=100)
    p.add_argument("--turn-timeout", type=float, default=30.0)
    return p.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse())

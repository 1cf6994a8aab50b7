"""``spycraft watch [TABLE]``: follow a table in play as a spectator, from any seat's copy.

Theory of operation: every seat of a table in play announces it (``p2p.discovery``: one ad per
seat, with how many watch through it). ``watch`` browses for a moment, gathers the ads of the
table it is asked for (a prefix of its id, as for ``join``; the first table in play otherwise),
and dials the seat through which the fewest watch (or the one named with ``--seat``); if that
seat refuses (no room) it tries the next. That seat sends the signed genesis, which is checked
(``p2p.lobby.watch_table``); the spectator links to the other seats it found as well. From there
it is an observer of ``p2p.protocol``: it syncs every record, checks each exactly as a seat
would (signature, chain, turn, rules) and writes none; it is sent nothing that the transcript
does not hold, and it never counts in a vote. A seat that feeds it something that does not
check is named and its link closed; the game goes on through the others. What it sees is the
public side: each record's line of the game's story, the table talk, the public board (the
game's ``screen`` with no seat, as text: ``cli.lines``) and the result at the end; then the
audit of the transcript it holds.

At a terminal (and without ``--line``) the spectator sees the full-screen table instead
(``cli.app``): the public picture (the game's ``screen`` with no seat and no view), the history
(its ``story``), the table talk, no decision panel, and the final screen with the result and the
audit verdict. The session feeds it as it feeds a seat's (``cli.app.run.LanFeed``).
"""

from __future__ import annotations

import argparse
import sys

import trio

from spycraft.cli.config import data_dir
from spycraft.cli.lan import Narrator, _run, write_transcript
from spycraft.cli.lines import Lines, wrapped
from spycraft.cli.offline import chat_path
from spycraft.cli.outcome import verdict
from spycraft.crypto.chat import check_chat_log
from spycraft.crypto.identity import Identity
from spycraft.crypto.text import printable
from spycraft.engines import registry
from spycraft.engines.audit import audit as audit_bytes
from spycraft.p2p.discovery import TableAd, browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.events import Event, LinkClosed
from spycraft.p2p.lobby import LobbyError, watch_table
from spycraft.p2p.session import Session, SessionConfig

GATHER = 1.5
"""Seconds to gather the ads of the chosen table once the first of them is seen."""


def run(args: argparse.Namespace) -> int:
    return _run(watch, args, person=True)


async def _gather(args: argparse.Namespace) -> list[TableAd]:
    """The ads of one table in play (the one asked for), least watched first."""
    prefix = (args.table or "").lower()
    found: dict[str, TableAd] = {}
    table: bytes | None = None
    with trio.move_on_after(args.wait) as waiting:
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if ad.watching is None or not ad.table_id.hex().startswith(prefix):
                    continue
                if table is None:
                    table = ad.table_id
                    waiting.deadline = min(waiting.deadline, trio.current_time() + GATHER)
                if ad.table_id != table:
                    continue
                if ad.change == "removed":
                    found.pop(ad.name, None)
                else:
                    found[ad.name] = ad
    chosen = str(args.seat) if args.seat is not None else None
    return sorted(found.values(),
                  key=lambda ad: (ad.source != chosen, ad.watching or 0, ad.source or ""))


class Spectator(Narrator):
    """What a spectator is told: narration, talk, and any seat that sent what does not check."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, LinkClosed):
            print(wrapped(event.text, "  !! "), flush=True)
            return
        super().__call__(event)


async def watch(args: argparse.Namespace) -> int:
    looking = f"table {args.table}" if args.table else "a table in play"
    print(f"looking for {looking} on {args.interface} for up to {args.wait:g} s "
          f"(Ctrl-C to stop)", flush=True)
    ads = await _gather(args)
    if not ads:
        print("no table in play found", file=sys.stderr)
        return 1
    identity = Identity(SystemEntropy().take(32))  # a spectator is nobody at the table
    session: Session | None = None
    for ad in ads:
        try:
            session = await watch_table(
                ad, also=[other for other in ads if other is not ad],
                definition_for=registry.load, identity=identity,
                interface=args.interface, root=data_dir(),
                config=SessionConfig(turn_timeout=args.turn_timeout), events=None,
            )
        except LobbyError as exc:
            print(f"  seat {ad.source} at {ad.address}:{ad.port}: {exc}", flush=True)
            continue
        print(f"watching {ad.game} table {ad.table_id.hex()} through seat {ad.source} "
              f"({ad.fingerprint}) at {ad.address}:{ad.port}", flush=True)
        break
    if session is None:
        return 1
    definition = session.definition
    ui = getattr(args, "ui", None)
    if ui is not None:
        ui.app.watching = True
        session.events = ui.events(definition)
        ui.attach(session)
    else:
        session.events = Spectator(definition)
    seats = session.genesis.genesis.seats
    print("at the table: " + ", ".join(f"seat {i} {printable(s.name)}"
                                       for i, s in enumerate(seats)), flush=True)
    await session.run()
    if ui is not None:
        ui.finish(session)  # the final screen: the result, the audit verdict, the transcript
    return _end(session, args.out, drawn=ui is not None)


def _end(session: Session, out: str | None, drawn: bool = False) -> int:
    """The end of a watched game: the public board (unless the screen draws it), the result,
    the audit of the transcript held and of the table talk, where they are kept."""
    state = session.state
    if not drawn:
        print(Lines(session.definition).board(state, None))
    print(wrapped(verdict(session.definition, state, None)))
    data = session.transcript.to_bytes()
    report = audit_bytes(data)
    print(f"audit: {report.describe()}")
    chat_ok = True
    dropped = session.protocol.chat.dropped_lines()
    if dropped:
        print(dropped)
    if session.store.chat_path.exists():
        chat = check_chat_log(session.store.chat_path.read_bytes(), session.genesis.genesis,
                              len(session.records))
        chat_ok = chat.valid
        print(chat.describe())
    if out:
        written = write_transcript(session, out)
        if written is not None:
            print(f"transcript: {written} ({len(session.records)} records)")
            if session.store.chat_path.exists():
                print(f"table talk: {chat_path(written)}")
    print(f"transcript stored in {session.store.transcript_path}")
    return 0 if report.valid and chat_ok and state.result is not None else 1

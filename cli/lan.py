"""LAN commands: play, host, join, bots, tables, resume.

Each peer is a trio program: the lobby (``p2p.lobby``), then the session (``p2p.session``).
The human's prompt runs in a worker thread (the session calls the agent through
``trio.to_thread``); bot peers started by ``play`` and ``host`` run as a separate
``spycraft bots`` process that joins over the network like anyone else, at that table only
(``bots`` always names its table), and ends with the command that started it; ``resume``
brings them back from their stored seats.

Table talk in line mode: at any prompt, ``/say TEXT`` says TEXT to the table (the prompt comes
back); every chat line is printed as it arrives, ``name (seat N): text``, with everything a
peer wrote passed through ``crypto.text.printable``. ``bots --say TEXT`` makes bot peers say
something once the game is under way (for tests and demonstrations). In a game whose talk is
off while it runs (SpyNet, ``GameDefinition.talk``), ``/say`` answers why, ``bots --say`` says
nothing, and a line a modified client sends anyway is dropped unread at every peer, counted,
and the count is printed at the end. Every seat announces the
table in play for spectators (``spycraft watch``, ``cli.watch``); ``tables`` lists those ads too,
with how many watch through each seat.

Leaving: Ctrl-C (``KeyboardInterrupt``, also when it reaches us inside a nursery's exception
group) and the end of input (``cli.tui.PlayerLeft``) are re-raised to ``cli.main``, which says
in one line that the person left and which stored game ``resume`` continues (``args.stored``).
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from spycraft.cli import app
from spycraft.cli.app.lobby import describe_options
from spycraft.cli.app.run import LanUi, lan_ui
from spycraft.cli.commands import plain_fingerprint
from spycraft.cli.config import data_dir, load_identity, player_name
from spycraft.cli.levels import levels_for, parse_levels
from spycraft.cli.lines import Lines, wrapped
from spycraft.cli.main import stopped
from spycraft.cli.offline import chat_path, game_options, out_path, players_of, write_out
from spycraft.cli.outcome import roster, verdict
from spycraft.cli.tui import PlayerLeft, TerminalAgent
from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.identity import Identity
from spycraft.crypto.text import printable
from spycraft.engines import bots as bot_levels
from spycraft.engines import registry
from spycraft.engines.agent import Agent, Decision
from spycraft.p2p.chat import ChatLine, ChatRefused, talk_off_reason
from spycraft.p2p.discovery import (
    DiscoveryError,
    TableAd,
    browse_tables,
    default_interface,
    find_interface,
    interface_address,
)
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.events import (
    Alone,
    Cheated,
    DeclaredAbsent,
    Event,
    Muted,
    RecordStored,
    SeatFreed,
    Seating,
    SeatTaken,
    Stuck,
    Talk,
    Unconfirmed,
    Waiting,
)
from spycraft.p2p.lobby import LobbyError, Me, join_table, open_table, resume_session
from spycraft.p2p.session import Session, SessionConfig
from spycraft.p2p.storage import GameStore, StorageError, stored_games

log = logging.getLogger("spycraft")


def handlers() -> dict[str, Callable[[argparse.Namespace], int]]:
    from spycraft.cli import local_play

    return {
        "play": lambda a: local_play.play(a) if a.offline else _run(play, a, person=True),
        "host": lambda a: _run(host, a, person=True),
        "join": lambda a: _run(join, a, person=True),
        "bots": lambda a: _run(bots, a),
        "tables": lambda a: _run(tables, a),
        "resume": resume_command,
    }


def _run(command: Callable[[argparse.Namespace], Any], args: argparse.Namespace,
         choose_interface: bool = True, person: bool = False) -> int:
    """Run a LAN command under trio; ``person``: a person follows it, in the full-screen
    application when at a terminal (``args.ui``, ``cli.app.run.LanUi``), else in line mode."""
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s: %(message)s",
                        stream=sys.stderr)
    zeroconf_log = logging.getLogger("zeroconf")
    zeroconf_log.setLevel(logging.WARNING if args.verbose < 2 else logging.DEBUG)
    if args.verbose < 2 and not any(isinstance(f, OneLine) for f in zeroconf_log.filters):
        zeroconf_log.addFilter(OneLine())
    notices = []
    try:
        if args.interface is not None:
            find_interface(args.interface)
        elif choose_interface:
            choice = default_interface()
            if choice.warning:
                notices.append(f"spycraft: {choice.reason}")
            args.interface = choice.interface.name
    except DiscoveryError as exc:
        print(f"spycraft: {exc} (`spycraft doctor` explains)", file=sys.stderr)
        return 2
    again = command in (play, host, join)
    terminal = getattr(args, "terminal", None)  # where to draw (tests: a pipe); else the real one
    while True:
        with lan_ui(person and (terminal is not None or app.wanted(args)), again,
                    terminal) as args.ui:
            for notice in notices:  # inside the application when there is one, never under it
                print(notice, file=sys.stderr, flush=True)
            code = _run_trio(command, args)
        if args.ui is None or not args.ui.bridge.again:
            return code
        notices = []
        _again(command, args)


def _again(command: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> None:
    """The same game for the same seats ("play again" on the final screen): ``play`` and
    ``host`` open a new table with the same options (and start their bot peers again); a
    ``join`` takes the next open table of the opener it played with (its fingerprint, proven
    by the handshake), as ``bots --again`` do."""
    args.stored = None
    if command is join:
        args.table = None
        args.opener, args.game = args.followed


class OneLine(logging.Filter):
    """zeroconf logs a socket error it has handled (the Wi-Fi dropped: "Network is unreachable")
    with its traceback; a person is told in one line, and ``-vv`` shows the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def _run_trio(command: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    try:
        result: int = trio.run(command, args)
        return result
    except (LobbyError, DiscoveryError) as exc:
        print(f"spycraft: {exc}", file=sys.stderr)
        return 1
    except StorageError as exc:
        return stopped(args, exc)
    except BaseExceptionGroup as group:  # the same errors, from tasks of a nursery
        leaves = _leaves(group)
        for kind in (KeyboardInterrupt, PlayerLeft, SystemExit):
            first = next((leaf for leaf in leaves if isinstance(leaf, kind)), None)
            if first is not None:
                raise first from None  # a person leaving: cli.main says so in one line
        expected, other = group.split((LobbyError, DiscoveryError, StorageError))
        if expected is None or other is not None:
            raise
        for error in _leaves(expected):
            if isinstance(error, StorageError):
                return stopped(args, error)
            print(f"spycraft: {error}", file=sys.stderr)
        return 1


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    return [leaf for exc in group.exceptions
            for leaf in (_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])]


def _config(
    args: argparse.Namespace, *, instant_bot: bool = False, person: bool = False
) -> SessionConfig:
    """``instant_bot``: the agent is a bot that does not think, so it decides on the loop.
    Every seat, a person's or a bot's, holds its paced answers to ``--answer-delay`` (DESIGN §4:
    timing never tells who decided, bot peers included). ``person``: a person plays this seat,
    so the game ends for it once the linked peers hold the end (bot peers and a seatless host
    stay for a seat away at the end, up to a turn timeout: ``SessionConfig.linger_for_absent``)."""
    delay = max(0.0, getattr(args, "answer_delay", 0.0))
    return SessionConfig(turn_timeout=args.turn_timeout, inline_agent=instant_bot,
                         answer_delay=delay, announce=True, linger_for_absent=not person)


def _roster(session: Session) -> str:
    return roster([seat.name for seat in session.genesis.genesis.seats], session.seat)


class Narrator:
    """Prints each record's line of the game's story for a human at the table (``cli.lines``)."""

    def __init__(self, definition: registry.GameDefinition) -> None:
        self.definition = definition
        self.lines = Lines(definition)

    def __call__(self, event: Event) -> None:
        if isinstance(event, RecordStored):
            line = self.lines.history(event.before, event.signed, event.after, indent="  ")
            if line:
                print(line, flush=True)
        elif isinstance(event, Talk):
            print(wrapped(event.text, "  > "), flush=True)
        elif isinstance(event, Muted | Waiting):
            print(wrapped(event.text, "  -- "), flush=True)
        elif isinstance(event, SeatTaken | SeatFreed | Seating):
            print(wrapped(event.text, "  "), flush=True)
        elif isinstance(event, Cheated | DeclaredAbsent | Alone | Unconfirmed | Stuck):
            print(wrapped(event.text, "  !! "), flush=True)


def chat_text(line: ChatLine) -> str:
    """A chat line as line mode prints it (its name and text are already printable)."""
    return line.describe()


SAY = "/say"


def talk_hint(definition: registry.GameDefinition) -> str:
    """How to talk at this table, or why nobody can while the game runs."""
    if definition.talk_open(finished=False):
        return f"{SAY} TEXT at any prompt talks to the table"
    return talk_off_reason(definition.name)


class TalkingAgent(TerminalAgent):
    """The terminal player, who may also talk: ``/say TEXT`` at any prompt says TEXT to the
    table and asks again."""

    def __init__(self, board: Callable[[], str], say: Callable[[str], None]) -> None:
        super().__init__(board)
        self.say = say

    def _read(self, decision: Decision) -> str:
        while True:
            line = super()._read(decision)
            words = line.strip()
            if words != SAY and not words.startswith(SAY + " "):
                return line
            text = words[len(SAY):].strip()
            if not text:
                self.out(f"{SAY} TEXT says TEXT to the table")
                continue
            try:
                trio.from_thread.run_sync(self.say, text)
            except ChatRefused as refused:
                self.out(f"not said: {refused}")


class Thinking:
    """A bot that takes its time (it runs in the session's worker thread, so sleeping is fine)."""

    def __init__(self, agent: Agent, seconds: float) -> None:
        self.agent = agent
        self.seconds = seconds

    def decide(self, decision: Any) -> int:
        if self.seconds > 0:
            time.sleep(self.seconds)
        return self.agent.decide(decision)


def _human(session_box: list[Session], definition: registry.GameDefinition,
           ui: LanUi | None = None) -> Callable[[int], Agent]:
    lines = Lines(definition)

    def agent_for(seat: int) -> Agent:
        if ui is not None:
            return ui.agent()

        def board() -> str:
            if not session_box:
                return ""
            session = session_box[0]
            assert session.table_seat is not None
            return lines.board(session.state, seat, session.table_seat.view(session.state))

        def say(text: str) -> None:
            if not session_box:
                raise ChatRefused("the game has not started")
            session_box[0].say(text)

        return TalkingAgent(board, say)

    return agent_for


def _bot_peers_home() -> Path:
    """Where the bot peers that ``play`` and ``host`` start keep their identities and games."""
    return data_dir() / "bot-peers"


def _bot_process(arguments: list[str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    home = _bot_peers_home()
    env["SPYCRAFT_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)
    with open(home.parent / "bot-peers.log", "ab") as log_file:  # the child keeps its own copy
        return subprocess.Popen([sys.executable, "-m", "spycraft", *arguments], env=env,
                                stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file)


def _spawn_bots(args: argparse.Namespace, count: int, table: bytes,
                game: str) -> subprocess.Popen[bytes]:
    level = ["--level", args.level] if getattr(args, "level", None) else []
    effort = ["--effort", str(args.effort)] if getattr(args, "effort", 1) != 1 else []
    return _bot_process(["bots", "--count", str(count), "--game", game, "--table", table.hex(),
                         "--interface", args.interface, "--turn-timeout", str(args.turn_timeout),
                         "--answer-delay", str(args.answer_delay), *level, *effort])


def _resume_bots(args: argparse.Namespace, table: bytes) -> list[subprocess.Popen[bytes]]:
    """Bring back the bot peers this machine started for ``table`` (they ended when the person
    left), each from its own stored seat, so a game against them can be resumed."""
    processes = []
    for game in unfinished_games(_bot_peers_home() / "data"):
        if game.seat is None or not game.store.folder.name.startswith(table.hex()):
            continue
        arguments = ["resume", game.store.folder.name, "--turn-timeout", str(args.turn_timeout),
                     "--answer-delay", str(args.answer_delay)]
        if args.interface is not None:
            arguments += ["--interface", args.interface]
        processes.append(_bot_process(arguments))
    return processes


async def _open(args: argparse.Namespace,
                seated: bool) -> tuple[Session, subprocess.Popen[bytes] | None]:
    definition = registry.load(args.game)
    options = game_options(definition, args)
    players = players_of(args, definition)
    if args.bots < 0 or args.bots > players - (1 if seated else 0):
        raise SystemExit(f"--bots must be 0..{players - (1 if seated else 0)}")
    if args.bots:
        levels_for(args, definition, args.bots, args.command)  # a wrong level: before the table
    identity = load_identity()
    name = getattr(args, "name", None) or player_name()
    me = Me.fresh(identity, name[:64] if seated else "host")
    box: list[Session] = []
    spawned: list[subprocess.Popen[bytes]] = []

    def on_open(table: bytes, port: int) -> None:
        print(f"{definition.title}: table {table.hex()} open on "
              f"{interface_address(args.interface)}:{port}, "
              f"{players} seats; your fingerprint {identity.fingerprint}", flush=True)
        if args.bots:
            spawned.append(_spawn_bots(args, args.bots, table, definition.name))

    try:
        session = await open_table(
            definition=definition, options=options, players=players, me=me, seated=seated,
            interface=args.interface, root=data_dir(),
            agent=_human(box, definition, args.ui)(0) if seated else None,
            config=_config(args, person=seated), events=_events(args, definition),
            on_open=on_open,
        )
    except BaseException:
        for process in spawned:
            _stop(process)  # the bot peers came for this table only
        raise
    box.append(session)
    _seated(args, session)
    return session, (spawned[0] if spawned else None)


def write_transcript(session: Session, out: str, folder: bool = False) -> Path | None:
    """The transcript where ``--out`` says: a file, or a folder (``folder``: always), where it
    is ``<table>.cbor`` (a seat's, ``<table>-seat<N>.cbor``); beside it the table talk this
    peer holds (when anyone talked). Where it went, or None after saying why it could not."""
    table = session.genesis.genesis.table.hex()
    name = f"{table}.cbor" if session.seat is None else f"{table}-seat{session.seat}.cbor"
    path = out_path(out + os.sep if folder else out, name)
    if not write_out(path, session.transcript.to_bytes()):
        return None
    if session.store.chat_path.exists() and not write_out(
            chat_path(path), session.store.chat_path.read_bytes()):
        return None
    return path


def _events(args: argparse.Namespace, definition: registry.GameDefinition) -> Any:
    """What the session tells a person: the application's feed, or the line mode's narration."""
    return args.ui.events(definition) if args.ui is not None else Narrator(definition)


def _seated(args: argparse.Namespace, session: Session) -> None:
    """The session exists: ``resume`` may continue it, and the application draws it."""
    args.stored = session.store.folder.name
    if args.ui is not None:
        args.ui.attach(session)


def _finish(session: Session, out: str | None = None, ui: LanUi | None = None) -> int:
    state = session.state
    if ui is not None:
        ui.finish(session)  # the final screen draws the table; the lines below follow it
    else:
        view = session.table_seat.view(state) if session.table_seat is not None else None
        print(Lines(session.definition).board(state, session.seat, view))
    if out:
        written = write_transcript(session, out)
        if written is not None:
            print(f"transcript: {written} ({len(session.records)} records)")
    print(f"transcript stored in {session.store.transcript_path}")
    dropped = session.protocol.chat.dropped_lines()
    if dropped:
        print(dropped)
    if state.result is None:
        print("the game did not finish")
        return 1
    print(wrapped(verdict(session.definition, state, session.seat)))
    return 0


async def play(args: argparse.Namespace) -> int:
    session, bots_process = await _open(args, seated=True)
    print("the table is full; the game starts", flush=True)
    print(wrapped(_roster(session)), flush=True)
    print(wrapped(f"({talk_hint(session.definition)})", "  "), flush=True)
    await _run_with_bots(session, bots_process)
    return _finish(session, ui=args.ui)


async def host(args: argparse.Namespace) -> int:
    session, bots_process = await _open(args, seated=False)
    await _run_with_bots(session, bots_process)
    return _finish(session, args.out, args.ui)


async def _run_with_bots(session: Session,
                         bots: subprocess.Popen[bytes] | list[subprocess.Popen[bytes]] | None
                         ) -> None:
    """Play to the end; the bot peers this command started end with it (at once if it is left
    with Ctrl-C or an error, so nothing waits on them)."""
    processes = bots if isinstance(bots, list) else [] if bots is None else [bots]
    try:
        await session.run()
    except BaseException:
        for process in processes:
            _stop(process)
        raise
    for process in processes:
        await trio.to_thread.run_sync(_reap, process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a bot peer process we started (its seat's state is saved as it plays)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


def _reap(process: subprocess.Popen[bytes]) -> None:
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.terminate()


async def _find_table(args: argparse.Namespace, accept: Callable[[TableAd], bool],
                      wait: float) -> TableAd | None:
    with trio.move_on_after(wait):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if (ad.change != "removed" and ad.watching is None
                        and ad.seats_taken < ad.seats_total and accept(ad)):
                    return ad
    return None


def _matches(prefix: str | None, game: str | None, opener: str | None = None,
             digest: bytes | None = None) -> Callable[[TableAd], bool]:
    """The ads to join: by table id prefix, game, the opener's fingerprint (as people write it:
    any case, dashes or none) and options digest, each when given."""
    def accept(ad: TableAd) -> bool:
        if prefix and not ad.table_id.hex().startswith(prefix.lower()):
            return False
        if opener and plain_fingerprint(ad.fingerprint) != plain_fingerprint(opener):
            return False
        if digest is not None and ad.options_digest != digest:
            return False
        return game is None or ad.game == game

    return accept


async def join(args: argparse.Namespace) -> int:
    opener = getattr(args, "opener", None)
    wanted = f"table {args.table}" if args.table else \
        f"a table opened by {opener}" if opener else "an open table"
    print(f"looking for {wanted} on {args.interface} for up to {args.wait:g} s "
          f"(Ctrl-C to stop)", flush=True)
    ad = await _find_table(args, _matches(args.table, getattr(args, "game", None), opener),
                           args.wait)
    if ad is None:
        print("no open table found", file=sys.stderr)
        return 1
    args.followed = (ad.fingerprint, ad.game)  # where "play again" looks next
    definition = registry.load(ad.game)
    identity = load_identity()
    name = args.name or player_name()
    print(f"joining {definition.title} table {ad.table_id.hex()} at {ad.address}:{ad.port} "
          f"(opened by {ad.fingerprint}), {ad.seats_taken}/{ad.seats_total} seated", flush=True)
    box: list[Session] = []
    session = await join_table(ad, definition=definition, me=Me.fresh(identity, name[:64]),
                               interface=args.interface, root=data_dir(),
                               agent_for=_human(box, definition, args.ui),
                               config=_config(args, person=True),
                               events=_events(args, definition))
    box.append(session)
    _seated(args, session)
    print(f"you are seat {session.seat}; the game starts", flush=True)
    print(wrapped(_roster(session)), flush=True)
    print(wrapped(f"({talk_hint(session.definition)})", "  "), flush=True)
    await session.run()
    return _finish(session, ui=args.ui)


async def _bot_peer(args: argparse.Namespace, index: int, results: list[int]) -> None:
    """One bot peer: its own identity, joins a table, plays to the end, writes its transcript."""
    entropy = SystemEntropy()
    identity = Identity(entropy.take(32))
    accept = _matches(args.table, args.game)
    played = 0
    while True:
        ad = await _find_table(args, accept, args.wait)
        if ad is None:
            if played:  # --again: the opener opened no next table
                print(f"bot {index}: no next table came; {played} games played", flush=True)
                return
            log.warning("bot %d found no open table", index)
            results.append(1)
            return
        definition = registry.load(ad.game)
        try:
            if args.bot is not None and args.bot not in definition.bots:
                raise ValueError(f"--bot: {definition.name} has bots "
                                 f"{', '.join(definition.bots)}")
            kind = (parse_levels(args, definition, args.count)[index]
                    if args.bot is None else args.bot)
        except ValueError as exc:  # a task's SystemExit would reach the person as a traceback
            if index == 0:
                print(f"spycraft bots: {exc}", file=sys.stderr, flush=True)
            results.append(2)
            return

        def agent_for(seat: int, kind: str = kind,
                      definition: registry.GameDefinition = definition) -> Agent:
            return Thinking(bot_levels.make(definition.bots, kind, entropy, seat, args.effort),
                            args.think)

        name = f"bot-{identity.fingerprint[:4]} ({kind})"
        try:
            session = await join_table(
                ad, definition=definition, me=Me.fresh(identity, name),
                interface=args.interface, root=data_dir(), agent_for=agent_for,
                config=_config(args,
                               instant_bot=args.think == 0 and not bot_levels.thinks(kind)),
                bot={"bot": kind, "think": str(args.think), "effort": str(args.effort)},
            )
        except LobbyError as exc:
            log.info("bot %d could not join %s: %s", index, ad.table_id.hex(), exc)
            await trio.sleep(0.2)
            continue
        async with trio.open_nursery() as nursery:
            if args.say:
                nursery.start_soon(_say_later, session, args.say)
            state = await session.run()
            nursery.cancel_scope.cancel()
        if args.out:  # always a folder: one transcript per seat
            write_transcript(session, args.out, folder=True)
        print(f"bot {index} (seat {session.seat}): "
              f"{state.result.describe() if state.result else 'unfinished'}", flush=True)
        dropped = session.protocol.chat.dropped_lines()
        if dropped:
            print(f"bot {index} (seat {session.seat}): {dropped}", flush=True)
        results.append(0 if state.result is not None else 1)
        played += 1
        if not args.again or state.result is None:
            return
        # the opener's play again: its next table, same game and options, proven its own
        accept = _matches(None, ad.game, ad.fingerprint, ad.options_digest)


SAY_AFTER = 3
"""Records a bot peer waits for before ``--say`` (so the whole table is linked)."""


async def _say_later(session: Session, text: str) -> None:
    """A bot peer's ``--say``: once the game is under way, say it (a ``|`` splits lines); in a
    game whose talk is off while it runs, say so once and keep quiet."""
    if not session.definition.talk_open(finished=False):
        print(f"bot (seat {session.seat}) says nothing: {talk_off_reason(session.definition.name)}",
              flush=True)
        return
    while session.state.seq < SAY_AFTER and not session.finished:
        await trio.sleep(0.05)
    for line in text.split("|"):
        try:
            session.say(line)
        except ChatRefused as refused:
            log.warning("bot could not say %r: %s", line, refused)


async def bots(args: argparse.Namespace) -> int:
    if not args.table:  # never sit down at a stranger's table uninvited
        print("spycraft bots: name the table to join with --table ID (a prefix is enough; "
              "`spycraft tables` lists them)", file=sys.stderr)
        return 2
    if args.bot is None:
        levels_for(args, registry.load(args.game) if args.game else None, args.count, "bots")
    print(f"{args.count} bot peer{'s' if args.count > 1 else ''} looking for table "
          f"{args.table} on {args.interface} (Ctrl-C to stop)", flush=True)
    results: list[int] = []
    async with trio.open_nursery() as nursery:
        for i in range(args.count):
            nursery.start_soon(_bot_peer, args, i, results)
            await trio.sleep(0.05)
    return max(results, default=0)


async def tables(args: argparse.Namespace) -> int:
    print(f"tables on {args.interface} ({interface_address(args.interface)}; Ctrl-C to stop):",
          flush=True)
    with trio.move_on_after(args.seconds if args.seconds is not None else float("inf")):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                mark = {"added": "+", "updated": "~", "removed": "-"}[ad.change]
                if ad.watching is None:
                    what = f"{ad.seats_taken}/{ad.seats_total} seats"
                    opener = f"{printable(ad.opener)} " if ad.opener else ""
                    who = f"opened by {opener}{ad.fingerprint}"
                    if ad.options:
                        who += f"; {describe_options(ad.options)}"
                else:
                    what = f"playing, {ad.watching} watching"
                    who = f"seat {ad.source} ({ad.fingerprint}): `spycraft watch` follows it"
                print(wrapped(f"{mark} {ad.table_id.hex()}  {ad.game:<15} {what}  "
                              f"{ad.address}:{ad.port}  {who}", hang=2), flush=True)
    return 0


@dataclass(frozen=True)
class Unfinished:
    """A stored game this machine could still play on: its folder, game, length and age."""

    store: GameStore
    game: str
    seat: int | None
    records: int
    age: float  # seconds since its last record was stored
    offline: bool = False  # a game against bots in this process (``cli.local_play``)

    over: bool = False  # its result is stored, not yet passed on to every seat

    def describe(self) -> str:
        who = "offline" if self.offline else "watching" if self.seat is None \
            else f"seat {self.seat}"
        end = ", over: its end not yet passed on" if self.over else ""
        return (f"{self.store.folder.name}  {self.game:<15} {who:<8} {self.records:4} records, "
                f"last {_ago(self.age)}{end}")


def _ago(seconds: float) -> str:
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count > 1 else ''} ago"
    return "just now"


def unfinished_games(root: Path) -> list[Unfinished]:
    """The stored games not yet over, as the seat file says: it is marked finished once the
    result is recorded and passed on (the session's linger), so a game whose result was stored
    just before a crash is resumed to pass its end on (the other seats may not hold it, or hold
    another seat's result for it, which must be settled to one transcript). A folder whose files
    cannot be read is left out (``doctor`` and the person can look at it)."""
    found = []
    now = time.time()
    for store in stored_games(root):
        try:
            seat_file = store.load_seat()
            transcript = store.load_transcript()
        except (OSError, SpycraftError, ValueError, KeyError, TypeError):
            continue
        if seat_file.finished:
            continue
        records = transcript.records if transcript is not None else ()
        path = store.transcript_path if transcript is not None else store.seat_path
        found.append(Unfinished(store, seat_file.game, seat_file.seat, len(records),
                                max(0.0, now - path.stat().st_mtime),
                                bool(seat_file.extra.get("offline")),
                                bool(records) and records[-1].record.kind == "result"))
    return found


def _discard(root: Path, games: list[Unfinished], prefix: str) -> int:
    """Move one unfinished game out of the way (into ``discarded/``, kept for an audit)."""
    chosen = [g for g in games if g.store.folder.name.startswith(prefix.lower())]
    if len(chosen) != 1:
        print(f"spycraft resume: {len(chosen)} unfinished games match {prefix!r}; "
              f"`spycraft resume --list` shows them", file=sys.stderr)
        return 2
    folder = chosen[0].store.folder
    target = root / "discarded" / folder.name
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.rename(target)
    print(f"discarded {folder.name} ({chosen[0].game}); its files are kept in {target}")
    return 0


def _pick(args: argparse.Namespace, games: list[Unfinished]) -> Unfinished | None:
    """The game to resume: the named one, or the only one where this machine holds a seat (a
    host without a seat is not needed for the game to go on); None after saying why not."""
    if args.table:
        games = [g for g in games if g.store.folder.name.startswith(args.table.lower())]
    elif len(games) > 1:
        seated = [g for g in games if g.seat is not None]
        games = seated if len(seated) == 1 else games
    if len(games) == 1:
        return games[0]
    if not games:
        named = f" matching {args.table!r}" if args.table else ""
        print(f"spycraft resume: no unfinished game{named} on this machine", file=sys.stderr)
        return None
    print(f"spycraft resume: {len(games)} unfinished games; name one (a prefix is enough), "
          f"or discard one with `spycraft resume --discard TABLE`:", file=sys.stderr)
    for game in sorted(games, key=lambda g: g.age):
        print(f"  {game.describe()}", file=sys.stderr)
    return None


def resume_command(args: argparse.Namespace) -> int:
    """``spycraft resume``: list or discard the stored games, or continue one: an offline game
    in this process (``cli.local_play``), a LAN game on the LAN (``resume``)."""
    games = unfinished_games(data_dir())
    if args.discard:
        return _discard(data_dir(), games, args.discard)
    if args.list:
        for game in sorted(games, key=lambda g: g.age):
            print(game.describe())
        if not games:
            print("no unfinished game on this machine")
        return 0
    chosen = _pick(args, games)
    if chosen is None:
        return 2
    if chosen.offline:
        from spycraft.cli import local_play

        return local_play.resume(chosen.store, args)
    args.chosen = chosen
    return _run(resume, args, choose_interface=False, person=True)


async def resume(args: argparse.Namespace) -> int:
    """Continue the stored LAN game ``resume_command`` chose (``args.chosen``)."""
    chosen: Unfinished = args.chosen
    store = chosen.store
    seat_file = store.load_seat()
    if args.interface is not None and args.interface != seat_file.interface:
        seat_file.interface = args.interface  # this machine's address may have changed
        store.save_seat(seat_file)
    try:
        find_interface(seat_file.interface)
    except DiscoveryError as exc:
        print(f"spycraft resume: the game was played on {seat_file.interface!r}, but {exc}; "
              f"pass --interface", file=sys.stderr)
        return 2
    definition = registry.load(seat_file.game)
    identity = Identity(seat_file.identity) if seat_file.identity else load_identity(create=False)
    entropy = SystemEntropy()
    box: list[Session] = []
    bot_kind = seat_file.extra.get("bot")
    think = float(seat_file.extra.get("think", 0))
    effort = int(seat_file.extra.get("effort", 1))
    agent_for = ((lambda seat: Thinking(bot_levels.make(definition.bots, bot_kind, entropy,
                                                       seat, effort), think))
                 if bot_kind else _human(box, definition, args.ui))
    bot_peers = [] if bot_kind else _resume_bots(args, seat_file.table)
    try:
        session = await resume_session(
            store, definition=definition, identity=identity, agent_for=agent_for,
            config=_config(args, instant_bot=bool(bot_kind) and think == 0
                           and not bot_levels.thinks(str(bot_kind)), person=not bot_kind),
            events=None if bot_kind else _events(args, definition))
    except BaseException:
        for process in bot_peers:
            _stop(process)
        raise
    box.append(session)
    _seated(args, session)
    print(f"resuming table {store.folder.name} as seat {session.seat} "
          f"at record {session.state.seq}", flush=True)
    await _run_with_bots(session, bot_peers)
    return _finish(session, ui=args.ui)



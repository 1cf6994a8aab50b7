"""Commands that need no network: selfplay, audit, replay.

Table talk: ``audit`` and ``replay`` read the chat file beside a transcript when there is one
(``chat_path``: ``g.chat.cbor`` beside ``g.cbor``, ``chat.cbor`` beside a game folder's
``transcript.cbor``). ``audit`` checks it (``crypto.chat.check_chat_log``) after the game and
fails on a message that does not check or that the game's talk rule forbids (SpyNet: no talk
before the result); ``replay`` shows each line after the record it was
tied to. A transcript without a chat file audits and replays as before.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spycraft.cli import app
from spycraft.crypto.encoding import item_length
from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import EncodingError, MalformedRecord, RecordError
from spycraft.crypto.records import Genesis, parse_genesis
from spycraft.crypto.text import printable
from spycraft.crypto.transcript import MAX_TRANSCRIPT_BYTES, Transcript
from spycraft.engines import bots, registry
from spycraft.engines.agent import Agent
from spycraft.engines.audit import Unreadable
from spycraft.engines.audit import audit as audit_bytes

if TYPE_CHECKING:  # imported where used: an audit needs neither the pager nor selfplay's table
    from spycraft.crypto.chat import ChatAudit


def game_options(definition: registry.GameDefinition, args: argparse.Namespace) -> dict[str, Any]:
    """The genesis options from the game's own flags (``cli.main.add_game_options``); a flag
    this game does not have, or a seat count it is not played with, is a usage error (exit 2)."""
    given: dict[str, Any] = {}
    for name in registry.option_names():
        value = getattr(args, f"option_{name}", None)
        if value not in (None, False):
            given[name] = value
    for variant in getattr(args, "variant", []) or []:
        given[variant.replace("-", "_")] = True
    players = args.players if args.players is not None else definition.rules.seat_counts[0]
    try:
        return definition.genesis_options(players, given)
    except ValueError as exc:
        print(f"spycraft: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def players_of(args: argparse.Namespace, definition: registry.GameDefinition) -> int:
    """The seat count asked for (the game's smallest by default), checked against the game."""
    players = args.players if args.players is not None else definition.rules.seat_counts[0]
    if players not in definition.rules.seat_counts:
        counts = definition.rules.seat_counts
        raise SystemExit(f"{definition.name} is played by {counts[0]} to {counts[-1]} players")
    return int(players)


def bot_agents(definition: registry.GameDefinition, spec: str, players: int,
               entropy: SeededEntropy, effort: int = 1) -> list[Agent]:
    kinds = spec.split(",")
    if len(kinds) == 1:
        kinds = kinds * players
    if len(kinds) != players or any(k not in definition.bots for k in kinds):
        raise SystemExit(f"--bots: give one of {', '.join(definition.bots)} or one per seat")
    return [bots.make(definition.bots, k, entropy.child(f"bot/{i}"), i, effort)
            for i, k in enumerate(kinds)]


def selfplay(args: argparse.Namespace) -> int:
    from spycraft.cli.levels import levels_for
    from spycraft.cli.lines import Lines, wrapped
    from spycraft.cli.outcome import verdict
    from spycraft.engines.local import new_local_table

    definition = registry.load(args.game)
    try:
        options = game_options(definition, args)
    except ValueError as exc:
        print(f"spycraft selfplay: {exc}", file=sys.stderr)
        return 2
    players = players_of(args, definition)
    entropy = SeededEntropy(args.seed)
    local = new_local_table(definition, options, players, entropy.child("table"))
    kinds = (",".join(levels_for(args, definition, players, "selfplay")) if args.level
             else args.bots)
    agents = bot_agents(definition, kinds, players, entropy, args.effort)

    lines = Lines(definition)
    before = [local.state]  # the table before the record being told

    def show(signed: Any, state: Any) -> None:
        if not args.quiet:
            line = lines.history(before[0], signed, state, indent=f"{signed.seq:4} ")
            if line:
                print(line)
        before[0] = state

    state = local.run(agents, on_record=show)
    if args.out:
        path = out_path(args.out, f"{definition.name}-seed{args.seed}.cbor")
        if not write_out(path, local.transcript.to_bytes()):
            return 1
        print(f"transcript: {path} ({len(local.records)} records)")
    print(wrapped(verdict(definition, state, None)))
    return 0


def out_path(out: str, name: str) -> Path:
    """Where ``--out OUT`` puts a transcript: OUT itself, or OUT/``name`` when OUT is a folder
    (one that exists, or a path that ends with a separator)."""
    path = Path(out)
    if out.endswith(("/", os.sep)) or path.is_dir():
        return path / name
    return path


def write_out(path: Path, data: bytes) -> bool:
    """Write a transcript (or its table talk) where ``--out`` said, its folders made; False
    after saying in one line why it could not be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        print(f"spycraft: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def read_file(path: str) -> bytes | None:
    """A transcript file, read no further than its size limit plus one byte (so ``/dev/zero``
    or a huge file is refused without filling the memory)."""
    limit = MAX_TRANSCRIPT_BYTES
    try:
        with Path(path).open("rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        print(f"spycraft: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None
    if len(data) > limit:
        print(f"spycraft: {path} is larger than a transcript may be ({limit} bytes)",
              file=sys.stderr)
        return None
    return data


TRANSCRIPT_HEAD = b"\xd8\x62"  # CBOR tag 98: the COSE_Sign genesis every transcript opens with


def not_a_transcript(path: str, data: bytes) -> str | None:
    """Why ``data`` is no spycraft transcript at all, in words (None when it begins as one: a
    broken transcript is the audit's to describe, record by record)."""
    if data.startswith(TRANSCRIPT_HEAD):
        return None
    if not data:
        what = "the file is empty"
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        what = "it is a text file" if text is not None and printable_text(text) else \
            "it does not begin with a table's signed genesis"
    return (f"{path} is not a spycraft transcript: {what} (a transcript is the file a game "
            f"writes: --out, or transcript.cbor in the game's folder)")


def printable_text(text: str) -> bool:
    return all(c.isprintable() or c in "\t\r\n" for c in text)


def chat_path(transcript: Path) -> Path:
    """Where the table talk of a transcript file is kept: ``chat.cbor`` beside a game folder's
    ``transcript.cbor``, else ``g.chat.cbor`` beside ``g.cbor``."""
    if transcript.name == "transcript.cbor":
        return transcript.with_name("chat.cbor")
    return transcript.with_name(transcript.name.removesuffix(".cbor") + ".chat.cbor")


def read_chat(transcript: Path, genesis: Genesis, head: int,
              result_at: int | None = None) -> ChatAudit | None:
    """The check of the chat file beside ``transcript``, or None when there is none; with the
    game's talk rule too (``result_at``: the seq of the result record, None if unfinished)."""
    path = chat_path(transcript)
    if not path.exists():
        return None
    from spycraft.crypto.chat import ChatAudit, check_chat_log
    from spycraft.p2p.chat import talk_rule

    try:
        data = path.read_bytes()
    except OSError as exc:
        return ChatAudit(problems=[f"cannot read {path}: {exc.strerror or exc}"])
    report = check_chat_log(data, genesis, head)
    talk, title = talk_rule(genesis.game)
    for line in report.lines:
        if talk == registry.TALK_ALWAYS or (result_at is not None and line.seen >= result_at):
            continue
        report.problems.append(
            f"chat message {line.counter} of seat {line.seat}: said while table talk is off "
            f"in {title} (tied to record {line.seen}, before the result)")
    return report


def _genesis_of(data: bytes) -> Genesis | None:
    try:
        return parse_genesis(data[: item_length(data, 0)]).genesis
    except (EncodingError, MalformedRecord):
        return None


def audit(args: argparse.Namespace) -> int:
    data = read_file(args.file)
    if data is None:
        return 2
    why = not_a_transcript(args.file, data)
    if why is not None:
        print(f"UNREADABLE {why}")
        return 2
    try:
        report = audit_bytes(data)
    except Unreadable as exc:
        print(f"UNREADABLE {args.file}: {exc}")
        return 2
    print(report.describe())
    genesis = _genesis_of(data)
    result_at = report.records if report.result is not None else None
    chat = None if genesis is None else read_chat(Path(args.file), genesis, report.records,
                                                  result_at)
    if chat is not None:
        print(chat.describe())
    return 0 if report.valid and (chat is None or chat.valid) else 1


def replay(args: argparse.Namespace) -> int:
    from spycraft.cli.lines import Lines, wrapped
    from spycraft.cli.pager import Pager, Stopped

    data = read_file(args.file)
    if data is None:
        return 2
    why = not_a_transcript(args.file, data)
    if why is not None:
        print(f"spycraft replay: {why}")
        return 2
    try:
        transcript = Transcript.from_bytes(data)
    except MalformedRecord as exc:
        print(f"UNREADABLE {args.file}: {exc}")
        return 2
    genesis = transcript.genesis.genesis
    try:
        definition = registry.load(genesis.game)
    except KeyError as exc:
        print(f"spycraft replay: {exc}")
        return 1
    if args.seat is not None and not 0 <= args.seat < len(genesis.seats):
        print(f"spycraft replay: no seat {args.seat} (seats 0..{len(genesis.seats) - 1})")
        return 2
    table = definition.table()
    viewer = args.seat
    states = [table.start(transcript.genesis)]
    problem: RecordError | None = None
    for signed in transcript.records:
        try:
            states.append(table.apply(states[-1], signed))
        except RecordError as exc:
            problem = exc
            break
    if app.wanted(args) and not args.all and not args.brief:
        from spycraft.cli.app.replay import ReplayApp

        names = [seat.name for seat in genesis.seats]
        replay_app = ReplayApp(definition, states, transcript.records, names, _page_of,
                               str(problem) if problem is not None else None)
        replay_app.viewer = viewer
        replay_app.run()
        return 1 if problem is not None else 0
    games = [s.game for s in states]
    lines = Lines(definition)
    if problem is not None:
        viewer = None  # what a seat knew is read from a whole transcript: the public picture
    views = lines.painter.seen_by(states, viewer)
    finished = problem is None and states[-1].result is not None
    chat = read_chat(Path(args.file), genesis, len(transcript.records),
                     len(transcript.records) if finished else None)
    talk: dict[int, list[str]] = {}
    for said in chat.lines if chat is not None else []:
        name = printable(genesis.seats[said.seat].name)
        talk.setdefault(said.seen, []).append(
            wrapped(f"{name} (seat {said.seat}): {printable(said.text)}", "     > "))
    pager = Pager(args.all)
    try:
        pager.say(wrapped(f"{definition.title}, table {genesis.table.hex()}"))
        for i, seat in enumerate(genesis.seats):
            pager.say(wrapped(f"seat {i}: {printable(seat.name)} [{seat.fingerprint}]", "  "))
        for said_line in talk.get(0, []):
            pager.say(said_line)
        told = False  # a line of history since the last board
        for i, signed in enumerate(transcript.records[: len(states) - 1], start=1):
            if _page_of(games[i]) != _page_of(games[i - 1]):
                if told and not args.brief:  # the board as the round left it
                    pager.say(lines.board(states[i - 1], viewer, views[i - 1]))
                told = False
                pager.turn()
            line = lines.history(states[i - 1], signed, states[i], indent=f"{signed.seq:4} ")
            if line:
                pager.say(line)
                told = True
            for said_line in talk.get(signed.seq, []):
                pager.say(said_line)
        if chat is not None and not chat.valid:
            pager.say(chat.describe())
        if problem is not None:
            pager.say(f"replay stops: {problem}")
            return 1
        state = states[-1]
        pager.say(lines.board(state, viewer, views[-1]))
        if state.result is not None:
            pager.say(wrapped(f"result: {state.result.describe()}"))
    except Stopped:
        return 0
    return 0


def _page_of(game: Any) -> tuple[Any, ...]:
    """Where a game stands, as far as a page of the replay goes: its round (or day and step),
    read from the game state or the rules' state inside it (The Resistance's ``game``). A game
    that counts turns (Confusion: its step is a phase of one turn) pages by turn, as its screen
    says "turn N"."""
    turn = getattr(game, "turn_no", None)
    if turn is not None:
        return (turn,)
    page = tuple(getattr(game, name, None) for name in ("round", "day", "step"))
    inner = getattr(game, "game", None)
    if all(p is None for p in page) and inner is not None:
        return _page_of(inner)
    return page

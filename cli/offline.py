"""Commands that need no network: selfplay, audit, replay."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import MalformedRecord, RecordError
from spycraft.crypto.transcript import Transcript
from spycraft.engines import registry
from spycraft.engines.agent import Agent
from spycraft.engines.audit import Unreadable, audit as audit_bytes
from spycraft.engines.local import new_local_table


def game_options(definition: registry.GameDefinition, args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if args.players is not None:
        kwargs["players"] = args.players
    if getattr(args, "plot", False):
        kwargs["plot"] = True
    for variant in getattr(args, "variant", []) or []:
        kwargs[variant.replace("-", "_")] = True
    return definition.options(**kwargs)


def players_of(options: dict[str, Any], definition: registry.GameDefinition) -> int:
    return int(options.get("players", definition.rules.seat_counts[0]))


def bot_agents(definition: registry.GameDefinition, spec: str, players: int,
               entropy: SeededEntropy) -> list[Agent]:
    kinds = spec.split(",")
    if len(kinds) == 1:
        kinds = kinds * players
    if len(kinds) != players or any(k not in definition.bots for k in kinds):
        raise SystemExit(f"--bots: give one of {', '.join(definition.bots)} or one per seat")
    return [definition.bots[k](entropy.child(f"bot/{i}"), i) for i, k in enumerate(kinds)]


def selfplay(args: argparse.Namespace) -> int:
    definition = registry.load(args.game)
    try:
        options = game_options(definition, args)
    except ValueError as exc:
        print(f"spycraft selfplay: {exc}", file=sys.stderr)
        return 2
    players = players_of(options, definition)
    entropy = SeededEntropy(args.seed)
    local = new_local_table(definition, options, players, entropy.child("table"))
    agents = bot_agents(definition, args.bots, players, entropy)

    def show(signed: Any, state: Any) -> None:
        if not args.quiet:
            print(f"{signed.seq:4} {definition.narrate(None, signed.record, state.game)}")

    state = local.run(agents, on_record=show)
    if args.out:
        Path(args.out).write_bytes(local.transcript.to_bytes())
        print(f"transcript: {args.out} ({len(local.records)} records)")
    assert state.result is not None
    print(f"result: {state.result.describe()}")
    return 0


def read_file(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        print(f"spycraft: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None


def audit(args: argparse.Namespace) -> int:
    data = read_file(args.file)
    if data is None:
        return 2
    try:
        report = audit_bytes(data)
    except Unreadable as exc:
        print(f"UNREADABLE {args.file}: {exc}")
        return 2
    print(report.describe())
    return 0 if report.valid else 1


def replay(args: argparse.Namespace) -> int:
    data = read_file(args.file)
    if data is None:
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
    print(f"{definition.title}, table {genesis.table.hex()}")
    for i, seat in enumerate(genesis.seats):
        print(f"  seat {i}: {seat.name} [{seat.fingerprint}]")
    state = table.start(transcript.genesis)
    viewer = args.seat
    try:
        for signed in transcript.records:
            before = state
            state = table.apply(state, signed)
            line = definition.narrate(before.game, signed.record, state.game)
            if line:
                print(f"{signed.seq:4} {line}")
            if line and not args.brief and signed.record.kind not in ("beacon", "result"):
                print(definition.render(state.game, viewer))
    except RecordError as exc:
        print(f"replay stops: {exc}")
        return 1
    print(definition.render(state.game, viewer))
    if state.result is not None:
        print(f"result: {state.result.describe()}")
    return 0

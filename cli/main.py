"""The ``spycraft`` command: argparse entry points.

Offline commands (selfplay, audit, replay) live in ``cli.offline``; the LAN commands (play, host,
join, bots, tables, resume) in ``cli.lan``; ``watch`` in ``cli.watch``; ``doctor`` in
``cli.doctor``; ``rules`` (the player guides) in ``cli.guide``. Exit codes: 0 success, 1 a
failed audit or game error, 2 bad usage or an unreadable file.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Sequence

from spycraft.cli.levels import add_level_options
from spycraft.cli.tui import PlayerLeft
from spycraft.engines.registry import game_names, load, option_names


def add_game_options(p: argparse.ArgumentParser) -> None:
    """--players, and one flag per option that some game declares (``rules.options``)."""
    p.add_argument("--players", type=int, default=None, help="number of seats (game default)")
    yes_no = []
    for name in option_names():
        users = [(g, o) for g in game_names() for o in load(g).flags if o.name == name]
        text = "; ".join(f"{g}: {o.help}" for g, o in users)
        choices = sorted({c for _, o in users for c in o.choices})
        if choices:
            p.add_argument(users[0][1].flag, dest=f"option_{name}", choices=choices, help=text)
        else:
            yes_no.append(name)
            p.add_argument(users[0][1].flag, dest=f"option_{name}", action="store_true", help=text)
    p.add_argument("--variant", action="append", default=[],
                   choices=[n.replace("_", "-") for n in yes_no],
                   help="any yes/no option by name (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spycraft", description="Spy board games on the LAN, "
                                     "with no server and nobody trusted.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("selfplay", help="all seats bots, in one process; writes the transcript")
    p.add_argument("game", choices=game_names())
    p.add_argument("--seed", type=int, default=0, help="every secret derives from this seed")
    p.add_argument("--out", help="write the transcript to this file, or into this folder as "
                   "GAME-seedN.cbor")
    p.add_argument("--bots", default="heuristic", help="bot kind, or a comma list, one per seat")
    add_level_options(p)
    p.add_argument("--quiet", action="store_true", help="print only the result")
    add_game_options(p)

    p = sub.add_parser("audit", help="re-check a transcript offline")
    p.add_argument("file")

    p = sub.add_parser("replay", help="show a game turn by turn")
    p.add_argument("file")
    p.add_argument("--as", dest="seat", type=int, default=None, help="as this seat saw it")
    p.add_argument("--brief", action="store_true", help="one line per record, no boards")
    p.add_argument("--all", action="store_true",
                   help="everything at once (in a terminal: a round at a time, Enter goes on)")
    p.add_argument("--line", action="store_true",
                   help="pages of text instead of the full-screen table (as when piped)")

    from spycraft.cli import doctor, guide, lan, watch

    lan.add_commands(sub, add_game_options)
    watch.add_command(sub)
    doctor.add_command(sub)
    guide.add_command(sub)
    COMMANDS.clear()
    COMMANDS.update(sub.choices)
    return parser


COMMANDS: dict[str, argparse.ArgumentParser] = {}
"""Each subcommand's own parser (``build_parser`` fills it): its usage is the one a mistyped
flag of that command is answered with."""


def parse(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """The command line, or exit 2 with the usage of the command whose flag was mistyped (not
    the top level's) and the flag it was probably meant to be."""
    args, extra = parser.parse_known_args(words)
    if extra:
        command = COMMANDS.get(args.command, parser)
        flags = [flag for action in command._actions for flag in action.option_strings]
        guesses = [difflib.get_close_matches(word.split("=")[0], flags, n=1)
                   for word in extra if word.startswith("-")]
        meant = sorted({g[0] for g in guesses if g})
        hint = f" (did you mean {' or '.join(meant)}?)" if meant else ""
        command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        from spycraft.cli import app

        if app.wanted():  # a person at a terminal: the lobby chooses the command
            chosen = lobby()
            if chosen is None:
                return 130
            words = list(chosen)
    args = parse(parser, words)
    from spycraft.cli import doctor, guide, lan, offline, watch

    handlers = {
        "selfplay": offline.selfplay,
        "audit": offline.audit,
        "replay": offline.replay,
        "doctor": doctor.run,
        "watch": watch.run,
        "rules": guide.show,
    }
    handlers.update(lan.handlers())
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        return left(args, "interrupted (Ctrl-C)", 130)
    except PlayerLeft:
        return left(args, "end of input", 1)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's last flush is silent too
        return 0


def lobby() -> tuple[str, ...] | None:
    """``spycraft`` alone at a terminal: the lobby's choice, or None when the person left (said
    in one line)."""
    from spycraft.cli.app.lobby import LobbyApp, where_to_browse

    interface, where = where_to_browse()
    try:
        return LobbyApp(interface, where).run()
    except (KeyboardInterrupt, EOFError) as why:
        said = "Ctrl-C" if isinstance(why, KeyboardInterrupt) else "end of input"
        print(f"spycraft: left the lobby ({said})", file=sys.stderr)
        return None


def left(args: argparse.Namespace, why: str, code: int) -> int:
    """One line for a person who left a command: why, and where a started game is kept."""
    folder = getattr(args, "stored", None)
    kept = f"; the game is saved: `spycraft resume {folder}` continues it" if folder else ""
    print(f"spycraft {args.command}: left, {why}{kept}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())

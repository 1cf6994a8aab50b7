"""The ``spycraft`` command: argparse entry points.

Offline commands (selfplay, audit, replay) live in ``cli.offline``; the LAN commands (play, host,
join, bots, tables, resume) in ``cli.lan``; ``watch`` in ``cli.watch``; ``doctor`` in
``cli.doctor``; ``rules`` (the player guides) in ``cli.guide``. Exit codes: 0 success, 1 a
failed audit or game error, 2 bad usage or an unreadable file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from spycraft.cli import commands
from spycraft.cli.app import PlayerLeft
from spycraft.engines.registry import about, game_names, option_names


def add_game_options(p: argparse.ArgumentParser) -> None:
    """--players, and one flag per option that some game declares (``ABOUT.options``, the same
    as its engine's ``rules.options``, read without importing the engine)."""
    p.add_argument("--players", type=int, default=None, help="number of seats (game default)")
    yes_no = []
    for name in option_names():
        users = [(g, o) for g in game_names() for o in about(g).options if o.name == name]
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


EVERY = "*"
"""``build_parser``'s default: every command with all its arguments (for tests and tools)."""


class _Unused:
    """Where the arguments of a command that is not run are declared: nowhere."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Commands:
    """The subcommands as ``chosen`` needs them: a command run has its own parser alone (the
    top level only dispatches to it; declaring the other commands would cost it ~10 ms, as
    much as the rest of ``spycraft rules``); with none chosen (``spycraft --help``, a mistyped
    command), every command is listed with its one-line help, without its arguments; ``EVERY``:
    every command with its arguments."""

    def __init__(self, sub: Any, chosen: str) -> None:
        self.sub, self.chosen = sub, chosen

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if self.chosen in (EVERY, name):
            return self.sub.add_parser(name, **kwargs)
        if not self.chosen:
            self.sub.add_parser(name, **kwargs)
        return _Unused()


def chosen_command(words: Sequence[str]) -> str:
    """The command a command line runs (its first word, when that is one), or "" for none
    (``spycraft --help``, a mistyped command): the top level has no options but ``-h``."""
    return words[0] if words and words[0] in NAMES else ""


def build_parser(chosen: str = EVERY) -> argparse.ArgumentParser:
    """The command line; ``chosen``: the one command whose arguments are declared (the rest
    only named), by default every one."""
    parser = argparse.ArgumentParser(prog="spycraft", description="Spy board games on the LAN, "
                                     "with no server and nobody trusted.")
    real = parser.add_subparsers(dest="command", required=True)
    sub = _Commands(real, chosen)

    p = sub.add_parser("selfplay", help="all seats bots, in one process; writes the transcript")
    p.add_argument("game", choices=game_names())
    p.add_argument("--seed", type=commands.whole(0), default=0,
                   help="every secret derives from this seed")
    p.add_argument("--out", help="write the transcript to this file, or into this folder as "
                   "GAME-seedN.cbor")
    p.add_argument("--bots", default="heuristic", help="bot kind, or a comma list, one per seat")
    commands.add_level_options(p)
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

    commands.add_lan(sub, add_game_options)
    commands.add_watch(sub)
    commands.add_doctor(sub)
    commands.add_rules(sub)
    COMMANDS.clear()
    COMMANDS.update(real.choices)
    return parser


COMMANDS: dict[str, argparse.ArgumentParser] = {}
"""Each subcommand's own parser (``build_parser`` fills it): its usage is the one a mistyped
flag of that command is answered with."""


def parse(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """The command line, or exit 2 with the usage of the command whose flag was mistyped (not
    the top level's) and the flag it was probably meant to be."""
    args, extra = parser.parse_known_args(words)
    if extra:
        import difflib

        command = COMMANDS.get(args.command, parser)
        flags = [flag for action in command._actions for flag in action.option_strings]
        guesses = [difflib.get_close_matches(word.split("=")[0], flags, n=1)
                   for word in extra if word.startswith("-")]
        meant = sorted({g[0] for g in guesses if g})
        hint = f" (did you mean {' or '.join(meant)}?)" if meant else ""
        command.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        from spycraft.cli import app

        if app.wanted():  # a person at a terminal: the lobby chooses the command
            chosen = lobby()
            if chosen is None:
                return 130
            words = list(chosen)
    args = parse(build_parser(chosen_command(words)), words)
    try:
        return handler(args.command)(args)
    except KeyboardInterrupt:
        return left(args, "interrupted (Ctrl-C)", 130)
    except PlayerLeft:
        return left(args, "end of input", 1)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's last flush is silent too
        return 0
    except Exception as exc:
        # A full disk under a game played offline (the LAN commands say so themselves): the
        # store's module is loaded by then, and only then can this be its error.
        storage = sys.modules.get("spycraft.p2p.storage")
        if storage is None or not isinstance(exc, storage.StorageError):
            raise
        return stopped(args, exc)


OFFLINE = ("selfplay", "audit", "replay")
LAN = ("play", "host", "join", "bots", "tables", "resume")
NAMES = frozenset((*OFFLINE, *LAN, "watch", "doctor", "rules"))
"""Every command (``handler`` runs each; a test holds this equal to ``build_parser``'s)."""


def handler(command: str) -> Callable[[argparse.Namespace], int]:
    """What runs ``command``, its module imported only now: an offline command imports neither
    trio nor zeroconf, and only ``replay``, ``rules`` at a terminal and the LAN commands of a
    person import prompt-toolkit (for the full-screen table or the pager)."""
    if command in OFFLINE:
        from spycraft.cli import offline

        run: Callable[[argparse.Namespace], int] = getattr(offline, command)
        return run
    if command in LAN:
        from spycraft.cli import lan

        return lan.handlers()[command]
    if command == "doctor":
        from spycraft.cli import doctor

        return doctor.run
    if command == "watch":
        from spycraft.cli import watch

        return watch.run
    from spycraft.cli import guide  # rules

    return guide.show


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


def stopped(args: argparse.Namespace, error: Exception) -> int:
    """A game's files could not be written (the disk is full): the command stopped at once,
    its files as they were before the failed write; one line says so, and how to go on."""
    folder = getattr(args, "stored", None)
    resume = f"spycraft resume {folder}" if folder else "spycraft resume"
    say(f"spycraft {args.command}: stopped: {error}; once the disk has room again, "
        f"`{resume}` continues the game")
    return 1


def say(line: str) -> None:
    """One line to stderr: whole where it is read by a program (a log, a test), set in words
    for the width where a person reads it at a terminal (not cut inside a word)."""
    if sys.stderr.isatty():
        from spycraft.cli.lines import wrapped

        line = wrapped(line)
    print(line, file=sys.stderr)


def left(args: argparse.Namespace, why: str, code: int) -> int:
    """One line for a person who left a command: why, and where a started game is kept."""
    folder = getattr(args, "stored", None)
    kept = f"; the game is saved: `spycraft resume {folder}` continues it" if folder else ""
    say(f"spycraft {args.command}: left, {why}{kept}")
    return code


if __name__ == "__main__":
    sys.exit(main())

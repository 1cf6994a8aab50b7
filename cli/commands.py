"""The arguments of the network commands (play, host, join, bots, tables, resume, watch, doctor)
and of ``rules``.

They are declared here, apart from the code that runs them (``cli.lan``, ``cli.watch``,
``cli.doctor``, ``cli.guide``), so that building the command line imports neither trio nor
zeroconf nor prompt-toolkit nor the guides' typesetting: ``spycraft --help`` and the offline
commands start without them, and each command imports what it runs only once it is chosen
(``cli.main.handler``).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from spycraft.engines import registry

TURN_TIMEOUT_SECONDS = (1, 86_400)
"""What a genesis holds (``p2p.seating.MIN_TURN_TIMEOUT_MS`` to
``crypto.records.MAX_TURN_TIMEOUT_MS``), in seconds: said here so that the parser imports
neither (a test holds them equal)."""


def seconds(text: str) -> float:
    """A number of seconds, 0 or more (argparse's ``type``: a bad one is a usage error, not a
    traceback where a clock is set)."""
    return _number(text, 0, math.inf, "a number of seconds, 0 or more")


def turn_timeout(text: str) -> float:
    low, high = TURN_TIMEOUT_SECONDS
    return _number(text, low, high, f"a number of seconds from {low} to {high}")


def whole(low: int) -> Callable[[str], int]:
    """A whole number, ``low`` or more."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"a whole number, {low} or more (not {value})")
        return value

    return parse


def table_prefix(text: str) -> str:
    """A table id or its first digits, as ``spycraft tables`` shows it (hex, any case)."""
    if not 1 <= len(text) <= 32 or any(c not in "0123456789abcdef" for c in text.lower()):
        raise argparse.ArgumentTypeError(
            f"a table id is hex digits (0-9, a-f; a prefix is enough), as `spycraft tables` "
            f"shows it, not {text!r}")
    return text.lower()


def fingerprint(text: str) -> str:
    """A player's fingerprint as people write it (any case, dashes or none): 20 letters and
    digits 2-7, in the alphabet ``crypto.identity.fingerprint`` writes."""
    letters = plain_fingerprint(text)
    if len(letters) != 20 or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in letters):
        raise argparse.ArgumentTypeError(
            f"a fingerprint is 20 letters and digits 2-7 in groups of four, as `spycraft "
            f"tables` shows it (e.g. K7QF-2MZD-XH4A-7TNB-C3PW), not {text!r}")
    return text


def plain_fingerprint(text: str) -> str:
    """A fingerprint as compared: no dashes, upper case."""
    return text.replace("-", "").upper()


def _number(text: str, low: float, high: float, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise argparse.ArgumentTypeError(f"{what} (not {text})")
    return value


def add_net_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--interface", default=None,
                   help="IPv4 address or interface name to announce, browse and play on "
                        "(default: the interface of the default route, or the only LAN "
                        "interface; `spycraft doctor` lists them)")
    p.add_argument("--turn-timeout", type=turn_timeout, default=300.0,
                   help="seconds a seat may take before it is declared absent (default 300)")
    p.add_argument("--answer-delay", type=seconds, default=3.0,
                   help="in games where an answer's timing could tell who decided it "
                        "(Confusion's Double Agent), every answer of this seat, a person's or "
                        "a bot's, asked or forced, leaves this many seconds after the question, "
                        "or when given if that is later (default 3)")
    p.add_argument("-v", "--verbose", action="count", default=0)


def add_line_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--line", action="store_true",
                   help="the line prompt instead of the full-screen table (as when piped)")


def add_level_options(p: argparse.ArgumentParser) -> None:
    """``--level`` and ``--effort`` (``cli.levels`` reads them)."""
    p.add_argument("--level", default=None,
                   help="how strong the bots play: easy, normal (default) or expert (where the "
                        "game has one); one for all bot seats, or a comma list, one per bot seat")
    p.add_argument("--effort", type=whole(1), default=1,
                   help="expert bots do this many times their usual work per decision "
                        "(default 1)")


def add_lan(sub: Any, add_game_options: Callable[[argparse.ArgumentParser], None]) -> None:
    games = registry.game_names()

    p = sub.add_parser("play", help="open a table on the LAN and take a seat")
    p.add_argument("game", choices=games)
    p.add_argument("--bots", type=whole(0), default=0, help="bot peers to start on this machine")
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--offline", action="store_true",
                   help="no network: you and bots in this one process")
    add_level_options(p)
    add_game_options(p)
    add_line_option(p)
    add_net_options(p)

    p = sub.add_parser("host", help="open a table on the LAN without taking a seat")
    p.add_argument("game", choices=games)
    p.add_argument("--bots", type=whole(0), default=0, help="bot peers to start on this machine")
    p.add_argument("--out", help="write the finished transcript to this file, or into this "
                   "folder as TABLE.cbor")
    add_level_options(p)
    add_game_options(p)
    add_line_option(p)
    add_net_options(p)

    p = sub.add_parser("join", help="take a seat at a table on the LAN")
    p.add_argument("table", nargs="?", type=table_prefix, help="table id (a prefix is enough)")
    p.add_argument("--opener", default=None, metavar="FINGERPRINT", type=fingerprint,
                   help="a table opened by this player (its fingerprint, as `spycraft tables` "
                        "shows it; checked when joining)")
    p.add_argument("--name", default=None)
    p.add_argument("--wait", type=seconds, default=30.0, help="seconds to look for a table")
    add_line_option(p)
    add_net_options(p)

    p = sub.add_parser("bots", help="bot peers that join a table and play to the end")
    p.add_argument("--count", type=whole(1), default=1)
    p.add_argument("--game", choices=games, default=None)
    p.add_argument("--table", default=None, type=table_prefix,
                   help="the table to join (id prefix); required")
    p.add_argument("--out", default=None, help="folder for the finished transcripts")
    p.add_argument("--bot", default=None, help="bot kind (a level, or random)")
    add_level_options(p)
    p.add_argument("--wait", type=seconds, default=60.0, help="seconds to look for a table")
    p.add_argument("--think", type=seconds, default=0.0,
                   help="seconds each bot takes over a decision, as a person would")
    p.add_argument("--say", default=None,
                   help="once the game is under way, each bot says this at the table "
                        "(a | separates lines)")
    p.add_argument("--again", action="store_true",
                   help="after each game, take a seat at the next table the same player opens "
                        "for the same game and options (its play again), until none comes")
    add_net_options(p)

    p = sub.add_parser("tables", help="a live list of the tables on the LAN")
    p.add_argument("--seconds", type=seconds, default=None, help="stop after this long")
    add_net_options(p)

    p = sub.add_parser("resume", help="continue an unfinished game stored on this machine")
    p.add_argument("table", nargs="?",
                   help="table id (a prefix); default: the only unfinished game")
    p.add_argument("--list", action="store_true",
                   help="list the unfinished games on this machine, newest first")
    p.add_argument("--discard", metavar="TABLE", default=None,
                   help="put an unfinished game away for good (its files are kept aside)")
    add_line_option(p)
    add_net_options(p)


def add_watch(sub: Any) -> None:
    p = sub.add_parser("watch", help="follow a table in play as a spectator")
    p.add_argument("table", nargs="?", type=table_prefix,
                   help="table id (a prefix is enough); default: the first")
    p.add_argument("--wait", type=seconds, default=30.0, help="seconds to look for the table")
    p.add_argument("--seat", type=whole(0), default=None,
                   help="watch through this seat first (default: the least watched)")
    p.add_argument("--out", default=None,
                   help="write the transcript to this file at the end, or into this folder as "
                        "TABLE.cbor (and the table talk beside it)")
    add_line_option(p)
    add_net_options(p)


def add_doctor(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check that this machine can find and play LAN tables, "
                       "and say how to fix what stops it")
    p.add_argument("--interface", default=None,
                   help="IPv4 address or interface name to check (default: the one a game "
                        "would choose)")
    p.add_argument("--wait", type=seconds, default=None,
                   help="seconds to listen for other machines running the doctor "
                        "(default 3, or 30 with --peers)")
    p.add_argument("--peers", type=whole(0), default=0,
                   help="require hearing and reaching this many other machines that run "
                        "`spycraft doctor` at the same time")


def add_rules(sub: Any) -> None:
    p = sub.add_parser("rules", help="how to play a game: its rules, written for players")
    p.add_argument("game", choices=registry.game_names())
    p.add_argument("--all", action="store_true",
                   help="print everything at once, as plain text (in a terminal the guide is "
                   "shown in a pager: arrows, PgUp/PgDn, space, q)")

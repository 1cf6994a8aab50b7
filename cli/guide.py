"""The player guides: each game's rules written for players, and ``spycraft rules GAME``.

Theory of operation: a guide is a Markdown file shipped as package data beside this module,
``cli/guides/<game>.md`` (setup.py's ``package_data``), read through ``importlib.resources`` so
it is found the same way from the source tree, an editable install or a wheel. The product never
reads the normative rulebooks; the guides are written from them for people. ``guide`` never
fails: for a game without a guide it returns a line that says so. ``show`` prints a guide, a
section at a time in a terminal (``cli.pager``), all at once into a pipe.
"""

from __future__ import annotations

import argparse
from importlib import resources
from importlib.resources.abc import Traversable

from spycraft.cli.pager import Pager, Stopped
from spycraft.engines.registry import game_names, load

FOLDER = "guides"


def guide_file(game: str) -> Traversable:
    """Where ``game``'s guide lives in the installed package (it may not exist)."""
    return resources.files("spycraft.cli") / FOLDER / f"{game}.md"


def has_guide(game: str) -> bool:
    return game in game_names() and guide_file(game).is_file()


def guide(game: str) -> str:
    """The player guide of ``game``, or one line saying why there is none."""
    if game not in game_names():
        return f"There is no game called {game!r}; the games are {', '.join(game_names())}."
    try:
        return guide_file(game).read_text(encoding="utf-8")
    except OSError:
        title = load(game).title
        return (
            f"No player guide for {title} is installed: this copy of spycraft lacks the file "
            f"{FOLDER}/{game}.md (reinstall spycraft)."
        )


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="how to play a game: its rules, written for players")
    p.add_argument("game", choices=game_names())
    p.add_argument("--all", action="store_true",
                   help="everything at once (in a terminal: a section at a time, Enter goes on)")


def show(args: argparse.Namespace) -> int:
    """``spycraft rules GAME``: the guide, a section (``## ``) at a time in a terminal."""
    pager = Pager(args.all, "next section")
    try:
        for line in guide(args.game).splitlines():
            if line.startswith("## "):
                pager.turn()
            pager.say(line)
    except Stopped:
        return 0
    return 0 if has_guide(args.game) else 1

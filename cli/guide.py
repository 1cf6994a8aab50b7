"""The player guides: each game's rules written for players, and ``spycraft rules GAME``.

Theory of operation: a guide is a Markdown file shipped as package data beside this module,
``cli/guides/<game>.md`` (setup.py's ``package_data``), read through ``pkgutil.get_data`` (the
package's own loader, which costs ``spycraft rules`` less to import than ``importlib.resources``)
so it is found the same way from the source tree, an editable install or a wheel. The product never
reads the normative rulebooks; the guides are written from them for people. ``guide`` never
fails: for a game without a guide it returns a line that says so.

A guide is shown as formatted text, never as its Markdown source (``cli.markdown``):
``guide_lines`` sets it for a width (the application's help draws it), and ``show`` pages it
in a terminal (``cli.pager.page``: bold headings, laid-out tables, set again at every resize)
or prints it as plain text wrapped at words into a pipe, or with ``--all``.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import shutil
import sys

from spycraft.cli import markdown, typeset
from spycraft.cli.pager import page
from spycraft.cli.typeset import Line
from spycraft.engines.registry import about, game_names

FOLDER = "guides"


def guide_bytes(game: str) -> bytes | None:
    """The guide file of ``game`` as installed in the package, or None when there is none."""
    try:
        return pkgutil.get_data("spycraft.cli", f"{FOLDER}/{game}.md")
    except OSError:
        return None


def has_guide(game: str) -> bool:
    return game in game_names() and guide_bytes(game) is not None


def guide(game: str) -> str:
    """The player guide of ``game``, or one line saying why there is none."""
    if game not in game_names():
        return f"There is no game called {game!r}; the games are {', '.join(game_names())}."
    data = guide_bytes(game)
    if data is not None:
        return data.decode("utf-8")
    title = about(game).title
    return (
        f"No player guide for {title} is installed: this copy of spycraft lacks the file "
        f"{FOLDER}/{game}.md (reinstall spycraft)."
    )


def guide_lines(game: str, width: int, plain: bool = False) -> list[Line]:
    """The guide of ``game`` set as formatted text for ``width`` cells."""
    return markdown.render(guide(game), width, plain)


def guide_text(game: str, width: int) -> str:
    """The guide as plain text wrapped at ``width`` (for a pipe)."""
    return typeset.plain(guide_lines(game, width, plain=True))


def show(args: argparse.Namespace) -> int:
    """``spycraft rules GAME``: the guide in a pager at a terminal, else as plain text."""
    found = 0 if has_guide(args.game) else 1
    terminal = sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
    if terminal and not args.all:
        title = about(args.game).title if found == 0 else args.game
        page(lambda width: guide_lines(args.game, width), f"{title}: how to play")
        return found
    width = shutil.get_terminal_size((80, 24)).columns  # $COLUMNS, the terminal, else 80
    sys.stdout.write(guide_text(args.game, min(max(width, 40), 100)) + "\n")
    return found

"""``--level``: how strong the bots are, on every command that starts bots.

``selfplay``, ``play`` (offline or on the LAN), ``host`` and ``bots`` take ``--level``: one level
for every bot seat, or a comma list with one per bot seat (``--level easy,expert``; for ``play``
and ``host`` on the LAN, one per bot peer they start, in the order they sit down). The levels are
the game's (``engines.bots.offered``: easy, normal and, where the game has one, expert); a bot
seat is named with its level (``bot 2 (expert)``). ``--effort N`` lets an expert do N times its
usual work per decision (the decision budget; other levels ignore it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from spycraft.cli.commands import add_level_options
from spycraft.engines import bots, registry
from spycraft.engines.registry import GameDefinition

__all__ = ["add_level_options", "any_game", "levels_for", "parse_levels"]


def levels_for(args: argparse.Namespace, definition: GameDefinition | None, count: int,
               command: str) -> list[str]:
    """The level of each of ``count`` bot seats, or a usage error (exit 2) in one line.
    Without a ``definition`` (``bots`` before it knows its table's game) a level is checked
    against every game's: the game's own check comes when the table is found."""
    try:
        return parse_levels(args, definition, count)
    except ValueError as exc:
        print(f"spycraft {command}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def parse_levels(args: argparse.Namespace, definition: GameDefinition | None,
                 count: int) -> list[str]:
    """``levels_for`` without the exit: ValueError says what is wrong."""
    spec = getattr(args, "level", None) or bots.DEFAULT
    known = definition.bots if definition is not None else any_game()
    chosen = bots.parse(spec, known, count,
                        where="this game" if definition is not None else "any game")
    return chosen


def any_game() -> dict[str, bots.Factory]:
    """Every bot name some game has (a level is offered once a game has it)."""
    found: dict[str, bots.Factory] = {}
    for name in registry.game_names():
        found.update(registry.load(name).bots)
    return found


def level_words(levels: Sequence[str]) -> str:
    """``--level`` as a child command is given it: the one level, or the list."""
    return levels[0] if len(set(levels)) == 1 else ",".join(levels)

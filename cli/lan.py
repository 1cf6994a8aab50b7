"""LAN commands: play, host, join, bots, tables, resume."""

from __future__ import annotations

import argparse
from typing import Any, Callable


def add_commands(sub: Any, add_game_options: Callable[[argparse.ArgumentParser], None]) -> None:
    from spycraft.engines.registry import game_names

    p = sub.add_parser("play", help="play against bots on this machine")
    p.add_argument("game", choices=game_names())
    p.add_argument("--bot", default="heuristic", help="bot kind for the other seats")
    p.add_argument("--seat", type=int, default=0, help="your seat")
    add_game_options(p)


def handlers() -> dict[str, Callable[[argparse.Namespace], int]]:
    from spycraft.cli import local_play

    return {"play": local_play.play}

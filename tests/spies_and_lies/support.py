"""Shared helpers for the Spies & Lies tests: honest tables, scripted agents, playing to a
moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.spies_and_lies import GAME
from spycraft.engines.spies_and_lies.model import Board
from spycraft.engines.table import Turn


class FirstOption:
    """Always the first legal option: places every DT it can, always guesses 1."""

    def decide(self, decision: Decision) -> int:
        return 0


class Refuses:
    """An agent that must never be asked."""

    def decide(self, decision: Decision) -> int:
        raise AssertionError(f"the seat asked its agent about {decision.kind}")


def honest_table(
    seed: int, bots: tuple[str, str] = ("heuristic", "heuristic")
) -> tuple[LocalTable, list[Agent]]:
    entropy = SeededEntropy(seed)
    table = new_local_table(GAME, {}, 2, entropy)
    agents = [GAME.bots[name](entropy.child(f"bot/{i}"), i) for i, name in enumerate(bots)]
    return table, agents


def board(table: LocalTable) -> Board:
    game: Board = table.state.game.game
    return game


def expected(table: LocalTable) -> Turn | None:
    return table.table.expect(table.state)


def play_until(table: LocalTable, agents: list[Any], moment: Callable[[Turn, Board], bool]) -> Turn:
    """Honest play until the turn that ``moment`` picks; that turn is not played."""
    while True:
        turn = expected(table)
        if turn is None:
            raise AssertionError("the game ended before the moment came")
        if moment(turn, board(table)):
            return turn
        table.step(agents)


def first_seed(moment: Callable[[Board], bool]) -> int:
    """The first seed whose setup draw gives a board that ``moment`` accepts."""
    for seed in range(1000):
        table, agents = honest_table(seed)
        while board(table).phase == "setup":
            table.step(agents)
        if moment(board(table)):
            return seed
    raise AssertionError("no such seed below 1000")

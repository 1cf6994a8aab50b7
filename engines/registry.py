"""The games spycraft plays: each game package exports one ``GameDefinition``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spycraft.crypto.entropy import Entropy
from spycraft.engines.agent import Agent
from spycraft.engines.seat import SeatFactory
from spycraft.engines.table import GameRules, Table


@dataclass(frozen=True)
class GameDefinition:
    name: str
    title: str
    rules: GameRules[Any]
    seat: SeatFactory
    bots: Mapping[str, Callable[[Entropy, int], Agent]]  # name -> (entropy, seat) -> agent
    options: Callable[..., dict[str, Any]]  # keyword options from the CLI -> genesis options
    render: Callable[[Any, int | None], str]  # (game state, seat or None for public) -> text
    narrate: Callable[[Any, Any, Any], str]  # (state before or None, record, state after) -> line
    # (game states of a finished game, seat) -> what that seat knew at each (for replay --as)
    hindsight: Callable[[Sequence[Any], int], list[Any]] | None = None

    def table(self) -> Table[Any]:
        return Table(self.rules)


_MODULES = {
    "spies-and-lies": "spycraft.engines.spies_and_lies",
    "resistance": "spycraft.engines.resistance",
}


def game_names() -> tuple[str, ...]:
    return tuple(_MODULES)


def load(name: str) -> GameDefinition:
    if name not in _MODULES:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(_MODULES)}")
    module = importlib.import_module(_MODULES[name])
    definition: GameDefinition = module.GAME
    return definition

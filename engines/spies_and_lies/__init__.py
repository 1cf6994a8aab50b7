"""Stratego: Spies & Lies (rules/spies-and-lies.md): two spy masters, four hidden soldiers a day.

``model`` holds the public board and the rules as pure functions; ``rules`` puts them on the
table (records, commitments, beacon draws); ``seat`` is one player's private side; ``bots``
decide; ``view`` shows.
"""

from __future__ import annotations

from typing import Any

from spycraft.engines.registry import GameDefinition
from spycraft.engines.spies_and_lies.bots import BOTS
from spycraft.engines.spies_and_lies.rules import RULES
from spycraft.engines.spies_and_lies.seat import SpiesAndLiesSeat
from spycraft.engines.spies_and_lies.view import hindsight, narrate, render


def options(players: int = 2, **unknown: Any) -> dict[str, Any]:
    """Genesis options from the command line: none, and exactly two players."""
    if unknown:
        raise ValueError(f"spies-and-lies has no option {', '.join(sorted(unknown))}")
    if players != 2:
        raise ValueError("spies-and-lies is played by exactly two players")
    return {}


GAME = GameDefinition(
    name="spies-and-lies",
    title="Stratego: Spies & Lies",
    rules=RULES,
    seat=SpiesAndLiesSeat,
    bots=BOTS,
    options=options,
    render=render,
    narrate=narrate,
    hindsight=hindsight,
)

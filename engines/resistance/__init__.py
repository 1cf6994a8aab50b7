"""The Resistance with The Plot Thickens (rules/resistance.md): 5-10 players, no trusted dealer."""

from __future__ import annotations

from typing import Any

from spycraft.engines.registry import GameDefinition
from spycraft.engines.resistance.bots import BOTS
from spycraft.engines.resistance.engine import ResistanceRules
from spycraft.engines.resistance.hindsight import hindsight
from spycraft.engines.resistance.seat import ResistanceSeat
from spycraft.engines.resistance.view import narrate, render


def options(
    players: int = 5, plot: bool = False, targeting: bool = False, blind_spies: bool = False
) -> dict[str, Any]:
    """Genesis options from the CLI's keywords (``players`` is the seat count, not an option)."""
    return {"plot": bool(plot), "targeting": bool(targeting), "blind_spies": bool(blind_spies)}


GAME = GameDefinition(
    name="resistance",
    title="The Resistance",
    rules=ResistanceRules(),
    seat=ResistanceSeat,
    bots=BOTS,
    options=options,
    render=render,
    narrate=narrate,
    hindsight=hindsight,
)

"""Shady Agents (rules/shady-agents.md): hidden teams, face-down tools, interrogations.

``definition`` declares the game: every record kind once (``MOVES``: body schema, how the
protocol applies it, how a seat builds it, which decision it asks), and the ``GameDefinition``.
``components``, ``cards`` and ``scoring`` are the rulebook as data; ``model`` the public game,
``rules`` the records and hidden steps, ``seat`` one player's private side, ``bots`` the
policies, ``view`` what a seat sees (and, with ``hindsight``, saw).

Here: only ``ABOUT``, what the command line reads without the engine (``engines.about``); the
declaration's names (``GAME``, ``MOVES``, ...) are imported from ``definition`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, declared_on_use

if TYPE_CHECKING:
    from spycraft.engines.shady_agents.definition import (
        DEAL_KINDS,
        GAME,
        MOVES,
        RULES,
        SEALED_TOOL,
        Seat,
    )

__all__ = [
    "ABOUT", "DEAL_KINDS", "GAME", "MOVES", "RULES", "SEALED_TOOL", "Seat",
]

ABOUT = About(
    name="shady-agents",
    title="Shady Agents",
    seat_counts=(4, 5, 6, 7, 8, 9, 10),
)


__getattr__ = declared_on_use(__name__, __all__)

"""The Resistance with The Plot Thickens (rules/resistance.md): 5-10 players, no trusted dealer.

``definition`` declares the game: every record kind once (``MOVES``: body schema, how the
protocol applies it, how a seat builds it, which decision it asks), and the ``GameDefinition``.
``model`` is the rulebook over public state, ``rules`` the records and hidden steps, ``seat``
one player's private side, ``bots`` the policies, ``view`` what a seat knows (live and in
hindsight), ``screen`` what it sees (the game's one presentation).

Here: only ``ABOUT``, what the command line reads without the engine (``engines.about``); the
declaration's names (``GAME``, ``MOVES``, ...) are imported from ``definition`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, Option, declared_on_use

if TYPE_CHECKING:
    from spycraft.engines.resistance.definition import (
        CARD,
        GAME,
        MOVES,
        RULES,
        SHARES,
        Seat,
    )

__all__ = ["ABOUT", "CARD", "GAME", "MOVES", "RULES", "SHARES", "Seat"]

ABOUT = About(
    name="resistance",
    title="The Resistance",
    seat_counts=(5, 6, 7, 8, 9, 10),
    options=(
        Option("plot", "The Plot Thickens expansion"),
        Option("targeting", "variant: the Leader picks the mission (Targeting)"),
        Option("blind_spies", "variant: spies do not know each other (Blind Spies)"),
    ),
)


__getattr__ = declared_on_use(__name__, __all__)

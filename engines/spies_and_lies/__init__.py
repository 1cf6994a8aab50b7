"""Stratego: Spies & Lies (rules/spies-and-lies.md): two spy masters, four hidden soldiers a day.

``model`` holds the public board and the rules as pure functions; ``rules`` puts them on the
table (records, commitments, beacon draws); ``seat`` is one player's private side; ``bots``
decide; ``view`` is what a seat knows (live and in hindsight), ``screen`` what it sees;
``definition`` declares every record kind once (``MOVES``) and the ``GameDefinition``.

Here: only ``ABOUT``, what the command line reads without the engine (``engines.about``); the
declaration's names (``GAME``, ``MOVES``, ...) are imported from ``definition`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, declared_on_use

if TYPE_CHECKING:
    from spycraft.engines.spies_and_lies.definition import (
        GAME,
        NUMBER,
        RULES,
        Seat,
    )

__all__ = ["ABOUT", "GAME", "NUMBER", "RULES", "Seat"]

ABOUT = About(
    name="spies-and-lies",
    title="Stratego: Spies & Lies",
    seat_counts=(2,),
)


__getattr__ = declared_on_use(__name__, __all__)

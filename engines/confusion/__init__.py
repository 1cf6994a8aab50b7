"""Confusion (rules/confusion.md): spies whose owner does not know how they move.

``board`` and ``movement`` are the rulebook as data (§2-§4, §6); ``model`` the public state and
its rules; ``rules`` puts them on the table (commitments to types proven to be the 13 types,
the beacon's assignment, membership proofs for every answer and statement, the final
openings); ``seat`` is one player's private side; ``notebook`` the deductions of §11; ``bots``
decide (the expert in ``expert``, the worth of a position they share in ``worth``);
``simulation`` plays the rules model without the cryptography (for the bot benchmark); ``view``
shows; ``definition`` declares every record kind once (``MOVES``) and the
``GameDefinition``.

Here: only ``ABOUT``, what the command line reads without the engine (``engines.about``); the
declaration's names (``GAME``, ``MOVES``, ...) are imported from ``definition`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, Option, declared_on_use

if TYPE_CHECKING:
    from spycraft.engines.confusion.definition import (
        GAME,
        MOVES,
        NAME,
        RULES,
        Seat,
    )

__all__ = ["ABOUT", "GAME", "MOVES", "NAME", "RULES", "Seat"]

ABOUT = About(
    name="confusion",
    title="Confusion: Espionage and Deception in the Cold War",
    seat_counts=(2,),
    options=(
        Option("tokens", "the special action tokens (reveal, double, swap), §10"),
        Option("first", "who moves first", ("random", "white", "red"), "random"),
    ),
)


__getattr__ = declared_on_use(__name__, __all__)

"""Liar's Dice: the sixth game, written from docs/adding-a-game.md against the kit alone.

It lives in the tests (``tests/kit``), not in the product: the conformance suite registers it
for its own run (``tests/conformance/conftest.py``) and checks it as it checks the five games.

``model`` holds the rulebook as pure functions; ``rules`` puts it on the table (cups
committed, dice rolled by the beacon, bids, calls, openings); ``seat`` is one player's private
side; ``bots`` decide; ``view`` is what a seat knows (live and in hindsight), ``screen`` what it
sees; ``definition`` declares every record kind once (``MOVES``) and the ``GameDefinition``.

Here: only ``ABOUT`` (``engines.about``); the declaration's names come from ``definition`` on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, Option, declared_on_use

if TYPE_CHECKING:
    from .definition import GAME, MOVES, RULES

__all__ = ["ABOUT", "GAME", "MOVES", "RULES"]

ABOUT = About(
    name="liars-dice",
    title="Liar's Dice",
    seat_counts=(2, 3, 4),
    options=(Option("wild_ones", "ones count for every face but their own"),),
)

__getattr__ = declared_on_use(__name__, __all__)

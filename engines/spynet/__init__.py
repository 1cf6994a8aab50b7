"""SpyNet (rules/spynet.md): 2-4 spymasters, alone or in two teams of two, and a 76-card deck.

``definition`` declares the game: every record kind once (``MOVES``: body schema, how the
protocol applies it, how a seat builds it, which decision it asks), and the ``GameDefinition``.

* ``cards``: the 84 cards of §2 (76 in the deck, 8 situations), their effects and conditions;
* ``scoring``: seats and teams (§1), power and dominance (§3), mission conditions, the score
  and the tie-break (§2.5, §9);
* ``setup``: the situation option, the deal and the draft (§4), the recruit with its pile
  order, refills and end trigger (§6), the final round (§9.1);
* ``deploy``: the per-turn agent counters (§7) and the targets and outcome of effects (§8, §13);
* ``model``: the public game over deck positions; ``rules``: records and the deck
  (``engines.protocols.deck_ops``); ``seat``: one player's private side; ``bots``; ``view``:
  what one seat knows, live and in hindsight (``replay --as``); ``screen``: what it sees;
  ``labels``: a decision's options in the screen's words.

Here: only ``ABOUT``, what the command line reads without the engine (``engines.about``); the
declaration's names (``GAME``, ``MOVES``, ...) are imported from ``definition`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spycraft.engines.about import About, Option, declared_on_use

if TYPE_CHECKING:
    from spycraft.engines.spynet.definition import (
        BRANCH,
        GAME,
        MOVES,
        POSITION,
        RULES,
        Seat,
    )

__all__ = ["ABOUT", "BRANCH", "GAME", "MOVES", "POSITION", "RULES", "Seat"]

ABOUT = About(
    name="spynet",
    title="SpyNet",
    seat_counts=(2, 3, 4),
    options=(
        Option(
            "situation",
            "situation card in play: off, random or S01 ... S08",
            ("off", "random", *(f"S{n:02}" for n in range(1, 9))),
            "off",
        ),
    ),
)


__getattr__ = declared_on_use(__name__, __all__)

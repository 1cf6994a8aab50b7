"""Liar's Dice declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

Each ``Move`` names its body schema (checked by the kit before ``apply`` sees the body), how the
rules apply it, how a seat builds it and the decision it asks ("bid": a bid or a call).
"""

from __future__ import annotations

from spycraft.engines.game import Move, moves
from spycraft.engines.registry import declare
from spycraft.engines.schema import BYTES32, Int, body

from . import ABOUT, rules
from .bots import BOTS
from .rules import LiarsDice, Table
from .screen import screen, story
from .seat import LiarsDiceSeat as Seat
from .view import hindsight

# A count is any whole number here: the rules judge it (more dice than are in play is illegal,
# not malformed).
COUNT = Int(1, 2**16)

MOVES: dict[str, Move[Table]] = moves(
    Move("cup", body(digest=BYTES32), rules.apply_cup, Seat.build_cup),
    Move("bid", body(count=COUNT, face=Int(1, 6)), rules.apply_bid, Seat.build_bid, "bid"),
    Move("liar", body(), rules.apply_liar, Seat.build_liar, "bid"),
    Move("open", body(nonce=BYTES32), rules.apply_open, Seat.build_open),
)

RULES = LiarsDice(MOVES)
GAME = declare(ABOUT, RULES, Seat, BOTS, screen, story, hindsight)

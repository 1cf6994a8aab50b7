"""Confusion declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

The package imports this on first use of one of its names (``GAME``, ``MOVES``, ...); the
command line reads the package's ``ABOUT`` without it (``engines.about``).
"""

from __future__ import annotations

from spycraft.engines.confusion import ABOUT, rules
from spycraft.engines.confusion.bots import BOTS
from spycraft.engines.confusion.rules import Confusion, State
from spycraft.engines.confusion.screen import screen, story
from spycraft.engines.confusion.seat import ConfusionSeat
from spycraft.engines.confusion.view import hindsight
from spycraft.engines.game import Move, moves, on_model
from spycraft.engines.registry import declare
from spycraft.engines.schema import BOOL, BYTES32, Encoded, Fixed, ListOf, Nullable, Text, body

NAME = Text(16)  # spy ids, squares, modes, types, tokens, actions: the rules judge the value
Seat = ConfusionSeat

# Every rule of a record but the final reveal's reads and writes the rulebook's game alone
# (``on_model``); the final reveal reads who forfeited too (``rules.apply_final``).
MOVES: dict[str, Move[State]] = moves(
    Move("assign", body(commitments=ListOf(Fixed((BYTES32, BYTES32)), size=13),
                        proof=Encoded("permutation proof")), on_model(rules.apply_assign),
         Seat.build_assign),
    Move("token", body(token=NAME, spies=ListOf(NAME, high=2)), on_model(rules.apply_token),
         Seat.build_token, "token"),
    Move("show", body(type=NAME, proof=Encoded("membership proof")),
         on_model(rules.apply_show), Seat.build_show),
    Move("free", body(action=NAME, spy=Nullable(NAME), proof=Nullable(Encoded("membership proof"))),
         on_model(rules.apply_free), Seat.build_free, "free_action"),
    Move("announce", body(spy=NAME, mode=NAME, to=NAME), on_model(rules.apply_announce),
         Seat.build_announce, "announce"),
    Move("answer", body(yes=BOOL, proof=Encoded("membership proof"),
                        promotion=Nullable(Fixed((BOOL, Encoded("membership proof"))))),
         on_model(rules.apply_answer), Seat.build_answer, "answer"),
    Move("statement", body(promoted=BOOL, proof=Encoded("membership proof")),
         on_model(rules.apply_statement), Seat.build_statement),
    Move("final", body(openings=ListOf(Fixed((NAME, BYTES32)), size=13)), rules.apply_final,
         Seat.build_final),
)

RULES = Confusion(MOVES)
GAME = declare(ABOUT, RULES, ConfusionSeat, BOTS, screen, story, hindsight,
               paced=frozenset({"answer", "statement"}))

"""Spies & Lies declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

The package imports this on first use of one of its names (``GAME``, ``MOVES``, ...); the
command line reads the package's ``ABOUT`` without it (``engines.about``).
"""

from __future__ import annotations

from spycraft.engines.game import Move, moves, on_model
from spycraft.engines.registry import declare
from spycraft.engines.schema import BOOL, BYTES32, Encoded, Fixed, Int, ListOf, body
from spycraft.engines.spies_and_lies import ABOUT, rules
from spycraft.engines.spies_and_lies.bots import BOTS
from spycraft.engines.spies_and_lies.rules import SpiesAndLies, State
from spycraft.engines.spies_and_lies.screen import screen, story
from spycraft.engines.spies_and_lies.seat import SpiesAndLiesSeat
from spycraft.engines.spies_and_lies.view import hindsight

# Ranks and copies are any integer here: the rules judge them (a guess of 11 is illegal, not
# malformed).
NUMBER = Int(-(2**63), 2**64 - 1)
Seat = SpiesAndLiesSeat

# Every rule of a record reads and writes the rulebook's board alone (``on_model``); the
# table-side fields change only by a forfeit (``SpiesAndLies.forfeit``).
MOVES: dict[str, Move[State]] = moves(
    Move("deploy", body(missions=ListOf(Fixed((BYTES32, BYTES32)), size=4)),
         on_model(rules.apply_deploy), Seat.build_deploy, "deploy"),
    Move("layout", body(digest=BYTES32), on_model(rules.apply_layout), Seat.build_layout,
         "sergeant"),
    Move("tokens", body(tokens=ListOf(BOOL, size=4), nonce=BYTES32,
                        proofs=ListOf(Encoded("membership proof"), size=4)),
         on_model(rules.apply_tokens), Seat.build_tokens),
    Move("deceive", body(place=BOOL), on_model(rules.apply_deceive), Seat.build_deceive,
         "deceive"),
    Move("guess", body(rank=NUMBER), on_model(rules.apply_guess), Seat.build_guess, "guess"),
    Move("reveal", body(rank=NUMBER, nonce=BYTES32), on_model(rules.apply_reveal),
         Seat.build_reveal),
    Move("captain", body(copy=NUMBER), on_model(rules.apply_captain), Seat.build_captain,
         "captain"),
    Move("marshal", body(split=BOOL), on_model(rules.apply_marshal), Seat.build_marshal,
         "marshal"),
    Move("final", body(cards=ListOf(Fixed((NUMBER, BYTES32)), high=4)),
         on_model(rules.apply_final), Seat.build_final),
)

RULES = SpiesAndLies(MOVES)
GAME = declare(ABOUT, RULES, SpiesAndLiesSeat, BOTS, screen, story, hindsight)

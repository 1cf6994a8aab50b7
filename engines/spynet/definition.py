"""SpyNet declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

The package imports this on first use of one of its names (``GAME``, ``MOVES``, ...); the
command line reads the package's ``ABOUT`` without it (``engines.about``).
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.engines.game import Move, moves
from spycraft.engines.protocols import deck_ops
from spycraft.engines.registry import TALK_AFTER, declare
from spycraft.engines.schema import BOOL, SEAT, Encoded, Fixed, Int, ListOf, Nullable, Text, body
from spycraft.engines.spynet import ABOUT, rules
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.rules import SpyNetRules, State
from spycraft.engines.spynet.screen import screen, story
from spycraft.engines.spynet.seat import SpyNetSeat
from spycraft.engines.spynet.setup import DECK_SIZE
from spycraft.engines.spynet.view import hindsight

POSITION = Int(0, DECK_SIZE - 1)  # a card by its place in the shuffled deck
BRANCH = Text(3)
Seat = SpyNetSeat

MOVES: dict[str, Move[State]] = moves(
    # the deck: keys, every seat's proven shuffle, reveals (engines.protocols.deck_ops)
    *deck_ops.PROTOCOL.moves(lambda s: s.ops, lambda s, ops: replace(s, ops=ops)),
    # decisions (rules §13)
    Move("draft_pick", body(card=POSITION), rules.apply_draft_pick, Seat.build_draft_pick,
         "draft_pick"),
    Move("action", body(recruit=BOOL), rules.apply_action, Seat.build_action, "turn_action"),
    Move("pile", body(take=BOOL), rules.apply_pile, Seat.build_pile, "pile"),
    Move(
        "play_agent",
        body(card=POSITION, branch=BRANCH, funding=ListOf(POSITION, high=10)),
        rules.apply_play_agent,
        Seat.build_deploy,
        "deploy",
    ),
    Move("play_mission", body(card=POSITION, branch=BRANCH, proof=Encoded("mission proof or null")),
         rules.apply_play_mission, Seat.build_deploy, "deploy"),
    Move("pass_card", body(card=POSITION), rules.apply_pass_card, Seat.build_deploy, "deploy"),
    Move("end_deploy", body(), rules.apply_end_deploy, Seat.build_deploy, "deploy"),
    Move(
        "effect",
        body(use=Nullable(Fixed((Nullable(POSITION), SEAT, BRANCH, Int(0, 80), Nullable(BRANCH))))),
        rules.apply_effect,
        Seat.build_effect,
        "effect",
    ),
    Move("paper_trail", body(cards=ListOf(POSITION, high=DECK_SIZE)), rules.apply_paper_trail,
         Seat.build_paper_trail, "paper_trail"),
)  # the final reveal (§9.2) is the kit's (engines.game.KeyShareRules)

RULES = SpyNetRules(MOVES)
# rules §11: no channel between players while the game runs
GAME = declare(ABOUT, RULES, SpyNetSeat, BOTS, screen, story, hindsight, talk=TALK_AFTER)

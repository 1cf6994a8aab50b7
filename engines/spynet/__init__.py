"""SpyNet (rules/spynet.md): 2-4 spymasters, alone or in two teams of two, and a 76-card deck.

The declaration of the game: every record kind once (``MOVES``: body schema, how the protocol
applies it, how a seat builds it, which decision it asks), and the ``GameDefinition``.

* ``cards``: the 84 cards of §2 (76 in the deck, 8 situations), their effects and conditions;
* ``scoring``: seats and teams (§1), power and dominance (§3), mission conditions, the score
  and the tie-break (§2.5, §9);
* ``setup``: the situation option, the deal and the draft (§4), the recruit with its pile
  order, refills and end trigger (§6), the final round (§9.1);
* ``deploy``: the per-turn agent counters (§7) and the targets and outcome of effects (§8, §13);
* ``model``: the public game over deck positions; ``protocol``: records and the deck
  (``engines.protocols.deck_ops``); ``seat``: one player's private side; ``bots``; ``view``;
  ``knowledge``: what one seat knows, live and in hindsight (``replay --as``); ``labels``: a
  decision's options in the screen's words.
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.engines.game import Move, moves
from spycraft.engines.protocols import deck_ops
from spycraft.engines.registry import TALK_AFTER, GameDefinition
from spycraft.engines.schema import BOOL, SEAT, Encoded, Fixed, Int, ListOf, Nullable, Text, body
from spycraft.engines.screens import narration
from spycraft.engines.seat import SeatContext
from spycraft.engines.spynet import protocol as P
from spycraft.engines.spynet.bots import BOTS
from spycraft.engines.spynet.knowledge import hindsight
from spycraft.engines.spynet.protocol import SpyNetRules, State
from spycraft.engines.spynet.screen import screen, story
from spycraft.engines.spynet.seat import SpyNetSeat
from spycraft.engines.spynet.setup import DECK_SIZE
from spycraft.engines.spynet.view import render

POSITION = Int(0, DECK_SIZE - 1)  # a card by its place in the shuffled deck
BRANCH = Text(3)
Seat = SpyNetSeat

MOVES: dict[str, Move[State]] = moves(
    # the deck: keys, every seat's proven shuffle, reveals (engines.protocols.deck_ops)
    *deck_ops.PROTOCOL.moves(P.GAME, lambda s: s.ops, lambda s, ops: replace(s, ops=ops)),
    # decisions (rules §13)
    Move("draft_pick", body(card=POSITION), P.apply_draft_pick, Seat.build_draft_pick,
         "draft_pick"),
    Move("action", body(recruit=BOOL), P.apply_action, Seat.build_action, "turn_action"),
    Move("pile", body(take=BOOL), P.apply_pile, Seat.build_pile, "pile"),
    Move(
        "play_agent",
        body(card=POSITION, branch=BRANCH, funding=ListOf(POSITION, high=10)),
        P.apply_play_agent,
        Seat.build_deploy,
        "deploy",
    ),
    Move("play_mission", body(card=POSITION, branch=BRANCH, proof=Encoded("mission proof or null")),
         P.apply_play_mission, Seat.build_deploy, "deploy"),
    Move("pass_card", body(card=POSITION), P.apply_pass_card, Seat.build_deploy, "deploy"),
    Move("end_deploy", body(), P.apply_end_deploy, Seat.build_deploy, "deploy"),
    Move(
        "effect",
        body(use=Nullable(Fixed((Nullable(POSITION), SEAT, BRANCH, Int(0, 80), Nullable(BRANCH))))),
        P.apply_effect,
        Seat.build_effect,
        "effect",
    ),
    Move("paper_trail", body(cards=ListOf(POSITION, high=DECK_SIZE)), P.apply_paper_trail,
         Seat.build_paper_trail, "paper_trail"),
)  # the final reveal (§9.2) is the kit's (engines.game.KeyShareRules)

RULES = SpyNetRules(MOVES)


def seat(context: SeatContext) -> SpyNetSeat:
    return SpyNetSeat(context, RULES.moves)


GAME = GameDefinition(
    name="spynet",
    title="SpyNet",
    rules=RULES,
    seat=seat,
    bots=BOTS,
    render=render,
    narrate=narration(story),
    hindsight=hindsight,
    moves=RULES.moves,
    screen=screen,
    story=story,
    talk=TALK_AFTER,  # rules §11: no channel between players while the game runs
)

"""The Resistance declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

The package imports this on first use of one of its names (``GAME``, ``MOVES``, ...); the
command line reads the package's ``ABOUT`` without it (``engines.about``).
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.engines.game import Move, moves
from spycraft.engines.protocols import role_deal
from spycraft.engines.registry import declare
from spycraft.engines.resistance import ABOUT, rules
from spycraft.engines.resistance.bots import BOTS
from spycraft.engines.resistance.model import MISSIONS
from spycraft.engines.resistance.rules import ResistanceRules, State
from spycraft.engines.resistance.screen import screen, story
from spycraft.engines.resistance.seat import ResistanceSeat
from spycraft.engines.resistance.view import hindsight
from spycraft.engines.schema import (
    BOOL,
    BYTES32,
    SEAT,
    Encoded,
    Fixed,
    Int,
    ListOf,
    Nullable,
    Text,
    body,
)

CARD = Text(32)  # a plot card id
SHARES = ListOf(Encoded("decryption share"), high=64)
Seat = ResistanceSeat

MOVES: dict[str, Move[State]] = moves(
    # setup: the role deal with recognition (engines.protocols.role_deal)
    *role_deal.PROTOCOL.moves(lambda s: s.deal, lambda s, deal: replace(s, deal=deal)),
    # decisions (rules section 9)
    Move(
        "strong_leader", body(play=BOOL), rules.apply_strong_leader, Seat.build_strong_leader,
        "strong_leader",
    ),
    Move("plot_deal", body(deal=ListOf(Fixed((CARD, SEAT)), low=1, high=-1)), rules.apply_plot_deal,
         Seat.build_plot_deal, "plot_deal"),
    Move("overheard", body(target=SEAT), rules.apply_overheard, Seat.build_overheard,
         "overheard_target"),
    Move("open_up", body(viewer=SEAT), rules.apply_open_up, Seat.build_open_up, "open_up_viewer"),
    Move(
        "propose",
        body(mission=Int(MISSIONS[0], MISSIONS[-1]), team=ListOf(SEAT, low=1, high=-1)),
        rules.apply_propose,
        Seat.build_propose,
        "propose",
    ),
    Move(
        "take_responsibility",
        body(take=Nullable(Fixed((SEAT, CARD)))),
        rules.apply_take_responsibility,
        Seat.build_take_responsibility,
        "take_responsibility",
    ),
    Move("no_confidence", body(play=BOOL), rules.apply_no_confidence, Seat.build_no_confidence,
         "no_confidence"),
    Move("spotlight", body(target=Nullable(SEAT)), rules.apply_spotlight, Seat.build_spotlight,
         "spotlight"),
    Move("close_eye", body(target=Nullable(SEAT)), rules.apply_close_eye, Seat.build_close_eye,
         "close_eye"),
    # hidden steps
    Move("look", body(sealed=Encoded("sealed face token")), rules.apply_look, Seat.build_look),
    Move("vote_commit", body(commitment=BYTES32), rules.apply_vote_commit, Seat.build_vote_commit,
         "vote"),
    Move("vote_open", body(vote=BOOL, nonce=BYTES32), rules.apply_vote_open, Seat.build_vote_open),
    Move("mission_card", body(card=Encoded("mission card")), rules.apply_mission_card,
         Seat.build_mission_card, "mission_card"),
    Move("spotlight_shares", body(shares=SHARES), rules.apply_spotlight_shares,
         Seat.build_spotlight_shares),
    Move("eye_token", body(share=Encoded("decryption share")), rules.apply_eye_token,
         Seat.build_eye_token),
    Move("mix", body(cards=ListOf(Encoded("ciphertext"), high=64), proof=Encoded("shuffle proof")),
         rules.apply_mix, Seat.build_mix),
    Move("mission_shares", body(shares=SHARES), rules.apply_mission_shares,
         Seat.build_mission_shares),
)  # the final reveal is the kit's (engines.game.KeyShareRules)

RULES = ResistanceRules(MOVES)
GAME = declare(ABOUT, RULES, ResistanceSeat, BOTS, screen, story, hindsight)

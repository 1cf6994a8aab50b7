"""Shady Agents declared: every record kind once (``MOVES``), the rules, the ``GameDefinition``.

The package imports this on first use of one of its names (``GAME``, ``MOVES``, ...); the
command line reads the package's ``ABOUT`` without it (``engines.about``).
"""

from __future__ import annotations

from dataclasses import replace

from spycraft.engines.game import Move, moves
from spycraft.engines.protocols import role_deal
from spycraft.engines.registry import declare
from spycraft.engines.schema import SEAT, Encoded, Fixed, ListOf, Nullable, body
from spycraft.engines.shady_agents import ABOUT, rules
from spycraft.engines.shady_agents.bots import BOTS
from spycraft.engines.shady_agents.rules import ShadyAgentsRules, State
from spycraft.engines.shady_agents.screen import screen, story
from spycraft.engines.shady_agents.seat import ShadyAgentsSeat
from spycraft.engines.shady_agents.view import hindsight

SEALED_TOOL = Fixed((SEAT, Encoded("sealed tool")))
Seat = ShadyAgentsSeat
DEAL_KINDS = ("key_share", "shuffle", "deal_tokens")  # the role deal without recognition

MOVES: dict[str, Move[State]] = moves(
    *role_deal.PROTOCOL.moves(lambda s: s.deal, lambda s, deal: replace(s, deal=deal), DEAL_KINDS),
    Move(
        "round_one",
        body(give=Nullable(SEALED_TOOL), discard=Nullable(Encoded("sealed discard"))),
        rules.apply_round_one,
        Seat.build_round_one,
        "round_one",
    ),
    Move("answer", body(answer=Encoded("answer")), rules.apply_answer, Seat.build_answer, "answer"),
    Move(
        "round_two",
        body(gifts=ListOf(SEALED_TOOL, low=1, high=2),
             both=Encoded("proof of one Bullet and one Medkit")),
        rules.apply_round_two,
        Seat.build_round_two,
        "round_two",
    ),
)  # the final reveal is the kit's (engines.game.KeyShareRules)

RULES = ShadyAgentsRules(MOVES)
GAME = declare(ABOUT, RULES, ShadyAgentsSeat, BOTS, screen, story, hindsight)

"""Confusion's expert bot (``engines.confusion.expert``):

* in any seat, against any level, with or without the tokens, it chooses legally (the model
  refuses anything else) from its own view alone: a fresh expert fed the same decisions answers
  the same, and no view it is shown holds a type of its own spies;
* a seeded expert game, signed and played through the table, is the same byte for byte;
* its determinisations are bijections of the 13 spies onto the 13 types within the notebook's
  candidates, whatever those candidates force.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.confusion import GAME
from spycraft.engines.confusion import model as C
from spycraft.engines.confusion.board import SPIES
from spycraft.engines.confusion.expert import determinise, matchable
from spycraft.engines.confusion.model import ALL_TYPES, type_mask
from spycraft.engines.confusion.movement import TYPE_IDS
from spycraft.engines.confusion.simulation import Deal, play
from spycraft.engines.confusion.view import SeatView
from spycraft.engines.local import new_local_table
from tests.conformance.games import Recorder

LEVELS = ("random", "easy", "normal", "expert")



@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(LEVELS), st.integers(0, 1), st.booleans())
def test_the_expert_chooses_legally_from_its_own_view_alone(
    seed: int, other: str, seat: int, tokens: bool
) -> None:
    entropy = SeededEntropy(seed)
    levels = [other, other]
    levels[seat] = "expert"
    agents = [Recorder(GAME.bots[level](entropy.child(f"bot/{i}"), i))
              for i, level in enumerate(levels)]
    end = play(C.start(b"", tokens, "random"), Deal.draw(entropy.child("deal")), agents)
    assert end.outcome is not None
    fresh = GAME.bots["expert"](entropy.child(f"bot/{seat}"), seat)
    asked = agents[seat].asked
    assert asked
    for decision, choice in asked:
        view = decision.view
        assert isinstance(view, SeatView) and view.seat == seat == decision.seat
        assert {spy for spy, _ in view.opponent_types} == set(SPIES[1 - seat])
        assert fresh.decide(decision) == choice


def test_a_seeded_expert_game_is_deterministic() -> None:
    transcripts = []
    for _ in range(2):
        entropy = SeededEntropy(11)
        local = new_local_table(GAME, GAME.genesis_options(2, {"tokens": True}), 2, entropy)
        local.run([GAME.bots["expert"](entropy.child(f"bot/{i}"), i) for i in range(2)])
        assert local.state.result is not None
        transcripts.append(b"".join(r.raw for r in local.records))
    assert transcripts[0] == transcripts[1]


def test_determinisations_are_bijections_within_the_candidates() -> None:
    # W-A and W-C can only be the Sprinter or the Double Agent between them (§14.4), W-G is one
    # of four types, W-H is known: every draw gives each spy a type of its own, within its set
    masks = [ALL_TYPES] * len(TYPE_IDS)
    masks[0] = masks[2] = type_mask(("T10", "DA"))
    masks[6] = type_mask(("T02", "T03", "T08", "T11", "T10"))
    masks[7] = type_mask(("T05",))
    assert matchable(masks)
    entropy = SeededEntropy(3)
    seen = set()
    for _ in range(40):
        drawn = determinise(masks, entropy)
        assert sorted(drawn) == list(range(len(TYPE_IDS)))
        assert all(masks[spy] >> t & 1 for spy, t in enumerate(drawn))
        assert TYPE_IDS[drawn[6]] != "T10" and TYPE_IDS[drawn[7]] == "T05"
        seen.add((drawn[0], drawn[2]))
    assert len(seen) == 2  # both ways of sharing the Sprinter and the Double Agent are drawn
    masks[1] = type_mask(("T05",))
    assert not matchable(masks)

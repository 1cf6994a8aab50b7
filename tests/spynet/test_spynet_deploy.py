"""Deploy counters (§7) and special effects with their targets (§8, §13), examples 14.5-14.7
and 14.10."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import IllegalAction
from spycraft.engines.errors import Illegal
from spycraft.engines.spynet.cards import BRANCHES, Branch, card
from spycraft.engines.spynet.deploy import (
    Counters,
    EffectUse,
    Target,
    apply_effect,
    effect_uses,
    place_agent,
)
from spycraft.engines.spynet.scoring import Board, StackedAgent, opponents, power

from .support import board, boards, cards_on, tableau

INT, OPS, TEC, SIG = Branch.INT, Branch.OPS, Branch.TEC, Branch.SIG


# --- §7 counters, example 14.7 ----------------------------------------------------------------


def test_example_14_7_network_builder_grants_two_bare_plays_and_no_more() -> None:
    c = Counters().play("A28")
    assert c == Counters(full=0, bare=2)
    c = c.play("A01")
    assert c == Counters(full=0, bare=1)
    c = c.play("A29")
    assert c == Counters(full=0, bare=0)
    with pytest.raises(Illegal) as caught:
        c.play("A02")
    assert isinstance(caught.value.attribute(3, 17), IllegalAction)


def test_example_14_7_a_funded_agent_after_network_builder_is_illegal() -> None:
    with pytest.raises(Illegal):
        Counters().play("A28").play("A02", ["F02"])


def test_example_14_7_station_chief_grants_another_funded_play() -> None:
    c = Counters().play("A24", ["F05"])
    assert c == Counters(full=1, bare=0)
    assert c.play("A15", ["F08"]) == Counters(full=0, bare=0)


def test_a_turn_has_one_agent_play_and_a_bare_play_uses_bare_first() -> None:
    with pytest.raises(Illegal):
        Counters().play("A01").play("A02")
    assert Counters(full=1, bare=1).play("A01") == Counters(full=1, bare=0)


def test_extra_agents_may_themselves_be_specials() -> None:
    c = Counters().play("A25").play("A28")  # Quartermaster, then Network Builder with its play
    assert c == Counters(full=0, bare=2)


# --- §7.1 placing an agent ---------------------------------------------------------------------


def test_an_agent_goes_on_top_of_its_branch_with_its_funding_in_order() -> None:
    b = place_agent(board(tableau("OPS: A08"), tableau()), 0, "A07", OPS, ["F05", "F01"])
    assert b.tableaux[0].stack(OPS) == (StackedAgent("A08"), StackedAgent("A07", ("F05", "F01")))
    assert power(b, 0, OPS) == 3 + 2 + 2 + 1


def test_a_mercenary_goes_into_any_branch_and_others_only_into_their_own() -> None:
    empty = board(tableau(), tableau())
    for branch in BRANCHES:
        assert place_agent(empty, 1, "A33", branch).tableaux[1].stack(branch)
    with pytest.raises(Illegal):
        place_agent(empty, 0, "A07", INT)


@pytest.mark.parametrize(
    ("agent", "funding"), [("M01", []), ("F01", []), ("A01", ["A02"]), ("A01", ["F01", "F01"])]
)
def test_only_agents_are_played_and_only_distinct_funding_attaches(
    agent: str, funding: list[str]
) -> None:
    with pytest.raises(Illegal):
        place_agent(board(tableau(), tableau()), 0, agent, INT, funding)


# --- §8 effects, examples 14.5, 14.6, 14.10 ---------------------------------------------------


def example_14_5(top: str = "A07+F01") -> Board:
    return board(
        tableau(),
        tableau("TEC: A26"),  # seat 1 has just played Blackmailer into TEC
        tableau(f"OPS: A08 {top}"),
        tableau(),
    )


def test_example_14_5_flip_takes_the_top_agent_with_its_funding() -> None:
    b = example_14_5()
    use = EffectUse(Target(2, OPS, 1), destination=OPS)
    assert use in effect_uses(b, 1, "A26", hand=[])
    after, discarded = apply_effect(b, 1, "A26", [], use)
    assert after.tableaux[1].stack(OPS) == (StackedAgent("A07", ("F01",)),)
    assert power(after, 1, OPS) == power(b, 1, OPS) + 3
    assert power(after, 2, OPS) == 3
    assert after.tableaux[2].stack(OPS) == (StackedAgent("A08"),)
    assert discarded == ()


def test_example_14_5_a_top_agent_of_power_4_is_no_target_for_blackmailer() -> None:
    b = example_14_5(top="A07+F05")
    uses = effect_uses(b, 1, "A26", hand=[])
    assert all(u.target.seat != 2 for u in uses)
    assert uses == ()  # no other opposing agent: only decline remains


def test_example_14_6_wetwork_discards_then_removes_up_to_the_discarded_power() -> None:
    b = board(tableau("OPS: A23"), tableau(), tableau(), tableau("SIG: A19"))
    use = EffectUse(Target(3, SIG, 0), discard="A09")
    assert use in effect_uses(b, 0, "A23", hand=["A09", "A07", "M01"])
    after, discarded = apply_effect(b, 0, "A23", ["A09", "A07", "M01"], use)
    assert discarded == ("A09", "A19")
    assert after.tableaux[3].stack(SIG) == ()
    short = EffectUse(Target(3, SIG, 0), discard="A07")
    assert short not in effect_uses(b, 0, "A23", hand=["A09", "A07"])


def test_example_14_6_a_partners_agents_are_never_targets() -> None:
    b = board(tableau("OPS: A23"), tableau(), tableau("SIG: A16"), tableau("SIG: A19"))
    uses = effect_uses(b, 0, "A23", hand=["A10"])
    assert {u.target.seat for u in uses} == {3}


def test_example_14_10_technology_race_puts_a_forger_out_of_the_mole_hunters_reach() -> None:
    b = board(tableau(), tableau("INT: A21"), tableau("TEC: A13"), situation="S01")
    assert effect_uses(b, 1, "A21", hand=[]) == ()
    plain = board(tableau(), tableau("INT: A21"), tableau("TEC: A13"))
    assert effect_uses(plain, 1, "A21", hand=[]) == (EffectUse(Target(2, TEC, 0)),)


def test_remove_sends_the_agent_then_its_funding_in_attachment_order_to_the_discard() -> None:
    b = board(tableau("INT: A21"), tableau("OPS: A06+F04+F01 | SIG: A20"))
    after, discarded = apply_effect(b, 0, "A21", [], EffectUse(Target(1, OPS, 0)))
    assert discarded == ("A06", "F04", "F01")
    assert after.tableaux[1].stack(SIG) == (StackedAgent("A20"),)


def test_codebreaker_removes_an_opponents_sig_top_whatever_its_power() -> None:
    b = board(tableau("SIG: A27"), tableau("SIG: A16 A20+F10 | INT: A01"), tableau("SIG: A17"))
    assert effect_uses(b, 0, "A27", hand=[]) == (
        EffectUse(Target(1, SIG, 1)),
        EffectUse(Target(2, SIG, 0)),
    )


def test_deep_infiltration_lets_effects_reach_any_agent_of_an_opponent() -> None:
    b = board(tableau("SIG: A27"), tableau("SIG: A16 A20 | INT: A01 A05"), situation="S08")
    assert effect_uses(b, 0, "A27", hand=[]) == (
        EffectUse(Target(1, SIG, 0)),
        EffectUse(Target(1, SIG, 1)),
    )
    mole = board(tableau("INT: A21"), tableau("INT: A01 A05 | OPS: A08"), situation="S08")
    assert {u.target for u in effect_uses(mole, 0, "A21", hand=[])} == {
        Target(1, INT, 0),
        Target(1, OPS, 0),
    }
    after, _ = apply_effect(mole, 0, "A21", [], EffectUse(Target(1, INT, 0)))
    assert after.tableaux[1].stack(INT) == (StackedAgent("A05"),)  # the stack keeps its order


def test_a_flipped_mercenary_goes_to_the_branch_its_new_owner_chooses() -> None:
    b = board(tableau("TEC: A26"), tableau("INT: A31"))
    uses = effect_uses(b, 0, "A26", hand=[])
    assert [u.destination for u in uses] == list(BRANCHES)
    after, _ = apply_effect(b, 0, "A26", [], uses[3])
    assert after.tableaux[0].stack(SIG) == (StackedAgent("A31"),)


def test_honey_trap_needs_an_agent_in_hand_to_discard() -> None:
    b = board(tableau("INT: A22"), tableau("OPS: A06"))
    assert effect_uses(b, 0, "A22", hand=["M01", "F01"]) == ()
    assert effect_uses(b, 0, "A22", hand=["A11"]) == (
        EffectUse(Target(1, OPS, 0), discard="A11", destination=OPS),
    )


def test_an_effect_that_is_not_legal_is_refused() -> None:
    b = board(tableau("INT: A21"), tableau("OPS: A10"))
    with pytest.raises(Illegal):
        apply_effect(b, 0, "A21", [], EffectUse(Target(1, OPS, 0)))
    with pytest.raises(Illegal):
        effect_uses(b, 0, "A24", hand=[])  # Station Chief has no targeted effect
    with pytest.raises(Illegal):
        effect_uses(b, 0, "M01", hand=[])


@settings(max_examples=100, deadline=None)
@given(boards(), st.sampled_from(("A21", "A22", "A23", "A26", "A27")), st.data())
def test_every_legal_effect_moves_cards_and_never_loses_one(
    b: Board, special: str, data: st.DataObject
) -> None:
    in_play = set(cards_on(b))
    spare = [c for c in ("A09", "A05", "A29", "A01") if c not in in_play and c != special]
    seat = data.draw(st.integers(0, b.players - 1))
    uses = effect_uses(b, seat, special, hand=spare)
    effect = card(special).effect
    assert effect is not None
    for use in uses:
        assert use.target.seat in opponents(seat, b.players)
        assert (use.discard is not None) == effect.special_discard
    if not uses:
        return
    use = data.draw(st.sampled_from(uses))
    after, discarded = apply_effect(b, seat, special, spare, use)
    gained = [use.discard] if use.discard else []
    assert Counter(cards_on(after)) + Counter(discarded) == Counter(cards_on(b)) + Counter(gained)
    moved = b.tableaux[use.target.seat].stack(use.target.branch)[use.target.depth]
    if use.destination is not None:
        assert after.tableaux[seat].stack(use.destination)[-1] == moved

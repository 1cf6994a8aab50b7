"""The interrogation deck (rules §5-§6) checked against the rulebook, its examples and Decisions."""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import IllegalAction, RuleViolation
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents.cards import (
    DECK,
    NO,
    NONE,
    YES,
    Card,
    Illegal,
    ImpossibleSnapshot,
    Snapshot,
    Violation,
    audit_answer,
    check_answer,
    eligible_answerers,
    options,
    required_answers,
    true_set,
)
from spycraft.engines.shady_agents.components import (
    BULLET,
    CORRUPT,
    LAW_ABIDING,
    MEDKIT,
    TOOLS,
    Discard,
    Gift,
    HiddenKind,
)
from tests.shady_agents.tables import Ask, Move, every_snapshot, snapshot, snapshots

L, C, B, M = LAW_ABIDING, CORRUPT, BULLET, MEDKIT


def rulebook_rows() -> list[list[str]]:
    text = (Path(__file__).parent / "rulebook-deck.md").read_text(encoding="utf-8")
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| Q")
    ]


# Worked examples of §10, at the moment of each interrogation's draw.
EXAMPLE_A_TURN_1 = snapshot(4, 2, [Ask()])
EXAMPLE_A_TURN_4 = snapshot(4, 2, [Ask(), Move(B, 0), Move(M, 2), Ask(M)])
EXAMPLE_B_TURN_3 = snapshot(5, 0, [Move(M, 3), Move(B, 0), Ask(B)])
EXAMPLE_C_TURN_1 = snapshot(10, 7, [Ask()])
EXAMPLE_C_TURN_4 = snapshot(10, 7, [Ask(), Move(M, 9), Move(B, 0), Ask(B)])
EXAMPLE_C_TURN_8 = snapshot(
    10, 7, [Ask(), Move(M, 9), Move(B, 0), Ask(B), Move(B, 8), Move(M, 1), Move(M, 4), Ask(B)]
)
EXAMPLE_A_ROLES = (L, C, L, C)
EXAMPLE_B_ROLES = (C, L, L, C, L)
EXAMPLE_C_ROLES = (L, C, C, L, L, C, C, L, L, C)


# The deck as data.


def test_the_deck_is_the_rulebook_table_of_section_6() -> None:
    rows = rulebook_rows()
    assert len(rows) == 40
    for card, (card_id, question, form, who, true_when) in zip(DECK, rows, strict=True):
        assert (card.id, card.question, card.who, card.true_when) == (
            card_id,
            question,
            who,
            true_when,
        )
        assert form.split("(")[0] == card.form


def test_forty_cards_q01_to_q40_in_order() -> None:
    assert cards.CARD_IDS == tuple(f"Q{i:02}" for i in range(1, 41))


def test_counts_per_answer_form() -> None:
    forms = [card.form for card in DECK]
    assert (forms.count("YN"), forms.count("N"), forms.count("S"), forms.count("P")) == (
        32,
        2,
        1,
        5,
    )


def test_counts_per_eligibility_shorthand() -> None:
    who = [card.who for card in DECK]
    assert who.count("R1") == 12
    assert who.count("R2") == 2
    assert who.count("RE") == 1
    assert who.count("MV") == 2
    assert who.count("PD") == 1
    assert who.count("H1") == 1
    assert sum("MV" in w for w in who) == 8
    assert sum("H1" in w for w in who) == 4
    assert sum("PD" in w for w in who) == 2


def test_cards_are_found_by_id_and_unknown_ids_are_illegal() -> None:
    assert cards.card("Q17").question.startswith("Did a player whose round-1 turn")
    for bad in ("Q41", "Q00", "q01", 1, None, True):
        with pytest.raises(Illegal) as caught:
            cards.card(bad)
        assert isinstance(caught.value.attribute(3, 9), IllegalAction)


def test_a_draw_indexes_the_sorted_remaining_ids_section_2_step_4() -> None:
    drawn, rest = cards.draw(("Q05", "Q01", "Q40"), 1)
    assert drawn.id == "Q05"
    assert rest == ("Q01", "Q40")
    drawn, rest = cards.draw(cards.CARD_IDS, 39)
    assert drawn.id == "Q40" and len(rest) == 39
    with pytest.raises(ValueError):
        cards.draw(("Q01",), 1)


# Worked examples (§10).


def test_example_a_turn_1_nobody_has_received_a_tool_so_all_are_skipped() -> None:
    assert EXAMPLE_A_TURN_1.answer_order() == (3, 0, 1)
    assert eligible_answerers(cards.card("Q33"), EXAMPLE_A_TURN_1) == ()


def test_example_a_turn_4_q36_options_truth_and_answers() -> None:
    q36 = cards.card("Q36")
    snap = EXAMPLE_A_TURN_4
    assert snap.answer_order() == (2, 3, 0)
    assert eligible_answerers(q36, snap) == (2, 0)
    assert options(q36, snap, 2) == (0, NONE) and true_set(q36, snap, 2) == (0,)
    assert options(q36, snap, 0) == (3, NONE) and true_set(q36, snap, 0) == (NONE,)
    audit_answer(q36, snap, 2, L, 0)
    audit_answer(q36, snap, 0, L, NONE)
    # "a Corrupt seat 0 would have had to answer 3"
    assert required_answers(q36, snap, 0, C) == (3,)


def test_negative_example_a_turn_4_seat_2_answering_none_is_flagged() -> None:
    q36 = cards.card("Q36")
    with pytest.raises(Violation) as caught:
        audit_answer(q36, EXAMPLE_A_TURN_4, 2, L, NONE)
    assert isinstance(caught.value.attribute(2, 12), RuleViolation)


def test_example_b_turn_3_q01_corrupt_seats_lie() -> None:
    q01 = cards.card("Q01")
    snap = EXAMPLE_B_TURN_3
    assert snap.answer_order() == (3, 4, 0, 1)
    assert eligible_answerers(q01, snap) == (3, 0)
    assert true_set(q01, snap, 3) == (YES,)
    assert required_answers(q01, snap, 3, EXAMPLE_B_ROLES[3]) == (NO,)
    assert true_set(q01, snap, 0) == (NO,)
    assert required_answers(q01, snap, 0, EXAMPLE_B_ROLES[0]) == (YES,)
    audit_answer(q01, snap, 3, C, NO)
    audit_answer(q01, snap, 0, C, YES)


def test_negative_example_b_turn_3_seat_1_may_not_answer_q01() -> None:
    with pytest.raises(Illegal, match="not eligible"):
        check_answer(cards.card("Q01"), EXAMPLE_B_TURN_3, 1, NO)


def test_example_c_turn_1_all_nine_answerers_are_skipped() -> None:
    assert len(EXAMPLE_C_TURN_1.answer_order()) == 9
    assert eligible_answerers(cards.card("Q33"), EXAMPLE_C_TURN_1) == ()


def test_example_c_turn_4_only_seat_9_answers_and_must_say_none() -> None:
    q36 = cards.card("Q36")
    snap = EXAMPLE_C_TURN_4
    assert snap.answer_order() == (1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert eligible_answerers(q36, snap) == (9,)
    assert options(q36, snap, 9) == (8, NONE)
    assert true_set(q36, snap, 9) == (8,)
    assert required_answers(q36, snap, 9, C) == (NONE,)
    audit_answer(q36, snap, 9, C, NONE)


def test_example_c_turn_8_q02_answers() -> None:
    q02 = cards.card("Q02")
    snap = EXAMPLE_C_TURN_8
    assert snap.answer_order() == (5, 6, 7, 8, 9, 0, 1, 2, 3)
    assert eligible_answerers(q02, snap) == (8, 9, 0, 1)
    assert [true_set(q02, snap, s) for s in (8, 9, 0, 1)] == [(YES,), (NO,), (YES,), (NO,)]
    for seat in (8, 9, 0, 1):
        audit_answer(q02, snap, seat, EXAMPLE_C_ROLES[seat], YES)


# Decisions of §3 and §5.


def test_decision_the_caller_does_not_answer() -> None:
    snap = EXAMPLE_A_TURN_4
    assert snap.caller not in snap.answer_order()
    with pytest.raises(Illegal, match="caller"):
        check_answer(cards.card("Q36"), snap, snap.caller, NONE)


def test_negative_the_first_player_never_discards_to_interrogate() -> None:
    with pytest.raises(ImpossibleSnapshot, match="first player never discards"):
        Snapshot(4, 2, 2, (), (Discard(2, B),))


def test_a_player_who_is_not_the_first_discards_before_its_draw() -> None:
    with pytest.raises(ImpossibleSnapshot):
        Snapshot(4, 2, 3, (), ())
    with pytest.raises(ImpossibleSnapshot):
        Snapshot(4, 2, 3, (Gift(3, 0, B),), ())


@pytest.mark.parametrize("players", range(4, 11))
def test_decision_a_first_player_interrogation_on_turn_1_finds_nobody_eligible(
    players: int,
) -> None:
    for first in range(players):
        snap = Snapshot(players, first, first, (), ())
        assert all(eligible_answerers(card, snap) == () for card in DECK)


def test_answers_are_spelled_exactly_true_is_never_yes_or_a_seat() -> None:
    snap = EXAMPLE_A_TURN_4
    q36 = cards.card("Q36")
    assert check_answer(q36, snap, 2, 0) == 0
    for bad in (False, "0", 1, "None", None, 0.0):
        with pytest.raises(Illegal):
            check_answer(q36, snap, 2, bad)
    q01 = cards.card("Q01")
    with pytest.raises(Illegal):
        check_answer(q01, snap, 2, True)


def test_public_snapshot_cannot_tell_the_truth_but_the_answerer_can() -> None:
    q36 = cards.card("Q36")
    public = EXAMPLE_A_TURN_4.masked(None)
    assert eligible_answerers(q36, public) == (2, 0)
    assert options(q36, public, 2) == (0, NONE)
    with pytest.raises(HiddenKind):
        true_set(q36, public, 2)
    assert true_set(q36, EXAMPLE_A_TURN_4.masked(2), 2) == (0,)


# Properties over every legal round 1.


def all_answerer_facts(snap: Snapshot) -> list[tuple[Card, int]]:
    return [(card, seat) for card in DECK for seat in eligible_answerers(card, snap)]


@settings(max_examples=150, deadline=None)
@given(snapshots())
def test_eligibility_and_options_are_public(snap: Snapshot) -> None:
    public = snap.masked(None)
    for card in DECK:
        assert eligible_answerers(card, public) == eligible_answerers(card, snap)
        for seat in eligible_answerers(card, snap):
            assert options(card, public, seat) == options(card, snap, seat)


@settings(max_examples=150, deadline=None)
@given(snapshots())
def test_the_answerer_knows_its_true_set(snap: Snapshot) -> None:
    for card, seat in all_answerer_facts(snap):
        assert true_set(card, snap.masked(seat), seat) == true_set(card, snap, seat)


@settings(max_examples=150, deadline=None)
@given(snapshots())
def test_both_teams_always_have_an_answer(snap: Snapshot) -> None:
    """§5: for every eligible player both T and O \\ T are non-empty."""
    for card, seat in all_answerer_facts(snap):
        choices = options(card, snap, seat)
        truth = true_set(card, snap, seat)
        assert set(truth) <= set(choices)
        assert len(set(choices)) == len(choices)
        assert required_answers(card, snap, seat, L) and required_answers(card, snap, seat, C)
        for answer in choices:
            law_abiding_may = answer in truth
            for team, may in ((L, law_abiding_may), (C, not law_abiding_may)):
                if may:
                    audit_answer(card, snap, seat, team, answer)
                else:
                    with pytest.raises(Violation):
                        audit_answer(card, snap, seat, team, answer)


def with_kinds(snap: Snapshot, seat: int, kinds: tuple[str, ...]) -> Snapshot:
    """The snapshot with ``kinds`` given, in order, to the seat's received tools and then to its
    own Move or discard: the hidden kinds its answer can depend on."""
    it = iter(kinds)
    gifts = tuple(
        replace(g, kind=next(it)) if seat in (g.receiver, g.giver) else g for g in snap.gifts
    )
    discards = tuple(replace(d, kind=next(it)) if d.seat == seat else d for d in snap.discards)
    return replace(snap, gifts=gifts, discards=discards)


@settings(max_examples=100, deadline=None)
@given(snapshots())
def test_nothing_public_fixes_the_true_set(snap: Snapshot) -> None:
    """§5: an eligible player's truth depends on hidden kinds, so the public cannot know it."""
    for card, seat in all_answerer_facts(snap):
        hidden = sum(seat in (g.receiver, g.giver) for g in snap.gifts) + sum(
            d.seat == seat for d in snap.discards
        )
        truths = {
            true_set(card, with_kinds(snap, seat, kinds), seat)
            for kinds in product(TOOLS, repeat=hidden)
        }
        assert len(truths) >= 2, (card.id, seat)


@settings(max_examples=100, deadline=None)
@given(snapshots())
def test_the_caller_is_never_among_the_givers_or_the_answerers(snap: Snapshot) -> None:
    assert all(g.giver != snap.caller for g in snap.gifts)
    assert snap.caller not in snap.answer_order()
    assert sorted(snap.answer_order()) == sorted(set(range(snap.players)) - {snap.caller})


@settings(max_examples=50, deadline=None)
@given(snapshots(), st.data())
def test_every_option_is_accepted_and_nothing_else(snap: Snapshot, data: st.DataObject) -> None:
    for card, seat in all_answerer_facts(snap):
        for answer in options(card, snap, seat):
            assert check_answer(card, snap, seat, answer) == answer
        stranger = data.draw(st.one_of(st.integers(-20, 20), st.text(max_size=3), st.booleans()))
        if stranger not in options(card, snap, seat) or isinstance(stranger, bool):
            with pytest.raises(Illegal):
                check_answer(card, snap, seat, stranger)


def test_every_four_player_round_one_every_card_is_answerable_and_informative() -> None:
    """§5 for all 1023 round-1 draws with four players (first player 0; the others are turns of
    the table): every card has eligible answerers somewhere, both teams always have an answer,
    and the same public facts always leave at least two possible true sets."""
    truths: dict[tuple[Snapshot, str, int], set[tuple[object, ...]]] = {}
    for snap in every_snapshot(4, 0):
        public = snap.masked(None)
        for card, seat in all_answerer_facts(snap):
            choices, truth = options(card, snap, seat), true_set(card, snap, seat)
            assert truth and set(choices) - set(truth) and set(truth) <= set(choices)
            truths.setdefault((public, card.id, seat), set()).add(truth)
    assert {card_id for _, card_id, _ in truths} == set(cards.CARD_IDS)
    assert all(len(possible) >= 2 for possible in truths.values())

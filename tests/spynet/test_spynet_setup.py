"""Setup and the draft (§4), the recruit with its piles, refills and end trigger (§6, §9.1), and
the situation option (§1, §4.6)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import IllegalAction, MalformedRecord
from spycraft.engines.errors import Illegal
from spycraft.engines.spynet.cards import DECK, SITUATIONS
from spycraft.engines.spynet.errors import UnknownSituation
from spycraft.engines.spynet.setup import (
    DraftStep,
    check_situation,
    deal,
    deck_after_setup,
    draft,
    final_round,
    next_pile,
    next_seat,
    parse_situation,
    piles_seen,
    recruit,
    run_draft,
    setup_draws,
    situation_in_play,
    turn_order,
)

X, Y = "X", "Y"


def cards(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(count))


# --- the situation option --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "option"),
    [("off", "off"), ("random", "random"), ("S01", "S01"), ("s08", "S08"), (" Random ", "random")],
)
def test_the_situation_option_reads_what_a_player_types(typed: str, option: str) -> None:
    assert parse_situation(typed) == option


@pytest.mark.parametrize("bad", ["S00", "S09", "S1", "on", "", None, 3, ["S01"]])
def test_an_unknown_situation_option_is_refused_with_a_typed_error(bad: object) -> None:
    with pytest.raises(UnknownSituation) as caught:
        parse_situation(bad)
    assert isinstance(caught.value, ValueError)  # what the table and the command line catch
    assert isinstance(caught.value.attribute(None, 0), MalformedRecord)


def test_a_genesis_carries_the_canonical_spelling() -> None:
    assert check_situation("S03") == "S03"
    with pytest.raises(UnknownSituation):
        check_situation("s03")


def test_setup_draws_the_first_player_then_the_situation_under_random() -> None:
    assert setup_draws(4, "off") == (4,)
    assert setup_draws(3, "S05") == (3,)
    assert setup_draws(2, "random") == (2, 8)


def test_the_situation_in_play() -> None:
    assert situation_in_play("off") is None
    assert situation_in_play("S06") == "S06"
    assert [situation_in_play("random", u) for u in range(8)] == list(SITUATIONS)
    with pytest.raises(Illegal):
        situation_in_play("random", 8)
    with pytest.raises(Illegal):
        situation_in_play("random")


@pytest.mark.parametrize("players", [1, 5, 0])
def test_spynet_is_played_by_two_to_four(players: int) -> None:
    with pytest.raises(Illegal) as caught:
        setup_draws(players, "off")
    assert isinstance(caught.value.attribute(None, 0), IllegalAction)


# --- §4 deal and draft, example 14.1 ---------------------------------------------------------


def test_example_14_1_four_players_first_player_2() -> None:
    assert draft(4, 2) == (
        DraftStep(1, 4, 0),
        DraftStep(0, 3, 3),
        DraftStep(3, 2, 2),
        DraftStep(2, 1, None),
    )
    assert [step.chooses for step in draft(4, 2)] == [True, True, True, False]
    assert turn_order(2, 4) == (2, 3, 0, 1)


def test_example_14_1_three_players_first_player_0() -> None:
    assert [(s.seat, s.receives, s.passes_to) for s in draft(3, 0)] == [
        (2, 3, 1),
        (1, 2, 0),
        (0, 1, None),
    ]
    assert turn_order(0, 3) == (0, 1, 2)


def test_example_14_1_two_players_first_player_1_leaves_71_in_the_deck() -> None:
    assert draft(2, 1) == (DraftStep(0, 2, 1), DraftStep(1, 1, None))
    assert deck_after_setup(2) == 71
    assert len(deal(DECK, 2).deck) == 76 - 3 - 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deck_holds_73_minus_n_after_setup(players: int) -> None:
    laid = deal(DECK, players)
    assert deck_after_setup(players) == 73 - players == len(laid.deck)
    assert laid.piles == ((DECK[0],), (DECK[1],), (DECK[2],))
    assert laid.drafted == DECK[3 : 3 + players]
    assert laid.piles[0] + laid.piles[1] + laid.piles[2] + laid.drafted + laid.deck == DECK


def test_the_draft_passes_what_is_left_to_the_right_and_the_first_player_takes_the_last() -> None:
    kept = run_draft(4, 2, ("a", "b", "c", "d"), picks=(2, 0, 1))
    # seat 1 keeps c of abcd, seat 0 keeps a of abd, seat 3 keeps d of bd, seat 2 gets b
    assert kept == ("a", "c", "b", "d")


def test_a_draft_pick_outside_the_cards_received_is_illegal() -> None:
    with pytest.raises(Illegal):
        run_draft(3, 0, ("a", "b", "c"), picks=(0, 2))
    with pytest.raises(Illegal):
        run_draft(3, 0, ("a", "b", "c"), picks=(0,))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from((2, 3, 4)), st.data())
def test_every_seat_ends_the_draft_with_exactly_one_card(players: int, data: st.DataObject) -> None:
    first = data.draw(st.integers(0, players - 1))
    steps = draft(players, first)
    assert steps[0].seat == (first - 1) % players and steps[-1].seat == first
    assert sorted(step.seat for step in steps) == list(range(players))
    assert [step.receives for step in steps] == list(range(players, 0, -1))
    for step, after in pairwise(steps):
        assert step.passes_to == after.seat == (step.seat - 1) % players
    picks = [data.draw(st.integers(0, s.receives - 1)) for s in steps if s.chooses]
    drafted = cards("d", players)
    kept = run_draft(players, first, drafted, picks)
    assert sorted(kept) == sorted(drafted)
    assert next_seat(players - 1, players) == 0


# --- §6 recruit, examples 14.2, 14.3, 14.8 ---------------------------------------------------


def test_example_14_2_take_pile_2_refills_pile_1_then_pile_2() -> None:
    deck = cards("k", 69)
    r = recruit(((X,), (Y,), ("Z",)), deck, taken=2)
    assert r.looked == (1, 2)
    assert r.gained == (Y,)
    assert r.refilled == (1, 2)
    assert [len(p) for p in r.piles] == [2, 1, 1]
    assert len(r.deck) == 67
    assert r.piles[0] == (X, deck[0])  # X keeps its place, the unseen refill goes last
    assert r.piles[1] == (deck[1],)
    assert not r.deck_emptied


def test_example_14_3_all_returned_draws_the_deck_top_then_refills_all_three() -> None:
    piles = (cards("a", 2), cards("b", 1), cards("c", 3))
    deck = cards("k", 40)
    r = recruit(piles, deck, taken=None)
    assert r.looked == (1, 2, 3) and r.refilled == (1, 2, 3)
    assert r.gained == (deck[0],)
    assert [len(p) for p in r.piles] == [3, 2, 4]
    assert len(r.deck) == 36
    assert r.piles[2] == piles[2] + (deck[3],)


def test_example_14_3_under_hiring_spree_the_draw_takes_two() -> None:
    deck = cards("k", 40)
    r = recruit((cards("a", 2), cards("b", 1), cards("c", 3)), deck, None, situation="S06")
    assert r.gained == deck[:2]
    assert [len(p) for p in r.piles] == [3, 2, 4]
    assert len(r.deck) == 35


def test_example_14_8_the_last_card_leaving_by_a_refill_stops_the_refills() -> None:
    deck = ("k0", "k1")
    r = recruit((("p1",), ("p2",), ("p3",)), deck, taken=3)
    assert r.looked == (1, 2, 3)
    assert r.gained == ("p3",)
    assert r.refilled == (1, 2)
    assert r.piles == (("p1", "k0"), ("p2", "k1"), ())
    assert r.deck == () and r.deck_emptied
    assert final_round(1, 4) == (2, 3, 0, 1)


def test_the_last_card_leaving_by_a_draw_triggers_the_end_with_no_refill() -> None:
    r = recruit((("p1",), ("p2",), ("p3",)), ("k0",), taken=None)
    assert r.gained == ("k0",) and r.refilled == () and r.deck_emptied
    assert r.piles == (("p1",), ("p2",), ("p3",))


def test_hiring_spree_draws_the_second_card_only_if_the_deck_still_has_one() -> None:
    r = recruit((("p1",), ("p2",), ("p3",)), ("k0",), taken=None, situation="S06")
    assert r.gained == ("k0",) and r.deck_emptied


def test_decision_an_empty_pile_is_skipped_not_looked_at_and_not_refilled() -> None:
    assert piles_seen([1, 0, 2], taken=None) == (1, 3)
    r = recruit((("p1",), (), ("p3",)), cards("k", 5), taken=3)
    assert r.looked == (1, 3) and r.refilled == (1, 3)
    assert r.piles == (("p1", "k0"), (), ("k1",))


def test_a_recruit_sees_the_piles_one_by_one_from_pile_1_and_draws_after_the_last() -> None:
    assert next_pile([1, 1, 1], []) == 1
    assert next_pile([1, 1, 1], [1]) == 2
    assert next_pile([1, 1, 1], [1, 2, 3]) is None
    assert next_pile([0, 2, 0], []) == 2
    assert next_pile([0, 2, 0], [2]) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=3, max_size=3), st.sampled_from((None, 1, 2, 3)))
def test_returning_pile_after_pile_sees_exactly_the_piles_a_recruit_looks_at(
    sizes: list[int], taken: int | None
) -> None:
    assume(taken is None or sizes[taken - 1] > 0)
    seen: list[int] = []
    while (k := next_pile(sizes, seen)) is not None:
        seen.append(k)
        if k == taken:
            break
    assert tuple(seen) == piles_seen(sizes, taken)


@pytest.mark.parametrize("taken", [0, 4, 2, "1"])
def test_a_pile_that_is_not_there_cannot_be_taken(taken: object) -> None:
    with pytest.raises(Illegal):
        recruit((("p1",), (), ("p3",)), ("k0",), taken=taken)  # type: ignore[arg-type]


def test_no_recruit_from_an_empty_deck() -> None:
    with pytest.raises(Illegal):
        recruit((("p1",), (), ()), (), taken=1)


def test_the_final_round_ends_with_the_seat_that_emptied_the_deck() -> None:
    assert final_round(0, 2) == (1, 0)
    assert final_round(2, 3) == (0, 1, 2)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from((2, 3, 4)), st.sampled_from((None, "S06")), st.data())
def test_recruits_until_the_end_trigger_keep_every_card_in_exactly_one_place(
    players: int, situation: str | None, data: st.DataObject
) -> None:
    laid = deal(tuple(range(len(DECK))), players)
    piles, deck = laid.piles, laid.deck
    hands: list[int] = list(laid.drafted)
    emptied = False
    while not emptied:
        assert all(piles), "no pile is empty before the end trigger"
        taken = data.draw(st.sampled_from((None, 1, 2, 3)))
        r = recruit(piles, deck, taken, situation)
        consumed = len(deck) - len(r.deck)
        assert consumed >= 1
        draws = 2 if situation == "S06" else 1
        assert consumed == min(len(deck), taken if taken else 3 + draws)
        drawn = 0 if taken else len(r.gained)  # a draw comes before the refills
        for k in (1, 2, 3):
            if k == taken:
                assert r.gained == piles[k - 1]
                assert r.piles[k - 1] == ((deck[k - 1],) if k in r.refilled else ())
            elif k in r.refilled:
                refill = deck[drawn + r.refilled.index(k)]
                assert r.piles[k - 1] == piles[k - 1] + (refill,)
            else:
                assert r.piles[k - 1] == piles[k - 1]
        assert r.deck == deck[consumed:]
        assert r.deck_emptied == (not r.deck)
        hands += r.gained
        piles, deck, emptied = r.piles, r.deck, r.deck_emptied
        everything = hands + [c for p in piles for c in p] + list(deck)
        assert sorted(everything) == list(range(len(DECK)))
    with pytest.raises(Illegal):
        recruit(piles, deck, None, situation)

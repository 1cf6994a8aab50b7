"""Deployments (rules §4.1), the Intel deck (§1.2) and the counts the rules give."""

from __future__ import annotations

from functools import cache
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import INTEL, RANKS

FULL = RANKS


def hand_without(*exhausted: int) -> tuple[int, ...]:
    return tuple(r for r in RANKS if r not in exhausted)


@pytest.mark.parametrize("exhausted", [e for e in RANKS if e != 4])
def test_nine_soldiers_with_the_sergeant_give_294_deployments(exhausted: int) -> None:
    assert len(model.legal_deployments(hand_without(exhausted))) == 294


def test_nine_soldiers_without_the_sergeant_give_126_deployments() -> None:
    assert len(model.legal_deployments(hand_without(4))) == 126


@pytest.mark.parametrize("pair", [(a, b) for a in RANKS for b in RANKS if a < b])
def test_eight_soldiers_give_175_deployments_or_70_without_the_sergeant(
    pair: tuple[int, int],
) -> None:
    expected = 70 if 4 in pair else 175
    assert len(model.legal_deployments(hand_without(*pair))) == expected


@pytest.mark.parametrize("ranks", [(2, 7, 4, 10), (1, 2, 3, 5), (1, 4, 6, 8), (4, 8, 9, 10)])
def test_legal_deployments_from_the_rules(ranks: tuple[int, ...]) -> None:
    assert model.is_legal_deployment(ranks, FULL)


@pytest.mark.parametrize(
    "ranks", [(1, 5, 3, 8), (2, 7, 6, 9), (1, 1, 2, 3), (4, 4, 5, 6), (1, 2, 3)]
)
def test_illegal_deployments_from_the_rules(ranks: tuple[int, ...]) -> None:
    assert not model.is_legal_deployment(ranks, FULL)


def test_exhausted_soldiers_cannot_be_deployed() -> None:
    assert not model.is_legal_deployment((2, 7, 4, 10), hand_without(7))
    assert all(7 not in d for d in model.legal_deployments(hand_without(7)))


def test_deployment_options_come_in_lexicographic_order() -> None:
    options = model.legal_deployments(FULL)
    assert list(options) == sorted(options)
    assert options[0] == (1, 2, 3, 4)


def test_each_rank_appears_on_exactly_three_intel_cards_in_complementary_pairs() -> None:
    for rank in RANKS:
        assert sum(rank in card.shows for card in INTEL.values()) == 3
    for a, b in ((1, 2), (3, 4), (5, 6)):
        assert INTEL[a].shows | INTEL[b].shows == set(RANKS)
        assert not INTEL[a].shows & INTEL[b].shows


def test_the_sergeant_token_is_free_and_every_other_token_is_forced() -> None:
    hand = FULL
    lying = model.consistent(hand, [None] * 4, [True, True, True, True], 2)
    assert (1, 2, 3, 4) not in lying
    assert (6, 7, 8, 4) in lying and (4, 6, 7, 8) in lying
    truthful = model.consistent(hand, [None] * 4, [False, True, True, True], 2)
    assert (4, 6, 7, 8) in truthful and (1, 6, 7, 8) in truthful


# --- the fast forms agree with the rules' definitions, searched by brute force ------------------


@cache
def _searched(in_hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every ordering of four ranks of the hand that is a legal deployment, in order."""
    return tuple(p for p in permutations(sorted(in_hand), 4) if model.in_rank_order(p))


HANDS = [FULL, hand_without(4), hand_without(4, 9), hand_without(1, 10), (2, 4, 6, 8, 10),
         (1, 2, 3, 4), (1, 2, 3, 5), (1, 2, 4), (4, 5, 6, 7)]


@pytest.mark.parametrize("in_hand", HANDS + [hand_without(e) for e in RANKS])
def test_legal_deployments_are_the_orderings_that_keep_the_rank_order(
    in_hand: tuple[int, ...],
) -> None:
    assert model.legal_deployments(in_hand) == _searched(in_hand)


maybe_rank = st.none() | st.sampled_from(RANKS)
maybe_token = st.none() | st.booleans()


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(HANDS),
    st.lists(maybe_rank, min_size=0, max_size=5),
    st.lists(maybe_token, min_size=0, max_size=5),
    st.none() | st.sampled_from(sorted(INTEL)),
)
def test_consistent_keeps_exactly_the_deployments_that_fit_and_any_consistent_says_if_one_does(
    in_hand: tuple[int, ...],
    known: list[int | None],
    tokens: list[bool | None],
    intel: int | None,
) -> None:
    def fits(deployment: tuple[int, ...]) -> bool:
        return all(
            (k is None or k == rank) and not model.contradicts(rank, token, intel)
            for rank, k, token in zip(deployment, known, tokens)
        )

    expected = tuple(d for d in _searched(in_hand) if fits(d))
    assert model.consistent(in_hand, known, tokens, intel) == expected
    assert model.any_consistent(in_hand, known, tokens, intel) == bool(expected)

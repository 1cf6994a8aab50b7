"""The role deck (rules §2) and the end of game (§7), checked against the worked examples of §10."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from spycraft.engines.shady_agents.components import (
    BULLET,
    CORRUPT,
    LAW_ABIDING,
    MEDKIT,
    TEAMS,
    Discard,
    Gift,
    Tool,
    round_one_order,
    round_two_order,
)
from spycraft.engines.shady_agents.scoring import (
    FinalFacts,
    bonus,
    needs_leftover,
    role_deck,
    score,
    short_team,
    team_sizes,
    tool_accounting,
    verdict,
)
from tests.shady_agents.tables import Game, games

L, C, B, M = LAW_ABIDING, CORRUPT, BULLET, MEDKIT


def gifts(*moves: tuple[int, int, Tool]) -> tuple[Gift, ...]:
    return tuple(Gift(giver, receiver, kind) for giver, receiver, kind in moves)


# Example A (4 players): turns 2-3 in round 1, then round 2 (1, 0, 3, 2 with f=2's two tools).
EXAMPLE_A = FinalFacts(
    players=4,
    roles=(L, C, L, C),
    leftover=None,
    gifts=gifts((3, 0, B), (0, 2, M), (1, 2, B), (0, 3, B), (3, 1, M), (2, 1, B), (2, 0, M)),
    discards=(Discard(1, M),),
)
# Example B (5 players, the leftover card is Corrupt).
EXAMPLE_B = FinalFacts(
    players=5,
    roles=(C, L, L, C, L),
    leftover=C,
    gifts=gifts(
        (0, 3, M), (1, 0, B), (3, 1, B), (4, 2, M),
        (4, 0, B), (3, 0, M), (2, 4, M), (1, 2, M), (0, 2, B),
    ),
    discards=(Discard(2, B),),
)  # fmt: skip
# Example C (10 players, a draw).
EXAMPLE_C = FinalFacts(
    players=10,
    roles=(L, C, C, L, L, C, C, L, L, C),
    leftover=None,
    gifts=gifts(
        (8, 9, M), (9, 0, B), (1, 8, B), (2, 1, M), (3, 4, M), (5, 3, B), (6, 5, M),
        (6, 7, B), (5, 2, M), (4, 3, M), (3, 9, B), (2, 6, B), (1, 6, M), (0, 8, M),
        (9, 4, M), (8, 1, B), (7, 9, B), (7, 0, M),
    ),
    discards=(Discard(0, B), Discard(4, B)),
)  # fmt: skip


# §2: the role deck.


@pytest.mark.parametrize(
    ("players", "even_split", "odd_splits"),
    [
        (4, (2, 2), None),
        (5, None, ((3, 2), (2, 3))),
        (6, (3, 3), None),
        (7, None, ((4, 3), (3, 4))),
        (8, (4, 4), None),
        (9, None, ((5, 4), (4, 5))),
        (10, (5, 5), None),
    ],
)
def test_team_sizes_are_the_table_of_section_2(
    players: int, even_split: tuple[int, int] | None, odd_splits: tuple[tuple[int, int], ...] | None
) -> None:
    deck = role_deck(players)
    if even_split is not None:
        assert not needs_leftover(players)
        assert len(deck) == players
        assert team_sizes(players, None) == even_split
    else:
        assert odd_splits is not None
        assert needs_leftover(players)
        assert len(deck) == players + 1, "two equal sets, one card more than the players"
        # "the short team gets +1": the leftover's team is the one with fewer players
        assert team_sizes(players, C) == odd_splits[0]
        assert team_sizes(players, L) == odd_splits[1]
    assert deck.count(L) == deck.count(C)


def test_the_leftover_card_is_dealt_for_odd_counts_only() -> None:
    for players in (4, 6, 8, 10):
        assert short_team(players, None) is None
        with pytest.raises(ValueError):
            short_team(players, L)
    for players in (5, 7, 9):
        assert short_team(players, C) == C
        with pytest.raises(ValueError):
            short_team(players, None)
    for players in (3, 11, True):
        with pytest.raises(ValueError):
            role_deck(players)


def test_the_bonus_goes_to_the_short_team_only_when_n_is_odd() -> None:
    assert [bonus(5, C, team) for team in TEAMS] == [0, 1]
    assert [bonus(9, L, team) for team in TEAMS] == [1, 0]
    assert [bonus(6, None, team) for team in TEAMS] == [0, 0]


def test_a_deal_must_match_the_composition() -> None:
    with pytest.raises(ValueError):
        FinalFacts(4, (L, L, L, C), None, (), ())
    with pytest.raises(ValueError):
        FinalFacts(5, (C, L, L, C, L), L, (), ())


def test_round_orders_of_the_examples() -> None:
    assert round_one_order(4, 2) == (2, 3, 0, 1) and round_two_order(4, 2) == (1, 0, 3, 2)
    assert round_one_order(5, 0) == (0, 1, 2, 3, 4) and round_two_order(5, 0) == (4, 3, 2, 1, 0)
    assert round_one_order(10, 7) == (7, 8, 9, 0, 1, 2, 3, 4, 5, 6)
    assert round_two_order(10, 7) == (6, 5, 4, 3, 2, 1, 0, 9, 8, 7)


# §7 with the examples of §10.


def test_example_a_law_abiding_wins_by_score() -> None:
    result = score(EXAMPLE_A)
    assert result.values == (0, 0, 0, -1)
    assert (result.team_score(L), result.team_score(C)) == (0, -1)
    assert (result.winner, result.reason) == (L, "score")
    assert tool_accounting(4, EXAMPLE_A.gifts, EXAMPLE_A.discards) == ()


def test_example_b_tied_scores_law_abiding_wins_on_medkits() -> None:
    result = score(EXAMPLE_B)
    assert result.values == (-1, -1, 1, 1, 1)
    assert result.team_scores == (1, 1), "C = -1 + 1 + 1 (bonus)"
    assert result.medkits == (3, 2)
    assert (result.winner, result.reason) == (L, "medkits")
    assert tool_accounting(5, EXAMPLE_B.gifts, EXAMPLE_B.discards) == ()
    kinds = [g.kind for g in EXAMPLE_B.gifts]
    assert (len(kinds), kinds.count(B), kinds.count(M)) == (9, 4, 5)


def test_example_c_decision_tied_twice_is_a_draw() -> None:
    result = score(EXAMPLE_C)
    assert result.values == (0, 0, 1, 0, 2, 1, 0, -1, 0, -1)
    assert result.team_scores == (1, 1)
    assert result.medkits == (5, 5)
    assert (result.winner, result.reason) == (None, "draw")
    assert tool_accounting(10, EXAMPLE_C.gifts, EXAMPLE_C.discards) == ()
    kinds = [g.kind for g in EXAMPLE_C.gifts]
    assert (len(kinds), kinds.count(B), kinds.count(M)) == (18, 8, 10)


def test_negative_a_seat_whose_gifts_and_discards_are_two_bullets_is_flagged() -> None:
    forged = (Discard(1, B),)  # seat 1 gave a Bullet and discarded one
    assert tool_accounting(4, EXAMPLE_A.gifts, forged) == (1,)


def test_a_seat_that_used_three_tools_or_gave_to_itself_is_flagged() -> None:
    assert tool_accounting(4, (*EXAMPLE_A.gifts, Gift(3, 2, M)), EXAMPLE_A.discards) == (3,)
    to_self = tuple(Gift(0, 0, g.kind) if g == Gift(0, 3, B) else g for g in EXAMPLE_A.gifts)
    assert tool_accounting(4, to_self, EXAMPLE_A.discards) == (0,)


def test_decision_a_cheater_makes_its_team_lose_and_two_teams_of_cheaters_no_winner() -> None:
    honest = score(EXAMPLE_A)
    # Example A's negative test: seat 2 (Law-abiding) lied, so the Law-abiding team loses.
    assert verdict(honest, (L,)) == verdict(honest, (L, L))
    assert (verdict(honest, (L,)).winner, verdict(honest, (L,)).reason) == (C, "cheating")
    assert verdict(honest, (C, L)).winner is None
    assert verdict(honest, (C, L)).reason == "no winner"
    assert (verdict(honest, ()).winner, verdict(honest, ()).reason) == (L, "score")


# Properties over whole legal games.


@settings(max_examples=200, deadline=None)
@given(games())
def test_scores_add_up_as_section_7_says(game: Game) -> None:
    facts = FinalFacts(game.players, game.roles, game.leftover, game.gifts, game.discards)
    result = score(facts)
    given_medkits = sum(g.kind == M for g in game.gifts)
    given_bullets = sum(g.kind == B for g in game.gifts)
    assert sum(result.values) == given_medkits - given_bullets
    assert sum(result.team_scores) == sum(result.values) + (game.players % 2)
    assert sum(result.medkits) == given_medkits
    assert len(game.gifts) + len(game.discards) == 2 * game.players
    assert tool_accounting(game.players, game.gifts, game.discards) == ()
    l_score, c_score = result.team_scores
    if l_score != c_score:
        assert result.winner == (L if l_score > c_score else C)
    else:
        assert result.reason in ("medkits", "draw")
    for cheaters in ((L,), (C,)):
        assert verdict(result, cheaters).winner not in cheaters

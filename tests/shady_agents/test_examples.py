"""The worked examples and negative tests of rules §10, played on the engine's model."""

from __future__ import annotations

import pytest

from spycraft.crypto.errors import RuleViolation
from spycraft.engines.errors import Illegal
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import BULLET, CORRUPT, LAW_ABIDING, MEDKIT
from tests.shady_agents.script import Table, roles

B, M_ = BULLET, MEDKIT


def example_a(seat_2_says: object = 0) -> tuple[Table, int]:
    t = Table(4, 2, roles(4, {0, 2}))
    assert t.ask(2, None, "Q33") == ()  # 3 -, 0 -, 1 -
    t.move(3, 0, B)
    t.move(0, 2, M_)
    assert t.ask(1, M_, "Q36") == (2, 0)  # 3 -
    assert t.required(2) == (0,)
    seq = t.answer(2, seat_2_says)  # type: ignore[arg-type]
    assert t.required(0) == (cards.NONE,)
    t.answer(0, cards.NONE)
    t.give(1, (2, B))
    t.give(0, (3, B))
    t.give(3, (1, M_))
    t.give(2, (1, B), (0, M_))
    return t, seq


def test_example_a_four_players_law_abiding_win() -> None:
    t, _ = example_a()
    assert t.game.phase == M.END
    assert t.judge() == ()
    score = t.score()
    assert score.values == (0, 0, 0, -1)
    assert score.team_scores == (0, -1) and score.winner == LAW_ABIDING


def test_example_a_a_law_abiding_none_to_q36_is_flagged_and_its_team_loses() -> None:
    t, seq = example_a(seat_2_says=cards.NONE)
    (violation,) = t.judge()
    error = violation.error()
    assert isinstance(error, RuleViolation) and (error.seat, error.seq) == (2, seq)


def test_example_b_five_players_law_abiding_win_on_the_medkit_tie_break() -> None:
    t = Table(5, 0, roles(5, {1, 2, 4}), leftover=CORRUPT)
    t.move(0, 3, M_)
    t.move(1, 0, B)
    assert t.ask(2, B, "Q01") == (3, 0)  # 4 -, 1 -
    assert t.required(3) == (cards.NO,)
    t.answer(3, cards.NO)
    assert t.required(0) == (cards.YES,)
    t.answer(0, cards.YES)
    t.move(3, 1, B)
    t.move(4, 2, M_)
    for seat, receiver, kind in ((4, 0, B), (3, 0, M_), (2, 4, M_), (1, 2, M_), (0, 2, B)):
        t.give(seat, (receiver, kind))
    assert t.game.phase == M.END and t.judge() == ()
    score = t.score()
    assert score.values == (-1, -1, 1, 1, 1)
    assert score.team_scores == (1, 1) and score.medkits == (3, 2)
    assert score.winner == LAW_ABIDING and score.reason == "medkits"
    assert sum(1 for k in t.gift_kinds if k == B) == 4 and t.discard_kinds == [B]


def test_example_b_seat_1_cannot_answer_q01_having_received_nothing() -> None:
    t = Table(5, 0, roles(5, {1, 2, 4}), leftover=CORRUPT)
    t.move(0, 3, M_)
    t.move(1, 0, B)
    t.ask(2, B, "Q01")
    with pytest.raises(Illegal):
        M.answer(t.game, 1, cards.YES, 999)
    with pytest.raises(cards.Illegal):  # not even in its turn: it is never eligible
        cards.check_answer(t.game.asking.drawn, t.game.asking.snapshot, 1, cards.YES)  # type: ignore[union-attr]


def example_c(last: tuple[tuple[int, str], ...] = ((9, B), (0, M_))) -> Table:
    t = Table(10, 7, roles(10, {0, 3, 4, 7, 8}))
    assert t.ask(7, None, "Q33") == ()
    t.move(8, 9, M_)
    t.move(9, 0, B)
    assert t.ask(0, B, "Q36") == (9,)
    assert t.required(9) == (cards.NONE,)
    t.answer(9, cards.NONE)
    t.move(1, 8, B)
    t.move(2, 1, M_)
    t.move(3, 4, M_)
    assert t.ask(4, B, "Q02") == (8, 9, 0, 1)  # 5 -, 6 -, 7 -, 2 -, 3 -
    for seat in (8, 9, 0, 1):
        assert cards.YES in t.required(seat)
        t.answer(seat, cards.YES)
    t.move(5, 3, B)
    t.move(6, 5, M_)
    round_two = ((6, 7, B), (5, 2, M_), (4, 3, M_), (3, 9, B), (2, 6, B), (1, 6, M_),
                 (0, 8, M_), (9, 4, M_), (8, 1, B))
    for seat, receiver, kind in round_two:
        t.give(seat, (receiver, kind))
    t.give(7, *last)  # type: ignore[arg-type]
    return t


def test_example_c_ten_players_end_in_a_draw() -> None:
    t = example_c()
    assert t.game.phase == M.END and t.judge() == ()
    score = t.score()
    assert score.values == (0, 0, 1, 0, 2, 1, 0, -1, 0, -1)
    assert score.team_scores == (1, 1) and score.medkits == (5, 5)
    assert score.winner is None and score.reason == "draw"


def test_example_c_the_first_player_cannot_give_both_tools_to_one_player() -> None:
    with pytest.raises(Illegal, match="two different players"):
        example_c(last=((9, B), (9, M_)))


def test_the_first_player_cannot_discard_to_interrogate() -> None:
    game = M.set_first(M.new_game(4, None), 1)
    with pytest.raises(Illegal, match="always free"):
        M.interrogate(game, 1, True, 5)
    game = M.move(game, 1, 2, 5)
    with pytest.raises(Illegal, match="must discard"):
        M.interrogate(game, 2, False, 6)


def test_a_seat_whose_gifts_and_discard_are_two_bullets_is_flagged() -> None:
    t = Table(4, 0, roles(4, {0, 1}))
    t.move(0, 1, B)
    t.move(1, 2, M_)
    t.move(2, 3, M_)
    t.move(3, 0, B)
    t.give(3, (1, M_))
    t.give(2, (0, B))
    seq = t.give(1, (3, M_))  # seat 1 gave a Medkit already: it holds the Bullet
    t.give(0, (2, B))  # a second Bullet: seat 0 gave its Bullet in round 1
    violations = {(v.seat, v.seq) for v in t.judge()}
    assert violations == {(1, seq), (0, seq + 1)}


def test_a_corrupt_truth_is_flagged_like_a_law_abiding_lie() -> None:
    t = Table(4, 0, roles(4, {0, 2}))
    t.move(0, 1, M_)
    assert t.ask(1, B, "Q01") == ()  # nobody but the caller received
    t.move(2, 3, B)
    t.ask(3, M_, "Q02")
    assert t.game.asking is not None and t.game.asking.answerers == (1,)
    assert t.required(1) == (cards.YES,)  # T = {no}: Corrupt seat 1 must say yes
    seq = t.answer(1, cards.NO)
    t.give(3, (0, B))
    t.give(2, (1, M_))
    t.give(1, (2, M_))
    t.give(0, (3, B))
    (violation,) = t.judge()
    assert (violation.seat, violation.seq) == (1, seq) and "had to lie" in violation.what

"""The board and its geometry (rules §1, §2, §4), checked against the printed tables and §14.1."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spycraft.crypto.errors import IllegalAction
from spycraft.engines.confusion.board import (
    ALL_SPIES,
    BRIEFCASE_START,
    CENTRE,
    DIRECTIONS,
    RED,
    SIDES,
    SPIES,
    SQUARES,
    WHITE,
    Illegal,
    Line,
    Side,
    Square,
    goal_rank,
    home_rank,
    is_straight,
    line,
    mirror,
    opp,
    opposite,
    path,
    reflected,
    rotate,
    side_of,
    spy_id,
    square,
    start_square,
    step,
    target,
)

# §4, as printed: letters A..M.
PRINTED_START = {
    WHITE: "b1 d1 f1 h1 j1 a2 c2 d2 e2 g2 h2 i2 k2",
    RED: "j11 h11 f11 d11 b11 k10 i10 h10 g10 e10 d10 c10 a10",
}

squares = st.sampled_from(SQUARES)
sides = st.sampled_from(SIDES)


def test_the_board_has_121_squares_named_a1_to_k11() -> None:
    assert len(SQUARES) == 121 == len(set(SQUARES))
    names = [s.name for s in SQUARES]
    assert names[0] == "a1" and names[10] == "k1" and names[-1] == "k11"
    assert all(square(name) == s for name, s in zip(names, SQUARES, strict=True))


@pytest.mark.parametrize(
    "name", ["l1", "a0", "a12", "f06", "F6", "", "a", "6f", "a1 ", "k-1", None, 5, ("f", 6)]
)
def test_a_name_that_is_not_a_square_is_illegal(name: object) -> None:
    with pytest.raises(Illegal) as caught:
        square(name)
    assert isinstance(caught.value.attribute(1, 7), IllegalAction)


def test_the_briefcase_starts_on_f6_the_centre() -> None:
    assert BRIEFCASE_START == CENTRE == square("f6") == Square(5, 5)
    assert rotate(CENTRE) == CENTRE == mirror(CENTRE)


def test_home_and_goal_rows() -> None:
    assert (home_rank(WHITE), home_rank(RED)) == (1, 11)
    assert (goal_rank(WHITE), goal_rank(RED)) == (11, 1)
    assert opp(WHITE) == RED and opp(RED) == WHITE


def test_spies_are_w_a_to_r_m() -> None:
    assert len(ALL_SPIES) == 26 and len(SPIES[WHITE]) == len(SPIES[RED]) == 13
    assert (SPIES[WHITE][0], SPIES[RED][-1]) == ("W-A", "R-M")
    assert spy_id(RED, "C") == "R-C" and side_of("R-C") == RED
    for bad in ("W-N", "w-a", "B-A", "", None, 3):
        with pytest.raises(Illegal):
            side_of(bad)


@pytest.mark.parametrize("side", SIDES)
def test_start_squares_are_the_printed_table_of_section_4(side: Side) -> None:
    printed = PRINTED_START[side].split()
    assert [start_square(spy).name for spy in SPIES[side]] == printed


def test_decision_red_start_is_white_start_turned_180_degrees() -> None:
    for white, red in zip(SPIES[WHITE], SPIES[RED], strict=True):
        assert start_square(red) == rotate(start_square(white))


def test_start_squares_fill_two_home_ranks_leaving_b2_f2_j2_empty() -> None:
    taken = {start_square(spy) for spy in ALL_SPIES}
    assert len(taken) == 26
    assert {start_square(spy).rank for spy in SPIES[WHITE]} == {1, 2}
    assert {start_square(spy).rank for spy in SPIES[RED]} == {10, 11}
    rank_two = {s.name for s in SQUARES if s.rank == 2 and s not in taken}
    assert rank_two == {"b2", "f2", "j2"}


def test_b2_f2_j2_are_the_only_rank_2_squares_with_a_clear_line_of_at_most_4_to_f6() -> None:
    taken = {start_square(spy) for spy in ALL_SPIES}

    def clear_line(origin: Square) -> bool:
        dx, dy = CENTRE.x - origin.x, CENTRE.y - origin.y
        if not is_straight(dx, dy) or max(abs(dx), abs(dy)) > 4:
            return False
        return not taken & set(path(origin, CENTRE))

    assert {s.name for s in SQUARES if s.rank == 2 and clear_line(s)} == {"b2", "f2", "j2"}


def test_the_white_frame_is_the_direction_table_and_red_is_negated() -> None:
    assert [step(WHITE, d) for d in DIRECTIONS] == [
        (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
    ]  # fmt: skip
    assert step(RED, "N") == (0, -1) and step(RED, "E") == (-1, 0)


@pytest.mark.parametrize(
    ("side", "origin", "to", "written"),
    [
        (WHITE, "g2", "e4", "NW2"),
        (RED, "f11", "f7", "N4"),
        (RED, "g10", "h9", "NW1"),
        (RED, "k10", "k11", "S1"),
    ],
)
def test_section_14_1_frames(side: Side, origin: str, to: str, written: str) -> None:
    assert str(line(side, square(origin), square(to))) == written


def test_a_displacement_that_is_not_straight_has_no_line() -> None:
    for origin, to in (("f1", "g3"), ("f1", "f1"), ("a1", "k2")):
        with pytest.raises(Illegal, match="not a straight move"):
            line(WHITE, square(origin), square(to))


def test_path_is_the_squares_strictly_between() -> None:
    assert [s.name for s in path(square("f1"), square("f5"))] == ["f2", "f3", "f4"]
    assert [s.name for s in path(square("b1"), square("e4"))] == ["c2", "d3"]
    assert path(square("f1"), square("g2")) == ()


# Properties: the geometry's symmetries.


@given(squares)
def test_rotation_and_mirror_are_involutions(where: Square) -> None:
    assert rotate(rotate(where)) == where
    assert mirror(mirror(where)) == where
    assert rotate(where).rank == 12 - where.rank


@given(squares, squares, sides)
def test_a_line_seen_by_the_other_side_on_the_turned_board_is_the_same(
    origin: Square, to: Square, side: Side
) -> None:
    dx, dy = to.x - origin.x, to.y - origin.y
    if not is_straight(dx, dy):
        return
    move = line(side, origin, to)
    assert line(opp(side), rotate(origin), rotate(to)) == move
    mirrored = line(side, mirror(origin), mirror(to))
    assert mirrored == Line(reflected(move.direction), move.distance)
    back = line(side, to, origin)
    assert back == Line(opposite(move.direction), move.distance)
    assert target(side, origin, move) == to
    assert path(to, origin) == tuple(reversed(path(origin, to)))
    assert len(path(origin, to)) == move.distance - 1


@given(squares, sides, st.sampled_from(DIRECTIONS), st.integers(1, 10))
def test_target_stays_on_the_board_or_says_none(
    origin: Square, side: Side, direction: str, distance: int
) -> None:
    move = Line(direction, distance)  # type: ignore[arg-type]
    to = target(side, origin, move)
    if to is not None:
        assert line(side, origin, to) == move

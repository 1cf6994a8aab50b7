"""The movement types (rules §3), answer sets (§6.3, §8), promotion statements (§6.5) and
announcement legality (§6.1-6.2), checked against the printed table and the examples of §14."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.errors import IllegalAction
from spycraft.engines.confusion.board import (
    ALL_SPIES,
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
    line,
    mirror,
    opp,
    reflected,
    rotate,
    square,
    target,
)
from spycraft.engines.confusion.movement import (
    ASSIGNED,
    ASSIGNMENT_DRAWS,
    CROWNS,
    DOUBLE_AGENT,
    MAX_PROMOTED,
    MAX_UNPROMOTED,
    MODES,
    PROMOTED,
    TYPE_IDS,
    TYPES,
    Announcement,
    ImpossibleSituation,
    Mode,
    Situation,
    announceable,
    answer_sets,
    asked,
    assignment,
    check_announcement,
    forced_answer,
    movement_type,
    needs_answer,
    promotion_sets,
    promotion_statement,
    statement_due,
)

START = Situation.start()
BACKWARD = ("SE", "S", "SW")
FORWARD = ("NW", "N", "NE")
LINES = tuple(Line(d, k) for d in DIRECTIONS for k in range(1, 5))


def rulebook_rows() -> list[list[str]]:
    text = (Path(__file__).parent / "rulebook-types.md").read_text(encoding="utf-8")
    return [
        [cell.strip() for cell in row.strip().strip("|").split("|")]
        for row in text.splitlines()
        if row.startswith("|")
    ]


def printed_maximum(type_id: str, direction: str) -> int:
    """The rulebook's own cell, independent of ``movement``: the oracle for the answer sets."""
    row = next(r for r in rulebook_rows() if r[0] == type_id)
    cell = row[2 + DIRECTIONS.index(direction)]  # type: ignore[arg-type]
    return 0 if cell == "–" else int(cell)


def sq(name: str) -> Square:
    return square(name)


def ann(spy: str, mode: str, to: str) -> Announcement:
    return Announcement(spy, mode, sq(to))  # type: ignore[arg-type]


def targets(situation: Situation, side: Side, spy: str, mode: str = "move") -> set[str]:
    return {a.to.name for a in announceable(situation, side) if a.spy == spy and a.mode == mode}


def is_legal(situation: Situation, side: Side, announced: Announcement) -> bool:
    try:
        check_announcement(situation, side, announced)
    except Illegal:
        return False
    return True


# §3: the types as data.


def test_the_types_are_the_printed_table_of_section_3() -> None:
    rows = rulebook_rows()
    assert [r[0] for r in rows] == [*TYPE_IDS, "PR"]
    for piece, row in zip((*ASSIGNED, PROMOTED), rows, strict=True):
        assert piece.id == row[0] and piece.name == row[1]
        assert [str(piece.max(d)) if piece.maxima else "–" for d in DIRECTIONS] == row[2:10]
        assert (str(piece.reach) if piece.reach is not None else "–") == row[10]
        assert ("crown" if piece.crown else "–") == row[11]
        assert ("lock" if piece.lock else "–") == row[12]


def test_thirteen_pieces_per_side_twelve_patterns_and_the_double_agent() -> None:
    assert len(ASSIGNED) == 13 and len(TYPES) == 12
    assert TYPE_IDS == (*(f"T{i:02}" for i in range(1, 13)), "DA")
    assert len({t.maxima for t in TYPES}) == 12, "no two spies move the same way"
    assert movement_type("PR") is PROMOTED and movement_type("DA") is DOUBLE_AGENT
    for bad in ("T13", "da", "", None, 1):
        with pytest.raises(Illegal):
            movement_type(bad)


def test_crowns_are_t09_to_t12_exactly_the_types_without_a_backward_line() -> None:
    assert CROWNS == ("T09", "T10", "T11", "T12")
    for piece in TYPES:
        assert piece.crown == all(piece.max(d) == 0 for d in BACKWARD), piece.id
    assert not DOUBLE_AGENT.crown and not PROMOTED.crown


def test_lock_is_derived_and_means_t07_to_t12() -> None:
    assert [t.id for t in TYPES if t.lock] == ["T07", "T08", "T09", "T10", "T11", "T12"]
    assert PROMOTED.lock is False and DOUBLE_AGENT.lock is None


def test_reach_is_the_squares_reached_from_f6_on_an_empty_board() -> None:
    for piece in (*TYPES, PROMOTED):
        reached = {
            target(WHITE, sq("f6"), Line(d, k)) for d in DIRECTIONS for k in range(1, 5)
            if k <= piece.max(d)
        }  # fmt: skip
        assert len(reached) == piece.reach
    assert min(t.reach or 0 for t in TYPES) == 4 and max(t.reach or 0 for t in TYPES) == 10
    assert PROMOTED.reach == 16


def test_every_type_is_symmetric_left_to_right() -> None:
    for piece in (*TYPES, PROMOTED):
        assert all(piece.max(d) == piece.max(reflected(d)) for d in DIRECTIONS), piece.id


def test_decision_balance_no_forward_3_with_a_different_backward_2() -> None:
    for piece in TYPES:
        for forward in FORWARD:
            if piece.max(forward) >= 3:
                others = [b for b in BACKWARD if b != {"N": "S", "NE": "SW", "NW": "SE"}[forward]]
                assert all(piece.max(b) < 2 for b in others), piece.id


def test_decision_no_printed_type_exceeds_4_and_the_double_agent_has_no_lines() -> None:
    assert max(max(t.maxima or (0,)) for t in TYPES) == MAX_UNPROMOTED == 4
    assert DOUBLE_AGENT.maxima is None
    assert not any(DOUBLE_AGENT.allows(move) for move in LINES)
    assert all(PROMOTED.allows(Line(d, k)) for d in DIRECTIONS for k in (1, 2))


# §4: the assignment's permutation.


def test_decision_the_assignment_takes_12_draws_of_sizes_13_down_to_2() -> None:
    assert ASSIGNMENT_DRAWS == (13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
    assert assignment((0,) * 12) == tuple(range(13))
    assert assignment(tuple(r - 1 for r in ASSIGNMENT_DRAWS)) == tuple(range(12, -1, -1))
    # A takes index 2 of [0..12]; B index 0 of what is left; ...; M the last one left.
    assert assignment((2, 0) + (0,) * 10) == (2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
    for bad in ((0,) * 11, (13,) + (0,) * 11, (0,) * 11 + (2,), (True,) + (0,) * 11):
        with pytest.raises(ValueError):
            assignment(bad)  # type: ignore[arg-type]


@given(st.tuples(*(st.integers(0, r - 1) for r in ASSIGNMENT_DRAWS)))
def test_every_draw_sequence_is_a_permutation_and_gives_back_its_draws(
    draws: tuple[int, ...],
) -> None:
    order = assignment(draws)
    assert sorted(order) == list(range(13))
    remaining = list(range(13))
    recovered = []
    for index in order[:-1]:
        recovered.append(remaining.index(index))
        remaining.remove(index)
    assert tuple(recovered) == draws, "one permutation per draw sequence: uniform draws, uniform σ"


# §6.3, §8: answer sets, the Double Agent in both.


def test_section_14_3_forced_and_free_answers_to_n4() -> None:
    move = line(WHITE, sq("f1"), sq("f5"))
    assert str(move) == "N4"
    assert forced_answer("T10", move) is True
    assert forced_answer("T05", move) is False and forced_answer("T04", move) is False
    assert forced_answer("DA", move) is None
    sets = answer_sets(move)
    assert sets.yes == ("T10", "DA")
    assert "T05" in sets.no and "T04" in sets.no and "DA" in sets.no


def test_no_answer_is_asked_for_a_promoted_spy() -> None:
    with pytest.raises(Illegal):
        forced_answer("PR", Line("N", 1))
    situation = START.moved("W-C", sq("f4"))
    promoted = Situation(situation.spies, situation.briefcase, ("W-C",))
    assert asked(promoted, WHITE, ann("W-C", "move", "f5")) is None
    assert asked(situation, WHITE, ann("W-C", "move", "f5")) == answer_sets(Line("N", 1))
    with pytest.raises(Illegal):
        asked(situation, WHITE, ann("W-C", "move", "f7"))


def test_a_throw_asks_about_the_briefcase_line_with_the_throwers_type() -> None:
    situation = Situation(START.moved("W-I", sq("f6")).spies, sq("f6"))
    sets = asked(situation, WHITE, ann("W-I", "throw", "h8"))
    assert sets == answer_sets(Line("NE", 2))
    assert sets is not None and sets.yes == ("T03", "T08", "T11", "DA")


@pytest.mark.parametrize("move", LINES, ids=str)
def test_the_yes_and_no_sets_split_the_patterns_and_share_only_the_double_agent(
    move: Line,
) -> None:
    sets = answer_sets(move)
    assert set(sets.yes) & set(sets.no) == {"DA"}
    assert set(sets.yes) | set(sets.no) == set(TYPE_IDS)
    assert set(sets.yes) - {"DA"} == {
        t for t in TYPE_IDS[:12] if move.distance <= printed_maximum(t, move.direction)
    }
    assert sets.for_answer(True) == sets.yes and sets.for_answer(False) == sets.no


def candidates(*observations: tuple[Line, bool]) -> set[str]:
    """Local candidates (§11): the types that meet every observation."""
    out = set(TYPE_IDS)
    for move, answer in observations:
        out &= set(answer_sets(move).for_answer(answer))
    return out


def test_section_14_4_local_candidates_are_intersections_of_answer_sets() -> None:
    n3 = line(WHITE, sq("f1"), sq("f4"))
    s1 = line(WHITE, sq("f4"), sq("f3"))
    assert (str(n3), str(s1)) == ("N3", "S1")
    assert candidates((n3, True)) == {"T05", "T10", "DA"}
    assert candidates((n3, True), (s1, False)) == {"T10", "DA"}
    assert candidates((line(WHITE, sq("b1"), sq("b5")), True)) == {"T10", "DA"}
    n2 = line(WHITE, sq("c2"), sq("c4"))
    ne1 = line(WHITE, sq("c2"), sq("d3"))
    assert set(TYPE_IDS) - candidates((n2, False)) == {"T04", "T05", "T09", "T10"}
    assert candidates((n2, False), (ne1, True)) == {"T02", "T03", "T08", "T11", "DA"}


def test_section_14_5_the_double_agent_by_contradiction() -> None:
    n1 = line(WHITE, sq("d2"), sq("d3"))
    assert candidates((n1, False), (n1, True)) == {"DA"}


def test_promotion_statements_are_forced_and_the_double_agent_says_no() -> None:
    sets = promotion_sets()
    assert sets.yes == CROWNS
    assert set(sets.no) == set(TYPE_IDS) - set(CROWNS) and "DA" in sets.no
    assert [promotion_statement(t) for t in TYPE_IDS] == [t in CROWNS for t in TYPE_IDS]


def test_section_14_8_a_yes_to_n4_and_promotion_yes_leave_only_t10() -> None:
    n4 = line(WHITE, sq("f7"), sq("f11"))
    assert set(answer_sets(n4).yes) & set(promotion_sets().yes) == {"T10"}
    assert forced_answer("T05", n4) is False


# §6.1-6.2: announcements.


def test_section_14_2_announceable_moves_at_the_start() -> None:
    for side in SIDES:
        moves = announceable(START, side)
        assert len(moves) == 120
        assert {m.mode for m in moves} == {"move"}
        per_spy = [sum(m.spy == spy for m in moves) for spy in SPIES[side]]
        assert per_spy == [6, 2, 6, 2, 6, 10, 12, 13, 14, 14, 13, 12, 10]
    assert targets(START, WHITE, "W-B") == {"c1", "e1"}
    assert targets(START, WHITE, "W-C") == {"e1", "g1", "f2", "f3", "f4", "f5"}


@pytest.mark.parametrize(
    ("announced", "reason"),
    [
        (("W-C", "move", "f6"), "at most 4"),
        (("W-B", "move", "d3"), "blocked on d2"),
        (("W-A", "move", "c2"), "same player"),
        (("W-J", "move", "g7"), "at most 4"),
        (("W-C", "move", "g3"), "not a straight move"),
        (("W-C", "carry", "f2"), "not 'carry'"),
        (("R-C", "move", "f10"), "not a spy of this player"),
    ],
)
def test_section_14_2_not_announceable(announced: tuple[str, str, str], reason: str) -> None:
    with pytest.raises(Illegal, match=reason) as caught:
        check_announcement(START, WHITE, ann(*announced))
    assert isinstance(caught.value.attribute(0, 5), IllegalAction)


def test_no_spy_can_take_the_briefcase_on_the_first_move() -> None:
    for side in SIDES:
        assert all(m.to != START.briefcase for m in announceable(START, side))


def test_section_14_6_moving_onto_the_briefcase_and_capturing_its_controller() -> None:
    white = START.moved("W-C", sq("f5")).moved("R-C", sq("f7"))
    assert str(check_announcement(white, WHITE, ann("W-C", "move", "f6"))) == "N1"
    red = white.moved("W-C", sq("f6"))
    assert red.controller() == "W-C"
    assert str(check_announcement(red, RED, ann("R-C", "move", "f6"))) == "N1"


def test_section_14_7_throw_leave_and_carry() -> None:
    situation = START.moved("W-I", sq("f6")).moved("R-K", sq("f8"))
    allowed = [("throw", "f8"), ("carry", "f7"), ("carry", "f8"), ("leave", "f7"),
               ("leave", "f8"), ("throw", "f7")]  # fmt: skip
    for mode, to in allowed:
        assert str(check_announcement(situation, WHITE, ann("W-I", mode, to)))[0] == "N"
    for mode, to in (("throw", "f9"), ("carry", "f9"), ("move", "f7")):
        assert not is_legal(situation, WHITE, ann("W-I", mode, to))
    assert {m.mode for m in announceable(situation, WHITE) if m.spy == "W-I"} == {
        "leave",
        "carry",
        "throw",
    }


def test_a_thrown_briefcase_may_land_on_an_own_spy_a_carried_one_may_not() -> None:
    situation = START.moved("W-I", sq("f6")).moved("W-H", sq("f7"))
    assert is_legal(situation, WHITE, ann("W-I", "throw", "f7"))
    assert not is_legal(situation, WHITE, ann("W-I", "carry", "f7"))
    assert not is_legal(situation, WHITE, ann("W-I", "throw", "f8")), "never over a spy"


def test_nothing_jumps_over_the_briefcase() -> None:
    situation = START.moved("W-C", sq("f4"))
    assert not is_legal(situation, WHITE, ann("W-C", "move", "f7"))
    assert is_legal(situation, WHITE, ann("W-C", "move", "f6"))


def test_section_14_8_promotion_is_stated_when_a_spy_ends_on_its_goal_row() -> None:
    situation = START.moved("W-C", sq("f7"))
    announced = ann("W-C", "move", "f11")
    assert str(check_announcement(situation, WHITE, announced)) == "N4"
    assert situation.occupant(sq("f11")) == "R-C", "the capture"
    assert statement_due(situation, WHITE, announced)
    assert not statement_due(situation, WHITE, ann("W-C", "move", "f10"))
    promoted = Situation(situation.spies, situation.briefcase, ("W-C",))
    assert not needs_answer(promoted, "W-C") and needs_answer(situation, "W-C")
    assert not statement_due(promoted, WHITE, ann("W-C", "move", "f9"))


def test_section_14_9_carry_and_throw_onto_the_goal_row() -> None:
    situation = Situation(START.moved("W-J", sq("e9")).moved("R-J", None).spies, sq("e9"))
    for mode in ("carry", "throw"):
        assert str(check_announcement(situation, WHITE, ann("W-J", mode, "e11"))) == "N2"
    assert statement_due(situation, WHITE, ann("W-J", "carry", "e11"))
    assert not statement_due(situation, WHITE, ann("W-J", "throw", "e11"))
    with_k = situation.moved("W-K", sq("e11"))
    assert is_legal(with_k, WHITE, ann("W-J", "throw", "e11"))
    assert not is_legal(with_k, WHITE, ann("W-J", "carry", "e11"))


def test_section_14_10_after_eliminating_the_red_double_agent_w_c_may_reach_f5() -> None:
    situation = Situation(START.moved("R-H", sq("f5")).spies, sq("f5"))
    assert situation.controller() == "R-H"
    after = situation.moved("R-H", None)
    assert after.controller() is None
    assert str(check_announcement(after, WHITE, ann("W-C", "move", "f5"))) == "N4"


def test_section_14_11_red_frame_and_the_announceable_moves_of_r_d() -> None:
    situation = Situation(START.moved("R-C", sq("f7")).spies, sq("f7"))
    assert targets(situation, RED, "R-D") == {"c11", "e11", "f11", "g11"}
    assert str(check_announcement(situation, RED, ann("R-D", "move", "e11"))) == "W1"
    assert str(check_announcement(situation, RED, ann("R-C", "carry", "f8"))) == "S1"


def test_decision_a_promoted_spy_announces_at_most_two_squares() -> None:
    situation = Situation(START.moved("W-C", sq("f4")).spies, START.briefcase, ("W-C",))
    moves = [m for m in announceable(situation, WHITE) if m.spy == "W-C"]
    assert moves and all(line(WHITE, sq("f4"), m.to).distance <= MAX_PROMOTED for m in moves)
    with pytest.raises(Illegal, match="at most 2"):
        check_announcement(situation, WHITE, ann("W-C", "move", "c4"))
    assert is_legal(START.moved("W-C", sq("f4")), WHITE, ann("W-C", "move", "c4"))


def test_a_situation_no_game_can_reach_is_refused() -> None:
    for bad in (
        lambda: Situation((("W-A", sq("a1")), ("W-B", sq("a1"))), sq("f6")),
        lambda: Situation((("W-B", sq("a1")), ("W-A", sq("a2"))), sq("f6")),
        lambda: Situation((("X-A", sq("a1")),), sq("f6")),
        lambda: Situation((("W-A", Square(11, 0)),), sq("f6")),
        lambda: Situation((("W-A", sq("a1")),), sq("f6"), ("W-B",)),
    ):
        with pytest.raises(ImpossibleSituation):
            bad()


# Properties over random situations.


@st.composite
def situations(draw: st.DrawFn) -> Situation:
    chosen = draw(st.lists(st.sampled_from(ALL_SPIES), min_size=2, max_size=26, unique=True))
    places = draw(st.lists(st.sampled_from(SQUARES), min_size=len(chosen),
                           max_size=len(chosen), unique=True))  # fmt: skip
    spies = tuple(sorted(zip(chosen, places, strict=True)))
    if draw(st.booleans()):
        briefcase = draw(st.sampled_from(places))
    else:
        briefcase = draw(st.sampled_from(SQUARES))
    promoted = tuple(sorted(draw(st.sets(st.sampled_from(chosen), max_size=4))))
    return Situation(spies, briefcase, promoted)


def turned(situation: Situation) -> Situation:
    """The board turned 180 degrees with the colours swapped: W-X stands where R-X stood."""

    def swap(spy: str) -> str:
        return ("R" if spy[0] == "W" else "W") + spy[1:]

    spies = tuple(sorted((swap(s), rotate(w)) for s, w in situation.spies))
    return Situation(
        spies, rotate(situation.briefcase), tuple(sorted(map(swap, situation.promoted)))
    )


@settings(max_examples=200, deadline=None)
@given(situations())
def test_section_6_6_a_player_with_a_spy_always_has_an_announceable_move(
    situation: Situation,
) -> None:
    for side in SIDES:
        if situation.on_board(side):
            assert announceable(situation, side)


@settings(max_examples=200, deadline=None)
@given(situations(), st.data())
def test_the_list_and_the_check_agree(situation: Situation, data: st.DataObject) -> None:
    side: Side = data.draw(st.sampled_from(SIDES))
    listed = set(announceable(situation, side))
    for announced in listed:
        move = check_announcement(situation, side, announced)
        limit = MAX_PROMOTED if announced.spy in situation.promoted else MAX_UNPROMOTED
        assert 1 <= move.distance <= limit
    for _ in range(20):
        mode: Mode = data.draw(st.sampled_from(MODES))
        probe = Announcement(data.draw(st.sampled_from(ALL_SPIES)), mode, data.draw(
            st.sampled_from(SQUARES)))  # fmt: skip
        assert is_legal(situation, side, probe) == (probe in listed)


@settings(max_examples=100, deadline=None)
@given(situations())
def test_turning_the_board_and_swapping_colours_changes_no_announcement(
    situation: Situation,
) -> None:
    other = turned(situation)
    for side in SIDES:
        mine = announceable(situation, side)
        theirs = announceable(other, opp(side))
        assert len(mine) == len(theirs)
        for a in mine:
            b = Announcement(("R" if a.spy[0] == "W" else "W") + a.spy[1:], a.mode, rotate(a.to))
            assert check_announcement(situation, side, a) == check_announcement(other, opp(side), b)


@settings(max_examples=100, deadline=None)
@given(situations())
def test_a_mirrored_board_mirrors_every_line_and_keeps_every_answer_set(
    situation: Situation,
) -> None:
    mirrored = Situation(
        tuple((s, mirror(w)) for s, w in situation.spies),
        mirror(situation.briefcase),
        situation.promoted,
    )
    for side in SIDES:
        for a in announceable(situation, side):
            move = check_announcement(situation, side, a)
            twin = check_announcement(mirrored, side, Announcement(a.spy, a.mode, mirror(a.to)))
            assert twin == Line(reflected(move.direction), move.distance)
            assert answer_sets(twin) == answer_sets(move)

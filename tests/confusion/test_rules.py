"""The worked examples of rules/confusion.md §14 on the engine's model and notebook: resolution,
capture, control, promotion, wins, free actions, the draw counter, tokens and deductions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spycraft.crypto.errors import IllegalAction
from spycraft.engines.confusion import model, notebook
from spycraft.engines.confusion.board import RED, WHITE, Illegal, Line, Side, square
from spycraft.engines.confusion.model import Game, Observation
from spycraft.engines.confusion.movement import TYPE_IDS, Announcement, Situation


def play(moves: dict[str, str | None] | None = None, briefcase: str = "f6", turn: Side = WHITE,
         tokens: bool = False, **changes: object) -> Game:
    """The start position with ``moves`` (spy -> square, None: removed), in the play phase."""
    board = Situation.start()
    for spy, where in (moves or {}).items():
        board = board.moved(spy, None if where is None else square(where))
    board = Situation(board.spies, square(briefcase), board.promoted)
    g = model.start(bytes(32), tokens, "white")
    g = model.apply_draw(g, [0] * 24)
    return replace(g, board=board, turn=turn, **changes)  # type: ignore[arg-type]


def ann(spy: str, mode: str, to: str) -> Announcement:
    return Announcement(spy, mode, square(to))  # type: ignore[arg-type]


def announced(g: Game, spy: str, mode: str, to: str) -> Game:
    return model.announce(replace(g, step="announce"), ann(spy, mode, to))


def test_14_4_deduction_by_matching() -> None:
    log = (
        Observation(1, "W-C", "yes", Line("N", 3)),
        Observation(3, "W-C", "no", Line("S", 1)),
        Observation(5, "W-A", "yes", Line("N", 4)),
        Observation(7, "W-G", "no", Line("N", 2)),
        Observation(9, "W-G", "yes", Line("NE", 1)),
    )
    assert notebook.local_candidates(log[:1], "W-C") == ("T05", "T10", "DA")
    assert notebook.local_candidates(log[:2], "W-C") == ("T10", "DA")
    assert notebook.local_candidates(log, "W-A") == ("T10", "DA")
    assert notebook.local_candidates(log, "W-G") == ("T02", "T03", "T08", "T11", "DA")
    page = notebook.page(log, WHITE)
    assert page.of("W-G") == ("T02", "T03", "T08", "T11")
    assert page.of("W-I") == tuple(t for t in TYPE_IDS if t not in ("T10", "DA"))
    assert page.of("W-A") == page.of("W-C") == ("T10", "DA")
    assert page.suspect("W-A") and not page.suspect("W-G")


def test_14_5_the_double_agent_by_contradiction() -> None:
    log = (Observation(5, "W-H", "no", Line("N", 1)), Observation(9, "W-H", "yes", Line("N", 1)))
    page = notebook.page(log, WHITE)
    assert page.of("W-H") == ("DA",) and page.known("W-H") == "DA"
    assert all("DA" not in page.of(s) for s in ("W-A", "W-B", "W-M"))
    g = model.free_action(play(step="free"), "eliminate_own", "W-H", 11)
    assert "W-H" in g.removed and g.progress


def test_14_6_capture_and_control() -> None:
    g = play({"W-C": "f5", "R-C": "f7"})
    g = model.answer(announced(g, "W-C", "move", "f6"), True, None, 10)
    assert g.board.controller() == "W-C" and g.visited == (6,)
    assert g.turn == RED and g.quiet == 1
    g = model.answer(announced(g, "R-C", "move", "f6"), True, None, 12)
    assert "W-C" in g.removed and g.board.controller() == "R-C"
    assert g.quiet == 0
    assert all(o.kind != "shown" for o in g.log)  # the captured type is not shown


def test_14_7_throw_leave_and_carry() -> None:
    g = play({"W-I": "f6", "R-K": "f8"})
    thrown = model.answer(announced(g, "W-I", "throw", "f8"), True, None, 10)
    assert thrown.board.briefcase == square("f8") and thrown.board.controller() == "R-K"
    assert thrown.board.position("W-I") == square("f6") and 8 in thrown.visited
    carried = model.answer(announced(g, "W-I", "carry", "f8"), True, None, 10)
    assert "R-K" in carried.removed and carried.board.controller() == "W-I"
    assert carried.board.briefcase == square("f8")
    left = model.answer(announced(g, "W-I", "leave", "f8"), True, None, 10)
    assert "R-K" in left.removed and left.board.position("W-I") == square("f8")
    assert left.board.briefcase == square("f6") and left.board.controller() is None
    with pytest.raises(Illegal):
        announced(g, "W-I", "move", "f7")
    with pytest.raises(Illegal):
        announced(g, "W-I", "throw", "f9")


def test_14_8_promotion() -> None:
    g = play({"W-C": "f7", "R-D": None, "R-C": "f11"})
    asked = announced(g, "W-C", "move", "f11")
    assert model.promotion_due(asked)
    with pytest.raises(Illegal):
        model.answer(asked, True, None, 10)  # the statement is due with a yes
    g = model.answer(asked, True, True, 10)
    assert "R-C" in g.removed and "W-C" in g.board.promoted and g.quiet == 0
    page = notebook.page(g.log, WHITE)
    assert page.of("W-C") == ("T10",)
    da = model.answer(asked, True, False, 10)
    assert "W-C" not in da.board.promoted and "R-C" in da.removed


def test_14_9_winning_and_not_yet() -> None:
    g = play({"W-J": "e9", "R-J": "a6"}, briefcase="e9")
    carried = model.answer(announced(g, "W-J", "carry", "e11"), True, False, 10)
    assert carried.outcome == model.Outcome(WHITE, "briefcase", "W-J holds it on e11")
    thrown = model.answer(announced(g, "W-J", "throw", "e11"), True, None, 10)
    assert thrown.outcome is None and thrown.board.briefcase == square("e11")
    g2 = play({"W-J": "e9", "R-J": "a6", "W-K": "e11", "R-E": "a7"}, briefcase="e9")
    won = model.answer(announced(g2, "W-J", "throw", "e11"), True, None, 10)
    assert won.outcome is not None and won.outcome.winner == WHITE
    g3 = play({"R-J": "e10", "W-K": "e11", "R-E": "a7"}, briefcase="e10", turn=RED)
    red_throws = model.answer(announced(g3, "R-J", "throw", "e11"), True, None, 10)
    assert red_throws.outcome is not None and red_throws.outcome.winner == WHITE


def test_14_10_eliminating_the_opponents_double_agent() -> None:
    g = play({"R-H": "f5", "W-H": "a5", "W-I": "a6", "W-J": "a7"}, briefcase="f5")
    g = model.free_action(replace(g, step="free"), "eliminate_opp_da", "R-H", 10)
    assert "R-H" in g.removed and g.board.controller() is None and g.progress
    assert g.shown("R-H") == "DA" and g.step == "announce"
    g = model.answer(model.announce(g, ann("W-C", "move", "f5")), True, None, 12)
    assert g.board.controller() == "W-C"


def test_14_11_the_draw_counter() -> None:
    base = play({"R-C": "f7"}, briefcase="f7", turn=RED, quiet=199, visited=(5, 6, 7))
    no = model.answer(announced(base, "R-D", "move", "e11"), False, None, 10)
    assert no.quiet == 200 and no.outcome == model.Outcome(None, "draw",
                                                           "200 turns without progress")
    carry = model.answer(announced(base, "R-C", "carry", "f8"), True, None, 10)
    assert carry.quiet == 0 and carry.outcome is None and 8 in carry.visited


def test_14_12_tokens() -> None:
    g = play({"W-I": "f6", "W-A": "b1"}, tokens=True)
    assert g.step == "token"
    swapped = model.use_token(g, "swap", ("W-A", "W-I"))
    assert swapped.board.controller() == "W-A" and swapped.board.position("W-I") == square("b1")
    after = model.free_action(swapped, "none", None, 11)
    assert after.turn == RED  # no move step after a swap
    double = model.use_token(play(tokens=True), "double", ())
    first = model.announce(model.free_action(double, "none", None, 10), ann("W-C", "move", "f5"))
    second = model.answer(first, False, None, 12)
    assert second.step == "announce" and second.turn == WHITE
    with pytest.raises(Illegal):
        model.announce(second, ann("W-C", "move", "f4"))
    model.announce(second, ann("W-G", "move", "c3"))
    revealed = model.use_token(play(tokens=True), "reveal", ("W-H",))
    assert revealed.step == "show"
    shown = model.show(revealed, "DA", 11)
    assert shown.step == "free" and notebook.page(shown.log, WHITE).of("W-H") == ("DA",)
    assert "W-H" in model.free_action(shown, "eliminate_own", "W-H", 12).removed


def test_a_player_left_without_spies_loses() -> None:
    alone = {f"W-{c}": None for c in "BCDEFGHIJKLM"}
    g = play(alone, step="free")
    g = model.free_action(g, "eliminate_own", "W-A", 10)
    assert g.outcome == model.Outcome(RED, "no spies left", "White has no spy")


def test_an_illegal_free_action_is_illegal_action_once_attributed() -> None:
    with pytest.raises(Illegal) as error:
        model.free_action(play(step="free"), "eliminate_own", "R-A", 10)
    assert isinstance(error.value.attribute(0, 10), IllegalAction)

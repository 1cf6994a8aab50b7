"""Confusion's view model: the board, the notebooks, the enemy's types, the story of questions.

Games are real seeded tables (``engines.local``) played by the bots; every check reads the
``Screen`` or ``Event`` a UI would draw, against the engine's own state.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.confusion import GAME, notebook
from spycraft.engines.confusion.board import SPIES, Line, Square
from spycraft.engines.confusion.bots import BOTS
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import TYPE_IDS, TYPES, movement_type
from spycraft.engines.confusion.screen import moves_text, screen, story, type_name
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.viewmodel import Event, Screen
from tests.conformance.games import live_steps


@cache
def played(seed: int, tokens: bool = False) -> tuple[LocalTable, tuple[Any, ...]]:
    entropy = SeededEntropy(seed)
    local = new_local_table(GAME, {"tokens": tokens, "first": "random"}, 2, entropy)
    agents = [BOTS["heuristic"](entropy.child(f"bot/{i}"), i) for i in range(2)]
    return local, live_steps(local, agents)


def events(seed: int, tokens: bool = False) -> list[Event]:
    _, steps = played(seed, tokens)
    told = [story(b.game, r, a.game) for b, r, a, _ in steps]
    return [e for e in told if e is not None]


def texts(view: Screen) -> list[str]:
    found = [f.label + " " + f.text + " " + f.explain for f in view.status + view.private]
    for grid in view.board + (view.result.reveal if view.result else ()):
        found += [grid.title, *grid.columns, *(c.text for row in grid.rows for c in row)]
    return found + list(view.notes)


def test_every_type_is_named_with_its_lines_in_the_owners_words() -> None:
    assert moves_text(movement_type("T10")) == "forward up to 4"
    assert moves_text(movement_type("T02")) == "1 in any direction"
    assert moves_text(movement_type("T07")) == "forward 1, back diagonals up to 2"
    assert moves_text(movement_type("PR")) == "up to 2 in any direction"
    assert "answers every move as they like" in moves_text(movement_type("DA"))
    assert [type_name(t.id) for t in TYPES][:3] == ["Sentry", "Courier", "Diplomat"]


def test_the_board_grid_is_the_board() -> None:
    _, steps = played(6)
    for _, _, after, _ in steps[::20]:
        g: Game = after.game.game
        grid = next(x for x in screen(after, None, None).board if x.title == "Board")
        assert [row[0].text for row in grid.rows] == [str(r) for r in range(11, 0, -1)]
        for row in grid.rows:
            y = int(row[0].text) - 1
            for x, cell in enumerate(row[1:]):
                spy = g.board.occupant(Square(x, y))
                text = cell.text.strip("[]").rstrip("+").strip()
                assert text == (spy or ("" if Square(x, y) == g.board.briefcase else "."))
                assert cell.text.endswith("+]" if spy in g.board.promoted and Square(
                    x, y) == g.board.briefcase else "+") == (spy in g.board.promoted)


def test_the_notebooks_show_the_public_candidates_of_every_spy() -> None:
    _, steps = played(6)
    _, _, after, _ = steps[len(steps) // 2]
    g: Game = after.game.game
    for side in (0, 1):
        title = f"{('White', 'Red')[side]}'s spies: what anyone can deduce"
        grid = next(x for x in screen(after, None, None).board if x.title == title)
        page = notebook.page(g.log, side)
        for row, spy in zip(grid.rows, SPIES[side]):
            assert row[0].text == spy
            candidates = page.of(spy)
            if len(candidates) <= 6:
                assert row[2].text == ", ".join(type_name(t) for t in candidates)
            else:
                missing = [t for t in TYPE_IDS if t not in candidates]
                assert all(type_name(t) in row[2].text for t in missing)
            assert (row[3].text == "known") == (len(candidates) == 1)


def test_a_seat_sees_the_enemy_types_it_assigned_and_never_its_own() -> None:
    _, steps = played(6)
    _, _, after, views = steps[len(steps) // 3]
    for seat in (0, 1):
        view = views[seat]
        drawn = screen(after, seat, view)
        enemy = dict(view.opponent_types)
        facts = {f.label: f for f in drawn.private}
        for spy, type_id in enemy.items():
            assert facts[spy].text.startswith(type_name(type_id) + " (")
            assert facts[spy].explain.startswith(type_name(type_id) + ": ")
        assert not any(spy in facts for spy in SPIES[seat])
    assert screen(after, None, None).private == ()


def test_the_public_picture_names_no_type_the_log_does_not_prove() -> None:
    _, steps = played(6)
    _, _, after, views = steps[len(steps) // 3]
    words = " ".join(texts(screen(after, None, None)))
    for seat in (0, 1):
        enemy = dict(views[seat].opponent_types)
        page = notebook.page(after.game.game.log, 1 - seat)
        for spy, type_id in enemy.items():
            if len(page.of(spy)) > 1:
                assert not re.search(rf"{spy} \| {type_name(type_id)}\b", words)


def test_a_question_and_its_answer_are_one_line_with_the_line_in_words() -> None:
    told = events(6)
    answers = [e for e in told if " announces " in e.text]
    assert answers
    pattern = re.compile(
        r"^(White|Red) announces [WR]-[A-M] (moves|carries the briefcase|throws the briefcase|"
        r"leaves the briefcase and moves) [a-k]\d+ to [a-k]\d+ \((forward|back|left|right|"
        r"forward-left|forward-right|back-left|back-right) \d\): (White|Red) answers (yes|no)"
    )
    for e in answers:
        assert pattern.match(e.text), e.text
        assert e.round is not None
    for e in told:
        assert not re.search(r"\bT\d\d\b|\bDA\b|\bPR\b|_", e.text), e.text


def test_progress_says_why_the_quiet_count_starts_again() -> None:
    told = events(6)
    captures = [e for e in told if "is captured" in e.text]
    ranks = [e for e in told if "for the first time" in e.text]
    assert captures and ranks
    assert all("a spy left the board" in e.why for e in captures)
    assert all("a new rank for the briefcase" in e.why for e in ranks)


def test_the_final_screen_says_who_won_and_shows_every_type() -> None:
    local, _steps = played(7)
    end = local.state
    assert end.result is not None and end.result.winner is not None
    g: Game = end.game.game
    public = screen(end, None, None).result
    assert public is not None and public.headline == f"{end.result.winner} won"
    for seat in (0, 1):
        result = screen(end, seat, local.seats[seat].view(end)).result
        assert result is not None
        won = end.result.winner == ("White", "Red")[seat]
        assert result.headline == ("You won" if won else "You lost")
        grid = result.reveal[0]
        assert [row[0].text for row in grid.rows] == list("ABCDEFGHIJKLM")
        for side in (0, 1):
            opened = g.openings[1 - side]
            assert opened is not None
            types = [row[1 + side].text.split(" (")[0] for row in grid.rows]
            order = [opened[g.assigned[side][i]] for i in range(13)]
            assert types == [type_name(t) for t in order]
    assert events(7)[-1].text == f"{end.result.winner} won"


def test_tokens_are_told_and_counted() -> None:
    local, _steps = played(5, tokens=True)
    lines = [e.text for e in events(5, tokens=True)]
    used = [t for t in lines if " uses the " in t]
    assert used
    status = {f.label: f for f in screen(local.state, None, None).status}
    assert "Tokens left" in status and "reveal" in status["Tokens left"].explain


def test_a_pending_question_is_spelled_out_while_waiting() -> None:
    _, steps = played(6)
    after = next(a for _, _, a, _ in steps
                 if a.game.game.step == "answer" and a.game.game.phase == "play")
    g: Game = after.game.game
    assert g.pending is not None and isinstance(g.asked, Line)
    notes = screen(after, None, None).notes
    assert any(n.startswith(f"{('White', 'Red')[g.turn]} announces {g.pending.spy}") for n in notes)


def test_replay_as_a_seat_draws_what_that_seat_saw_live() -> None:
    _, steps = played(6)
    assert GAME.hindsight is not None
    states = [steps[0][0].game] + [after.game for _, _, after, _ in steps]
    for seat in (0, 1):
        hindsight = GAME.hindsight(states, seat)
        for i in range(0, len(steps), 7):
            after, live = steps[i][2], steps[i][3][seat]
            assert screen(after, seat, hindsight[i + 1]) == screen(after, seat, live)

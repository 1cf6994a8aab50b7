"""How the table is set for a terminal: words wrapped and never cut, tables laid out in
columns, the panels placed for every size from 80x24 up, and the turn timer's warning."""

from __future__ import annotations

import io
import threading
import time

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from spycraft.cli import typeset
from spycraft.cli.app import layout
from spycraft.cli.app.bridge import Bridge
from spycraft.cli.app.table import TableApp
from spycraft.engines.agent import Decision

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé:,()0123456789-", min_size=1, max_size=14)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=40), st.integers(min_value=8, max_value=60),
       st.integers(min_value=0, max_value=4))
def test_wrapping_never_cuts_a_word_that_fits_and_loses_no_character(words, width, hang):
    lines = typeset.wrap([("", " ".join(words))], width, hang)
    text = [typeset.plain([line]) for line in lines]
    assert all(typeset.cells(line) <= width for line in text)
    assert "".join("".join(text).split()) == "".join(words)  # nothing lost, nothing added
    shown = " ".join(text).split()
    for word in words:  # a word that fits on a line is on one line, whole
        if len(word) <= width - hang:
            assert word in shown, (word, text)
    assert all(line.startswith(" " * hang) for line in text[1:])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(sorted(typeset.ONE_CELL) + list("ab é漢字\u0301\u200b")),
               max_size=20))
def test_text_takes_the_cells_prompt_toolkit_draws_it_in(text):
    # typeset counts cells without importing prompt-toolkit (spycraft rules into a pipe); the
    # full-screen table draws with prompt-toolkit's count, and the two must agree on any text
    # that reaches the screen (printable: crypto.text.printable has taken control characters out)
    from prompt_toolkit.utils import get_cwidth

    assert typeset.cells(text) == get_cwidth(text)


def test_a_word_wider_than_the_line_is_broken_not_cut():
    lines = typeset.wrap([("", "a supercalifragilistic word")], 8)
    assert typeset.plain(lines).split("\n") == ["a", "supercal", "ifragili", "stic", "word"]


def test_a_table_keeps_narrow_columns_whole_and_wraps_the_wide_one_at_words():
    columns = [[("", "Seat")], [("", "Vote")], [("", "What it does")]]
    rows = [[[("", "0")], [("", "yes")], [("", "before a proposal, play it to become Leader")]]]
    lines = typeset.plain(typeset.table(columns, rows, 30) or []).split("\n")
    assert lines[0].split() == ["Seat", "Vote", "What", "it", "does"]
    assert lines[1].startswith("0     yes   before a")
    assert all(len(line) <= 30 for line in lines)
    assert " ".join(" ".join(lines[1:]).split()) == "0 yes before a proposal, play it to " \
        "become Leader".replace("0 yes ", "0 yes ")
    assert typeset.table(columns, rows, 12) is None  # "proposal," cannot fit beside the others


def _needs(board: int, first: int, rows: int = 10, private: int = 3, options: int = 2,
           prompt: int = 1) -> layout.Needs:
    return layout.Needs(board_natural=board, first_natural=first,
                        board_fits=lambda width: width >= min(board, 30),
                        first_rows=lambda width, packed: rows, board_rows=lambda w, p: rows + 8,
                        private_rows=lambda width: private, prompt_rows=lambda width: prompt,
                        option_rows=lambda width: options)


def test_below_80x24_there_is_no_table_at_all():
    for width, height in ((79, 24), (80, 23), (60, 20)):
        assert layout.plan(width, height, _needs(40, 40)).small


def test_a_board_that_fits_beside_the_person_gets_the_column_beside_it():
    plan = layout.plan(80, 24, _needs(board=36, first=36))
    assert not plan.stacked
    assert plan.pane[0] + plan.column == 80 and plan.column >= layout.SIDE_MIN
    assert plan.private[1] + plan.decision[1] == plan.pane[1]


def test_a_wide_board_takes_the_whole_width_and_the_person_a_row_under_it():
    plan = layout.plan(80, 24, _needs(board=70, first=70))
    assert plan.stacked and plan.pane[0] == 80
    assert plan.private[0] + plan.decision[0] == 80
    assert min(plan.private[0], plan.decision[0]) >= layout.SIDE_MIN
    assert plan.pane[1] + plan.decision[1] + plan.history + 1 == 24
    # the decision keeps its question, the typing line and every option
    assert plan.decision[1] >= 2 + 1 + 1 + 2


def test_every_size_from_80x24_up_keeps_the_person_s_panels_readable():
    for width in range(80, 200, 7):
        for height in range(24, 70, 5):
            for board in (30, 50, 70, 110):
                plan = layout.plan(width, height, _needs(board, board, options=30))
                assert not plan.small
                assert plan.decision[0] >= layout.SIDE_MIN and plan.private[0] >= layout.SIDE_MIN
                assert plan.decision[1] >= 2 + 1 + 1 + layout.DECISION_ROWS - 1
                used = plan.pane[1] + (plan.decision[1] if plan.stacked else 0)
                assert used + plan.history + plan.talk + 1 == height


def test_the_turn_timer_warns_the_person_at_30_and_10_seconds_with_the_bell():
    """The status line counts the table's timer; on the person's own turn it turns into a
    warning at 30 s and again at 10 s, each time with one ring of the terminal's bell."""
    bridge = Bridge(0, ("me", "you"))
    left = [45.0]
    bridge.clock = lambda: left[0]
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm")
    decision = Decision(0, "vote", "Approve this team?", (True, False), ("approve", "reject"),
                        None)
    with create_pipe_input() as pipe:
        app = TableApp(bridge, "resistance", pipe, output)
        runner = threading.Thread(target=app.run, daemon=True)
        runner.start()
        asker = threading.Thread(target=lambda: _ask(bridge, decision), daemon=True)
        asker.start()
        seen, screens = [], []
        for seconds, shown in ((45.0, "turn timer 0:45"), (25.0, "0:25 left"),
                               (24.0, "0:24 left"), (8.0, "0:08 left")):
            left[0] = seconds
            bridge.changed()
            deadline = time.monotonic() + 10  # drawn within a moment, however loaded the box
            while True:
                time.sleep(0.1)
                screen = pyte.Screen(80, 24)
                pyte.Stream(screen).feed(out.getvalue())
                if shown in "\n".join(screen.display) or time.monotonic() > deadline:
                    break
            time.sleep(0.2)  # a second bell, if one came, would be out by now
            seen.append(out.getvalue().count("\a"))
            screen = pyte.Screen(80, 24)
            pyte.Stream(screen).feed(out.getvalue())
            screens.append("\n".join(screen.display))
        bridge.leave(KeyboardInterrupt)
        app.stop()
        runner.join(10)
    assert seen == [0, 1, 1, 2]  # once as 30 s passes, once as 10 s passes, never more
    assert "turn timer 0:45" in screens[0] and "left: decide now" not in screens[0]
    assert "0:25 left: decide now" in screens[1] and "Your decision: 25 s left" in screens[1]
    assert "0:08 left: decide now" in screens[3] and "Your decision: 8 s left" in screens[3]


def _ask(bridge: Bridge, decision: Decision) -> None:
    try:
        bridge.ask(decision)
    except KeyboardInterrupt:
        pass

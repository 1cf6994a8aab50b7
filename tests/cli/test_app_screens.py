"""Every game in a real pseudo-terminal at 80x24, 100x30 and 140x45, read as a person reads it
(the screen through a terminal emulator, never the program's model): at each decision of a
seeded game the decision is on screen and holds its question and the whole text of every
option (scrolled through, or for long lists a sample typed into the filter), the private panel
holds every fact whole (or one key, F3, shows them all), and the board's first grid is whole.
The terminal is resized between the three sizes at each checked decision, so re-laying out a
running table is tested too. Below 80x24 the screen says so and Enter takes nothing.

Sampled: every decision of a game with up to ``EVERY`` of them; in longer games the first
three, the last, and every n-th between, about ``EVERY`` in all; the rest are taken at the size
the terminal has then. At a checked decision, the first size reads everything (every option
scrolled through, every fact with F3 when the panel sends there); the other two read what is
on screen (each option and fact shown is whole, the board's first grid is whole). Lists of
more than ``WALKED`` options are checked by typing six of them (the first two, two in the
middle, the last two) instead of scrolling through.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from spycraft.cli import typeset
from spycraft.cli.app import picture as draw
from spycraft.cli.app.picture import Painter
from spycraft.crypto.text import printable_block
from spycraft.engines.agent import Decision
from spycraft.engines.viewmodel import Grid
from tests.cli import terminal
from tests.cli.seeded_table import seeded
from tests.cli.terminal import Tty

SIZES = ((80, 24), (100, 30), (140, 45))
EVERY = 12
WALKED = 40
SEED = 1  # a seed whose games are short enough (Confusion ends in 15 decisions)
GAMES = [
    ("resistance", 5, ()),
    ("resistance", 7, ("plot",)),
    ("shady-agents", 4, ()),
    ("spies-and-lies", 2, ()),
    ("confusion", 2, ()),
    ("spynet", 2, ()),
]


def flat(text: str) -> str:
    return " ".join(printable_block(text).split())


@dataclass(frozen=True)
class Expected:
    """What one decision of the seeded game offers, from the game itself."""

    prompt: str
    labels: tuple[str, ...]
    facts: tuple[str, ...]
    board: tuple[Counter[str], ...]  # the words of the first grid, in each of its forms


def _words(g: Grid | None) -> list[Counter[str]]:
    if g is None:
        return []
    return [Counter(typeset.plain(draw.grid_lines(g, 10**4)).split())]


def expected(game: str, players: int, given: tuple[str, ...]) -> list[Expected]:
    """Every decision of seat 0 when the person takes the first option each time."""
    definition, local, bots, _ = seeded(game, players, SEED, given)
    painter = Painter(definition)
    seat = local.seats[0]
    found: list[Expected] = []

    class First:
        def decide(self, decision: Decision) -> int:
            pic = painter.picture(local.state, 0, seat.view(local.state))
            screen = pic.screen
            assert screen is not None
            facts = tuple(flat(typeset.plain([line]))
                          for line in draw.fact_lines(screen.private, 10**4))
            first = screen.board[0] if screen.board else None
            board = tuple(_words(first) + _words(first.compact if first else None))
            found.append(Expected(flat(decision.prompt), tuple(flat(x) for x in decision.labels),
                                  facts, board))
            return 0

    local.run([First(), *bots[1:]])
    return found


def sampled(count: int) -> set[int]:
    if count <= EVERY:
        return set(range(count))
    step = max(1, count // (EVERY - 4))
    return {0, 1, 2, count - 1, *range(3, count, step)}


def shows(rows: list[str], want: Expected) -> bool:
    """The decision panel is on screen with this decision's question and first option."""
    panel = terminal.box(rows, "Your decision")
    if panel is None:
        return False
    lines = list(panel.lines)
    typing = next((i for i, line in enumerate(lines) if line.startswith(">")), None)
    if typing is None:
        return False
    question = " ".join(" ".join(lines[:typing]).split())
    shown, _ = terminal.options(panel)
    return question == want.prompt and bool(shown) and shown[0] == want.labels[0]


def _options(rows: list[str]) -> tuple[str, ...] | None:
    """The decision panel's lines (the highlight included), or None when it is not shown."""
    panel = terminal.box(rows, "Your decision")
    return panel.lines if panel is not None else None


def check_options(tty: Tty, want: Expected, where: str) -> None:
    rows = tty.wait(lambda r: shows(r, want), what=f"the decision ({where})")
    panel = terminal.box(rows, "Your decision")
    assert panel is not None
    if len(want.labels) <= WALKED:
        seen: set[str] = set()
        for _ in range(len(want.labels) + 1):
            shown, marks = terminal.options(panel)
            seen |= set(shown)
            if "↓" not in marks:
                break
            before = panel.lines
            tty.press("down", times=max(1, len(shown) - 2))  # as a person scrolls: none skipped
            rows = tty.wait(lambda r, b=before: _options(r) not in (None, b),
                            what=f"the options scrolled ({where})")
            panel = terminal.box(rows, "Your decision")
            assert panel is not None
        missing = set(want.labels) - seen
        assert not missing, f"options not shown whole ({where}): {missing}\n{tty.text()}"
        tty.press("home")
        tty.wait(lambda r: shows(r, want), what=f"the first option again ({where})")
        return
    labels = want.labels
    for label in (*labels[:2], *labels[len(labels) // 2: len(labels) // 2 + 2], *labels[-2:]):
        tty.press("esc")
        tty.press(label)

        def named(r: list[str], label: str = label) -> bool:
            panel = terminal.box(r, "Your decision")
            return panel is not None and terminal.options(panel)[0][:1] == [label]

        tty.wait(named, what=f"the option {label!r} typed, whole and first ({where})")
    tty.press("esc")
    tty.wait(lambda r: shows(r, want), what=f"the first option after typing ({where})")


def pane(rows: list[str]) -> terminal.Box:
    found = next((b for b in terminal.boxes(rows) if b.top == 0 and b.left == 0), None)
    assert found is not None, "\n".join(rows)
    return found


def has_pane(rows: list[str]) -> bool:
    return any(b.top == 0 and b.left == 0 for b in terminal.boxes(rows))


def _joined(before: list[str], page: list[str]) -> list[str]:
    """Two pages of a scrolled panel as one text (the lines they share once)."""
    for shared in range(min(len(before), len(page)), 0, -1):
        if before[-shared:] == page[:shared]:
            return before + page[shared:]
    return before + page


def check_facts(tty: Tty, want: Expected, where: str) -> None:
    rows = tty.wait(lambda r: shows(r, want) and terminal.box(r, "You: seat 0") is not None,
                    what=f"the private panel ({where})")
    panel = terminal.box(rows, "You: seat 0")
    assert panel is not None, f"no private panel ({where})\n{tty.text()}"
    shown = terminal.facts(panel.lines)
    if "F3" in panel.footer:  # the rest is one key away, and the panel says which
        tty.press("f3")
        rows = tty.wait(lambda r: has_pane(r) and "You F3" in pane(r).title and
                        terminal.facts(pane(r).lines)[:1] == list(want.facts[:1]),
                        what=f"the You tab ({where})")
        lines = list(pane(rows).lines)
        while "PgDn" in pane(rows).footer:
            before = rows
            tty.press("pgdn")
            rows = tty.wait(lambda r, b=before: r != b and has_pane(r),
                            what=f"more of the You tab ({where})")
            lines = _joined(lines, list(pane(rows).lines))
        shown = terminal.facts(lines)
        tty.press("f2")
        tty.wait(lambda r: shows(r, want) and "F2: the board" not in r[-1],
                 what=f"the board again ({where})")
    missing = [fact for fact in want.facts if fact not in shown]
    assert not missing, f"private facts not shown whole ({where}): {missing}\n{tty.text()}"


def check_shown(rows: list[str], want: Expected, where: str) -> None:
    """Whatever option and fact the screen shows, it shows whole."""
    panel = terminal.box(rows, "Your decision")
    assert panel is not None
    shown, _ = terminal.options(panel)
    assert set(shown) <= set(want.labels), (where, set(shown) - set(want.labels), "\n".join(rows))
    private = terminal.box(rows, "You: seat 0")
    assert private is not None, where
    facts = terminal.facts(private.lines)
    assert facts and set(facts) <= set(want.facts), (where, set(facts) - set(want.facts))


def check_board(rows: list[str], want: Expected, where: str) -> None:
    if not want.board:
        return
    seen = Counter(" ".join(pane(rows).lines).split())
    assert any(not (form - seen) for form in want.board), \
        f"the board's first grid is not whole ({where})\n" + "\n".join(rows)


@pytest.mark.parametrize("game,players,given", GAMES,
                         ids=[f"{g}-{n}{'-' + '-'.join(o) if o else ''}" for g, n, o in GAMES])
def test_every_decision_reads_whole_at_every_size(game: str, players: int,
                                                  given: tuple[str, ...], tmp_path: Path) -> None:
    wants = expected(game, players, given)
    checked = sampled(len(wants))
    tty = Tty(["-m", "tests.cli.seeded_table", game, str(players), str(SEED), *given],
              tmp_path / "home", *SIZES[0])
    try:
        size = 0
        for k, want in enumerate(wants):
            order = [(size + i) % len(SIZES) for i in range(len(SIZES))] if k in checked \
                else [size]
            for at in order:
                if at != size:
                    tty.resize(*SIZES[at])
                    size = at
                where = f"{game}, decision {k} of {len(wants)}, {SIZES[at][0]}x{SIZES[at][1]}"
                rows = tty.wait(lambda r, w=want: shows(r, w), timeout=60,
                                what=f"decision {k} ({where}): {want.prompt!r}")
                if k in checked:  # all of it at the first size, what is on screen at the others
                    check_board(rows, want, where)
                    check_shown(rows, want, where)
                    if at == order[0]:
                        check_options(tty, want, where)
                        check_facts(tty, want, where)
            frame = tty.rows()
            tty.press("enter")
            try:  # the answer is taken (the screen moves on) before the next one is read
                tty.wait(lambda r, f=frame: r != f, timeout=3)
            except AssertionError:
                pass  # the next decision may look the same: it is read again from the top
        tty.wait(lambda r: terminal.box(r, "The end") is not None, timeout=60, what="the end")
        tty.press("enter")
        assert tty.finish(30) == 0
    finally:
        tty.kill()
    assert b"Traceback" not in tty.raw


def test_below_80x24_the_screen_says_so_and_enter_takes_nothing(tmp_path: Path) -> None:
    wants = expected("resistance", 5, ())
    tty = Tty(["-m", "tests.cli.seeded_table", "resistance", "5", str(SEED)],
              tmp_path / "home", 79, 30)
    try:
        said = "A decision is waiting for you"
        rows = tty.wait(lambda r: said in " ".join(" ".join(r).split()), what="the message")
        text = " ".join(" ".join(rows).split())
        assert "needs a terminal of at least 80x24 (this one is 79x30)" in text
        assert "--line" in text
        assert not terminal.boxes(rows)  # no panel, so no decision a person cannot read
        tty.press("enter", times=3)
        tty.resize(60, 20)
        tty.wait(lambda r: "(this one is 60x20)" in " ".join(" ".join(r).split()),
                 what="the message at 60x20")
        tty.press("enter")
        tty.resize(80, 24)
        rows = tty.wait(lambda r: shows(r, wants[0]), what="the first decision, still open")
        assert "you chose" not in "\n".join(rows)
        tty.press("ctrl-c")
        tty.finish(30)
    finally:
        tty.kill()
    assert b"Traceback" not in tty.raw

"""Output for a person reading a long story (``spycraft replay``): a page at a time in a
terminal, everything at once into a pipe; and ``page``, formatted text (a guide) in a
full-screen pager.

Theory of operation: the command prints lines through ``Pager.say`` and calls ``Pager.turn``
where the story turns a page (a new round of the game). When both standard input and output are
a terminal and the person did not ask for everything (``--all``), each turn that follows printed
lines waits for Enter (``q`` and Enter, or the end of input, stop the story: ``Stopped``). Into a
pipe nothing waits; a reader that goes away (``| head``) raises ``BrokenPipeError``, which
``cli.main`` takes as the reader's wish to stop.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from spycraft.cli.typeset import Line


class Stopped(Exception):
    """The person asked for no more pages."""


class Pager:
    def __init__(self, everything: bool, next_page: str = "next round") -> None:
        self.paging = not everything and sys.stdin.isatty() and sys.stdout.isatty()
        self.pending = False  # lines printed since the last page turn
        self.next_page = next_page  # what Enter shows next, in the prompt

    def say(self, text: str) -> None:
        print(text)
        self.pending = True

    def turn(self) -> None:
        """A page ends here: in a terminal, wait for Enter before the next one."""
        if not (self.paging and self.pending):
            return
        self.pending = False
        sys.stdout.write(f"-- Enter: {self.next_page}, q: stop --")
        sys.stdout.flush()
        answer = sys.stdin.readline()
        if not answer or answer.strip().lower() in ("q", "quit"):
            print()
            raise Stopped


def page(lines_for: Callable[[int], list[Line]], title: str) -> None:
    """Show formatted text full screen in a terminal, set for its width (again after a resize):
    arrows scroll a line, PgUp/PgDn or space a page, Home/End, q or Esc (or Ctrl-C) ends."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import HSplit, Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.styles import Style

    from spycraft.cli.app.layout import box, fitted
    from spycraft.cli.app.picture import STYLE

    state = {"top": 0, "rows": 20}
    memo: dict[int, list[Line]] = {}

    def size() -> tuple[int, int]:
        got = app.output.get_size()
        return got.columns, got.rows

    def text() -> Any:
        width, height = size()
        if width not in memo:
            memo.clear()
            memo[width] = lines_for(max(20, width - 4))
        lines = memo[width]
        rows = max(1, height - 3)
        state["rows"] = rows
        state["top"] = top = max(0, min(state["top"], len(lines) - rows))
        shown = [[("", " "), *line] for line in lines[top: top + rows]]
        where = f"lines {top + 1}-{min(len(lines), top + rows)} of {len(lines)}"
        framed = box(width, height - 1, shown, [[("class:frame.label", title)]],
                     [[("class:hint", where)]])
        out: list[tuple[str, str]] = []
        for i, line in enumerate(framed):
            if i:
                out.append(("", "\n"))
            out += line
        return out

    def status() -> Any:
        keys = [(0, [("", "↑↓ a line")]), (0, [("", "PgUp/PgDn or space a page")]),
                (1, [("", "Home/End")]), (0, [("", "q quits")])]
        return [("class:status", " "), *fitted(keys, size()[0] - 2), ("class:status", " ")]

    kb = KeyBindings()

    def move(delta: Callable[[], int]) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            state["top"] = max(0, state["top"] + delta())
        return handler

    kb.add("up")(move(lambda: -1))
    kb.add("down")(move(lambda: 1))
    kb.add("enter")(move(lambda: 1))
    kb.add("pageup")(move(lambda: -state["rows"]))
    kb.add("pagedown")(move(lambda: state["rows"]))
    kb.add("space")(move(lambda: state["rows"]))
    kb.add("home")(move(lambda: -10**9))
    kb.add("end")(move(lambda: 10**9))

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    @kb.add("c-d")
    def _(event: KeyPressEvent) -> None:
        event.app.exit()

    root = HSplit([Window(FormattedTextControl(text)),
                   Window(FormattedTextControl(status), height=1, style="class:status")])
    app: Application[None] = Application(layout=Layout(root), key_bindings=kb,
                                         full_screen=True, style=Style.from_dict(STYLE))
    app.run()

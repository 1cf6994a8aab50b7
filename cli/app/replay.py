"""``spycraft replay`` in the full-screen table: step through a finished (or cut) game.

Theory of operation: the command has already checked the transcript into its table states, one
after each record. ``ReplayApp`` keeps a position (a state index) and a viewer (None for the
public picture, or a seat, whose view at each state comes from the game's ``hindsight``). The
history is every record's event, told once with ``Painter.tell``; the pictures are painted when
first shown and kept. Keys: Right/Left one line of history, PgDn/PgUp one round, Home/End,
digits and Enter jump to that round, Tab (or v) the next viewer, F1 or ? the guide (set as
formatted text; arrows and PgUp/PgDn scroll it), q or Esc (or Ctrl-C, Ctrl-D) ends. Every panel
is set for its width (``picture``), so no word is cut at any terminal size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from spycraft.cli import typeset
from spycraft.cli.app import layout
from spycraft.cli.app import picture as draw
from spycraft.cli.app.table import CURSOR, Terminal
from spycraft.cli.guide import guide_lines
from spycraft.cli.typeset import Line
from spycraft.crypto.text import printable, printable_block
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event


class ReplayApp:
    def __init__(self, definition: GameDefinition, states: Sequence[TableState[Any]],
                 records: Sequence[Any], names: Sequence[str], page_of: Callable[[Any], Any],
                 problem: str | None = None, terminal: Terminal | None = None) -> None:
        self.definition = definition
        self.states = list(states)
        self.names = list(names)
        self.problem = problem
        self.painter = painter = draw.Painter(definition)
        self.events: list[tuple[int, Event]] = []  # (state index after the record, event)
        for i, signed in enumerate(records[: len(states) - 1], start=1):
            event = painter.tell(self.states[i - 1], signed, self.states[i])
            if event is not None:
                self.events.append((i, event))
        # The page (round) of each state: the round of the last event told by then when the
        # game's story numbers its rounds, else where the game state says it stands.
        if any(event.round is not None for _, event in self.events):
            told = {i: event.round for i, event in self.events if event.round is not None}
            current: object = None
            self.pages: list[object] = []
            for i in range(len(self.states)):
                current = told.get(i, current)
                self.pages.append(current)
        else:
            self.pages = [page_of(state.game) for state in self.states]
        self.position = 0
        self.viewer: int | None = None
        self.typed = ""  # a round number being typed
        self.help_open = False
        self._views: dict[int, list[Any]] = {}
        self._pictures: dict[tuple[int, int | None], draw.Picture] = {}
        self.help_top = 0
        self.help_window = Window(FormattedTextControl(self._help_text))
        # Each panel's text is set for its window's width (``picture``): words wrap, never cut.
        self.board_window = Window(FormattedTextControl(self._board), wrap_lines=False,
                                   width=Dimension(preferred=70, weight=3))
        self.private_window = Window(FormattedTextControl(self._private), wrap_lines=False,
                                     width=Dimension(min=layout.SIDE_MIN - 2, preferred=40))
        private = Frame(self.private_window, title=self._viewer_title)
        self.history_window = Window(FormattedTextControl(self._history), wrap_lines=False,
                                     height=Dimension(min=3, preferred=8))
        history = Frame(self.history_window, title="History (←/→ a line, PgUp/PgDn a round)")
        body = HSplit([
            VSplit([Frame(self.board_window, title=definition.title), private],
                   height=Dimension(weight=3)),
            history,
            Window(FormattedTextControl(self._status), height=1, style="class:status"),
        ])
        helper = ConditionalContainer(
            Frame(self.help_window, title="Help: Esc closes · ↑↓ PgUp PgDn scroll"),
            Condition(lambda: self.help_open))
        root = FloatContainer(body, floats=[Float(helper, top=1, bottom=1, left=2, right=2)])
        self.app: Application[None] = Application(
            layout=Layout(root), key_bindings=self._keys(), full_screen=True,
            style=Style.from_dict(draw.STYLE), input=terminal[0] if terminal else None,
            output=terminal[1] if terminal else None)

    # --- moving -------------------------------------------------------------------------------

    def step(self, delta: int) -> None:
        """One line of history forward or back (records that tell nothing are passed over)."""
        if delta > 0:
            later = [i for i, _ in self.events if i > self.position]
            self.position = later[0] if later else len(self.states) - 1
        else:
            earlier = [i for i, _ in self.events if i < self.position]
            self.position = earlier[-1] if earlier else 0

    def round(self, delta: int) -> None:
        """To the first state of the next (or this, or the previous) round."""
        here = self.pages[self.position]
        if delta > 0:
            for i in range(self.position + 1, len(self.states)):
                if self.pages[i] != here:
                    self.position = i
                    return
            self.position = len(self.states) - 1
            return
        start = self._start_of(self.position)
        self.position = self._start_of(start - 1) if start == self.position and start else start

    def _start_of(self, index: int) -> int:
        index = max(0, index)
        page = self.pages[index]
        while index > 0 and self.pages[index - 1] == page:
            index -= 1
        return index

    def jump(self, number: int) -> bool:
        """To the first state of round ``number`` (the game's round, or day); False if none."""
        for i in range(len(self.states)):
            page = self._number(i)
            if page == number:
                self.position = i
                return True
        return False

    def _number(self, index: int) -> object:
        """The round number of a state (the first number of its page), or None."""
        page = self.pages[index]
        if isinstance(page, tuple):
            return next((p for p in page if p is not None), None)
        return page

    def next_viewer(self) -> None:
        order: list[int | None] = [None, *range(len(self.names))]
        self.viewer = order[(order.index(self.viewer) + 1) % len(order)]

    # --- drawing ------------------------------------------------------------------------------

    def picture(self) -> draw.Picture:
        key = (self.position, self.viewer)
        if key not in self._pictures:
            state = self.states[self.position]
            view = None
            if self.viewer is not None:
                if self.viewer not in self._views:
                    self._views[self.viewer] = self.painter.seen_by(self.states, self.viewer)
                view = self._views[self.viewer][self.position]
            self._pictures[key] = self.painter.picture(state, self.viewer, view)
        return self._pictures[key]

    def _board(self) -> StyleAndTextTuples:
        pic = self.picture()
        width = _width(self.board_window, 80)
        lines = draw.board_lines(pic, width).lines
        if pic.screen is not None and pic.screen.result is not None:
            lines = [*lines, [], *draw.result_lines(pic.screen.result, width)]
        return _text(lines)

    def _private(self) -> StyleAndTextTuples:
        return _text(draw.private_lines(self.picture(), _width(self.private_window, 40)))

    def _viewer_title(self) -> str:
        if self.viewer is None:
            return "Public view (Tab: a seat's)"
        name = printable(self.names[self.viewer]) if self.viewer < len(self.names) else ""
        return f"Seat {self.viewer} {name} knew (Tab: next)"

    def _history(self) -> StyleAndTextTuples:
        shown = [event for i, event in self.events if i <= self.position]
        width = _width(self.history_window, 80)
        out = _text(draw.history_lines(shown, width, current=len(shown) - 1 if shown else None))
        out.append((CURSOR, ""))
        if self.position == len(self.states) - 1 and self.problem:
            out += [("", "\n")] + _text(typeset.wrap(
                [("class:tone.bad", f"replay stops: {self.problem}")], width, 2))
        return out

    def _status(self) -> StyleAndTextTuples:
        last = len(self.states) - 1
        number = self._number(self.position)
        where = f"round {number} · " if number is not None else ""
        typed = f" · go to round {self.typed}_" if self.typed else ""
        keys = "digits+Enter: a round · F1/? help · q: quit"
        text = f" record {self.position}/{last} · {where}{keys}"
        return [("class:status", text + typed + " ")]

    def help_lines(self, width: int) -> list[Line]:
        """The rules of what the table shows, then the game's guide as formatted text."""
        out: list[Line] = []
        for name, text in draw.explained(self.picture().screen):
            out += typeset.wrap([("class:label", f"{printable(name)}: "),
                                 ("", printable_block(text))], width, 2)
        if out:
            out.append([])
        return out + guide_lines(self.definition.name, width)

    def _help_text(self) -> StyleAndTextTuples:
        width = _width(self.help_window, 76)
        height = self.help_window.render_info.window_height \
            if self.help_window.render_info else 20
        lines = self.help_lines(max(20, width - 1))
        self.help_top = max(0, min(self.help_top, len(lines) - height))
        return _text([[("", " "), *line] for line in lines[self.help_top: self.help_top + height]])

    # --- keys ---------------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        helping = Condition(lambda: self.help_open)

        def moving(action: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
            def handler(event: KeyPressEvent) -> None:
                self.typed = ""
                action()
            return handler

        kb.add("right", filter=~helping)(moving(lambda: self.step(1)))
        kb.add("down", filter=~helping)(moving(lambda: self.step(1)))
        kb.add("left", filter=~helping)(moving(lambda: self.step(-1)))
        kb.add("up", filter=~helping)(moving(lambda: self.step(-1)))
        kb.add("pagedown", filter=~helping)(moving(lambda: self.round(1)))
        kb.add("pageup", filter=~helping)(moving(lambda: self.round(-1)))
        kb.add("home", filter=~helping)(moving(lambda: setattr(self, "position", 0)))
        kb.add("end", filter=~helping)(
            moving(lambda: setattr(self, "position", len(self.states) - 1)))
        kb.add("tab", filter=~helping)(moving(self.next_viewer))
        kb.add("v", filter=~helping)(moving(self.next_viewer))

        for digit in "0123456789":
            @kb.add(digit, filter=~helping)
            def _(event: KeyPressEvent) -> None:
                self.typed = (self.typed + event.data)[-4:]

        @kb.add("enter", filter=~helping)
        def _(event: KeyPressEvent) -> None:
            if self.typed:
                self.jump(int(self.typed))
            self.typed = ""

        @kb.add("f1")
        @kb.add("?")
        @kb.add("escape", filter=helping, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.help_open = not self.help_open
            self.help_top = 0

        def scrolling(lines: Callable[[], int]) -> Callable[[KeyPressEvent], None]:
            def handler(event: KeyPressEvent) -> None:
                self.help_top = max(0, self.help_top + lines())
            return handler

        def page() -> int:
            info = self.help_window.render_info
            return max(1, (info.window_height if info else 20) - 1)

        kb.add("up", filter=helping)(scrolling(lambda: -1))
        kb.add("down", filter=helping)(scrolling(lambda: 1))
        kb.add("pageup", filter=helping)(scrolling(lambda: -page()))
        kb.add("pagedown", filter=helping)(scrolling(page))
        kb.add("space", filter=helping)(scrolling(page))

        @kb.add("q", filter=~helping)
        @kb.add("escape", filter=~helping, eager=True)
        @kb.add("c-c")
        @kb.add("c-d")
        def _(event: KeyPressEvent) -> None:
            self.app.exit()

        return kb

    def run(self) -> None:
        self.app.run(set_exception_handler=False)


def _width(window: Window, default: int) -> int:
    info = window.render_info
    return info.window_width if info is not None else default


def _text(lines: Sequence[Line]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out

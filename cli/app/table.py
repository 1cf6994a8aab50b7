"""The table on screen: board, private panel, history, decision, status line, help, final screen.

Theory of operation: ``TableApp`` is a prompt-toolkit ``Application`` that draws a
``bridge.View``. Every post to the bridge calls ``_changed`` (from any thread), which schedules
``_refresh`` on the application's loop: it reads the bridge once, starts a fresh ``Choices``
when a new decision is open, and redraws. The panels are functions of that view (``picture``
sets them for a width), so a redraw never touches the game.

Layout: at every redraw ``layout.plan`` places the panels for the terminal's size and what
they hold (a resize re-lays the table out); each panel is one window of exactly its size whose
text, border included, is set here, so a word is never cut and what a panel cannot show whole
is named on its border and in the status line. Below 80x24 the screen says so and nothing else
(Enter takes nothing then). The board pane has tabs: F2 the board, F3 all the person knows,
F4 the whole history, F5 the table talk; PgUp/PgDn scroll the tab shown.

Keys: arrows move the highlight (Home/End: the first or last option), typing filters the
options, Enter takes the highlighted one, F1 or ``?`` opens the help (the rules of what the
highlighted option and the facts on the table name, then the game's guide, set as formatted
text), Esc closes it or clears the typing, Tab moves between the decision and the table talk
(when the session offers it), and ``/say TEXT`` and Enter at the decision says TEXT to the table
as in line mode; Ctrl-C leaves (the seat's state is saved), Ctrl-D leaves as the end of input
does. On the final screen Enter or q closes the table, and a (where the command offers it) plays
the same game again.

The turn timer: when the session gives one (``bridge.clock``), the status line counts the time
the seat whose turn it is has left; on the person's own turn it turns to a warning, with the
terminal's bell, at 30 and at 10 seconds.

``attached`` runs one around a command: the application in its own thread, whatever the
command prints (and its warnings) caught into the history instead of under the screen, and on
the way out the terminal restored before the command's last lines are printed.
"""

from __future__ import annotations

import _thread
import contextlib
import io
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Container,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from spycraft.cli import typeset
from spycraft.cli.app import layout
from spycraft.cli.app import picture as draw
from spycraft.cli.app.bridge import Bridge, View
from spycraft.cli.app.choices import Choices
from spycraft.cli.app.layout import BORDER, Plan
from spycraft.cli.guide import guide_lines
from spycraft.cli.tui import PlayerLeft
from spycraft.cli.typeset import Line
from spycraft.crypto.text import printable, printable_block
from spycraft.engines.agent import Decision

_T = TypeVar("_T")
SAY = "/say"  # typed at the decision, as in line mode: says the rest to the table
CURSOR = "[SetCursorPosition]"  # a fragment style prompt-toolkit scrolls into view
HISTORY_DRAWN = 400  # history events set at once for the history tab (the newest of them)
WAITING_WIDTH = 72  # the board's natural width before there is a table (what the lobby says)
WARNINGS = (30, 10)  # seconds left of the person's turn at which the table warns (and rings)
TABS = (("board", "Board", "f2"), ("you", "You", "f3"), ("history", "History", "f4"),
        ("talk", "Talk", "f5"))


class _Is:
    """A key part that equals only the very same object (a memo keyed by an object's id alone
    would match a new object given the id of one that is gone)."""

    __slots__ = ("thing",)

    def __init__(self, thing: object) -> None:
        self.thing = thing

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Is) and other.thing is self.thing

    __hash__ = None  # type: ignore[assignment]


class AppAgent:
    """A seat's agent whose decisions are made by the person in the application."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def decide(self, decision: Decision) -> int:
        return self.bridge.ask(decision)


Terminal = tuple[Input, Output]  # where an application reads keys and draws (tests: a pipe)


def _lines_to_text(lines: list[Line]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def _exact(size: Callable[[], int]) -> Callable[[], Dimension]:
    return lambda: Dimension.exact(max(0, size()))


class TableApp:
    def __init__(self, bridge: Bridge, game: str | None = None, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.bridge = bridge
        self.game = game  # the registry name (for the guide); None until a table is found
        self.view: View = bridge.view()
        self.choices: Choices | None = None
        self.help_open = False
        self.help_top = 0
        self.talking = False  # the person moved to the table talk's line (Tab)
        self.watching = False  # a spectator: no decision panel until the final screen
        self.failure: BaseException | None = None
        self.tab = "board"
        self.tops: dict[str, int] = {"board": 0, "you": 0}  # lines scrolled from the top
        self.backs: dict[str, int] = {"history": 0, "talk": 0}  # lines scrolled back from the end
        self.option_top = 0
        self.warned: tuple[object, int] = (None, 0)  # (the turn warned about, the last warning)
        self._memo: dict[str, tuple[object, Any]] = {}
        self._plan_key: object = None
        self._plan = Plan(layout.MIN_WIDTH, layout.MIN_HEIGHT, small=True)
        self.filter = Buffer(multiline=False, on_text_changed=self._typed)
        self.chat_input = Buffer(multiline=False)
        self._trees: dict[str, Container] = {}
        self._titled = True  # the pane's border shows the game's name (else the status line)
        self._build_windows()
        self.app: Application[None] = Application(
            layout=self._layout(), key_bindings=self._keys(), full_screen=True,
            style=Style.from_dict(draw.STYLE), input=input, output=output,
            min_redraw_interval=0.05, refresh_interval=1.0)
        bridge.changed = self._changed
        self.app.before_render += self._before_render

    # --- layout -------------------------------------------------------------------------------

    def _build_windows(self) -> None:
        def p() -> Plan:
            return self._plan  # read at every redraw

        def dec_w() -> int:
            return self._plan.decision[0]

        self.pane_window = Window(FormattedTextControl(self._pane), width=_exact(
            lambda: p().pane[0]), height=_exact(lambda: p().pane[1]))
        self.private_window = Window(FormattedTextControl(self._private), width=_exact(
            lambda: p().private[0]), height=_exact(lambda: p().private[1]))
        self.question_window = Window(FormattedTextControl(self._question), width=_exact(dec_w),
                                      height=_exact(lambda: 1 + p().prompt))
        self.typing_row = VSplit([
            Window(FormattedTextControl(self._prompt_mark), width=3),
            Window(BufferControl(self.filter), height=1, width=_exact(lambda: dec_w() - 4)),
            Window(FormattedTextControl([(BORDER, "│")]), width=1),
        ], height=1)
        self.options_window = Window(FormattedTextControl(self._options), width=_exact(dec_w),
                                     height=_exact(lambda: p().decision[1] - 2 - p().prompt))
        self.history_window = Window(FormattedTextControl(self._history_strip),
                                     height=_exact(lambda: p().history))
        self.talk_lines = Window(FormattedTextControl(lambda: self._talk_strip()),
                                 height=_exact(lambda: p().talk - 1))
        # The talk row: the typing line once the person moved there (or typed), else the
        # newest line of talk when there is no strip above it (a small screen) or nobody here
        # can talk (a spectator).
        typing = Condition(lambda: self.talking or bool(self.chat_input.text) or (
            self.bridge.say is not None and self._plan.talk > 1))
        self.talk_row = VSplit([
            Window(FormattedTextControl(self._talk_mark), width=6),
            ConditionalContainer(Window(BufferControl(self.chat_input), height=1), typing),
            ConditionalContainer(Window(FormattedTextControl(lambda: self._talk_strip(1)),
                                        height=1), ~typing),
        ], height=1)
        self.status_window = Window(FormattedTextControl(self._status), height=1,
                                    style="class:status")
        self.small_window = Window(FormattedTextControl(self._too_small))
        self.help_window = Window(FormattedTextControl(self._help_box))

    def _tree(self) -> Container:
        """The containers for the current plan (made once per kind of arrangement)."""
        plan = self._plan
        if plan.small:
            return self.small_window
        key = (plan.stacked, plan.private != (0, 0), plan.decision != (0, 0), plan.talk)
        kind = repr(key)
        if kind not in self._trees:
            decision = HSplit([self.question_window, self.typing_row, self.options_window])
            person: list[Container] = []
            if key[1]:
                person.append(self.private_window)
            if key[2]:
                person.append(decision)
            rows: list[Container] = []
            if plan.stacked:
                rows += [self.pane_window, VSplit(person)]
            else:
                rows.append(VSplit([self.pane_window, HSplit(person)]) if person
                            else self.pane_window)
            rows.append(self.history_window)
            if plan.talk:
                if plan.talk > 1:
                    rows.append(self.talk_lines)
                rows.append(self.talk_row)
            rows.append(self.status_window)
            self._trees[kind] = HSplit(rows)
        return self._trees[kind]

    def _layout(self) -> Layout:
        body = DynamicContainer(self._tree)
        helper = Float(ConditionalContainer(self.help_window, Condition(
            lambda: self.help_open and not self._plan.small)), top=1, bottom=1, left=2, right=2)
        root = FloatContainer(body, floats=[helper])
        return Layout(root)

    def _size(self) -> tuple[int, int]:
        try:
            size = self.app.output.get_size()
        except Exception:  # noqa: BLE001 (no terminal to ask: the default size)
            return layout.MIN_WIDTH, layout.MIN_HEIGHT
        return size.columns, size.rows

    def _before_render(self, _: object = None) -> None:
        self._replan()
        self._keep_focus()
        self._warn()

    def _replan(self) -> None:
        width, height = self._size()
        view = self.view
        key = (width, height, _Is(view.picture), _Is(view.decision), view.closing is not None,
               self.watching, self._has_talk(), self._prompt_key())
        if key != self._plan_key:
            self._plan_key = key
            self._plan = layout.plan(width, height, self._needs())
            if self._plan.small and self.help_open:
                self.help_open = False

    def _needs(self) -> layout.Needs:
        screen = self._screen()
        grids = screen.board if screen is not None else ()
        pic = self.view.picture
        text_width = WAITING_WIDTH if pic is None else 0  # no table yet: room for what is said
        if pic is not None and pic.screen is None:
            text_width = max((typeset.cells(t) for t in pic.text.splitlines()), default=0)
        natural = max([text_width, *(draw.natural_width(g) for g in grids)])
        first = draw.natural_width(grids[0]) if grids else text_width

        def first_rows(width: int, packed: bool) -> int:
            if self._closing() or screen is None:
                return len(self._board_set(width, packed).lines)
            return self._memoized(f"first{width}{packed}", (_Is(pic), width, packed),
                                  lambda: draw.first_rows(screen, width, packed))

        def board_rows(width: int, packed: bool) -> int:
            return len(self._board_set(width, packed).lines)

        def fits(width: int) -> bool:
            return all(draw.grid_fits(g, width) for g in grids)

        facts = (screen.private if screen is not None else ())
        labels = self.choices.decision.labels if self.choices is not None else ()
        person = max([0, *(typeset.cells(draw.plain(draw.facts([f]))) - 1 for f in facts),
                      *(typeset.cells(printable(label)) + 2 for label in labels)])
        return layout.Needs(person_natural=person,
            board_natural=natural, first_natural=first, board_fits=fits, first_rows=first_rows,
            board_rows=board_rows,
            private_rows=lambda w: len(self._private_lines(w)),
            prompt_rows=lambda w: len(self._question_lines(w)),
            option_rows=lambda w: sum(self._option_heights(w)),
            tallest_option=lambda w: max(self._option_heights(w), default=1),
            talk=self._has_talk())

    def _prompt_key(self) -> object:
        if self.watching and not self._closing():
            return None
        decision = self.view.decision
        if decision is None:
            pic = self.view.picture
            return ("waiting", pic.turn if pic is not None else None)
        return ("deciding", _Is(decision))

    # --- keys ---------------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        helping = Condition(lambda: self.help_open)
        closing = Condition(self._closing)
        in_chat = Condition(lambda: self.talking)
        small = Condition(lambda: self._plan.small)

        @kb.add("c-c", eager=True)
        def _(event: KeyPressEvent) -> None:
            self._leave(KeyboardInterrupt)

        @kb.add("c-d", eager=True)
        def _(event: KeyPressEvent) -> None:
            self._leave(PlayerLeft)

        saying = Condition(lambda: self._typed_say() is not None)

        @kb.add("f1", filter=~small)
        @kb.add("?", filter=~in_chat & ~saying & ~small)
        def _(event: KeyPressEvent) -> None:
            self._toggle_help()

        @kb.add("escape", filter=helping, eager=True)
        def _(event: KeyPressEvent) -> None:
            self._toggle_help()

        @kb.add("<any>", filter=helping)
        def _(event: KeyPressEvent) -> None:
            pass  # while the help is open, keys read it; nothing reaches the decision

        @kb.add("escape", filter=~helping, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.filter.text = ""

        for name, _title, key in TABS:
            kb.add(key, filter=~helping & ~small)(self._show_tab(name))

        @kb.add("up", filter=~helping & ~small)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(-1)

        @kb.add("down", filter=~helping & ~small)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(1)

        @kb.add("home", filter=~helping & ~small & ~in_chat)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(-len(self.choices.decision.labels))

        @kb.add("end", filter=~helping & ~small & ~in_chat)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(len(self.choices.decision.labels))

        @kb.add("pageup", filter=~helping & ~small)
        def _(event: KeyPressEvent) -> None:
            self._scroll(-1)

        @kb.add("pagedown", filter=~helping & ~small)
        def _(event: KeyPressEvent) -> None:
            self._scroll(1)

        @kb.add("up", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top = max(0, self.help_top - 1)

        @kb.add("down", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top += 1

        @kb.add("pageup", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top = max(0, self.help_top - self._help_rows())

        @kb.add("pagedown", filter=helping)
        @kb.add("space", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top += self._help_rows()

        @kb.add("home", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top = 0

        @kb.add("end", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.help_top = 10**9

        @kb.add("enter", filter=closing & ~helping)
        @kb.add("q", filter=closing & ~helping)
        def _(event: KeyPressEvent) -> None:
            self.app.exit()

        @kb.add("a", filter=closing & ~helping & Condition(lambda: self.bridge.again_offered))
        def _(event: KeyPressEvent) -> None:
            self.bridge.again = True  # the command opens the same game again once we are gone
            self.app.exit()

        @kb.add("enter", filter=~closing & ~helping & ~in_chat & ~small)
        def _(event: KeyPressEvent) -> None:
            self._choose()

        @kb.add("enter", filter=small & ~closing)
        def _(event: KeyPressEvent) -> None:
            pass  # the decision is not on screen: nothing is taken

        @kb.add("enter", filter=in_chat & ~small)
        def _(event: KeyPressEvent) -> None:
            self._say()

        @kb.add("tab", filter=~helping & ~small)
        def _(event: KeyPressEvent) -> None:
            if self.bridge.say is not None and not self.talking:
                self.talking = True
                self.app.layout.focus(self.chat_input)
            elif self.talking:
                self.talking = False
                self.app.layout.focus(self.filter)
            elif self.choices is not None and (label := self.choices.label()) is not None:
                self.filter.text = label
                self.filter.cursor_position = len(label)

        return kb

    def _show_tab(self, name: str) -> Callable[[KeyPressEvent], None]:
        def show(event: KeyPressEvent) -> None:
            if name in self._tabs():
                self.tab = name
                if name in self.tops:
                    self.tops[name] = 0  # a tab opens at its top (the history at its end)
                else:
                    self.backs[name] = 0
        return show

    def _tabs(self) -> list[str]:
        tabs = ["board"]
        if self._private_lines(60):
            tabs.append("you")
        tabs.append("history")
        if self._has_talk():
            tabs.append("talk")
        return tabs

    def _scroll(self, pages: int) -> None:
        rows = max(1, self._plan.pane[1] - 3)
        if self.tab in self.tops:
            self.tops[self.tab] = max(0, self.tops[self.tab] + pages * rows)
        else:
            self.backs[self.tab] = max(0, self.backs[self.tab] - pages * rows)

    def _leave(self, why: type[KeyboardInterrupt | PlayerLeft]) -> None:
        if self._closing():
            self.app.exit()  # the game is over: nothing to leave
            return
        if not self.bridge.leave(why):
            _thread.interrupt_main()  # nobody is deciding: stop the main thread as Ctrl-C does
        self.app.exit()

    def _has_talk(self) -> bool:
        """Whether the table shows talk: the seat can talk, the session says why it cannot or
        how to listen (``bridge.talk``: a spectator, SpyNet in play), or somebody talked."""
        return self.bridge.say is not None or self.bridge.talk is not None or bool(self.view.chat)

    def _typed_say(self) -> str | None:
        """The words after ``/say`` typed in the decision line (as line mode takes them), or
        None when the line is no ``/say``."""
        words = self.filter.text.strip()
        if words != SAY and not words.startswith(SAY + " "):
            return None
        return words[len(SAY):].strip()

    def _choose(self) -> None:
        said = self._typed_say()
        if said is not None:
            self._say(said)
            self.filter.text = ""
            return
        decision = self.view.decision
        if decision is None or self.choices is None or self.choices.decision is not decision:
            return
        index = self.choices.highlighted()
        if index is not None and self.bridge.answer(decision, index):
            self.bridge.notice(f"you chose: {decision.labels[index]}", tone="you")

    def _say(self, typed: str | None = None) -> None:
        """Say the talk line (or ``typed``, from ``/say`` at the decision) to the table."""
        text = (self.chat_input.text if typed is None else typed).strip()
        say = self.bridge.say
        if typed is not None and not text:
            self.bridge.notice(f"{SAY} TEXT says TEXT to the table", tone="bad")
        elif text and say is None:
            self.bridge.notice(f"not said: {self.bridge.talk or 'this table has no talk'}",
                               tone="bad")
        elif text and say is not None:
            refused = say(text)
            if refused:
                self.bridge.notice(f"not said: {refused}", tone="bad")
        if typed is None:
            self.chat_input.text = ""

    def _toggle_help(self) -> None:
        self.help_open = not self.help_open
        self.help_top = 0
        self._memo.pop("help", None)
        self._keep_focus()

    def _keep_focus(self, _: object = None) -> None:
        """Keys go where the person put them: the table talk after Tab, else the decision
        (never wherever prompt-toolkit's focus drifted); the help reads its keys itself."""
        wanted = self.chat_input if self.talking and self._plan.talk else self.filter
        if self.talking and not self._plan.talk:
            self.talking = False
        try:
            if not self.app.layout.has_focus(wanted):
                self.app.layout.focus(wanted)
        except ValueError:  # not on screen in this arrangement (too small): focus stays
            pass

    def _typed(self, buffer: Buffer) -> None:
        if self.choices is not None:
            self.choices.type(buffer.text)

    # --- the bridge ---------------------------------------------------------------------------

    def _changed(self) -> None:
        loop = self.app.loop
        if loop is not None and self.app.is_running:
            try:
                loop.call_soon_threadsafe(self._refresh)
            except RuntimeError:  # the loop closed meanwhile: the application has ended
                pass

    def _refresh(self) -> None:
        self.view = self.bridge.view()
        if self.view.closing is not None and self.filter.text:
            self.filter.reset()  # the end panel shows the end, not what was last typed
        decision = self.view.decision
        if decision is None:
            self.choices = None
        elif self.choices is None or self.choices.decision is not decision:
            self.choices = Choices(decision)
            self.option_top = 0
            self.filter.reset()
        if self.tab not in self._tabs():
            self.tab = "board"
        self.app.invalidate()

    def _closing(self) -> bool:
        return self.view.closing is not None

    # --- what the panels hold -----------------------------------------------------------------

    def _screen(self) -> Any:
        pic = self.view.picture
        return pic.screen if pic is not None else None

    def _memoized(self, name: str, key: object, make: Callable[[], _T]) -> _T:
        """What ``make`` gives, made again only when what it shows (``key``) changed."""
        kept = self._memo.get(name)
        if kept is not None and kept[0] == key:
            return cast(_T, kept[1])
        made = make()
        self._memo[name] = (key, made)
        return made

    def _board_set(self, width: int, packed: bool) -> draw.Set:
        pic = self.view.picture
        told = len(self.view.events) if pic is None else 0
        key = (_Is(pic), width, packed, self.view.closing, told)
        return self._memoized(f"board{width}{packed}", key, lambda: self._draw_board(width, packed))

    def _draw_board(self, width: int, packed: bool) -> draw.Set:
        pic = self.view.picture
        if pic is None and not self._closing():
            # No table yet: the board's room tells what the command has said so far (looking
            # for a table, no LAN interface, who sat down), not only the one line of history.
            story = draw.history_lines(self.view.events[-HISTORY_DRAWN:], width)
            return draw.Set(draw.board_lines(None, width).lines + ([[]] + story if story else []))
        if not self._closing():
            return draw.board_lines(pic, width, packed)
        out: list[Line] = []
        if pic is not None and pic.screen is not None and pic.screen.result is not None:
            out += draw.result_lines(pic.screen.result, width)
        elif pic is not None:
            out += draw.board_lines(pic, width, packed).lines
        out.append([])
        for line in self.view.closing or ():
            out += typeset.wrap([("class:label", printable(line))], width, 2)
        return draw.Set(out)

    def _private_lines(self, width: int) -> list[Line]:
        pic = self.view.picture
        return self._memoized(f"private{width}", (_Is(pic), width),
                              lambda: draw.private_lines(pic, width))

    def _question_lines(self, width: int) -> list[Line]:
        """The decision panel's question (empty: no decision panel, a spectator's table)."""
        if self._closing():
            again = " · a: play again" if self.bridge.again_offered else ""
            return typeset.wrap([("class:label", f"Enter or q: close the table{again}")], width)
        if self.watching:
            return []
        decision = self.view.decision
        if decision is None:
            pic = self.view.picture
            if pic is not None and pic.turn is not None and pic.turn != self.view.seat:
                text = f"waiting for {self._seat_name(pic.turn)}…"
            else:
                text = "waiting…"
            return typeset.wrap([("class:hint", text)], width, 2)
        # A prompt may run over several lines (a question, then "Your cards: ..."): keep them.
        return self._memoized(f"question{width}", (_Is(decision), width), lambda: typeset.wrap(
            [("class:label", printable_block(decision.prompt))], width, 2))

    def _option_heights(self, width: int) -> list[int]:
        """The lines each option of the open decision takes (all of them, whatever is typed,
        so the layout stays put while the person types)."""
        choices = self.choices
        if choices is None or self._closing():
            return []
        labels = choices.decision.labels
        return self._memoized(f"heights{width}", (_Is(choices.decision), width), lambda: [
            len(typeset.wrap([("", printable(label))], width, 4, first=[("", "  ")]))
            for label in labels])

    def _option_items(self, width: int) -> list[list[Line]]:
        """Each option shown, set in ``width``: the first line marked, the rest indented."""
        choices = self.choices
        if choices is None or self._closing():
            return []
        labels = choices.decision.labels
        current = choices.highlighted()
        key = (_Is(choices), choices.text, current, width)

        def make() -> list[list[Line]]:
            items = []
            for index in choices.matches():
                mark, style = ("▸ ", "class:chosen") if index == current else ("  ", "")
                items.append(typeset.wrap([(style, printable(labels[index]))], width, 4,
                                          first=[(style, mark)]))
            return items
        return self._memoized(f"options{width}", key, make)

    # --- panels -------------------------------------------------------------------------------

    def _tab_marks(self) -> list[Line]:
        marks: list[Line] = []
        for name, title, key in TABS:
            if name in self._tabs():
                style = "class:tab.on" if name == self.tab else "class:tab"
                marks.append([(style, f"{title} {key.upper()}")])
        return marks

    def _title(self) -> str:
        pic = self.view.picture
        return pic.title if pic is not None else "spycraft"

    def _pane(self) -> StyleAndTextTuples:
        width, height = self._plan.pane
        if width <= 2 or height <= 2:
            return []
        inner, rows = width - 2, height - 2
        footer: list[Line] = []
        if self.tab == "board":
            board = self._board_set(inner, self._plan.packed)
            top, body = layout.scrolled(board.lines, self.tops["board"], rows)
            self.tops["board"] = top
            below = self._below(board, top + rows)
            if below:
                footer.append([("class:more", _naming("▼ PgDn: ", below, inner - 14))])
            if top:
                footer.append([("class:more", "▲ PgUp")])
        elif self.tab == "you":
            lines = self._private_lines(inner) or [[("class:hint", "nothing private")]]
            top, body = layout.scrolled(lines, self.tops["you"], rows)
            self.tops["you"] = top
            if top + rows < len(lines):
                footer.append([("class:more", "▼ PgDn: more")])
        else:
            lines = self._history_lines(inner) if self.tab == "history" else \
                self._talk_lines(inner)
            back = max(0, min(self.backs[self.tab], len(lines) - rows))
            self.backs[self.tab] = back
            end = len(lines) - back
            body = lines[max(0, end - rows): end]
            if end - rows > 0:
                footer.append([("class:more", "▲ PgUp: older")])
            if back:
                footer.append([("class:more", "▼ PgDn: newer")])
        tabs = self._tab_marks()
        room = width - 6 - sum(typeset.line_width(t) + 2 for t in tabs)
        name = printable(self._title())
        if typeset.cells(name) > room:
            name = name.split(":")[0]
        title = [[("class:frame.label", name)]] if typeset.cells(name) <= room else []
        self._titled = bool(title)
        return _lines_to_text(layout.box(width, height, body, title, footer, tabs))

    def _below(self, board: draw.Set, end: int) -> list[str]:
        """The parts of the board not all shown above line ``end``, by name."""
        lines, parts = board.lines, board.parts
        names = []
        for i, (start, name) in enumerate(parts):
            stop = parts[i + 1][0] if i + 1 < len(parts) else len(lines)
            while stop > start and not lines[stop - 1]:
                stop -= 1  # a part's blank lines at its end are nothing to show
            if stop > end:
                names.append(f"more of {_short(name)}" if start < end else _short(name))
        if not names and end < len(lines) and any(lines[end:]):
            names.append("more")
        return names

    def _private(self) -> StyleAndTextTuples:
        width, height = self._plan.private
        if width <= 2:
            return []
        body, hidden = self._private_shown(width - 2, height - 2)
        footer = []
        if hidden:
            footer.append([("class:more", f"▼ F3: all you know ({hidden} more)")])
        return _lines_to_text(layout.box(width, height, body, [self._private_title()], footer))

    def _private_shown(self, width: int, rows: int) -> tuple[list[Line], int]:
        """The private facts that fit whole in ``rows`` lines, and how many more there are
        (those are one key away: F3)."""
        pic = self.view.picture
        if pic is None or pic.screen is None:
            return [], 0
        items = self._memoized(f"facts{width}", (_Is(pic), width), lambda: draw.fact_items(
            pic.screen.private if pic.screen is not None else (), width))
        body: list[Line] = []
        for shown, item in enumerate(items):
            if len(body) + len(item) > rows:
                return body, len(items) - shown
            body += item
        return body, 0

    def _private_title(self) -> Line:
        seat = self.view.seat
        if seat is None:
            return [("class:frame.label", "Public view (watching)" if self.watching
                     else "Public view")]
        names = self.view.names
        name = printable(names[seat]) if seat < len(names) else ""
        return [("class:frame.label", f"You: seat {seat} {name}".rstrip())]

    def _decision_title(self) -> Line:
        if self._closing():
            return [("class:frame.label", "The end")]
        if self.view.decision is None:
            return [("class:frame.label", "Waiting")]
        left = self._my_time_left()
        if left is not None and left <= WARNINGS[0]:
            return [("class:warn", f"Your decision: {int(left)} s left")]
        return [("class:frame.label", "Your decision")]

    def _question(self) -> StyleAndTextTuples:
        width = self._plan.decision[0]
        if width <= 2:
            return []
        lines = [layout.edge(width, "┌", "┐", [self._decision_title()])]
        for line in self._question_lines(width - 2)[: self._plan.prompt]:
            lines.append(layout.sides(line, width))
        return _lines_to_text(lines)

    def _prompt_mark(self) -> StyleAndTextTuples:
        deciding = self.view.decision is not None and not self._closing()
        return [(BORDER, "│"), ("class:label", "> " if deciding else "  ")]

    def _options(self) -> StyleAndTextTuples:
        width, height = self._plan.decision
        rows = height - 3 - self._plan.prompt  # the typing line and the two borders
        if width <= 2 or rows < 0:
            return []
        inner = width - 2
        items = self._option_items(inner)
        choices = self.choices
        body: list[Line] = []
        footer: list[Line] = []
        if items and choices is not None:
            current = choices.highlighted()
            selected = choices.matches().index(current) if current is not None else 0
            top, shown, above, below = layout.window(items, selected, self.option_top, rows)
            self.option_top = top
            if above:
                body.append([("class:more", f"↑ {above} more")])
            body += shown[: rows - len(body)]
            if below and len(body) < rows:
                body.append([("class:more", f"↓ {below} more (↓, End, or type)")])
            elif below:
                footer.append([("class:more", f"↓ {below} more")])
        hint = choices.hint() if choices is not None else ""
        if self._typed_say() is not None:
            body = body[: max(0, rows - 1)]
            body.append([("class:hint", "Enter says it to the table")])
        elif hint:
            body = body[: max(0, rows - len(typeset.wrap([("", hint)], inner)))]
            body += typeset.wrap([("class:tone.bad", hint)], inner, 2)
        extra = self._explain_lines(inner)
        if extra and len(body) + len(extra) < rows:
            body += [[]] + extra
        lines = [layout.sides(line, width) for line in body[:rows]]
        while len(lines) < rows:
            lines.append(layout.sides([], width))
        lines.append(layout.edge(width, "└", "┘", footer))
        return _lines_to_text(lines)

    def _explain_lines(self, width: int) -> list[Line]:
        if self.choices is None or self._closing():
            return []
        label = self.choices.label()
        found = draw.explanations(self._screen(), label)
        if label and found and found[0][0].lower() in label.lower():
            return typeset.wrap([("class:hint", f"{found[0][0]}: {printable(found[0][1])}")],
                                width, 2)
        return typeset.wrap([("class:hint", "↑↓ choose · type to filter · Enter takes it")],
                            width, 2)

    def _history_lines(self, width: int) -> list[Line]:
        events = self.view.events
        key = (len(events), width)
        return self._memoized(f"history{width}", key, lambda: draw.history_lines(
            events[-HISTORY_DRAWN:], width))

    def _history_strip(self) -> StyleAndTextTuples:
        rows = self._plan.history
        width = self._plan.width
        framed = rows >= 5
        inner = width - 2 if framed else width
        room = rows - 2 if framed else rows
        events = self.view.events
        lines: list[Line] = []
        for event in reversed(events):  # the newest that fit whole, oldest first
            told = draw.event_lines(event, inner)
            if len(lines) + len(told) > room:
                if not lines:
                    lines = told[: room]
                    lines[-1] = lines[-1] + [("class:more", " … F4")]
                break
            lines = told + lines
        if not framed:
            if not lines:
                lines = [[("class:hint", "history: F4")]]
            return _lines_to_text(lines)
        title = [[("class:frame.label", "History")], [("class:hint", "F4: all of it")]]
        return _lines_to_text(layout.box(width, rows, lines, title))

    def _talk_lines(self, width: int) -> list[Line]:
        chat = self.view.chat
        out: list[Line] = []
        for line in chat[-HISTORY_DRAWN:]:
            out += typeset.wrap([("", printable(line))], width, 2)
        if not out:
            hint = self.bridge.talk or "Nothing said yet. Tab, then type and Enter; Tab comes " \
                "back to the decision."
            out = typeset.wrap([("class:hint", hint)], width, 2)
        return out

    def _talk_strip(self, rows: int | None = None) -> StyleAndTextTuples:
        """The newest lines of talk that fit whole in ``rows`` (the strip's, by default),
        oldest first, or how to talk: whole words only, the rest on F5."""
        rows = max(1, self._plan.talk - 1) if rows is None else rows
        width = max(8, self._plan.width - 6)  # the talk mark takes six cells
        chat = self.view.chat
        if not chat:
            hint = ("class:hint", printable(
                self.bridge.talk or "Table talk: Tab, then type and Enter; Tab comes back"))
            return _lines_to_text(self._fitted([hint], width, rows))
        lines: list[Line] = []
        for said in reversed(chat[-rows:]):
            told = typeset.wrap([("", printable(said))], width, 2)
            if len(lines) + len(told) > rows:
                if not lines:
                    lines = self._fitted([("", printable(said))], width, rows)
                break
            lines = told + lines
        return _lines_to_text(lines)

    @staticmethod
    def _fitted(text: list[tuple[str, str]], width: int, rows: int) -> list[Line]:
        """``text`` wrapped into ``rows`` lines of ``width``, the last marked if more is on F5."""
        lines = typeset.wrap(text, width, 2)
        if len(lines) <= rows:
            return lines
        cut = typeset.wrap(text, width - 5, 2)[:rows]
        return cut[:-1] + [cut[-1] + [("class:more", " … F5")]]

    def _talk_mark(self) -> StyleAndTextTuples:
        if self.talking:
            return [("class:label", " say: ")]
        return [("class:hint", " talk ")]

    def _seat_name(self, seat: int) -> str:
        names = self.view.names
        if seat == self.view.seat:
            return "you"
        return f"seat {seat} {printable(names[seat])}" if seat < len(names) else f"seat {seat}"

    def _too_small(self) -> StyleAndTextTuples:
        width, height = self._size()
        waiting = " A decision is waiting for you." if self.view.decision is not None else ""
        text = (f"The table needs a terminal of at least {layout.MIN_WIDTH}x{layout.MIN_HEIGHT}"
                f" (this one is {width}x{height}): make it larger, or play with --line.{waiting}")
        return _lines_to_text(layout.message(text, width, height))

    # --- the status line and the turn timer ---------------------------------------------------

    def _time_left(self) -> float | None:
        try:
            return self.bridge.clock()
        except Exception:  # noqa: BLE001 (the session is ending: no timer this second)
            return None

    def _my_time_left(self) -> float | None:
        if self.view.decision is None or self._closing():
            return None
        return self._time_left()

    def _warn(self) -> None:
        """Ring the bell once as the person's turn passes each warning."""
        left = self._my_time_left()
        if left is None:
            return
        turn, warned = self.warned
        if turn is not self.view.decision:
            turn, warned = self.view.decision, 0
        due = [w for w in WARNINGS if left <= w]
        level = len(due)
        if level > warned:
            with contextlib.suppress(Exception):
                self.app.output.bell()
        self.warned = (turn, max(warned, level))

    def _status(self) -> StyleAndTextTuples:
        pic = self.view.picture
        parts: list[tuple[int, Line]] = []
        if self._closing() or (pic is not None and pic.ended):
            parts.append((0, [("", "game over")]))
        elif self.view.decision is not None:
            parts.append((0, [("", "your turn")]))
        elif self.watching:
            parts.append((0, [("", "watching")]))
        elif pic is not None and pic.turn is not None:
            parts.append((0, [("", f"{self._seat_name(pic.turn)} to play")]))
        left = self._time_left()
        if left is not None and not self._closing():
            clock = f"{max(0, int(left)) // 60}:{max(0, int(left)) % 60:02d}"
            mine = self._my_time_left() is not None
            if mine and left <= WARNINGS[0]:
                parts.append((0, [("class:warn", f" {clock} left: decide now ")]))
            else:
                parts.append((1, [("", f"turn timer {clock}")]))
        parts += self._hidden_keys()
        if not self._titled and pic is not None:
            parts.insert(0, (4, [("class:label", printable(pic.title.split(":")[0]))]))
        parts.append((3, [("", "F1 help")]))
        extra = self.bridge.status()
        if extra:
            parts.append((5, [("", extra)]))
        parts.append((4, [("", "Ctrl-C leave")]))
        line = layout.fitted(parts, self._plan.width - 2)
        return [("class:status", " "), *line, ("class:status", " ")]

    def _hidden_keys(self) -> list[tuple[int, Line]]:
        """The keys that show what the screen cannot show at once."""
        parts: list[tuple[int, Line]] = []
        plan = self._plan
        if plan.pane[0] > 2 and self.tab == "board":
            board = self._board_set(plan.pane[0] - 2, plan.packed)
            below = self._below(board, self.tops["board"] + plan.pane[1] - 2)
            if below:
                parts.append((2, [("", _naming("PgDn: ", below, plan.width // 2))]))
        elif self.tab != "board":
            parts.append((2, [("", "F2: the board")]))
        if plan.private[0] > 2 and self.tab != "you" and \
                self._private_shown(plan.private[0] - 2, plan.private[1] - 2)[1]:
            parts.append((2, [("", "F3: all you know")]))
        return parts

    # --- help ---------------------------------------------------------------------------------

    def help_lines(self, width: int) -> list[Line]:
        """The help set in ``width``: the rules of what the highlighted option names, then of
        the facts on the table, then the game's player guide as formatted text."""
        label = self.choices.label() if self.choices is not None else None
        out: list[Line] = []
        if label:
            out += typeset.wrap([("class:label", "Highlighted: "), ("", printable(label))],
                                width, 2)
        for name, text in draw.explained(self._screen(), label):
            out += typeset.wrap([("class:label", f"{printable(name)}: "),
                                 ("", printable_block(text))], width, 2)
        if out:
            out.append([])
        if self.game:
            out += guide_lines(self.game, width)
        else:
            out += typeset.wrap([("", "The game is not known yet.")], width)
        return out

    def help(self) -> str:
        """The help as plain text (as it reads on an 80-column screen)."""
        return typeset.plain(self.help_lines(layout.MIN_WIDTH - 6))

    def _help_rows(self) -> int:
        return max(1, self._size()[1] - 4)

    def _help_box(self) -> StyleAndTextTuples:
        if not self.help_open or self._plan.small:
            return []
        width, height = self._size()
        width, height = width - 4, height - 2
        inner = width - 2
        lines = self._memoized("help", (inner, _Is(self.choices), self.game),
                               lambda: self.help_lines(inner - 1))
        rows = height - 2
        top, body = layout.scrolled(lines, self.help_top, rows)
        self.help_top = top
        body = [[("", " "), *line] for line in body]
        footer = []
        if top + rows < len(lines):
            footer.append([("class:more", "▼ PgDn/space: more")])
        if top:
            footer.append([("class:more", "▲ PgUp")])
        title = [[("class:frame.label", "Help")],
                 [("class:hint", "Esc, F1 or ? closes · ↑↓ PgUp PgDn scroll")]]
        return _lines_to_text(layout.box(width, height, body, title, footer))

    # --- running ------------------------------------------------------------------------------

    def run(self) -> None:
        """Run the application in this thread until it ends; the bridge learns it ended."""
        try:
            self.app.run(pre_run=self._refresh, handle_sigint=False,
                         set_exception_handler=False)
        except BaseException as exc:  # noqa: BLE001 (handed to the main thread by ``attached``)
            self.failure = exc
            if not self.bridge.leave(PlayerLeft):
                _thread.interrupt_main()
        finally:
            self.bridge.closed.set()

    def stop(self) -> None:
        """End the application from another thread (the game ended or was left)."""
        loop = self.app.loop
        if loop is not None and self.app.is_running:
            def _exit() -> None:
                with contextlib.suppress(Exception):  # it may be ending already
                    self.app.exit()

            try:
                loop.call_soon_threadsafe(_exit)
            except RuntimeError:
                pass


def _short(title: str) -> str:
    """A grid's title as a status line names it: without what it says in brackets, and of a
    "head: tail" title the part that names the thing ("White's spies", "the Mission cards")."""
    head = title.split(" (")[0]
    if ": " not in head:
        return head
    first, rest = head.split(": ", 1)
    return first if len(first) > 8 else rest


def _naming(key: str, names: list[str], room: int) -> str:
    """``key`` and the names, as many as fit in ``room`` cells (then "…")."""
    for count in range(len(names), 0, -1):
        text = key + ", ".join(names[:count]) + (", …" if count < len(names) else "")
        if typeset.cells(text) <= room:
            return text
    return key + "more"


class _Lines(io.TextIOBase):
    """Standard output or error while the application draws: each line goes to the history
    and is kept, so the command's last lines can be printed once the screen is gone."""

    def __init__(self, bridge: Bridge, kept: list[str]) -> None:
        self.bridge = bridge
        self.kept = kept
        self.partial = ""

    def write(self, text: str) -> int:
        self.partial += text
        *lines, self.partial = self.partial.split("\n")
        for line in lines:
            if line.strip():
                self.kept.append(line)
                self.bridge.notice(line.strip())
        return len(text)

    def writable(self) -> bool:
        return True


class _LogLines(logging.Handler):
    def __init__(self, bridge: Bridge) -> None:
        super().__init__(logging.WARNING)
        self.bridge = bridge

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.bridge.notice(f"{record.levelname.lower()}: {record.getMessage()}", tone="bad")
        except Exception:  # noqa: BLE001 (logging must never raise)
            self.handleError(record)


@contextlib.contextmanager
def attached(app: TableApp) -> Iterator[Bridge]:
    """Run ``app`` in its own thread around the block (the game). Leaving the block normally
    after ``bridge.finish`` keeps the final screen until the person closes it; an exception
    (the person left) closes it at once. Then the command's caught lines are printed: the
    closing lines after a finished game, else everything it said (why it could not start)."""
    bridge = app.bridge
    real_out, real_err = sys.stdout, sys.stderr
    kept: list[str] = []
    thread = threading.Thread(target=app.run, name="spycraft-app", daemon=True)
    root = logging.getLogger()
    handlers = root.handlers[:]
    root.handlers = [_LogLines(bridge)]
    thread.start()
    lines = _Lines(bridge, kept)
    try:
        with contextlib.redirect_stdout(lines), contextlib.redirect_stderr(lines):
            try:
                yield bridge
            except KeyboardInterrupt:
                if bridge.left is PlayerLeft:
                    raise PlayerLeft from None
                raise
            if bridge.view().closing is not None:
                while not bridge.closed.wait(0.2):
                    pass
    finally:
        app.stop()
        thread.join(10)
        root.handlers = handlers
        closing = bridge.view().closing
        for line in closing if closing is not None else tuple(kept):
            print(line, file=real_out, flush=True)
        if app.failure is not None:
            print(f"spycraft: the screen failed ({app.failure!r}); `--line` plays without it",
                  file=real_err, flush=True)

"""The table on screen: board, private panel, history, decision, status line, help, final screen.

Theory of operation: ``TableApp`` is a prompt-toolkit ``Application`` that draws a
``bridge.View``. Every post to the bridge calls ``_changed`` (from any thread), which schedules
``_refresh`` on the application's loop: it reads the bridge once, starts a fresh ``Choices``
when a new decision is open, and redraws. The panels are functions of that view (``picture``
draws them), so a redraw never touches the game.

Keys: arrows move the highlight, typing filters the options, Enter takes the highlighted one,
PgUp/PgDn scroll the history, F1 or ``?`` opens the help (the game's guide and the rules text
of what the highlighted option and the facts on the table name), Esc closes it or clears the
typing, Tab moves between the decision and the table talk (when the session offers it), and
``/say TEXT`` and Enter at the decision says TEXT to the table as in line mode; Ctrl-C leaves
(the seat's state is saved), Ctrl-D leaves as the end of input does. On the final screen Enter
or q closes the table, and a (where the command offers it) plays the same game again.

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

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
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
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from spycraft.cli.app import picture as draw
from spycraft.cli.app.bridge import Bridge, View
from spycraft.cli.app.choices import Choices
from spycraft.cli.guide import guide
from spycraft.cli.tui import PlayerLeft
from spycraft.crypto.text import printable, printable_block
from spycraft.engines.agent import Decision

SAY = "/say"  # typed at the decision, as in line mode: says the rest to the table
CURSOR = "[SetCursorPosition]"  # a fragment style prompt-toolkit scrolls into view
HISTORY_DRAWN = 200  # history lines drawn at once (the panel shows the last of them)


class AppAgent:
    """A seat's agent whose decisions are made by the person in the application."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def decide(self, decision: Decision) -> int:
        return self.bridge.ask(decision)


Terminal = tuple[Input, Output]  # where an application reads keys and draws (tests: a pipe)


class TableApp:
    def __init__(self, bridge: Bridge, game: str | None = None, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.bridge = bridge
        self.game = game  # the registry name (for the guide); None until a table is found
        self.view: View = bridge.view()
        self.choices: Choices | None = None
        self.history_back = 0  # events scrolled back from the newest
        self.help_open = False
        self.talking = False  # the person moved to the table talk's line (Tab)
        self.watching = False  # a spectator: no decision panel until the final screen
        self.failure: BaseException | None = None
        self._memo: dict[str, tuple[object, StyleAndTextTuples]] = {}
        self.filter = Buffer(multiline=False, on_text_changed=self._typed)
        self.help_text = TextArea(read_only=True, scrollbar=True, focusable=True)
        self.chat_input = Buffer(multiline=False)
        # Every window that shows a panel has its size given, so a redraw never measures the
        # whole content of a panel to lay out the screen.
        self.board_window = Window(FormattedTextControl(self._board), wrap_lines=False,
                                   width=Dimension(preferred=70, weight=3),
                                   height=Dimension(preferred=20, weight=3))
        self.history_window = Window(FormattedTextControl(self._history), wrap_lines=True,
                                     width=Dimension(preferred=100),
                                     height=Dimension(min=3, preferred=8, weight=1))
        self.options_window = Window(FormattedTextControl(self._options), wrap_lines=False,
                                     width=Dimension(preferred=40),
                                     height=Dimension(min=1, preferred=10, weight=2))
        self.app: Application[None] = Application(
            layout=self._layout(), key_bindings=self._keys(), full_screen=True,
            style=Style.from_dict(draw.STYLE), input=input, output=output,
            min_redraw_interval=0.05, refresh_interval=1.0)
        bridge.changed = self._changed
        self.app.before_render += self._keep_focus

    # --- layout -------------------------------------------------------------------------------

    def _layout(self) -> Layout:
        chatting = Condition(lambda: self.bridge.say is not None)
        talk = Condition(lambda: self.bridge.talk is not None or bool(self.view.chat))
        decision = HSplit([
            Window(FormattedTextControl(self._question), wrap_lines=True,
                   width=Dimension(preferred=40), height=Dimension(min=1, max=4, preferred=2)),
            # Always shown (empty between decisions), so the focus never leaves it by itself.
            VSplit([Window(FormattedTextControl(self._prompt_mark), width=2),
                    Window(BufferControl(self.filter), height=1)]),
            self.options_window,
            Window(FormattedTextControl(self._explain), wrap_lines=True,
                   width=Dimension(preferred=40), height=Dimension(min=0, max=3, preferred=2)),
        ])
        private = Frame(Window(FormattedTextControl(self._private), wrap_lines=True,
                               width=Dimension(preferred=40),
                               height=Dimension(min=1, preferred=8, weight=1)),
                        title=lambda: self._private_title())
        chat = ConditionalContainer(HSplit([
            Window(FormattedTextControl(self._chat_lines), wrap_lines=True,
                   width=Dimension(preferred=100), height=Dimension(min=1, max=4, preferred=2)),
            ConditionalContainer(
                VSplit([Window(FormattedTextControl([("class:label", "say: ")]), width=5),
                        Window(BufferControl(self.chat_input), height=1)]), chatting),
        ]), talk)
        body = HSplit([
            VSplit([
                Frame(self.board_window, title=lambda: self._title()),
                HSplit([private, ConditionalContainer(
                    Frame(decision, title=lambda: self._decision_title()),
                    Condition(lambda: not self.watching or self._closing()))],
                       width=Dimension(weight=2)),
            ], height=Dimension(weight=3)),
            Frame(self.history_window, title="History (PgUp/PgDn)"),
            chat,
            Window(FormattedTextControl(self._status), height=1, style="class:status",
                   width=Dimension(preferred=100)),
        ])
        helper = ConditionalContainer(
            Frame(self.help_text, title="Help: Esc, F1 or ? closes; arrows scroll"),
            Condition(lambda: self.help_open))
        root = FloatContainer(body, floats=[Float(helper, top=1, bottom=1, left=2, right=2)])
        return Layout(root, focused_element=self.filter)

    # --- keys ---------------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        helping = Condition(lambda: self.help_open)
        closing = Condition(self._closing)
        in_chat = Condition(lambda: self.talking)

        @kb.add("c-c", eager=True)
        def _(event: KeyPressEvent) -> None:
            self._leave(KeyboardInterrupt)

        @kb.add("c-d", eager=True)
        def _(event: KeyPressEvent) -> None:
            self._leave(PlayerLeft)

        saying = Condition(lambda: self._typed_say() is not None)

        @kb.add("f1")
        @kb.add("?", filter=~in_chat & ~saying)
        def _(event: KeyPressEvent) -> None:
            self._toggle_help()

        @kb.add("escape", filter=helping, eager=True)
        def _(event: KeyPressEvent) -> None:
            self._toggle_help()

        @kb.add("escape", filter=~helping, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.filter.text = ""

        @kb.add("up", filter=~helping)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(-1)

        @kb.add("down", filter=~helping)
        def _(event: KeyPressEvent) -> None:
            if self.choices is not None:
                self.choices.move(1)

        @kb.add("pageup", filter=~helping)
        def _(event: KeyPressEvent) -> None:
            self.history_back = min(len(self.view.events) - 1,
                                    self.history_back + self._history_page())

        @kb.add("pagedown", filter=~helping)
        def _(event: KeyPressEvent) -> None:
            self.history_back = max(0, self.history_back - self._history_page())

        @kb.add("enter", filter=closing & ~helping)
        @kb.add("q", filter=closing & ~helping)
        def _(event: KeyPressEvent) -> None:
            self.app.exit()

        @kb.add("a", filter=closing & ~helping & Condition(lambda: self.bridge.again_offered))
        def _(event: KeyPressEvent) -> None:
            self.bridge.again = True  # the command opens the same game again once we are gone
            self.app.exit()

        @kb.add("enter", filter=~closing & ~helping & ~in_chat)
        def _(event: KeyPressEvent) -> None:
            self._choose()

        @kb.add("enter", filter=in_chat)
        def _(event: KeyPressEvent) -> None:
            self._say()

        @kb.add("tab", filter=~helping)
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

    def _leave(self, why: type[KeyboardInterrupt | PlayerLeft]) -> None:
        if self._closing():
            self.app.exit()  # the game is over: nothing to leave
            return
        if not self.bridge.leave(why):
            _thread.interrupt_main()  # nobody is deciding: stop the main thread as Ctrl-C does
        self.app.exit()

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
        if self.help_open:
            self.help_text.text = self.help()
        self._keep_focus()

    def _keep_focus(self, _: object = None) -> None:
        """Keys go where the person put them: the help while it is open, the table talk after
        Tab, else the decision (never wherever prompt-toolkit's focus drifted)."""
        wanted = (self.help_text.buffer if self.help_open
                  else self.chat_input if self.talking else self.filter)
        if not self.app.layout.has_focus(wanted):
            self.app.layout.focus(wanted)

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
            self.filter.reset()
        self.app.invalidate()

    def _closing(self) -> bool:
        return self.view.closing is not None

    # --- panels -------------------------------------------------------------------------------

    def _title(self) -> str:
        pic = self.view.picture
        return pic.title if pic is not None else "spycraft"

    def _private_title(self) -> str:
        seat = self.view.seat
        if seat is None:
            return "Public view (watching)" if self.watching else "Public view"
        names = self.view.names
        name = printable(names[seat]) if seat < len(names) else ""
        return f"You: seat {seat} {name}".rstrip()

    def _decision_title(self) -> str:
        if self._closing():
            return "The end"
        return "Your decision" if self.view.decision is not None else "Waiting"

    def _memoized(self, name: str, key: object,
                  draw_it: Callable[[], StyleAndTextTuples]) -> StyleAndTextTuples:
        """A panel's fragments, drawn again only when what they show (``key``) changed."""
        kept = self._memo.get(name)
        if kept is not None and kept[0] == key:
            return kept[1]
        fragments = draw_it()
        self._memo[name] = (key, fragments)
        return fragments

    def _width(self, window: Window, default: int = 80) -> int:
        info = window.render_info
        return info.window_width if info is not None else default

    def _board(self) -> StyleAndTextTuples:
        key = (id(self.view.picture), self.view.closing, self._width(self.board_window))
        return self._memoized("board", key, self._draw_board)

    def _draw_board(self) -> StyleAndTextTuples:
        pic = self.view.picture
        if self._closing():
            out: draw.Fragments = []
            if pic is not None and pic.screen is not None and pic.screen.result is not None:
                out += draw.result(pic.screen.result)
                out.append(("", "\n"))
            elif pic is not None:
                out += draw.board(pic, self._width(self.board_window))
                out.append(("", "\n\n"))
            for line in self.view.closing or ():
                out.append(("class:label", printable(line) + "\n"))
            return list(out)
        return list(draw.board(pic, self._width(self.board_window)))

    def _private(self) -> StyleAndTextTuples:
        out = draw.private(self.view.picture)
        if not out and self.view.picture is not None and self.view.picture.screen is None:
            return [("class:hint", "(this game draws your hand and role on the board)")]
        return list(out)

    def _history_page(self) -> int:
        info = self.history_window.render_info
        return max(1, (info.window_height if info is not None else 10) - 1)

    def _history(self) -> StyleAndTextTuples:
        key = (len(self.view.events), self.history_back)
        return self._memoized("history", key, self._draw_history)

    def _draw_history(self) -> StyleAndTextTuples:
        events = self.view.events
        end = max(0, len(events) - self.history_back)
        out = draw.history(events[max(0, end - HISTORY_DRAWN):end])
        if out and out[-1] == ("", "\n"):
            out.pop()
        out.append((CURSOR, ""))
        return list(out)

    def _prompt_mark(self) -> StyleAndTextTuples:
        deciding = self.view.decision is not None and not self._closing()
        return [("class:label", "> ")] if deciding else []

    def _question(self) -> StyleAndTextTuples:
        if self._closing():
            again = " · a: play again" if self.bridge.again_offered else ""
            return [("class:label", f"Enter or q: close the table{again}")]
        decision = self.view.decision
        if decision is None:
            pic = self.view.picture
            if pic is not None and pic.turn is not None and pic.turn != self.view.seat:
                return [("class:hint", f"waiting for {self._seat_name(pic.turn)}…")]
            return [("class:hint", "waiting…")]
        # A prompt may run over several lines (a question, then "Your cards: ..."): keep them.
        return [("class:label", printable_block(decision.prompt))]

    def _options(self) -> StyleAndTextTuples:
        choices = self.choices
        key = (id(choices), choices and choices.text, choices and choices.cursor,
               self._closing())
        return self._memoized("options", key, self._draw_options)

    def _draw_options(self) -> StyleAndTextTuples:
        choices = self.choices
        if choices is None or self._closing():
            return []
        labels = choices.decision.labels
        out: StyleAndTextTuples = []
        shown = choices.matches()
        current = choices.highlighted()
        for index in shown:
            if index == current:
                out.append((CURSOR, ""))
                out.append(("class:chosen", f"▸ {printable(labels[index])}"))
            else:
                out.append(("", f"  {printable(labels[index])}"))
            out.append(("", "\n"))
        hint = choices.hint()
        if self._typed_say() is not None:
            out.append(("class:hint", "Enter says it to the table"))
        elif hint:
            out.append(("class:tone.bad", hint))
        return out

    def _explain(self) -> StyleAndTextTuples:
        if self.choices is None or self._closing():
            return []
        pic = self.view.picture
        label = self.choices.label()
        found = draw.explanations(pic.screen if pic is not None else None, label)
        if label and found and found[0][0].lower() in label.lower():
            return [("class:hint", f"{found[0][0]}: {printable(found[0][1])}")]
        return [("class:hint", "↑↓ choose · type to filter · Enter takes it · ? help")]

    def _chat_lines(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("", printable(line) + "\n") for line in self.view.chat[-50:]]
        if not out:
            out.append(("class:hint", printable(self.bridge.talk or "Table talk")))
        out.append((CURSOR, ""))
        return out

    def _seat_name(self, seat: int) -> str:
        names = self.view.names
        if seat == self.view.seat:
            return "you"
        return f"seat {seat} {printable(names[seat])}" if seat < len(names) else f"seat {seat}"

    def _status(self) -> StyleAndTextTuples:
        pic = self.view.picture
        parts = []
        if self._closing() or (pic is not None and pic.ended):
            parts.append("game over")
        elif self.view.decision is not None:
            parts.append("your turn")
        elif pic is not None and pic.turn is not None:
            parts.append(f"{self._seat_name(pic.turn)} to play")
        extra = self.bridge.status()
        if extra:
            parts.append(extra)
        keys = "F1/? help · Ctrl-C leave"
        return [("class:status", f" {' · '.join(parts)}  ·  {keys} ")]

    # --- help ---------------------------------------------------------------------------------

    def help(self) -> str:
        """The help text: the rules of what the highlighted option names, then of the facts on
        the table, then the game's player guide."""
        pic = self.view.picture
        screen = pic.screen if pic is not None else None
        label = self.choices.label() if self.choices is not None else None
        parts = []
        if label:
            parts.append(f"Highlighted: {label}")
        for name, text in draw.explanations(screen, label):
            parts.append(f"{name}: {text}")
        if parts:
            parts.append("")
        parts.append(guide(self.game) if self.game else "The game is not known yet.")
        return "\n".join(printable_block(p) for p in parts)

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

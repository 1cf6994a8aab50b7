"""The one place where the game's threads meet the application's thread.

Theory of operation: the game side (the main thread offline, the trio session and its agent's
worker thread on the LAN) posts into the ``Bridge``: the current ``Picture``, history events,
notices (a seat sat down, a warning), the open decision and, at the end, the closing lines. Each
post takes the lock, stores, and calls ``changed`` (the application's thread-safe redraw). The
application reads a consistent ``View`` of it under the same lock and answers a decision with
``answer``. ``ask`` is the only call that waits: the deciding thread blocks until the person
chooses or leaves.

Leaving: ``leave`` records why (``KeyboardInterrupt`` for Ctrl-C, ``PlayerLeft`` for Ctrl-D or
closing) and wakes a waiting ``ask``, which raises it where the game runs (offline the main
thread; on the LAN the agent's worker thread, whose error trio carries to the main thread);
when nobody is deciding, the main thread is interrupted as Ctrl-C would (``interrupt_main``) and
the runner (``table.attached``) raises the right exception there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from spycraft.cli.app.picture import Picture
from spycraft.cli.tui import PlayerLeft
from spycraft.engines.agent import Decision
from spycraft.engines.viewmodel import Event

Leaving = type[KeyboardInterrupt | PlayerLeft]


@dataclass(frozen=True)
class View:
    """What the application draws, read at once under the lock."""

    picture: Picture | None
    events: tuple[Event, ...]
    decision: Decision | None
    closing: tuple[str, ...] | None  # the lines after the end (None while the game runs)
    seat: int | None
    names: tuple[str, ...]
    chat: tuple[str, ...] = ()


@dataclass
class _Ask:
    decision: Decision
    done: threading.Event = field(default_factory=threading.Event)
    choice: int | None = None


class Bridge:
    def __init__(self, seat: int | None = None, names: tuple[str, ...] = ()) -> None:
        self._lock = threading.Lock()
        self._picture: Picture | None = None
        self._events: list[Event] = []
        self._ask: _Ask | None = None
        self._closing: tuple[str, ...] | None = None
        self.seat = seat
        self.names = names
        self.left: Leaving | None = None
        self.closed = threading.Event()  # the application has ended
        self.changed: Callable[[], None] = lambda: None
        self.status: Callable[[], str] = lambda: ""  # seats connected
        # The table's turn timer: the seconds the seat whose turn it is has left, or None (no
        # timer: offline, or the game is over). The session gives it (``run.LanFeed``).
        self.clock: Callable[[], float | None] = lambda: None
        # Table talk, when the session offers it: say a line (returns why not, or None), and
        # the lines said so far (each already safe on a terminal). ``talk``: what the talk panel
        # says while nobody has talked (how to talk, or why this seat cannot); None where
        # there is no table talk at all (an offline game).
        self.say: Callable[[str], str | None] | None = None
        self.talk: str | None = None
        self._chat: list[str] = []
        # "Play again" on the final screen, where the command offers it: the person chose it
        # (``again``), and the command opens the same game for the same seats once the screen
        # is closed.
        self.again_offered = False
        self.again = False

    # --- the game's side ----------------------------------------------------------------------

    def seated(self, seat: int | None, names: tuple[str, ...]) -> None:
        with self._lock:
            self.seat, self.names = seat, names
        self.changed()

    def show(self, picture: Picture) -> None:
        with self._lock:
            self._picture = picture
        self.changed()

    def add(self, *events: Event) -> None:
        with self._lock:
            self._events.extend(events)
        self.changed()

    def notice(self, text: str, tone: str = "muted") -> None:
        """A line that is no record (a seat sat down, a warning) in the history."""
        with self._lock:
            seq = self._picture.seq if self._picture is not None else 0
            self._events.append(Event(seq, text, tone=tone))
        self.changed()

    def chat(self, line: str) -> None:
        with self._lock:
            self._chat.append(line)
        self.changed()

    def ask(self, decision: Decision) -> int:
        """The person's choice (an option index); raises if the person leaves meanwhile."""
        ask = _Ask(decision)
        with self._lock:
            if self.left is not None:
                raise self.left
            self._ask = ask
        self.changed()
        ask.done.wait()
        with self._lock:
            if self._ask is ask:
                self._ask = None
        self.changed()
        if ask.choice is None:
            raise self.left or PlayerLeft
        return ask.choice

    def finish(self, lines: tuple[str, ...]) -> None:
        """The game is over: the application shows its final screen with these lines."""
        with self._lock:
            self._closing = lines
        self.changed()

    # --- the application's side ---------------------------------------------------------------

    def view(self) -> View:
        with self._lock:
            decision = self._ask.decision if self._ask is not None else None
            return View(self._picture, tuple(self._events), decision, self._closing, self.seat,
                        self.names, tuple(self._chat))

    def answer(self, decision: Decision, index: int) -> bool:
        """Choose option ``index`` of ``decision`` (if it is still the open one)."""
        with self._lock:
            ask = self._ask
            if ask is None or ask.decision is not decision or not 0 <= index < len(
                    decision.options):
                return False
            ask.choice = index
            self._ask = None
        ask.done.set()
        self.changed()
        return True

    def leave(self, why: Leaving) -> bool:
        """The person leaves; True when a deciding thread was woken (it raises ``why`` and the
        game ends from there), False when nobody was deciding and the main thread must be
        interrupted."""
        with self._lock:
            if self.left is None:
                self.left = why
            ask, self._ask = self._ask, None
        if ask is not None:
            ask.done.set()
        return ask is not None

"""The line mode's text: a game's view models (``engines.viewmodel``) as plain lines for a width.

Theory of operation
-------------------
Line play (``cli.tui``, on the LAN and offline), ``spycraft replay`` in its line form,
``spycraft watch`` in its line form and ``spycraft selfplay`` print what the full-screen table
draws, from the same view models and through the same drawing (``cli.app.picture``, set by
``cli.typeset``), with the styles dropped: a game has one presentation, its ``screen`` and its
``story``, and no text of its own. ``Lines`` holds the game's ``Painter`` (the one place a
Screen is built for a seat and a record is told as an Event) and the width to set for: the
terminal's, 80 columns for a pipe. Every line is wrapped at words, never cut; a continuation is
indented, so a reader can tell where a wrapped item ends.

A board is the game's title, the status facts, each grid under its title, the notes, then
what this seat alone knows (the private facts, under "You") and, once the game has ended, the
result with the final reveal; the rules texts the application's help shows are left out (a
line has no help to open; ``spycraft rules GAME`` prints the guide). A history line is the
event's text with why a score moved in brackets, as the application's history shows it.
``wrapped`` sets any other line the line mode prints (a prompt, an option, who sits where).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from spycraft.cli import typeset
from spycraft.cli.app import picture as draw
from spycraft.cli.typeset import Line
from spycraft.engines.registry import GameDefinition
from spycraft.engines.table import TableState
from spycraft.engines.viewmodel import Event, Fact, Screen

WIDTH = 80  # a pipe's width, and the most a line is set in when the terminal is wider


def width() -> int:
    """The width the line mode sets its text in: the terminal's, at most ``WIDTH``."""
    return max(20, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def text(lines: Sequence[Line]) -> str:
    """Set lines as plain text, trailing spaces dropped."""
    return "\n".join(typeset.plain([line]).rstrip() for line in lines)


def wrapped(words: str, indent: str = "", hang: int = 2, columns: int | None = None) -> str:
    """A line of the line mode (a prompt, an option, a notice, who sits where) set for the
    width: ``indent`` opens it, its continuations start ``hang`` spaces further in."""
    w = (columns if columns is not None else width()) - len(indent)
    pad = " " * len(indent)
    out = []
    for part in words.split("\n"):
        set_lines = typeset.wrap([("", part)], w, hang)
        out += [[("", indent if i == 0 else pad)] + line for i, line in enumerate(set_lines)]
    return text(out)


def _unexplained(screen: Screen) -> Screen:
    """The screen without its rules texts: the application shows them in its help (a fact that
    has one is marked), a line has no help to open."""

    def bare(facts: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return tuple(replace(fact, explain="") for fact in facts)

    return replace(screen, status=bare(screen.status), private=bare(screen.private))


class Lines:
    """One game's boards and history lines, as plain text set for ``columns`` (the terminal's
    width when None)."""

    def __init__(self, definition: GameDefinition, columns: int | None = None) -> None:
        self.painter = draw.Painter(definition)
        self.columns = columns

    @property
    def width(self) -> int:
        return self.columns if self.columns is not None else width()

    def board(self, state: TableState[Any], seat: int | None, view: Any = None) -> str:
        """The table at ``state`` as ``seat`` sees it (None: the public picture); ``view`` is
        the seat's own (``GameSeat.view`` live, a hindsight entry in replay)."""
        pic = self.painter.picture(state, seat, view)
        w = self.width
        out: list[Line] = []
        if pic.screen is not None:
            screen = _unexplained(pic.screen)
            pic = replace(pic, screen=screen)
            out += typeset.wrap([("", screen.game)], w, 2)
        out += draw.board_lines(pic, w).lines
        private = draw.private_lines(pic, w)
        if private:
            out += [[], [("", "You")], *private]
        if pic.screen is not None and pic.screen.result is not None:
            out += [[], *draw.result_lines(pic.screen.result, w)]
        return text(out)

    def event(self, before: TableState[Any] | None, signed: Any,
              after: TableState[Any]) -> Event | None:
        """The history event ``signed`` completes, if any (``Painter.tell``)."""
        return self.painter.tell(before, signed, after)

    def told(self, event: Event, indent: str = "") -> str:
        """One history line, wrapped; ``indent`` opens it (a sequence number, two spaces) and
        its continuations start under it, two spaces further in."""
        pad = " " * len(indent)
        set_lines = draw.event_lines(event, self.width - len(indent))
        return text([[("", indent if i == 0 else pad)] + line for i, line in enumerate(set_lines)])

    def history(self, before: TableState[Any] | None, signed: Any, after: TableState[Any],
                indent: str = "") -> str:
        """The line ``signed`` adds to the history ("" for a step told later, or never)."""
        event = self.event(before, signed, after)
        return self.told(event, indent) if event is not None else ""

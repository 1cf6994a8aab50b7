"""Output for a person reading a long story (``spycraft replay``): a page at a time in a
terminal, everything at once into a pipe.

Theory of operation: the command prints lines through ``Pager.say`` and calls ``Pager.turn``
where the story turns a page (a new round of the game). When both standard input and output are
a terminal and the person did not ask for everything (``--all``), each turn that follows printed
lines waits for Enter (``q`` and Enter, or the end of input, stop the story: ``Stopped``). Into a
pipe nothing waits; a reader that goes away (``| head``) raises ``BrokenPipeError``, which
``cli.main`` takes as the reader's wish to stop.
"""

from __future__ import annotations

import sys


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

"""The full-screen table: a prompt-toolkit application for play, join, host, replay and the lobby.

Theory of operation
-------------------
The application draws what the games describe (``engines.viewmodel``: a ``Screen`` per moment,
an ``Event`` per line of history) and knows no game's rules. Every game has its view models
(``screen``, ``story``), the only presentation a game has (the line mode prints the same, as
text: ``cli.lines``); where one fails (a drawing bug) the picture says so in a line
(``picture``), so a person's game goes on.

Threads: the game runs where it always ran (``LocalTable.run`` in the main thread offline, the
trio session in the main thread on the LAN, whose agent decides in a worker thread); the
application runs in a thread of its own (``table.TableApp``). One object stands between them,
the ``bridge.Bridge``: the game posts pictures, history and decisions into it and a decision
waits there for the person's choice; the application reads it and redraws. Leaving (Ctrl-C,
Ctrl-D) is told to the main thread as the line mode tells it (``KeyboardInterrupt`` or
``cli.tui.PlayerLeft``), so the commands say it in one line and keep the seat's state.

``wanted`` decides between this and the line mode (``cli.tui``): the application for a person
at a real terminal, the line mode for pipes, scripts, ``TERM=dumb`` and ``--line``.
"""

from __future__ import annotations

import argparse
import os
import sys


def wanted(args: argparse.Namespace | None = None) -> bool:
    """Whether to draw the full-screen application: standard input and output are a terminal
    that can draw one, and the person did not ask for the line mode (``--line``)."""
    if args is not None and getattr(args, "line", False):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


class PlayerLeft(Exception):
    """The person's input ended (Ctrl-D, or the end of a pipe) while a decision was open.

    The line mode (``cli.tui``) and the application (``bridge``) raise it alike; it is declared
    here, where nothing is imported, so that ``cli.main`` can catch it without prompt-toolkit."""

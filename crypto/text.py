"""Text that came from another peer (names, table talk), made safe to show on a terminal.

Theory of operation: a peer's text may hold control characters, and through them terminal escape
sequences (clear the screen, move the cursor, set the window title, rewrite what other seats
said). Python's ``str.isprintable`` is the one rule: letters, marks, numbers, punctuation,
symbols and the plain space pass; controls, format characters (bidirectional overrides among
them), separators other than the space and unassigned code points do not. Whatever is shown from
a peer goes through ``printable``; whatever a peer signs for others to read (``crypto.chat``)
must already be ``is_printable``.
"""

from __future__ import annotations


def is_printable(text: str) -> bool:
    """True when ``text`` reaches a terminal as it reads: nothing in it is a control."""
    return text.isprintable()


def printable(text: str) -> str:
    """A peer's text with every character that is not printable replaced by ``?``."""
    if text.isprintable():  # most text: no copy (a redraw of the table cleans every line)
        return text
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def printable_block(text: str) -> str:
    """A text of several lines, each made ``printable`` (the line breaks kept)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def clean_line(text: str) -> str:
    """What a person typed, as one line to send: controls become spaces, runs of white space
    one space, no space at either end."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())

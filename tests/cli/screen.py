"""What a full-screen table shows, read from the screen prompt-toolkit last drew (not from the
bridge's model): the test sees what a person sees."""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput

from spycraft.cli.app.table import TableApp


class Terminal(DummyOutput):
    """An output that draws nowhere, of a given size (prompt-toolkit's dummy is 80x40)."""

    def __init__(self, columns: int = 140, rows: int = 45) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def screen_text(app: TableApp) -> str:
    """The rows of the last drawn screen, as text (trailing blanks dropped)."""
    renderer = app.app.renderer
    for _ in range(50):
        try:
            screen, size = renderer._last_screen, renderer._last_size
            if screen is None or size is None:
                return ""
            rows = []
            for y in range(size.rows):
                row = screen.data_buffer.get(y, {})
                rows.append("".join(row[x].char if x in row else " "
                                    for x in range(size.columns)).rstrip())
            return "\n".join(rows)
        except RuntimeError:  # drawn again while we read: read again
            time.sleep(0.01)
    return ""


def wait_for_screen(app: TableApp, seen: Callable[[str], bool], timeout: float = 20) -> str:
    """The screen once ``seen`` holds for it (AssertionError with the last screen if never)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = screen_text(app)
        if seen(text):
            return text
        time.sleep(0.02)
    raise AssertionError(f"the screen never showed it:\n{text}")

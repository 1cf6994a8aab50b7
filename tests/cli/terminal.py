"""A terminal as a person has one: a real pseudo-terminal of a given size, read through a
terminal emulator (``pyte``), so a test sees the screen as it shows, cell by cell, and not the
program's model of it. It can be resized while the program runs (the kernel tells the program,
as a window manager does) and typed into.

``boxes`` finds the panels the table draws (``┌─ Title ─┐`` ... ``└─ footer ─┘``) and ``items``
reads their lines back as the items they show: a line that starts in the first column (or with
the highlight mark) opens an item, an indented line goes on with the one before, so a wrapped
option or fact is read back whole and a cut one is not found.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"enter": "\r", "down": "\x1b[B", "up": "\x1b[A", "home": "\x1b[H", "end": "\x1b[F",
        "pgdn": "\x1b[6~", "pgup": "\x1b[5~", "esc": "\x1b", "f2": "\x1bOQ", "f3": "\x1bOR",
        "f4": "\x1bOS", "ctrl-c": "\x03", "ctrl-u": "\x15"}


def _own_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@dataclass(frozen=True)
class Box:
    title: str
    footer: str
    lines: tuple[str, ...]  # the inside, one string per row
    top: int
    left: int


class Tty:
    def __init__(self, args: list[str], home: Path, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        self.master, slave = pty.openpty()
        self._size(slave)
        env = dict(os.environ, SPYCRAFT_HOME=str(home), PYTHONUNBUFFERED="1", TERM="xterm",
                   COLUMNS="", LINES="")
        env.pop("COLUMNS")
        env.pop("LINES")
        self.process = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdin=slave,
                                        stdout=slave, stderr=slave,
                                        preexec_fn=_own_terminal)  # noqa: PLW1509 (no locks)
        os.close(slave)
        self.raw = bytearray()
        self.changed = 0  # how many reads so far (a new one: the screen may have changed)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _size(self, fd: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", self.height, self.width, 0, 0))

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.2)
                if not ready:
                    if self.process.poll() is not None:
                        return
                    continue
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.raw += chunk
                self.stream.feed(chunk)
                self.changed += 1

    def resize(self, width: int, height: int) -> None:
        """The window is made ``width`` x ``height``: the program is told (SIGWINCH)."""
        with self.lock:
            self.width, self.height = width, height
            self.screen.resize(height, width)
            self._size(self.master)

    def press(self, *keys: str, times: int = 1) -> None:
        os.write(self.master, "".join(KEYS.get(k, k) for k in keys).encode() * times)

    def rows(self) -> list[str]:
        with self.lock:
            return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.rows())

    def wait(self, ready: Callable[[list[str]], bool], timeout: float = 30,
             what: str = "the screen") -> list[str]:
        """The screen once ``ready`` holds for it (and is the same a moment later: drawn)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.rows()
            if ready(rows):
                time.sleep(0.06)
                again = self.rows()
                if again == rows:
                    return rows
                continue
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        said = self.raw.decode(errors="replace")
        tail = said[said.rfind("Traceback"):] if "Traceback" in said else ""
        raise AssertionError(f"never showed {what}:\n" + self.text() + tail[-3000:])

    def finish(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running after {timeout} s:\n{self.text()}") from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.reader.join(5)
        os.close(self.master)


def boxes(rows: list[str]) -> list[Box]:
    """Every panel on the screen, by its title."""
    found = []
    for y, row in enumerate(rows):
        x = row.find("┌")
        while x >= 0:
            right = row.find("┐", x)
            if right < 0:
                break
            bottom = next((b for b in range(y + 1, len(rows))
                           if len(rows[b]) > x and rows[b][x] == "└"), None)
            if bottom is not None:
                title = row[x + 1:right].strip("─ ")
                footer = rows[bottom][x + 1:right].strip("─ ") if len(rows[bottom]) > x else ""
                inner = tuple(r[x + 1:right].ljust(right - x - 1) for r in rows[y + 1:bottom])
                found.append(Box(" ".join(title.split()), footer, inner, y, x))
            x = row.find("┌", right)
    return found


def box(rows: list[str], title_starts: str) -> Box | None:
    return next((b for b in boxes(rows) if b.title.startswith(title_starts)), None)


def options(panel: Box) -> tuple[list[str], str]:
    """The options a decision panel shows, each read back whole, and its scroll marks: the
    lines under the typing line (``>``); ``▸`` or two spaces open an option, four spaces go on
    with the one before."""
    out: list[str] = []
    marks = []
    lines = list(panel.lines)
    start = next((i for i, line in enumerate(lines) if line.startswith(">")), len(lines))
    for line in lines[start + 1:]:
        body = line.rstrip()
        if body.startswith(("↑", "↓")):
            marks.append(body)
        elif body.startswith("▸ "):
            out.append(body[2:].strip())
        elif body.startswith("    ") and out:
            out[-1] += " " + body.strip()
        elif body.startswith("  ") and body.strip():
            out.append(body.strip())
        elif not body.strip() and out:
            break  # the options end; hints may follow
    return [" ".join(o.split()) for o in out], " ".join(marks + [panel.footer])


def facts(lines: tuple[str, ...] | list[str]) -> list[str]:
    """The facts a panel shows, each read back whole: an unindented line opens one, an
    indented line goes on with the one before."""
    out: list[str] = []
    for line in lines:
        body = line.rstrip()
        if not body.strip():
            continue
        if body[0] != " " or not out:
            out.append(body.strip())
        else:
            out[-1] += " " + body.strip()
    return [" ".join(f.split()) for f in out]


def words(text: str) -> list[str]:
    return text.split()

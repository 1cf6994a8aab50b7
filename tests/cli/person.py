"""A person at the command line: a real ``spycraft`` process, its own home, typed input that
stays open (a pipe or a pseudo-terminal), Ctrl-C as SIGINT or as the key, and its output."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def unwrapped(text: str, width: int = 80) -> str:
    """The line mode's output with each wrapped line whole again: the line mode sets its text
    for 80 columns (``cli.lines``), and a line that goes on starts further in than the line it
    continues, with a first word that would not have fit on it."""
    whole: list[str] = []
    indent, last = 0, ""
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(" "))
        words = line.split()
        if whole and words and depth > indent and len(last) + 1 + len(words[0]) > width:
            whole[-1] += " " + line.strip()
        else:
            whole.append(line)
            indent = depth
        last = line
    return "\n".join(whole)


def interruptible() -> None:
    """In the child: Ctrl-C at its default, as a terminal's shell starts a program. A suite run
    in the background (``cmd &`` in a shell without job control) ignores SIGINT, and a child
    inherits that: the person's Ctrl-C would then be lost on its way, not in spycraft."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _own_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is the pseudo-terminal on
    its standard input, as in a terminal window (so the tty turns Ctrl-C into SIGINT)."""
    interruptible()
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Person:
    def __init__(self, args: list[str], home: Path, *, terminal: bool = False,
                 term: str = "dumb") -> None:
        """``term``: the terminal's kind (``dumb``: the line mode; ``xterm``: the full-screen
        table, 80 columns by 24 rows)."""
        self.home = home
        self.log = home.with_suffix(".log")
        env = dict(os.environ, SPYCRAFT_HOME=str(home), PYTHONUNBUFFERED="1", TERM=term)
        command = [sys.executable, "-m", "spycraft", *args]
        self.master: int | None = None
        if terminal:
            self.master, tty = pty.openpty()
            fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=tty, stdout=tty,
                                            stderr=tty,
                                            preexec_fn=_own_terminal)  # noqa: PLW1509 (no locks)
            os.close(tty)
            self._buffer = b""
        else:
            with open(self.log, "ab") as out:
                self.process = subprocess.Popen(command, cwd=ROOT, env=env,
                                                stdin=subprocess.PIPE, stdout=out,
                                                stderr=subprocess.STDOUT,
                                                preexec_fn=interruptible)  # noqa: PLW1509

    def output(self) -> str:
        if self.master is None:
            return self.log.read_text(errors="replace")
        while True:
            ready, _, _ = select.select([self.master], [], [], 0)
            if not ready:
                break
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            self._buffer += chunk
        return self._buffer.decode(errors="replace")

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"never printed {text!r}:\n{self.output()[-3000:]}")

    def pause(self) -> None:
        """A person's reaction time: the prompt on the screen is ready for keys by then (a key
        sent within microseconds of the prompt can land before the terminal's raw mode)."""
        time.sleep(0.5)

    def type(self, text: str) -> None:
        if self.master is not None:
            os.write(self.master, text.encode())
        else:
            assert self.process.stdin is not None
            self.process.stdin.write(text.encode())
            self.process.stdin.flush()

    def interrupt(self) -> None:
        self.process.send_signal(signal.SIGINT)

    def end_input(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def finish(self, timeout: float) -> int:
        """The exit code, once the process ended within ``timeout`` seconds (else it is killed
        and the test fails with its output)."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running after {timeout} s:\n{self.output()[-3000:]}")
        self.output()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def one_line_exit(person: Person) -> str:
    """What a person saw when leaving: no traceback, and the last line says why."""
    text = person.output()
    assert "Traceback" not in text, text[-3000:]
    assert "Error" not in text.splitlines()[-1], text[-3000:]
    return text.strip().splitlines()[-1]

"""Real ``spycraft`` processes for the network tests: each with its own home, logs in tmp."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.transcript import Transcript

ROOT = Path(__file__).resolve().parents[2]


RUNNING: list[Proc] = []


def kill_all() -> None:
    """Called after every network test: no process outlives its test, pass or fail."""
    while RUNNING:
        RUNNING.pop().kill()


class Proc:
    def __init__(self, name: str, args: list[str], tmp: Path, *, home: Path | None = None,
                 module: str = "spycraft", netns: str | None = None,
                 prefix: Sequence[str] = ()) -> None:
        """``prefix``: words run before the Python command, e.g. ``netns-lab.sh exec 2``
        (``tests.lab.netns.Lab.on``); they must ``exec`` it so ``kill`` reaches Python."""
        self.name = name
        self.home = home or tmp / f"home-{name}"
        self.log = tmp / f"{name}.log"
        env = dict(os.environ, SPYCRAFT_HOME=str(self.home), PYTHONUNBUFFERED="1")
        command = [sys.executable, "-m", module, *args]
        if netns is not None:
            command = ["ip", "netns", "exec", netns, *command]
        command = [*prefix, *command]
        with open(self.log, "ab") as log_file:  # the child keeps its own descriptor
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                            stdout=log_file, stderr=subprocess.STDOUT)
        RUNNING.append(self)

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name} did not finish in {timeout} s:\n{self.output()}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 30) -> str:
        """The end of the log: what a failure elsewhere shows of this process."""
        return "\n".join(self.output().splitlines()[-lines:])

    def table_id(self, timeout: float = 20) -> str:
        """The id a host or player printed when it opened its table."""
        self.wait_for("open on", timeout)
        found = re.search(r"table ([0-9a-f]{32}) open on", self.output())
        assert found, self.output()
        return found.group(1)

    def stored_transcripts(self) -> list[Path]:
        return sorted((self.home / "data" / "games").glob("*/transcript.cbor"))

    def records_stored(self) -> int:
        paths = self.stored_transcripts()
        if not paths:
            return 0
        try:
            return len(Transcript.from_bytes(paths[0].read_bytes()).records)
        except SpycraftError:
            return 0  # caught mid-append: look again later

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{self.name} never printed {text!r}:\n{self.output()}")


def wait_all(procs: Sequence[Proc], timeout: float) -> None:
    """Wait until every process exits 0; fail at once, with its log and the end of every other
    one's, when one exits otherwise (peers still waiting for it would only time out later,
    showing the wrong log)."""
    deadline = time.monotonic() + timeout
    waiting = list(procs)
    while waiting:
        for p in list(waiting):
            code = p.process.poll()
            if code == 0:
                waiting.remove(p)
            elif code is not None:
                others = "\n".join(f"--- {q.name} (the last lines):\n{q.tail()}"
                                   for q in procs if q is not p)
                raise AssertionError(f"{p.name} exited with {code}:\n{p.output()}\n{others}")
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {p.name}:\n{p.output()}" for p in waiting)
            names = [p.name for p in waiting]
            raise AssertionError(f"not finished in {timeout} s: {names}\n{logs}")
        time.sleep(0.05)


def spycraft(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spycraft", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, check=False)


def audit(path: Path) -> subprocess.CompletedProcess[str]:
    return spycraft("audit", str(path))


def vm_rss(pid: int) -> int | None:
    """The resident memory of a running process in bytes (Linux ``/proc``), None once it ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else None

"""When the Wi-Fi drops (a lab host's link down in ``benchmarks/chaos.py``), zeroconf logs the
socket error it has handled with a traceback; a person sees that one warning in one line (the
traceback is for ``-vv``), never a traceback on the terminal of a game that goes on."""

from __future__ import annotations

import subprocess
import sys

from tests.net.harness import ROOT

PROGRAM = """
import sys
from spycraft.cli import lan
from spycraft.cli.main import build_parser
from zeroconf._logger import QuietLogger

async def command(args):
    try:
        raise OSError(101, "Network is unreachable")
    except OSError as exc:  # what zeroconf's listener does with a send that fails
        QuietLogger.log_exception_once(exc, "Error with socket 12 (('10.0.0.1', 5353))): %s", exc)
    return 0

sys.exit(lan._run(command, build_parser().parse_args(["tables", "--interface", "127.0.0.1",
                                                      *sys.argv[1:]])))
"""


def run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROGRAM, *flags], cwd=ROOT, text=True,
                          capture_output=True, timeout=60, check=False)


def test_a_socket_error_zeroconf_handled_is_one_warning_line_without_its_traceback() -> None:
    done = run()
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].endswith("zeroconf WARNING: Error with socket 12 (('10.0.0.1', 5353))): "
                             "[Errno 101] Network is unreachable"), lines
    shown = run("-vv")  # asked for: the whole story
    assert "Traceback (most recent call last)" in shown.stderr, shown.stderr

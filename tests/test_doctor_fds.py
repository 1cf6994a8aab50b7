"""A stranger on the LAN holds the doctor's greeting port with idle connections.

``serve_greetings`` answers every connection it accepts, each for up to ``TCP_TIMEOUT``, with
no bound on how many at once: a stranger that opens connections and sends nothing holds one
file descriptor of the doctor's per connection. On a system whose limit is low (macOS's
default soft limit is 256), the doctor then cannot open its own sockets: it cannot reach the
real doctor beside it (EMFILE), and reports a failure a stranger caused.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 256  # macOS's default soft limit of open files


LOW_LIMIT = "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, {limit})); "
RUN = ("import runpy, sys; sys.argv[0] = 'spycraft'; "
       "runpy.run_module('spycraft', run_name='__main__')")


@pytest.mark.network
def test_idle_connections_of_a_stranger_do_not_keep_two_doctors_apart(tmp_path: Path) -> None:
    done: dict[str, tuple[int, str, str]] = {}
    port: list[int] = []
    have_port = trio.Event()

    async def run_doctor(who: str, delay: float, low: bool) -> None:
        await trio.sleep(delay)
        args = ["doctor", "--interface", "127.0.0.1", "--peers", "1", "--wait", "12"]
        limit = LOW_LIMIT.format(limit=LIMIT) if low else ""
        proc = await trio.lowlevel.open_process(
            [sys.executable, "-c", f"{limit}{RUN}", *args], cwd=ROOT,
            env=dict(os.environ, SPYCRAFT_HOME=str(tmp_path / who)), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = b"", b""

        async def read_err() -> None:
            nonlocal err
            assert proc.stderr is not None
            async for chunk in proc.stderr:
                err += chunk

        async with trio.open_nursery() as reading:
            reading.start_soon(read_err)
            async for chunk in proc.stdout:
                out += chunk
                found = re.search(rb"listened on 127\.0\.0\.1:(\d+)", out)
                if low and found and not port:
                    port.append(int(found.group(1)))
                    have_port.set()
        done[who] = (await proc.wait(), out.decode(), err.decode())

    async def stranger() -> None:
        await have_port.wait()
        held: list[socket.socket] = []
        while True:  # keep about 400 idle connections open; the doctor closes each after 3 s
            alive = []
            for s in held:
                try:
                    if s.recv(4096, socket.MSG_DONTWAIT) == b"":
                        s.close()
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    s.close()
                    continue
                alive.append(s)
            held = alive
            while len(held) < 400:
                s = socket.socket()
                s.bind(("127.0.0.2", 0))  # a stranger is a machine of its own on the LAN
                s.setblocking(False)
                try:
                    s.connect(("127.0.0.1", port[0]))
                except BlockingIOError:
                    pass
                except OSError:
                    s.close()
                    break
                held.append(s)
            await trio.sleep(0.05)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stranger)
            async with trio.open_nursery() as doctors:
                doctors.start_soon(run_doctor, "low", 0.0, True)
                doctors.start_soon(run_doctor, "other", 3.0, False)
            nursery.cancel_scope.cancel()

    trio.run(main)
    code, out, err = done["low"]
    assert code == 0 and "FAIL" not in out, out + err[-800:]
    assert "reached 127.0.0.1:" in out
    assert "Too many open files" not in out + err, err[-800:]

"""Red team 7 (stop 28): the opener's lobby had no door. A stranger's 1,100 silent connections
ran the opener out of descriptors (the limit of its process: 1,024) and ``accept`` raised EMFILE
out of the lobby: ``spycraft host`` died before anyone sat. Now the lobby keeps at most
``PENDING_PER_ADDRESS`` handshakes of one address in progress (the oldest gives way), backs off
an address whose handshakes keep failing, and waits and accepts again when it runs out.

Here the host's process is given 128 descriptors and a stranger holds 400 silent connections
open at its port while two bot peers sit down and play."""

from __future__ import annotations

import re
import resource
import socket
import time
from pathlib import Path

import pytest

from tests.net.harness import audit, wait_all
from tests.net.test_loopback import LO, bots, host

pytestmark = pytest.mark.network


def test_silent_connections_past_the_openers_descriptors_leave_its_table_open(
    tmp_path: Path,
) -> None:
    h = host(tmp_path)
    table = h.table_id()
    resource.prlimit(h.process.pid, resource.RLIMIT_NOFILE, (128, 128))
    port = int(re.search(r"open on [\d.]+:(\d+)", h.output()).group(1))  # type: ignore[union-attr]
    silent: list[socket.socket] = []
    try:
        for _ in range(400):
            try:
                silent.append(socket.create_connection((LO, port), timeout=2))
            except OSError:
                time.sleep(0.01)  # its backlog is full for a moment: the stranger goes on
        players = [bots(tmp_path, name, table) for name in ("alice", "bob")]
        wait_all([h, *players], 120)
    finally:
        for s in silent:
            s.close()
    assert "Traceback" not in h.output(), h.output()
    checked = audit(tmp_path / "host.cbor")
    assert checked.returncode == 0 and "VALID spies-and-lies" in checked.stdout, checked.stdout

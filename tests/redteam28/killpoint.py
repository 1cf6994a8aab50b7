"""``spycraft`` itself, unchanged, that stops or kills itself (SIGSTOP / SIGKILL) at one chosen
moment of its own I/O: a real ``kill -9`` at a place a test could not time from outside.

    RT_POINT=KIND:WHERE[:N] RT_ACTION=kill|stop python -m tests.redteam28.killpoint ARGS...

KIND is a record kind of our own (ready, reveal, abandon, ...) or ``vote``; WHERE is
``remembered`` (after our record is durable in own.cbor, before any frame of it leaves),
``sent`` (after N frames carrying it were posted, default 1), or ``before`` (when the batch that
would remember it is handed to the shell, before anything of it runs). ``vote``: after the batch
that signed and sent our absence vote. RT_SKIP=M lets the first M matches pass.
"""

from __future__ import annotations

import os
import signal
import sys

from spycraft.crypto.errors import SpycraftError
from spycraft.crypto.records import parse_record
from spycraft.p2p import protocol as proto
from spycraft.p2p.session import Session

POINT = os.environ.get("RT_POINT", "")
ACTION = os.environ.get("RT_ACTION", "kill")
_skip = [int(os.environ.get("RT_SKIP", "0"))]
_done = [False]


def _hit() -> None:
    if _done[0]:
        return
    if _skip[0] > 0:
        _skip[0] -= 1
        return
    _done[0] = True
    print(f"killpoint {POINT}: {ACTION}", flush=True)
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGSTOP if ACTION == "stop" else signal.SIGKILL)


def _kind_of(raw: bytes) -> str | None:
    try:
        return parse_record(raw).record.kind
    except SpycraftError:
        return None


_orig = Session._execute


def _execute(self, actions):  # type: ignore[no-untyped-def]
    if not POINT or _done[0]:
        return _orig(self, actions)
    parts = POINT.split(":")
    kind, where = parts[0], (parts[1] if len(parts) > 1 else "")
    count = int(parts[2]) if len(parts) > 2 else 1
    if kind == "vote" and where == "before":
        if any(isinstance(a, proto.Notice) and a.kind == "vote" for a in actions):
            _hit()
        return _orig(self, actions)
    if kind == "vote":
        _orig(self, actions)
        if any(isinstance(a, proto.Notice) and a.kind == "vote" for a in actions):
            _hit()
        return None
    mine = [i for i, a in enumerate(actions)
            if isinstance(a, proto.Remember) and _kind_of(a.raw) == kind]
    if not mine:
        return _orig(self, actions)
    if where == "before":
        _hit()
        return _orig(self, actions)
    at = mine[0]
    raw = actions[at].raw
    _orig(self, actions[: at + 1])
    if where == "remembered":
        _hit()
        return _orig(self, actions[at + 1:])
    sent = 0
    rest = actions[at + 1:]
    for i, a in enumerate(rest):
        _orig(self, [a])
        if isinstance(a, proto.Send) and a.frame.get("t") == "record" and \
                a.frame.get("record") == raw:
            sent += 1
            if sent == count:
                _hit()
    return None


Session._execute = _execute  # type: ignore[method-assign]

if __name__ == "__main__":
    from spycraft.cli.main import main

    sys.exit(main())

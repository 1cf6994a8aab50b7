"""A seat does not check again the proofs it has just made (issue 21; ``crypto.vouch``).

Five real sessions of The Resistance in one trio program, over loopback TCP, each seat's
records built in the session's worker thread: every shuffle is proven once by its author and
checked in full by the four other seats, not by its author again, and the seats agree on every
record.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from spycraft.crypto import shuffle as shuffle_module
from spycraft.crypto.group import Scalar
from spycraft.engines import registry
from spycraft.p2p.session import Session
from tests.p2p.mesh import mesh

SEATS = 5


def _shuffles(session: Session) -> int:
    return sum(kind == "shuffle" for _, _, kind in session.protocol.state.history)


def test_each_seat_checks_every_shuffle_but_its_own(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    digests: list[bytes] = []  # one per proof made and one per proof checked in full
    real = shuffle_module._challenges

    def counting(digest: bytes, n: int) -> list[Scalar]:
        digests.append(digest)
        return real(digest, n)

    monkeypatch.setattr(shuffle_module, "_challenges", counting)
    sessions: list[Session] = []

    async def main() -> None:
        sessions.extend(await mesh(tmp_path, SEATS, think=0.0,
                                   definition=registry.load("resistance")))
        async with trio.open_nursery() as nursery:
            for session in sessions:
                nursery.start_soon(session.run)
            with trio.fail_after(60):
                while not all(_shuffles(s) == SEATS for s in sessions):
                    await trio.sleep(0.02)
            nursery.cancel_scope.cancel()

    trio.run(main)
    # each distinct shuffle: once by its prover, once by each of the four others; never by its
    # author's own check
    assert len(set(digests)) == SEATS
    assert sorted(digests.count(d) for d in set(digests)) == [SEATS] * SEATS
    head = min(s.protocol.head for s in sessions)
    assert head > 0
    assert len({tuple(r.raw for r in s.protocol.records[:head]) for s in sessions}) == 1

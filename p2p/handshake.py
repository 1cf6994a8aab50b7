"""The handshake every connection starts with: each side proves its identity key, live.

Theory of operation
-------------------
Three frames (see ``p2p.wire``): the dialer's ``hello`` (fresh nonce, zero echo), the listener's
``hello`` (its own fresh nonce, echoing the dialer's) and the dialer's ``auth`` (a signature over
the table, both identities, both nonces and both hellos). Each side has then seen a signature
over a nonce it drew itself a moment ago, so a hello copied from another connection, or replayed
later, fails; and the auth names the listener it answers, so a hello relayed to a third peer
fails too. The listener may refuse after the first hello (not seated here, table full) with a
``bye``, before it signs anything. Until the handshake is done, a frame may be at most
``HANDSHAKE_FRAME_SIZE`` bytes (a stranger's first frame costs 1 KiB at most), and the whole
handshake ``timeout`` seconds. Both functions raise ``FrameError`` for anything wrong and
``Refused`` when the other side said goodbye; the caller closes the stream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import trio

from spycraft.crypto.identity import Identity
from spycraft.p2p.bucket import Bucket
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.wire import (
    HANDSHAKE_FRAME_SIZE,
    NO_ECHO,
    NONCE_SIZE,
    Frame,
    FramedStream,
    FrameError,
    Hello,
    HelloFrame,
    make_auth,
    verify_auth,
    verify_hello,
)

log = logging.getLogger("spycraft.p2p")

HANDSHAKE_TIMEOUT = 10.0
AUTH_TIMEOUT = 3.0
"""Seconds a dialer has to answer our hello with its auth (it only verifies and signs): a
stranger let in at its hello holds what admission gave it (a spectator's slot) no longer."""

HelloBuilder = Callable[[bytes, bytes], HelloFrame]
"""(nonce, echo) -> our signed hello frame."""


class Refused(FrameError):
    """The other side said goodbye during the handshake (the reason is the message)."""


def fresh_nonce() -> bytes:
    return SystemEntropy().take(NONCE_SIZE)


@contextmanager
def _small_frames(framed: FramedStream) -> Iterator[None]:
    """Frames of at most ``HANDSHAKE_FRAME_SIZE`` bytes until the handshake is done."""
    limit = framed.max_frame_size
    framed.max_frame_size = min(limit, HANDSHAKE_FRAME_SIZE)
    try:
        yield
    finally:
        framed.max_frame_size = limit


async def _receive(framed: FramedStream) -> Frame:
    frame = await framed.receive()
    if frame["t"] == "bye":
        raise Refused(frame["reason"])
    return frame


async def dial(
    framed: FramedStream,
    identity: Identity,
    my_hello: HelloBuilder,
    table: bytes,
    *,
    timeout: float = HANDSHAKE_TIMEOUT,
) -> Hello:
    """Handshake as the side that opened the connection; return the listener's hello."""
    nonce = fresh_nonce()
    with trio.fail_after(timeout), _small_frames(framed):
        mine = my_hello(nonce, NO_ECHO)
        await framed.send(mine)
        theirs = verify_hello(await _receive(framed), table_id=table, echo=nonce)
        await framed.send(make_auth(identity, theirs, mine))
    return theirs


async def accept(
    framed: FramedStream,
    my_hello: HelloBuilder,
    table: bytes,
    admit: Callable[[Hello], str | None],
    *,
    timeout: float = HANDSHAKE_TIMEOUT,
) -> Hello:
    """Handshake as the listener; ``admit`` returns a refusal reason or None. Returns the
    dialer's hello once it has answered our nonce."""
    with trio.fail_after(timeout), _small_frames(framed):
        theirs = verify_hello(await _receive(framed), table_id=table, echo=NO_ECHO)
        refusal = admit(theirs)
        if refusal is not None:
            await framed.send({"t": "bye", "reason": refusal})
            raise Refused(refusal)
        mine = my_hello(fresh_nonce(), theirs.nonce)
        await framed.send(mine)
        with trio.fail_after(AUTH_TIMEOUT):
            auth = await _receive(framed)
        verify_auth(auth, theirs, mine)
    return theirs


# --- the door: what a stranger's knocking may cost ----------------------------------------------

PENDING_TOTAL = 64
"""Handshakes in progress at once on one listener; a newer one evicts the oldest."""
PENDING_PER_ADDRESS = 16
"""The same, per address."""
REFUSALS_BURST = 32.0
REFUSALS_RATE = 2.0
"""Refused handshakes an address may cost us at once, and a second: past them, its connections
are closed as they come, before a byte is read."""


class Door:
    """The listener's guard before the handshake: handshakes in progress are bounded in number
    (in total and per address: the oldest gives way, so a stranger holding connections open
    without a word cannot keep a peer out for long), and an address whose handshakes keep
    failing is backed off (its connections are closed unread until its bucket refills). With
    small frames and a bounded handshake time, what a stranger costs us is bounded per second.
    Sans-IO but for the scopes: ``now`` is the caller's clock."""

    def __init__(self, *, total: int = PENDING_TOTAL, per_address: int = PENDING_PER_ADDRESS,
                 burst: float = REFUSALS_BURST, rate: float = REFUSALS_RATE) -> None:
        self.total, self.per_address, self.burst, self.rate = total, per_address, burst, rate
        self.pending: list[tuple[str, trio.CancelScope]] = []  # oldest first
        self.refusals: dict[str, Bucket] = {}
        self.backed_off: set[str] = set()

    def open(self, address: str, now: float) -> bool:
        """Whether a connection from ``address`` may start a handshake now."""
        bucket = self.refusals.get(address)
        if bucket is None:
            return True
        bucket.refill(now)
        if bucket.tokens >= 1:
            self.backed_off.discard(address)
            return True
        if address not in self.backed_off:
            self.backed_off.add(address)
            log.warning("backing off %s: too many refused handshakes", address)
        return False

    @contextmanager
    def knocking(self, address: str) -> Iterator[trio.CancelScope]:
        """A scope for one handshake in progress (cancelled if it has to give way)."""
        scope = trio.CancelScope()
        waiting = [entry for entry in self.pending if not entry[1].cancel_called]
        mine = [entry for entry in waiting if entry[0] == address]
        if len(mine) >= self.per_address:
            mine[0][1].cancel()
        elif len(waiting) >= self.total:
            waiting[0][1].cancel()
        entry = (address, scope)
        self.pending.append(entry)
        try:
            yield scope
        finally:
            self.pending.remove(entry)

    def refused(self, address: str, now: float) -> None:
        """A handshake from ``address`` failed (a bad frame, silence, a false auth)."""
        bucket = self.refusals.get(address)
        if bucket is None:
            bucket = self.refusals[address] = Bucket.full(self.burst, self.rate, now)
        bucket.take(now)
        if len(self.refusals) > 4 * self.total:  # forget the addresses that are quiet again
            for quiet, other in list(self.refusals.items()):
                other.refill(now)
                if other.tokens >= self.burst - 1:
                    del self.refusals[quiet]

"""The handshake every connection starts with: each side proves its identity key, live.

Theory of operation
-------------------
Three frames (see ``p2p.wire``): the dialer's ``hello`` (fresh nonce, zero echo), the listener's
``hello`` (its own fresh nonce, echoing the dialer's) and the dialer's ``auth`` (a signature over
the listener's nonce and the dialer's hello). Each side has then seen a signature over a nonce it
drew itself a moment ago, so a hello copied from another connection, or replayed later, fails.
The listener may refuse after the first hello (not seated here, table full) with a ``bye``,
before it signs anything. Both functions raise ``FrameError`` for anything wrong and
``Refused`` when the other side said goodbye; the caller closes the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from spycraft.crypto.identity import Identity
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.wire import (
    NO_ECHO,
    NONCE_SIZE,
    FramedStream,
    FrameError,
    Hello,
    make_auth,
    verify_auth,
    verify_hello,
)

HANDSHAKE_TIMEOUT = 10.0

HelloBuilder = Callable[[bytes, bytes], dict[str, Any]]
"""(nonce, echo) -> our signed hello frame."""


class Refused(FrameError):
    """The other side said goodbye during the handshake (the reason is the message)."""


def fresh_nonce() -> bytes:
    return SystemEntropy().take(NONCE_SIZE)


async def _receive(framed: FramedStream) -> dict[str, Any]:
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
    with trio.fail_after(timeout):
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
    with trio.fail_after(timeout):
        theirs = verify_hello(await _receive(framed), table_id=table, echo=NO_ECHO)
        refusal = admit(theirs)
        if refusal is not None:
            await framed.send({"t": "bye", "reason": refusal})
            raise Refused(refusal)
        nonce = fresh_nonce()
        await framed.send(my_hello(nonce, theirs.nonce))
        verify_auth(await _receive(framed), theirs, nonce)
    return theirs

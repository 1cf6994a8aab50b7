"""What a table tells the person at it: the lobby's and the session's events, typed.

Theory of operation
-------------------
The trio shells (``p2p.lobby``, ``p2p.session``) emit one of these for each thing a person, or a
program beside the table, may want to know, through the ``Events`` callback they are given. The
command line's faces (line mode, ``cli.lan.Narrator``; the full-screen table, ``cli.app.run``;
a spectator, ``cli.watch``) draw from them and never compose a sentence of their own: every
event that a person reads says itself (``text``) and says whether it tells of something that
went wrong (``bad``). ``RecordStored`` says nothing by itself: each face tells a record in the
game's own words (``engines.viewmodel``). Events are facts, never requests: nothing an event
handler does changes the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spycraft.crypto.records import SignedRecord
from spycraft.crypto.text import printable
from spycraft.engines.table import TableState


@dataclass(frozen=True)
class TableOpen:
    """An opener's table is announced: its id and the port it listens on."""

    table: bytes
    port: int
    bad = False

    @property
    def text(self) -> str:
        return f"table {self.table.hex()} open"


@dataclass(frozen=True)
class SeatTaken:
    """Somebody sat down at the table (the opener's lobby)."""

    name: str
    fingerprint: str
    bad = False

    @property
    def text(self) -> str:
        return f"{printable(self.name)} [{self.fingerprint}] sat down"


@dataclass(frozen=True)
class SeatFreed:
    """Somebody who sat down got up again before the table started."""

    name: str
    fingerprint: str
    bad = False

    @property
    def text(self) -> str:
        return f"{printable(self.name)} [{self.fingerprint}] left before the game started"


@dataclass(frozen=True)
class Seating:
    """How full the table is, as a joiner hears it from the opener."""

    seated: int
    total: int
    bad = False

    @property
    def text(self) -> str:
        return f"waiting for players: {self.seated}/{self.total} seated"


@dataclass(frozen=True)
class RecordStored:
    """A record took its place in our chain: the table before and after it."""

    before: TableState[Any]
    signed: SignedRecord
    after: TableState[Any]


@dataclass(frozen=True)
class Cheated:
    """A seat was caught: a record the engine refused (``fraud``), or two records it signed for
    one place (``equivocation``); ``what`` names the seat and the record."""

    kind: str
    what: str
    bad = True

    @property
    def text(self) -> str:
        return f"a seat cheated ({self.kind}): {printable(self.what)}"


@dataclass(frozen=True)
class Talk:
    """A line of table talk, verified (``p2p.chat.ChatLine``, already printable)."""

    line: Any
    bad = False

    @property
    def text(self) -> str:
        return str(self.line.describe())


@dataclass(frozen=True)
class Muted:
    """A speaker's line was dropped: over its rate, or while the game's talk is off."""

    seat: int
    why: str
    bad = False

    @property
    def text(self) -> str:
        return f"seat {self.seat} {printable(self.why)}"


@dataclass(frozen=True)
class LinkClosed:
    """We closed a link whose peer sent what does not check (a spectator's seat, above all)."""

    who: str
    reason: str
    bad = True

    @property
    def text(self) -> str:
        return (f"{printable(self.who)} sent what does not check ({printable(self.reason)}); "
                f"its link is closed")


@dataclass(frozen=True)
class Linked:
    """A link came up (a seat, or a spectator); ``link`` is the session's."""

    link: Any


@dataclass(frozen=True)
class Stuck:
    """Our seat cannot build its next record from what the others sent."""

    error: str
    bad = True

    @property
    def text(self) -> str:
        return f"we cannot write our next record: {printable(self.error)}"


@dataclass(frozen=True)
class DeclaredAbsent:
    """Our own seat was declared absent, and what follows (``p2p.session.absent_text``)."""

    text: str
    bad = True


@dataclass(frozen=True)
class Alone:
    """Nobody has been linked for long: we stop unfinished (``p2p.session.alone_text``)."""

    text: str
    bad = True


@dataclass(frozen=True)
class Unconfirmed:
    """Our end rests on a claim whose accused never confirmed it: the game stays open here and
    ``spycraft resume`` on both sides makes the copies one (``p2p.session.unconfirmed_text``)."""

    text: str
    bad = True


@dataclass(frozen=True)
class Waiting:
    """A seatless host, after the result, waits for a claim's accused and says why."""

    text: str
    bad = False


Event = (TableOpen | SeatTaken | SeatFreed | Seating | RecordStored | Cheated | Talk | Muted
         | LinkClosed | Linked | Stuck | DeclaredAbsent | Alone | Unconfirmed | Waiting)
Events = Callable[[Event], None]
"""What a shell calls with each event (the command line's face, a test, a benchmark)."""


def ignore(event: Event) -> None:
    """The events of a table nobody watches."""

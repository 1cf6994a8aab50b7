"""Table talk between peers, sans-IO: what a peer accepts, keeps, shows and passes on.

Theory of operation
-------------------
* **Beside the game.** A chat message (``crypto.chat``) is signed by its speaker's identity key
  and tied to the last seq the speaker held; it never enters the transcript or the engines, so
  it changes no state and waits for no turn. ``PeerProtocol`` owns one ``ChatBook`` and turns
  its verdicts into frames, stores and notices (``p2p.protocol``).
* **Gossip.** A speaker sends its message to every link; every seat that accepts a message
  passes it on to every link but the one it came from. So a seat cannot show different seats
  different words for long: two different messages with one speaker and one counter meet
  somewhere, and each peer that holds both keeps both (the audit shows them as an equivocation
  of chat) and passes the second on, so everyone learns of it. Observers receive every message
  and send none.
* **Order.** A speaker's messages are kept by the one order rule the audit checks
  (``crypto.chat.ChatOrder``): rising counters, a ``seen`` that never goes back, an
  equivocation kept as such. A message older than the last one held from its speaker came late
  by another path and is dropped; one whose ``seen`` goes back (its speaker lies about the
  story) is dropped with a notice, so an honest peer's own chat file always audits. Our own
  next message is numbered after our last one and tied to the later of our head and its
  record, whether that message is kept or still waits (after a rollback the head can go back:
  two lines said then never share a counter). A message tied to a seq we do not hold yet waits
  (``PENDING`` at most, ``PENDING_PER_SPEAKER`` of one speaker, so lines tied far ahead crowd
  out nobody else's) until we hold it, and a rollback below a kept message's record makes it
  wait again (``roll_back``: the chat file is rewritten without it; taken again, it pays no
  bucket twice): a stored chat line is always tied to a record of the stored transcript. At
  the end of the game what still waits is dropped with a notice.
* **When.** Each game declares when its table may talk (``GameDefinition.talk``: always,
  never, or only in the lobby and after the result, as SpyNet's rules §11 want: partners must
  not talk while the game runs). A message is judged by the record it is tied to (``seen``),
  so every peer judges it alike: one said while talk is off is checked (its speaker is proven),
  then dropped and counted against its speaker (``dropped``): never kept, shown, stored or
  passed on, and it closes nothing (a relay may only carry what it got). The first drop of a
  speaker is told once (a ``Muted`` verdict); our own client refuses to sign such a line.
* **Limits.** Every text is 1 to 280 printable characters (``crypto.chat``). Each speaker has a
  token bucket (``SPEAKER_BURST`` messages, refilled at ``SPEAKER_RATE`` a second), kept by every
  receiver: a message over it is dropped, with one notice until the speaker's messages fit
  again; it is a fact about the speaker's pace, never blame. A person's own client holds them to
  the same bucket before it signs. Frames are paid per link before any signature is checked
  (``LINK_BURST``, ``LINK_RATE``: a relay carries everyone's words); a message that does not
  verify closes the link it came by, as a forged record does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spycraft.crypto.chat import (
    ChatError,
    ChatMessage,
    ChatOrder,
    SignedChat,
    check_chat,
    parse_chat,
    sign_chat,
    text_fault,
)
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import Genesis
from spycraft.crypto.text import clean_line, printable
from spycraft.engines import registry
from spycraft.p2p.bucket import Bucket

SPEAKER_BURST = 8.0
"""Messages a speaker may send at once."""
SPEAKER_RATE = 0.5
"""Messages a second a speaker's bucket refills (one every two seconds, once the burst is
spent)."""
LINK_BURST = 64.0
LINK_RATE = 16.0
"""Chat frames a link may send at once, and a second: the relays of a full table's talk fit."""
PENDING = 256
"""Messages tied to a seq we do not hold yet, kept at most."""
PENDING_PER_SPEAKER = 16
"""The same, of one speaker (a speaker that ties lines to records far ahead, which never come,
fills its own share only: red18)."""


class ChatRefused(Exception):
    """Why our own line cannot be said now (in one line for the person)."""


@dataclass(frozen=True)
class ChatLine:
    """One verified chat line, ready to show: ``name`` and ``text`` are safe on a terminal."""

    seat: int
    name: str
    counter: int
    seen: int
    text: str
    equivocation: bool  # a second, different message with this speaker's counter

    def describe(self) -> str:
        said = f"{self.name} (seat {self.seat}): {self.text}"
        if self.equivocation:
            return f"{said}  !! chat equivocation: seat {self.seat} also said otherwise " \
                   f"as its message {self.counter}"
        return said


@dataclass(frozen=True)
class Heard:
    """A message to keep (store, show, pass on)."""

    signed: SignedChat
    line: ChatLine


@dataclass(frozen=True)
class Muted:
    """A speaker's messages go over its bucket: this one (and the next, silently) is dropped."""

    seat: int
    why: str


ChatVerdict = Heard | Muted


def talk_rule(game: str) -> tuple[str, str]:
    """A game's talk policy (``registry.TALKS``) and its title (an unknown game talks freely:
    no table of it can run)."""
    try:
        definition = registry.load(game)
    except KeyError:
        return registry.TALK_ALWAYS, game
    return definition.talk, definition.title


def talk_off_reason(game: str) -> str:
    """Why a line cannot be said now in ``game``, in the person's words."""
    talk, title = talk_rule(game)
    if talk == registry.TALK_NEVER:
        return f"table talk is off in this game: {title} has no table talk"
    return (f"table talk is off in this game while it runs: {title}'s rules allow no word "
            f"between players until the result")


class ChatBook:
    """Every chat line of one table as one peer holds it, and the rules for taking more.

    ``finished(seq)`` says whether the table held its result at record ``seq`` (the protocol
    knows; only a game that talks after the result asks)."""

    def __init__(
        self,
        genesis: Genesis,
        *,
        seat: int | None,
        identity: Identity | None,
        stored: tuple[SignedChat, ...] = (),
        now: float = 0.0,
        finished: Callable[[int], bool] = lambda seq: False,
        head: int | None = None,
    ) -> None:
        self.genesis = genesis
        self.seat = seat
        self.identity = identity
        self.talk, self.title = talk_rule(genesis.game)
        self.finished = finished
        self.dropped: dict[int, int] = {}  # speaker -> lines it said while talk was off
        self._dropped_last: dict[int, int] = {}  # speaker -> the highest counter dropped
        self.lines: list[ChatLine] = []
        self.order = ChatOrder()
        self.buckets: dict[int, Bucket] = {}
        self.muted: set[int] = set()
        self.pending: list[SignedChat] = []
        self.history: list[bytes] = []  # every message kept, in order (for a new spectator)
        self.kept: list[SignedChat] = []  # the same messages, read
        self._readmit: set[bytes] = set()  # kept once, waiting again after a rollback
        for signed in stored:  # what we kept before a restart (checked again all the same)
            try:
                check_chat(signed, genesis)
            except ChatError:
                continue
            if not self.open_at(signed.seen):
                continue  # never kept by a peer that keeps the rule: not ours to show
            if head is not None and signed.seen > head:  # a rollback the file had not caught up
                self._wait_again(signed)
            elif self.order.fault(signed) is None:
                self._keep(signed)

    # --- when the table may talk -------------------------------------------------------------

    def open_at(self, seen: int) -> bool:
        """Whether the game allows talk tied to record ``seen``."""
        if self.talk == registry.TALK_ALWAYS:
            return True
        return self.talk == registry.TALK_AFTER and self.finished(seen)

    def off_reason(self) -> str:
        return talk_off_reason(self.genesis.game)

    # --- our own words ------------------------------------------------------------------------

    def compose(self, text: str, seen: int, now: float) -> SignedChat:
        """Our next message (not yet kept: ``offer`` it like anyone's). ``ChatRefused``
        says why not: an observer, talk off in this game now, an empty or long line, or too
        fast."""
        if self.seat is None or self.identity is None:
            raise ChatRefused("only seated players talk at the table")
        if not self.open_at(seen):
            raise ChatRefused(self.off_reason())
        line = clean_line(text)
        fault = text_fault(line)
        if fault is not None:
            raise ChatRefused(fault)
        if self._bucket(self.seat, now).tokens < 1:
            raise ChatRefused("you are talking too fast: wait a moment")
        # After our last line, kept or still waiting for its record (after a rollback): one
        # counter is never used twice, and seen never goes back.
        ours = [p for p in self.pending if p.seat == self.seat]
        last = self.order.highest(self.seat)
        before = ours + ([] if last is None else [last])
        counter = 1 + max((p.counter for p in before), default=0)
        seen = max([seen, *(p.seen for p in before)])
        message = ChatMessage(self.genesis.table, self.seat, counter, seen, line)
        return sign_chat(message, self.identity)

    # --- anyone's words -----------------------------------------------------------------------

    def offer(self, raw: bytes, head: int, now: float) -> list[ChatVerdict]:
        """A message from a link (or our own): verified first (``ChatError`` if it does not
        check: the caller closes that link), then kept, held back or dropped."""
        signed = parse_chat(raw)
        check_chat(signed, self.genesis)
        if signed.seen > head:
            mine = sum(1 for p in self.pending if p.seat == signed.seat)
            if (len(self.pending) < PENDING and mine < PENDING_PER_SPEAKER
                    and all(p.raw != raw for p in self.pending)):
                self.pending.append(signed)
            return []
        return self._take(signed, now)

    def advance(self, head: int, now: float) -> list[ChatVerdict]:
        """We hold records up to ``head`` now: the messages tied to them may be taken."""
        ready = [p for p in self.pending if p.seen <= head]
        if not ready:
            return []
        self.pending = [p for p in self.pending if p.seen > head]
        out: list[ChatVerdict] = []
        for signed in sorted(ready, key=lambda s: (s.seat, s.counter)):
            out += self._take(signed, now)
        return out

    def roll_back(self, head: int) -> tuple[bytes, ...] | None:
        """The table rolled back to ``head``: the messages kept that are tied past it wait for
        their record again (as if they had just come; no bucket is paid twice), and what is
        still kept is returned, for the chat file to be rewritten (None: nothing moved). So a
        stored chat line is always tied to a record of the stored transcript."""
        if all(signed.seen <= head for signed in self.kept):
            return None
        kept = [signed for signed in self.kept if signed.seen <= head]
        moved = [signed for signed in self.kept if signed.seen > head]
        self.order, self.lines, self.history, self.kept = ChatOrder(), [], [], []
        for signed in kept:
            self._keep(signed)
        for signed in moved:
            self._wait_again(signed)
        return tuple(self.history)

    def _wait_again(self, signed: SignedChat) -> None:
        self._readmit.add(signed.raw)
        if all(p.raw != signed.raw for p in self.pending):
            self.pending.append(signed)

    def abandon_pending(self) -> list[ChatVerdict]:
        """The game is over: messages tied to records that never came are dropped."""
        dropped, self.pending = self.pending, []
        self._readmit.clear()
        return [Muted(p.seat, f"its message {p.counter} is tied to record {p.seen}, which "
                               f"the table never wrote") for p in dropped]

    def _take(self, signed: SignedChat, now: float) -> list[ChatVerdict]:
        if not self.open_at(signed.seen):
            return self._drop(signed)
        variants = self.order.variants.get((signed.seat, signed.counter), [])
        fault = self.order.fault(signed)
        if fault is not None:
            last = self.order.highest(signed.seat)
            if variants or last is None or signed.counter < last.counter:
                return []  # a copy by another path, or late after a newer one of this speaker
            if signed.seat in self.muted:  # one notice until its lines are kept again
                return []
            self.muted.add(signed.seat)
            return [Muted(signed.seat, f"its message {signed.counter} is dropped: {fault}")]
        if variants:
            return [Heard(signed, self._keep(signed))]  # an equivocation: no bucket can stop it
        if signed.raw in self._readmit:  # it paid when it was first kept
            self._readmit.discard(signed.raw)
        elif not self._bucket(signed.seat, now).take(now):
            if signed.seat in self.muted:
                return []
            self.muted.add(signed.seat)
            return [Muted(signed.seat, "talks faster than every peer shows: some of its "
                                       "lines are dropped")]
        self.muted.discard(signed.seat)
        return [Heard(signed, self._keep(signed))]

    def _drop(self, signed: SignedChat) -> list[ChatVerdict]:
        """A verified line said while talk is off: counted once (a copy by another path, or
        one older than the last dropped, is not counted again), told at the first."""
        if signed.counter <= self._dropped_last.get(signed.seat, 0):
            return []
        self._dropped_last[signed.seat] = signed.counter
        count = self.dropped[signed.seat] = self.dropped.get(signed.seat, 0) + 1
        if count > 1:
            return []
        until = " until the result" if self.talk == registry.TALK_AFTER else ""
        return [Muted(signed.seat, f"spoke while table talk is off ({self.title} allows none"
                                   f"{until}): its lines are dropped unread and counted")]

    def dropped_lines(self) -> str:
        """The talk dropped because it came while talk was off, in one line ("" for none)."""
        if not self.dropped:
            return ""
        said = ", ".join(f"seat {seat} {count} line{'s' * (count != 1)}"
                         for seat, count in sorted(self.dropped.items()))
        return f"table talk said while it was off, dropped unread: {said}"

    def _keep(self, signed: SignedChat) -> ChatLine:
        equivocation = self.order.keep(signed)
        self.history.append(signed.raw)
        self.kept.append(signed)
        name = self.genesis.seats[signed.seat].name if signed.seat < len(self.genesis.seats) \
            else "?"
        line = ChatLine(signed.seat, printable(name), signed.counter, signed.seen,
                        printable(signed.text), equivocation=equivocation)
        self.lines.append(line)
        return line

    def _bucket(self, seat: int, now: float) -> Bucket:
        bucket = self.buckets.get(seat)
        if bucket is None:
            bucket = self.buckets[seat] = Bucket.full(SPEAKER_BURST, SPEAKER_RATE, now)
        bucket.refill(now)
        return bucket

__all__ = [
    "LINK_BURST",
    "LINK_RATE",
    "SPEAKER_BURST",
    "SPEAKER_RATE",
    "ChatBook",
    "ChatError",
    "ChatLine",
    "ChatRefused",
    "ChatVerdict",
    "Heard",
    "Muted",
    "talk_off_reason",
    "talk_rule",
]

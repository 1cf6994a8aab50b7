"""Who may link to a peer in play, and when a lost link is dialed again: the session's door
rules, sans-IO.

As ``p2p.protocol`` decides what a frame means, this decides who gets a link and when; the
trio shell (``p2p.session``) asks it and carries out the answer (a goodbye at the handshake, a
dial after a delay). It reads no clock and touches no socket: every time comes in as ``now``,
so each rule is tested without them (``tests/p2p/test_admission.py``).

Theory of operation
-------------------
* **Who comes in** (``admit``, once the handshake has proven the peer's identity): a seat of
  the roster, or an observer named at the start (a seatless host), always, unless it is waiting
  out a backoff; a peer whose second connection is being settled (``settling``: the session
  holds it while it probes the live link) is told so (``ALREADY_CONNECTING``, the one refusal
  an honest peer meets, so the one the door does not count against its address). Any other
  identity is a spectator: a seatless peer admits none (watch through a seat); a seat admits a
  spectator it already links (a reconnection, settled like a seat's), and new ones while fewer
  than ``watchers`` watch through it and fewer than ``WATCHERS_PER_ADDRESS`` of them from the
  newcomer's address (the table's named observers are members, not spectators: they take no
  slot). A spectator's identity costs nothing to make, so without the per-address bound one
  stranger could hold every slot of every seat with silent links and shut ``spycraft watch``
  out; with it, taking the slots takes as many addresses. A newcomer let in holds its slot
  from then on (``reserve``) until its handshake ends, adopted as a link or not (``release``):
  the question is asked at the first hello, and the handshakes of one stranger in flight at
  once all passed it while only linked spectators were counted (red team 8: sixteen at once
  from one address, past both bounds). A handshake that held a slot and failed (no auth
  within ``handshake.AUTH_TIMEOUT``, a bad frame) costs its address every new slot for
  ``SLOT_BACKOFF`` seconds (red team 9: four addresses that stalled after their hellos and
  came back held every slot, for one refusal each per ten seconds).
* **Offences and backoff** (``after_losing``): a link lost by chance is dialed again after
  ``REDIAL_AFTER``. A seat cut off for what it sent (garbage at the wire, or a frame the
  protocol refused) pays from a bucket of offences (``OFFENCE_BURST``, refilled at
  ``OFFENCE_RATE``): while it holds some, it is let back in at once and dialed after
  ``REDIAL_AFTER_BYE``; once they are spent it waits a backoff that doubles each time (up to
  ``BACKOFF_MAX``), refused at the door and not dialed (``dial_not_before``) until then. A link
  that lived ``FORGIVE_AFTER`` clears the doubling. So what a seat's refused frames cost us is
  bounded per second, and an honest seat whose frame was a relay's is never cut off for long. A
  spectator's identity costs nothing: its address pays, at the session's ``handshake.Door``.
* **Redial** (``redial_delay``): either seat of a lost link dials the other back, the lower
  one ``LOWER_SEAT_DELAY`` later, so they seldom cross; an observer, whom no seat dials, dials
  every seat it loses.
* **Two live links with one peer** (``keep_new``): both ends keep the same one, the link the
  lower seat dialed; with one dialer (observers always dial), the older.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spycraft.p2p.bucket import Bucket

ALREADY_CONNECTING = "already connecting (another connection of yours is being settled)"
"""The one refusal at our door that an honest peer meets (its two connections crossing), so the
one that does not count against its address."""
WATCHERS_PER_ADDRESS = 2
"""Spectators a seat admits at once from one address (a person may watch in two terminals)."""
SLOT_BACKOFF = 30.0
"""Seconds an address whose handshake failed while it held a spectator's slot gets no new one."""
REDIAL_AFTER = 1.0
REDIAL_AFTER_BYE = 3.0
"""Seconds before we dial a seat again after losing its link, and after we cut it off."""
LOWER_SEAT_DELAY = 1.5
"""The lower seat of a lost link dials back this much later than the higher one, so the two
seldom dial at once (if they do, both keep the link the lower seat dialed)."""
OFFENCE_BURST = 8.0
OFFENCE_RATE = 0.1
"""Times a seat may be cut off for what it sent and come straight back, at once and a second."""
BACKOFF_MAX = 60.0
"""A seat cut off for what it sent again and again waits at most this long to be let back in."""
FORGIVE_AFTER = 60.0
"""A link that lives this long without an offence clears its peer's backoff."""


@dataclass
class Offences:
    """A seat's offences: its bucket, how often its wait doubled, and until when it waits."""

    bucket: Bucket
    doubled: int = 0
    until: float = 0.0


class Admission:
    """The door rules of one peer in play (see the module's docstring)."""

    def __init__(self, roster: Sequence[bytes], seat: int | None, *,
                 observers: frozenset[bytes] = frozenset(), watchers: int = 8) -> None:
        self.roster = tuple(roster)  # each seat's identity key
        self.seat = seat  # ours, or None for an observer
        self.observers = observers
        self.watchers = watchers
        self.settling: set[bytes] = set()  # identities with a second connection on hold
        self.offences: dict[bytes, Offences] = {}
        self.reserved: dict[int, str] = {}  # a spectator's handshake in flight -> its address
        self.slot_backoff: dict[str, float] = {}  # address -> until when it gets no new slot
        self._tickets = 0

    def seat_of(self, identity: bytes) -> int | None:
        for index, key in enumerate(self.roster):
            if key == identity:
                return index
        return None

    def admit(self, identity: bytes, address: str, now: float,
              spectators: Mapping[bytes, str]) -> str | None:
        """Why the peer of ``identity`` at ``address`` may not link now, or None to let it in
        (``spectators``: the identities we link as spectators now, and their addresses; the
        slots ``reserve``d for handshakes in flight count too)."""
        offences = self.offences.get(identity)
        if offences is not None and offences.until > now:
            return f"cut off for what it sent: try again in {offences.until - now:.0f} s"
        if identity in self.settling:
            return ALREADY_CONNECTING
        if self.seat_of(identity) is not None or identity in self.observers:
            return None
        if self.seat is None:
            return "not seated at this table (watch through a seat)"
        if identity in spectators:
            return None  # a spectator that connects again: settled like a seat
        until = self.slot_backoff.get(address, 0.0)
        if until > now:
            return (f"a handshake of yours failed while it held a spectator's place: try again "
                    f"in {until - now:.0f} s")
        addresses = [*spectators.values(), *self.reserved.values()]
        if len(addresses) >= self.watchers:
            return "no room for more spectators here (watch through another seat)"
        if addresses.count(address) >= WATCHERS_PER_ADDRESS:
            return "no room for more spectators from your address here"
        return None

    def reserve(self, identity: bytes, address: str,
                spectators: Mapping[bytes, str]) -> int | None:
        """Hold a slot for a newcomer spectator that ``admit`` let in, until ``release``: a
        ticket, or None for a peer that needs none (a seat, an observer, a spectator linked)."""
        if self.seat_of(identity) is not None or identity in self.observers or \
                identity in spectators:
            return None
        self._tickets += 1
        self.reserved[self._tickets] = address
        return self._tickets

    def release(self, ticket: int, *, failed: bool, now: float) -> None:
        """The handshake that held ``ticket`` ended: its peer is linked (and counted as such)
        or gone; ``failed``: it broke off or sent what it must not, and its address waits
        ``SLOT_BACKOFF`` for a new slot."""
        address = self.reserved.pop(ticket, None)
        if failed and address is not None:
            if len(self.slot_backoff) >= 1024:  # forget the addresses whose wait is over
                self.slot_backoff = {a: t for a, t in self.slot_backoff.items() if t > now}
            self.slot_backoff[address] = now + SLOT_BACKOFF

    def after_losing(self, identity: bytes, seat: int | None, *, lived: float,
                     offence: str | None, now: float) -> float:
        """Seconds until we dial the seat of a lost link again and let it back in (``lived``:
        how long the link lived; ``offence``: what it sent that we cut it off for, if so)."""
        if seat is None:
            return REDIAL_AFTER  # an observer's identity costs nothing: its address pays
        record = self.offences.get(identity)
        if record is None:
            record = self.offences[identity] = Offences(
                Bucket.full(OFFENCE_BURST, OFFENCE_RATE, now))
        if lived >= FORGIVE_AFTER:
            record.doubled = 0
        if offence is None:
            return REDIAL_AFTER
        if record.bucket.take(now):
            return REDIAL_AFTER_BYE
        record.doubled += 1
        wait = min(REDIAL_AFTER_BYE * 2.0 ** (record.doubled - 1), BACKOFF_MAX)
        record.until = now + wait
        return wait

    def dial_not_before(self, identity: bytes) -> float:
        """The time before which we do not dial ``identity``'s seat (its backoff's end)."""
        record = self.offences.get(identity)
        return record.until if record is not None else 0.0

    def redial_delay(self, seat: int, after: float) -> float:
        """When to dial a lost link's ``seat`` back: ``after``, the lower seat later."""
        if self.seat is not None and self.seat < seat:
            return after + LOWER_SEAT_DELAY
        return after

    def keep_new(self, old_seat: int | None, old_dialed: bool, dialed: bool) -> bool:
        """Of two live links with one peer, whether the new one is the one both ends keep."""
        if old_seat is None or self.seat is None or old_dialed == dialed:
            return False  # one side dialed both (observers always dial): keep the older
        new_dialer = self.seat if dialed else old_seat
        return new_dialer == min(self.seat, old_seat)

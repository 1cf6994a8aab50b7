"""The lobby's rules, sans-IO: who sits where, the roster, and the genesis every seat signs.

As ``p2p.protocol`` sits under ``p2p.session``, the two machines here sit under the trio shell
of ``p2p.lobby``: the opener's (``Opener``) and a joiner's (``Joiner``). Frames, links that come
and go, and clock ticks go in; what to send, whom to hang up on, what to tell a person and how
the table ends (``Signed`` or ``Failed``) come out as a list of actions. Neither touches a socket,
a clock or a file, so every rule below is tested without them (``tests/p2p/test_seating.py``);
the shell only runs the handshake (``p2p.handshake``), moves frames and time, and writes the
signed genesis to disk.

Theory of operation
-------------------
* **Links.** The shell hands a machine only links that passed the handshake, so every frame
  comes with the identity that proved itself on it (its ``Hello``). The opener numbers its links;
  a joiner has one, to the opener (``OPENER``). The shell reads a frame from a link only while
  ``reading`` says so: once a seat has signed, the next frame on its link is the session's.
* **Seating (the opener).** A hello is refused at the door (``refusal``) when the table is full
  or its identity already has a seat (the opener's, when it plays). After the handshake a link
  has ``JOIN_TIMEOUT`` seconds to send its ``join``: where it listens for the mesh and its
  identity's signature over that address for this table (``sign_address``); a join that another
  identity signed (another peer's join, replayed) or that no roster could carry is refused, and
  so is an identity seated meanwhile over another link. Seats go in the order joins arrive. A
  seated joiner says nothing until the roster: any frame from it, or its link going down, means
  it got up, and its seat is free again. Every change of the seats is sent to every seated
  joiner (``lobby``) and to the announcement (``Announce``).
* **The roster.** When the seats are full, the machine fixes the roster and the genesis, closes
  the links still knocking (``table full``) and says ``Full``; the shell closes its door, calls
  ``withdrawn`` and withdraws the announcement meanwhile. ``withdrawn`` sends each joiner, in
  seat order, the roster and the signatures so far (the opener's own, when it plays). From
  then on a frame from a seat that has not signed is its genesis signature or the end of the
  table: a goodbye, anything but a valid signature for its own seat, a link that breaks, or
  ``SIGNATURE_TIMEOUT`` seconds of silence stop the table, naming the seat (``Failed``).
  Each valid signature is relayed to every other joiner; a frame that cannot be delivered stops
  the table too (``Send.lost``). When every seat has signed, the genesis is assembled and
  verified (``Signed``).
* **Joining (a joiner).** The opener must be the identity the announcement names (its
  fingerprint, the key people read aloud); then the joiner sends its join, tells the seat count
  of each ``lobby`` frame, and takes the roster only if it matches the announcement (game and
  options), is full, uses our beacon length, has a playable turn timeout, seats us exactly once
  as we asked, and gives every seat an address that seat signed itself (where a seat listens is
  its own word, never the opener's: an opener that could name the others' addresses could be
  the only path between two honest seats). It then builds the same genesis, signs it and
  collects every other seat's signature, each checked; ``SIGNATURE_WAIT`` seconds without a
  frame stop it. A goodbye from the opener at any time ends the join with its reason.
* **Watching (a spectator).** The first frame a seat sends a spectator must be the table's
  genesis, signed by every seat, for the table and game the announcement names, with a seat
  for the identity that answered (``watched``).
* **The mesh, early.** A joiner that took the roster says so (``Mesh``): while the genesis is
  signed, its shell dials the seats before it (each at the address that seat signed) and lets
  in the seats after it (by the identities of the roster, each proven by the handshake), so the
  links are up when play starts. Links are bound to the table by the handshake, and none is
  trusted with more than after the genesis; a table that does not start closes them.
* **What comes out** is also what the session needs: the roster, our seat, the observers (a
  host that does not play is one) and the seats a joiner dials for the full mesh (every seat
  before it, but the opener's, whose link it holds), where the early mesh did not link them.
"""

from __future__ import annotations

import enum
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.encoding import decode, encode
from spycraft.crypto.errors import BadKey, EncodingError, SpycraftError
from spycraft.crypto.identity import Identity, fingerprint, verify_signature
from spycraft.crypto.keys import check_identity_key, check_table_key
from spycraft.crypto.records import (
    MAX_TURN_TIMEOUT_MS,
    Genesis,
    SeatKeys,
    SignedGenesis,
    assemble_genesis,
    genesis_signature,
    genesis_signature_valid,
    parse_genesis,
    verify_genesis,
)
from spycraft.engines.seat import BEACON_LENGTH, seat_keys
from spycraft.p2p.discovery import options_digest
from spycraft.p2p.wire import Frame, FrameError, GsigFrame, Hello, RosterFrame

LinkId = int
OPENER: LinkId = 0
"""A joiner's one link."""

JOIN_TIMEOUT = 10.0
"""Seconds a peer that passed the handshake has to send its join."""
SIGNATURE_TIMEOUT = 60.0
"""Seconds the opener waits for each seat's genesis signature once the roster is out."""
SIGNATURE_WAIT = 90.0
"""Seconds a joiner that signed waits for the next frame before it gives up."""
MIN_TURN_TIMEOUT_MS = 1000
"""A joiner refuses a table whose turn timeout is shorter (nobody could answer in time)."""

ADDRESS_DOMAIN = b"spycraft/address/v1\x00"
MAX_HOST_CHARS = 64


# --- a seat's address, in its own word --------------------------------------------------------


def address_message(table: bytes, identity: bytes, host: str, port: int) -> bytes:
    """What a seat signs to say where it listens at ``table`` (``sign_address``)."""
    return ADDRESS_DOMAIN + encode(
        {"table": table, "identity": identity, "host": host, "port": port}
    )


def sign_address(identity: Identity, table: bytes, host: str, port: int) -> bytes:
    """A seat's own word for where it listens at ``table``: its identity's signature, which an
    opener carries in the roster and cannot change (issue 18, red18: a roster's addresses were
    the opener's word alone, so it could be the only path between two honest seats)."""
    return identity.sign(address_message(table, identity.public, host, port))


@dataclass(frozen=True)
class RosterSeat:
    """A seat as the lobby fixed it: its keys and where it listens (``sig``: its signature over
    that address, ``sign_address``; empty where the address is our own file's)."""

    name: str
    identity: bytes
    table_key: bytes
    beacon: bytes
    host: str
    port: int
    sig: bytes = b""

    def address_signed(self, table: bytes) -> bool:
        """Whether the seat itself signed this address for ``table``."""
        message = address_message(table, self.identity, self.host, self.port)
        return len(self.sig) == 64 and verify_signature(self.identity, self.sig, message)

    def to_bytes(self) -> bytes:
        return encode(
            {
                "name": self.name,
                "identity": self.identity,
                "table_key": self.table_key,
                "beacon": self.beacon,
                "host": self.host,
                "port": self.port,
                "sig": self.sig,
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> RosterSeat:
        m = decode(data)
        fields = {"name": str, "identity": bytes, "table_key": bytes, "beacon": bytes, "host": str,
                  "port": int, "sig": bytes}
        if not isinstance(m, dict) or set(m) != set(fields):
            raise FrameError(
                "roster seat must be a map of name, identity, table_key, beacon, host, port, sig"
            )
        for name, kind in fields.items():
            if not isinstance(m[name], kind) or isinstance(m[name], bool):
                raise FrameError(f"roster seat {name} must be {kind.__name__}")
        if not 0 < m["port"] < 65536 or len(m["beacon"]) != 32 or not 0 < len(m["name"]) <= 64:
            raise FrameError("roster seat has a bad port, beacon or name")
        if not 0 < len(m["host"]) <= MAX_HOST_CHARS or len(m["sig"]) != 64:
            raise FrameError("roster seat has a bad host or address signature")
        try:  # where a seat listens is an address, never a name to look up (red team 3 r4: a
            ipaddress.ip_address(m["host"])  # signed "x..y" crashed every joiner that dialed it)
        except ValueError:
            raise FrameError(f"roster seat host {m['host']!r} is not an IP address") from None
        try:
            check_identity_key(m["identity"])
            check_table_key(m["table_key"])
        except BadKey as exc:
            raise FrameError(f"roster seat {m['name']!r}: {exc}") from None
        return cls(m["name"], m["identity"], m["table_key"], m["beacon"], m["host"], m["port"],
                   m["sig"])

    def keys(self) -> SeatKeys:
        return SeatKeys(self.name, self.identity, self.table_key, self.beacon)

    def to_cbor(self) -> dict[str, Any]:
        return {"identity": self.identity, "host": self.host, "port": self.port, "name": self.name}


def build_genesis(
    table: bytes, game: str, options: Mapping[str, Any], roster: list[RosterSeat],
    turn_timeout_ms: int,
) -> Genesis:
    return Genesis(
        protocol=PROTOCOL_VERSION,
        table=table,
        game=game,
        options=options,
        seats=tuple(r.keys() for r in roster),
        beacon_length=BEACON_LENGTH,
        turn_timeout_ms=turn_timeout_ms,
    )


# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    """Send ``frame`` on ``link``; if it cannot be delivered, the table stops with ``lost``
    (None: it does not matter, the link's reader will see it go)."""

    link: LinkId
    frame: Frame
    lost: str | None = None


@dataclass(frozen=True)
class Close:
    """Hang up on ``link``: say goodbye with ``bye`` first unless it is None, and log ``why``
    unless it is None."""

    link: LinkId
    bye: str | None = None
    why: str | None = None


@dataclass(frozen=True)
class Notice:
    """For the person at the table: ``joined`` and ``left`` (a ``Hello``), ``lobby`` (seated,
    total)."""

    kind: str
    data: Any


@dataclass(frozen=True)
class Announce:
    """The announcement's seats taken changed."""

    taken: int


@dataclass(frozen=True)
class Full:
    """The seats are full: withdraw the announcement, then call ``Opener.withdrawn``."""


@dataclass(frozen=True)
class Signed:
    """Every seat signed: the table starts. ``links``: the opener's links in seat order (the
    joiners'); ``dial``: the seats a joiner dials for the full mesh; ``observers``: identities
    that watch without a seat (a host that does not play)."""

    genesis: SignedGenesis
    roster: tuple[RosterSeat, ...]
    seat: int | None
    links: tuple[LinkId, ...] = ()
    dial: tuple[int, ...] = ()
    observers: frozenset[bytes] = frozenset()


@dataclass(frozen=True)
class Mesh:
    """A joiner took the roster: it may link to the other seats now, while the genesis is
    signed, so that play starts linked (issue 21: the links were made after the genesis, and
    the first records waited for them). ``dial``: the seats before ours (but the opener's, whose
    link we hold), with where each listens in its own word; ``accept``: the identities of the
    seats after ours, the only ones our listener lets in until the genesis is signed."""

    seat: int
    dial: tuple[tuple[int, RosterSeat], ...]
    accept: frozenset[bytes]


@dataclass(frozen=True)
class Failed:
    """The table does not start, and why (what ``spycraft play`` prints in one line)."""

    reason: str


Action = Send | Close | Notice | Announce | Full | Mesh | Signed | Failed


class Phase(enum.Enum):
    SEATING = "seating"  # the table is announced; seats fill and free up
    FULL = "full"  # the roster is fixed; the announcement is being withdrawn
    SIGNING = "signing"  # the roster is out; every seat's signature is awaited
    SIGNED = "signed"
    FAILED = "failed"


def _why(error: str) -> str:
    return error or "connection closed"


# --- the opener -------------------------------------------------------------------------------


@dataclass
class _Knock:
    """A link past the handshake that has not joined yet."""

    hello: Hello
    due: float


@dataclass
class _Joined:
    link: LinkId
    hello: Hello
    entry: RosterSeat


@dataclass
class Opener:
    """The lobby as the opener keeps it. ``seated``: the opener plays (seat 0), else it only
    hosts and watches. ``host``, ``port``: where it listens."""

    table: bytes
    game: str
    options: dict[str, Any]
    players: int
    identity: Identity
    name: str
    master: bytes
    seated: bool
    host: str
    port: int
    turn_timeout_ms: int
    phase: Phase = field(default=Phase.SEATING, init=False)
    _knocking: dict[LinkId, _Knock] = field(default_factory=dict, init=False, repr=False)
    _joined: list[_Joined] = field(default_factory=list, init=False, repr=False)
    _roster: list[RosterSeat] = field(default_factory=list, init=False, repr=False)
    _genesis: Genesis | None = field(default=None, init=False, repr=False)
    _sigs: dict[int, bytes] = field(default_factory=dict, init=False, repr=False)
    _due: float = field(default=0.0, init=False, repr=False)
    _early: list[tuple[LinkId, Frame]] = field(default_factory=list, init=False,
                                                         repr=False)

    @property
    def wanted(self) -> int:
        """How many joiners fill the table."""
        return self.players - (1 if self.seated else 0)

    @property
    def taken(self) -> int:
        return self.players - self.wanted + len(self._joined)

    @property
    def offset(self) -> int:
        """The seat of the first joiner."""
        return 1 if self.seated else 0

    @property
    def genesis(self) -> Genesis | None:
        """The genesis every seat signs, once the seats are full."""
        return self._genesis

    def broken(self) -> list[str]:
        """The invariants that do not hold now (none, ever: the tests check after each step)."""
        keys = [j.hello.identity_key for j in self._joined]
        if self.seated:
            keys.append(self.identity.public)
        links = [j.link for j in self._joined]
        fixed = self.phase is not Phase.SEATING
        problems = [
            "an identity seated twice" if len(set(keys)) != len(keys) else "",
            "a link seated twice" if len(set(links)) != len(links) else "",
            "a seated link still knocking" if set(links) & set(self._knocking) else "",
            "more joiners than seats" if len(self._joined) > self.wanted else "",
            "a fixed roster that is not full" if fixed and len(self._joined) != self.wanted
            else "",
            "links knocking at a full table" if fixed and self._knocking else "",
            "a genesis before the roster is fixed" if fixed != (self._genesis is not None)
            else "",
            "a signature of no seat" if any(not 0 <= seat < self.players for seat in self._sigs)
            else "",
            "signatures before the roster" if not fixed and self._sigs else "",
        ]
        return [problem for problem in problems if problem]

    def reading(self, link: LinkId) -> bool:
        """Whether the shell should read the next frame of ``link`` (False once its seat has
        signed: what follows is the session's)."""
        if self.phase in (Phase.SIGNED, Phase.FAILED):
            return False
        if link in self._knocking:
            return True
        seat = self._seat_of(link)
        return seat is not None and seat not in self._sigs

    def refusal(self, hello: Hello) -> str | None:
        """Why a hello is refused at the door, or None (the handshake goes on)."""
        if self.phase is not Phase.SEATING:
            return "table full"
        taken = {j.hello.identity_key for j in self._joined}
        if self.seated:
            taken.add(self.identity.public)
        return "already seated" if hello.identity_key in taken else None

    def admitted(self, link: LinkId, hello: Hello, now: float) -> list[Action]:
        """``link`` passed the handshake with ``hello``: its join is due."""
        if self.phase is not Phase.SEATING:
            return [Close(link, bye="table full")]
        self._knocking[link] = _Knock(hello, now + JOIN_TIMEOUT)
        return []

    def receive(self, link: LinkId, frame: Frame, now: float) -> list[Action]:
        knock = self._knocking.get(link)
        if knock is not None:
            return self._on_join(link, knock.hello, frame)
        seat = self._seat_of(link)
        if seat is None or self.phase in (Phase.SIGNED, Phase.FAILED):
            return []
        if self.phase is Phase.SEATING:
            return self._leave(link, f"sent a {frame['t']} frame in the lobby")
        if self.phase is Phase.FULL:  # judged once the roster is out, after it
            self._early.append((link, frame))
            return []
        return self._on_signature(seat, frame)

    def link_down(self, link: LinkId, error: str, now: float) -> list[Action]:
        """``link`` broke or closed (``error``: why, empty for a clean close)."""
        knock = self._knocking.pop(link, None)
        if knock is not None:
            return [Close(link, why=f"lobby refused a peer: {_why(error)}")]
        seat = self._seat_of(link)
        if seat is None or self.phase in (Phase.SIGNED, Phase.FAILED):
            return []
        if self.phase is Phase.SEATING:
            return self._leave(link, f"left the lobby: {_why(error)}")
        if self.phase is Phase.FULL:
            return self._fail(f"the link to seat {seat} broke before it had the roster: the "
                              f"table did not start")
        if seat in self._sigs:
            return []
        return self._fail(f"seat {seat} did not sign the genesis ({_why(error)}): "
                          f"the table did not start")

    def tick(self, now: float) -> list[Action]:
        actions: list[Action] = []
        for link, knock in list(self._knocking.items()):
            if now >= knock.due:
                del self._knocking[link]
                actions.append(Close(link, why=f"lobby refused a peer: no join in "
                                                   f"{JOIN_TIMEOUT:g} s"))
        if self.phase is Phase.SIGNING and now >= self._due:
            late = [j for j in self._joined if self._seat(j) not in self._sigs]
            if late:
                actions += self._fail(f"seat {self._seat(late[0])} did not sign the genesis "
                                      f"(no answer in {SIGNATURE_TIMEOUT:g} s): the table did "
                                      f"not start")
        return actions

    def withdrawn(self, now: float) -> list[Action]:
        """The door is closed and the announcement going: send the roster and the signatures so
        far (unless the table failed meanwhile: a link lost before its roster)."""
        if self.phase is not Phase.FULL:
            return []
        self.phase = Phase.SIGNING
        self._due = now + SIGNATURE_TIMEOUT
        roster: RosterFrame = {
            "t": "roster",
            "game": self.game,
            "options": encode(self.options),
            "total": self.players,
            "beacon_length": BEACON_LENGTH,
            "turn_timeout_ms": self.turn_timeout_ms,
            "seats": [r.to_bytes() for r in self._roster],
        }
        actions: list[Action] = []
        for j in self._joined:
            lost = (f"the link to seat {self._seat(j)} broke before it had the roster: the table "
                    f"did not start")
            actions.append(Send(j.link, roster, lost))
            actions += [Send(j.link, {"t": "gsig", "seat": seat, "sig": sig}, lost)
                        for seat, sig in self._sigs.items()]
        early, self._early = self._early, []
        for link, frame in early:
            actions += self.receive(link, frame, now)
        return actions

    # --- the rules ---

    def _seat_of(self, link: LinkId) -> int | None:
        for index, j in enumerate(self._joined):
            if j.link == link:
                return index + self.offset
        return None

    def _seat(self, joined: _Joined) -> int:
        return self._joined.index(joined) + self.offset

    def _on_join(self, link: LinkId, hello: Hello, frame: Frame) -> list[Action]:
        def refused(why: str) -> list[Action]:
            del self._knocking[link]
            return [Close(link, why=f"lobby refused a peer: {why}")]

        if frame["t"] == "bye":
            return refused(f"the table said goodbye: {frame['reason']}")
        if frame["t"] != "join":
            return refused(f"expected a join, got {frame['t']}")
        entry = RosterSeat(hello.name, hello.identity_key, hello.table_key, frame["beacon"],
                           frame["host"], frame["port"], frame["sig"])
        if not entry.address_signed(self.table):
            return refused("a join whose address its identity did not sign")
        try:  # a seat no roster can carry would make every joiner refuse the roster
            RosterSeat.from_bytes(entry.to_bytes())
        except FrameError as exc:
            return refused(f"a join no roster can carry: {exc}")
        late = self.refusal(hello)
        if late is not None:  # another link took the seat during the handshake
            del self._knocking[link]
            return [Close(link, bye=late)]
        del self._knocking[link]
        # Where it listens is its own word (signed), not the address it dialed us from.
        self._joined.append(_Joined(link, hello, entry))
        return [Notice("joined", hello), *self._seats_changed()]

    def _leave(self, link: LinkId, reason: str) -> list[Action]:
        joined = next(j for j in self._joined if j.link == link)
        self._joined.remove(joined)
        hello = joined.hello
        return [Close(link, why=f"{hello.name} [{hello.fingerprint}] {reason}"),
                Notice("left", hello), *self._seats_changed()]

    def _seats_changed(self) -> list[Action]:
        seats = ([self.identity.public] if self.seated else []) + [
            j.hello.identity_key for j in self._joined
        ]
        actions: list[Action] = [
            Send(j.link, {"t": "lobby", "seats": seats, "total": self.players})
            for j in self._joined
        ]
        if len(self._joined) < self.wanted:
            return [*actions, Announce(self.taken)]
        self.phase = Phase.FULL
        actions += [Close(link, bye="table full") for link in self._knocking]
        self._knocking.clear()
        mine = seat_keys(self.name, self.identity, self.master, BEACON_LENGTH)
        self._roster = (
            [RosterSeat(self.name, mine.identity, mine.table_key, mine.beacon, self.host,
                        self.port, sign_address(self.identity, self.table, self.host, self.port))]
            if self.seated
            else []
        ) + [j.entry for j in self._joined]
        self._genesis = build_genesis(self.table, self.game, self.options, self._roster,
                                      self.turn_timeout_ms)
        if self.seated:
            self._sigs[0] = genesis_signature(self._genesis, self.identity)
        return [*actions, Full()]

    def _on_signature(self, seat: int, frame: Frame) -> list[Action]:
        assert self._genesis is not None
        if frame["t"] == "bye":  # a joiner that got up: it is the one saying goodbye
            return self._fail(f"seat {seat} got up before the table started: {frame['reason']}")
        if (
            frame["t"] != "gsig"
            or frame["seat"] != seat
            or not genesis_signature_valid(self._genesis, seat, frame["sig"])
        ):
            return self._fail(f"seat {seat} sent no valid genesis signature")
        self._sigs[seat] = frame["sig"]
        relay: GsigFrame = {"t": "gsig", "seat": seat, "sig": frame["sig"]}
        actions: list[Action] = [
            Send(j.link, relay, f"the link to seat {self._seat(j)} broke before it had every "
                                f"genesis signature: the table did not start")
            for j in self._joined if self._seat(j) != seat
        ]
        if len(self._sigs) < self.players:
            return actions
        self.phase = Phase.SIGNED
        signed = assemble_genesis(self._genesis, tuple(self._sigs[i] for i in range(self.players)))
        observers = frozenset() if self.seated else frozenset({self.identity.public})
        return [*actions, Signed(signed, tuple(self._roster), 0 if self.seated else None,
                                 links=tuple(j.link for j in self._joined), observers=observers)]

    def _fail(self, reason: str) -> list[Action]:
        self.phase = Phase.FAILED
        return [Failed(reason)]


# --- a joiner ---------------------------------------------------------------------------------


@dataclass
class Joiner:
    """A seat asked for at an announced table: ``table``, ``game``, ``digest`` (of its options)
    and ``fingerprint`` (of its opener) as the announcement says; ``host``, ``port``: where we
    listen for the mesh."""

    table: bytes
    game: str
    digest: bytes
    fingerprint: str
    identity: Identity
    name: str
    master: bytes
    host: str
    port: int
    phase: Phase = field(default=Phase.SEATING, init=False)
    _opener: Hello | None = field(default=None, init=False, repr=False)
    _mine: SeatKeys | None = field(default=None, init=False, repr=False)
    _roster: list[RosterSeat] = field(default_factory=list, init=False, repr=False)
    _genesis: Genesis | None = field(default=None, init=False, repr=False)
    _seat: int = field(default=-1, init=False, repr=False)
    _sigs: dict[int, bytes] = field(default_factory=dict, init=False, repr=False)
    _due: float = field(default=0.0, init=False, repr=False)

    def reading(self) -> bool:
        return self.phase in (Phase.SEATING, Phase.SIGNING)

    def opened(self, opener: Hello) -> list[Action]:
        """The handshake with the opener is done: ask for a seat, if it is who the
        announcement says."""
        if fingerprint(opener.identity_key) != self.fingerprint:  # the key people read aloud
            return self._fail(f"the table is opened by {fingerprint(opener.identity_key)}, not "
                              f"by {self.fingerprint} as its announcement says")
        self._opener = opener
        self._mine = seat_keys(self.name, self.identity, self.master, BEACON_LENGTH)
        return [Send(OPENER, {"t": "join", "beacon": self._mine.beacon, "host": self.host,
                              "port": self.port,
                              "sig": sign_address(self.identity, self.table, self.host,
                                                  self.port)})]

    def receive(self, frame: Frame, now: float) -> list[Action]:
        if self.phase not in (Phase.SEATING, Phase.SIGNING) or self._opener is None:
            return []
        if frame["t"] == "bye":
            return self._fail(f"the table said goodbye: {frame['reason']}")
        if self.phase is Phase.SEATING:
            if frame["t"] == "lobby":
                return [Notice("lobby", (len(frame["seats"]), frame["total"]))]
            if frame["t"] == "roster":
                return self._on_roster(frame, now)
            return []
        self._due = now + SIGNATURE_WAIT
        if frame["t"] != "gsig" or not 0 <= frame["seat"] < len(self._roster):
            return []
        return self._on_signature(frame["seat"], frame["sig"])

    def tick(self, now: float) -> list[Action]:
        if self.phase is Phase.SIGNING and now >= self._due:
            return self._fail(f"joining failed: no word from the table in {SIGNATURE_WAIT:g} s")
        return []

    def _on_roster(self, frame: RosterFrame, now: float) -> list[Action]:
        assert self._mine is not None and self._opener is not None
        try:
            options = decode(frame["options"])
            if not isinstance(options, dict):
                return self._fail("roster options are not a map")
            roster = [RosterSeat.from_bytes(s) for s in frame["seats"]]
        except (FrameError, EncodingError) as exc:
            return self._fail(f"joining failed: {exc}")
        options = {k: v for k, v in options.items()}
        if frame["game"] != self.game or options_digest(self.game, options) != self.digest:
            return self._fail("the roster's game or options differ from the announcement")
        if len(roster) != frame["total"] or frame["beacon_length"] != BEACON_LENGTH:
            return self._fail("the roster is not full or uses another beacon length")
        timeout = frame["turn_timeout_ms"]
        if not MIN_TURN_TIMEOUT_MS <= timeout <= MAX_TURN_TIMEOUT_MS:
            return self._fail(f"the table's turn timeout of {timeout / 1000:g} s is not "
                              f"playable ({MIN_TURN_TIMEOUT_MS // 1000} s to "
                              f"{MAX_TURN_TIMEOUT_MS // 3_600_000} h)")
        mine = self._mine
        matches = [
            i for i, r in enumerate(roster)
            if (r.identity, r.table_key, r.beacon, r.host, r.port)
            == (mine.identity, mine.table_key, mine.beacon, self.host, self.port)
        ]
        if len(matches) != 1:
            return self._fail("the roster does not seat us as we asked")
        for i, r in enumerate(roster):  # where each seat listens is its own signed word
            if not r.address_signed(self.table):
                return self._fail(f"the roster gives seat {i} ({r.name}) an address it did not "
                                  f"sign ({r.host}:{r.port}): only the opener's word")
        self.phase = Phase.SIGNING
        self._due = now + SIGNATURE_WAIT
        self._roster, self._seat = roster, matches[0]
        self._genesis = build_genesis(self.table, self.game, options, roster, timeout)
        sig = genesis_signature(self._genesis, self.identity)
        self._sigs = {self._seat: sig}
        return [Send(OPENER, {"t": "gsig", "seat": self._seat, "sig": sig}),
                Mesh(self._seat, tuple((i, roster[i]) for i in self._mesh_dial()),
                     frozenset(r.identity for r in roster[self._seat + 1:])),
                *self._signed_if_all()]

    def _mesh_dial(self) -> tuple[int, ...]:
        """The seats a joiner dials for the full mesh: every seat before it but the opener's."""
        assert self._opener is not None
        opener = self._opener.identity_key
        return tuple(i for i in range(self._seat) if self._roster[i].identity != opener)

    def _on_signature(self, seat: int, sig: bytes) -> list[Action]:
        assert self._genesis is not None
        if not genesis_signature_valid(self._genesis, seat, sig):
            return self._fail(f"seat {seat}'s genesis signature does not verify")
        self._sigs[seat] = sig
        return self._signed_if_all()

    def _signed_if_all(self) -> list[Action]:
        assert self._genesis is not None and self._opener is not None
        if len(self._sigs) < len(self._roster):
            return []
        self.phase = Phase.SIGNED
        signed = assemble_genesis(self._genesis,
                                  tuple(self._sigs[i] for i in range(len(self._roster))))
        opener = self._opener.identity_key
        seated = any(r.identity == opener for r in self._roster)
        return [Signed(signed, tuple(self._roster), self._seat, links=(OPENER,),
                       dial=self._mesh_dial(),
                       observers=frozenset() if seated else frozenset({opener}))]

    def _fail(self, reason: str) -> list[Action]:
        self.phase = Phase.FAILED
        return [Failed(reason)]


# --- a spectator ------------------------------------------------------------------------------


def watched(frame: Frame, *, table: bytes, game: str,
            peer: Hello) -> tuple[SignedGenesis, int] | Failed:
    """The genesis a seat sent a spectator, and that seat's number, if it checks."""
    if frame["t"] == "bye":
        return Failed(f"the table said goodbye: {frame['reason']}")
    if frame["t"] != "genesis":
        return Failed(f"the seat sent a {frame['t']} frame, not the table's genesis")
    try:
        signed = parse_genesis(frame["genesis"])
        verify_genesis(signed)
    except SpycraftError as exc:
        return Failed(f"watching failed: {str(exc) or type(exc).__name__}")
    genesis = signed.genesis
    seats = [i for i, keys in enumerate(genesis.seats) if keys.identity == peer.identity_key]
    problem = (
        "the genesis is for another table" if genesis.table != table
        else f"the genesis is for {genesis.game}, the ad says {game}" if genesis.game != game
        else "the peer that answered has no seat at its table" if not seats else None
    )
    if problem is not None:
        return Failed(f"watching failed: {problem}")
    return signed, seats[0]

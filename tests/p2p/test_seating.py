"""The lobby's rules without a socket: the opener's and the joiners' machines of ``p2p.seating``,
real keys and signatures, every frame through the wire encoding both ways, a clock in a variable.

Each test seats a table (or fails to) as a person would see it, or plays what a modified client
can send, and asserts what the opener and every honest joiner decide.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import cbor2
import pytest

from spycraft.crypto.encoding import encode
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import genesis_signature, verify_genesis
from spycraft.engines.seat import table_key_public
from spycraft.p2p.discovery import options_digest
from spycraft.p2p.seating import (
    JOIN_TIMEOUT,
    OPENER,
    SIGNATURE_TIMEOUT,
    SIGNATURE_WAIT,
    Action,
    Announce,
    Close,
    Failed,
    Full,
    Joiner,
    Mesh,
    Notice,
    Opener,
    Phase,
    RosterSeat,
    Send,
    Signed,
    build_genesis,
    sign_address,
    watched,
)
from spycraft.p2p.wire import Hello, decode_frames, encode_frame, make_hello, verify_hello

TABLE = bytes(range(16))
GAME = "spies-and-lies"
OPTIONS: dict[str, Any] = {}
NAMES = ("opener", "ada", "bea", "cy", "dee")


def identity(index: int) -> Identity:
    return Identity(bytes([index + 1]) * 32)


def master(index: int) -> bytes:
    return bytes([0x40 + index]) * 32


def hello_of(index: int, *, seat: int | None = None, nonce: int = 1) -> Hello:
    """Peer ``index``'s hello, signed and verified as the handshake leaves it."""
    frame = make_hello(identity(index), table_key_public(master(index)), TABLE, NAMES[index],
                       nonce=bytes([nonce]) * 32, seat=seat)
    return verify_hello(wire(frame), table_id=TABLE)


def wire(frame: dict[str, Any]) -> dict[str, Any]:
    """A frame as its receiver reads it: encoded, validated and decoded."""
    (received,) = decode_frames(encode_frame(frame))
    return received


@dataclass
class Table:
    """An opener (peer 0) and its joiners (peers 1..), joiner i on the opener's link i. Frames
    are delivered in the order sent, each through the wire; ``hold`` keeps those joiners'
    genesis signatures from the opener (a joiner that falls silent once it has the roster)."""

    players: int
    seated: bool = True
    now: float = 0.0
    opener: Opener = field(init=False)
    joiners: dict[int, Joiner] = field(default_factory=dict)
    to_opener: deque[tuple[int, dict[str, Any]]] = field(default_factory=deque)
    to_joiner: deque[tuple[int, dict[str, Any]]] = field(default_factory=deque)
    said: list[Action] = field(default_factory=list)  # the opener's actions but its sends
    heard: dict[int, list[Action]] = field(default_factory=dict)  # each joiner's, but sends
    sent: list[Send] = field(default_factory=list)  # the opener's sends
    hold: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.opener = Opener(table=TABLE, game=GAME, options=OPTIONS, players=self.players,
                             identity=identity(0), name=NAMES[0], master=master(0),
                             seated=self.seated, host="10.0.0.1", port=4000,
                             turn_timeout_ms=2000)

    def joiner(self, index: int) -> Joiner:
        return Joiner(table=TABLE, game=GAME, digest=options_digest(GAME, OPTIONS),
                      fingerprint=identity(0).fingerprint, identity=identity(index),
                      name=NAMES[index], master=master(index), host=f"10.0.0.{index + 1}",
                      port=4000 + index)

    def knock(self, index: int) -> str | None:
        """Peer ``index`` dials: the door's refusal, or the handshake done and its join sent."""
        hello = hello_of(index)
        refusal = self.opener.refusal(hello)
        if refusal is not None:
            return refusal
        self.opener_did(self.opener.admitted(index, hello, self.now))
        self.joiners[index] = joiner = self.joiner(index)
        self.joiner_did(index, joiner.opened(hello_of(0, seat=0 if self.seated else None)))
        self.flow()
        return None

    def opener_did(self, actions: list[Action]) -> None:
        assert self.opener.broken() == []
        for action in actions:
            if isinstance(action, Send):
                self.sent.append(action)
                self.to_joiner.append((action.link, wire(action.frame)))
            else:
                self.said.append(action)
                if isinstance(action, Full):
                    self.flow()  # what was on its way arrives first
                    self.opener_did(self.opener.withdrawn(self.now))

    def joiner_did(self, index: int, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Send):
                assert action.link == OPENER
                self.to_opener.append((index, wire(action.frame)))
            else:
                self.heard.setdefault(index, []).append(action)

    def flow(self) -> None:
        while self.to_opener or self.to_joiner:
            if self.to_joiner:
                link, frame = self.to_joiner.popleft()
                if link in self.joiners:
                    self.joiner_did(link, self.joiners[link].receive(frame, self.now))
                continue
            index, frame = self.to_opener.popleft()
            if index not in self.hold or frame["t"] != "gsig":
                self.opener_frame(index, frame)

    def opener_frame(self, link: int, frame: dict[str, Any]) -> None:
        assert self.opener.reading(link), "the shell reads only what the machine wants"
        self.opener_did(self.opener.receive(link, wire(frame), self.now))
        self.flow()

    def hang_up(self, index: int) -> None:
        """Joiner ``index``'s link goes down (the shell's reader saw the connection close)."""
        self.joiners.pop(index, None)
        self.opener_did(self.opener.link_down(index, "", self.now))
        self.flow()

    def tick(self, seconds: float) -> None:
        self.now += seconds
        self.opener_did(self.opener.tick(self.now))
        for index, joiner in list(self.joiners.items()):
            self.joiner_did(index, joiner.tick(self.now))
        self.flow()

    def signed(self) -> dict[int, Signed]:
        """Each peer's Signed (0 the opener), for those that have one."""
        done = {i: a for i, actions in self.heard.items() for a in actions
                if isinstance(a, Signed)}
        for action in self.said:
            if isinstance(action, Signed):
                done[0] = action
        return done

    def failures(self, index: int = 0) -> list[str]:
        actions = self.said if index == 0 else self.heard.get(index, [])
        return [a.reason for a in actions if isinstance(a, Failed)]

    def closes(self) -> list[Close]:
        return [a for a in self.said if isinstance(a, Close)]

    def notices(self, index: int = 0) -> list[tuple[str, Any]]:
        actions = self.said if index == 0 else self.heard.get(index, [])
        return [(a.kind, a.data) for a in actions if isinstance(a, Notice)]


def seated_table(players: int = 3, *, seated: bool = True, hold: set[int] | None = None) -> Table:
    """A table whose every joiner knocked, in order (those in ``hold`` never sign)."""
    table = Table(players, seated=seated, hold=set(hold or ()))
    for index in range(1, players + (0 if seated else 1)):
        assert table.knock(index) is None
    return table


# --- a table that fills and starts ------------------------------------------------------------


def test_a_full_table_signs_one_genesis_seated_in_the_order_players_sat_down() -> None:
    table = seated_table(4)
    done = table.signed()
    assert sorted(done) == [0, 1, 2, 3] and not table.failures()
    raws = {s.genesis.raw for s in done.values()}
    assert len(raws) == 1
    genesis = done[0].genesis
    verify_genesis(genesis)
    assert [k.name for k in genesis.genesis.seats] == ["opener", "ada", "bea", "cy"]
    assert genesis.genesis.turn_timeout_ms == 2000 and genesis.genesis.table == TABLE
    assert [s.seat for _, s in sorted(done.items())] == [0, 1, 2, 3]
    assert done[0].links == (1, 2, 3) and done[0].observers == frozenset()
    # each joiner dials every seat before it but the opener, whose link it holds
    assert [done[i].dial for i in (1, 2, 3)] == [(), (1,), (1, 2)]
    assert all(r.address_signed(TABLE) for r in done[0].roster)
    assert done[0].roster == done[3].roster
    assert table.opener.phase is Phase.SIGNED
    assert not any(table.opener.reading(link) for link in (1, 2, 3))


def test_the_seats_taken_are_announced_and_told_to_everyone_seated_until_the_table_is_full(
) -> None:
    table = seated_table(3)
    assert [a.taken for a in table.said if isinstance(a, Announce)] == [2]
    assert sum(isinstance(a, Full) for a in table.said) == 1
    assert table.notices(0) == [("joined", hello_of(1)), ("joined", hello_of(2))]
    assert table.notices(1) == [("lobby", (2, 3)), ("lobby", (3, 3))]
    assert table.notices(2) == [("lobby", (3, 3))]


def test_the_roster_and_the_openers_signature_go_first_then_each_signature_to_the_others(
) -> None:
    table = seated_table(3)
    kinds = [(s.link, s.frame["t"], s.frame.get("seat")) for s in table.sent
             if s.frame["t"] != "lobby"]
    assert kinds == [(1, "roster", None), (1, "gsig", 0), (2, "roster", None), (2, "gsig", 0),
                     (2, "gsig", 1), (1, "gsig", 2)]
    roster = next(s for s in table.sent if s.frame["t"] == "roster")
    assert roster.lost == ("the link to seat 1 broke before it had the roster: the table did "
                           "not start")
    relay = next(s for s in table.sent if s.frame["t"] == "gsig" and s.frame["seat"] == 1)
    assert relay.lost == ("the link to seat 2 broke before it had every genesis signature: the "
                          "table did not start")
    assert all(s.lost is None for s in table.sent if s.frame["t"] == "lobby")


def test_a_host_that_does_not_play_is_an_observer_and_nobody_dials_it() -> None:
    table = seated_table(2, seated=False)
    done = table.signed()
    assert [k.name for k in done[0].genesis.genesis.seats] == ["ada", "bea"]
    assert done[0].seat is None and done[0].observers == frozenset({identity(0).public})
    assert done[1].seat == 0 and done[2].seat == 1
    assert done[2].dial == (0,) and done[1].dial == ()
    assert done[2].observers == frozenset({identity(0).public})


# --- the door and the join --------------------------------------------------------------------


def test_the_door_refuses_the_openers_own_key_a_seated_key_and_anyone_once_full() -> None:
    table = Table(3)
    assert table.opener.refusal(hello_of(0)) == "already seated"
    assert table.knock(1) is None
    assert table.opener.refusal(hello_of(1, nonce=9)) == "already seated"  # a replayed hello
    assert table.knock(2) is None
    assert table.opener.refusal(hello_of(3)) == "table full"
    assert table.opener.admitted(3, hello_of(3), 0.0) == [Close(3, bye="table full")]


def test_one_identity_on_two_links_gets_one_seat() -> None:
    """Two connections of one key both pass the door (neither is seated yet); the second join
    is refused with a goodbye, and the seat count is one."""
    table = Table(3)
    table.opener_did(table.opener.admitted(7, hello_of(1, nonce=7), 0.0))
    assert table.knock(1) is None
    table.opener_did(table.opener.receive(7, wire({"t": "join", **_join_of(1)}), 0.0))
    assert table.closes() == [Close(7, bye="already seated")]
    assert table.opener.taken == 2 and not table.opener.reading(7)


def _join_of(index: int, *, port: int | None = None, signer: int | None = None,
             host: str | None = None) -> dict[str, Any]:
    port = 4000 + index if port is None else port
    host = f"10.0.0.{index + 1}" if host is None else host
    keys = Table(2).joiner(index)
    beacon = keys.opened(hello_of(0, seat=0))[0]
    assert isinstance(beacon, Send)
    return {"beacon": beacon.frame["beacon"], "host": host, "port": port,
            "sig": sign_address(identity(index if signer is None else signer), TABLE, host, port)}


@pytest.mark.parametrize(("join", "why"), [
    pytest.param({"t": "head", "seq": 0, "link": bytes(32)}, "expected a join, got head",
                 id="not-a-join"),
    pytest.param({"t": "join", **_join_of(1, signer=2)},
                 "a join whose address its identity did not sign", id="anothers-join"),
    pytest.param({"t": "join", **_join_of(2)},
                 "a join whose address its identity did not sign", id="replayed-join"),
    pytest.param({"t": "bye", "reason": "later"}, "the table said goodbye: later", id="bye"),
])
def test_a_join_its_identity_did_not_sign_for_this_table_is_refused(
    join: dict[str, Any], why: str,
) -> None:
    """Bea's join is bea's signed word: ada sending it (or a join signed by another) is
    refused and ada sits nowhere."""
    table = Table(3)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    table.opener_did(table.opener.receive(1, wire(join), 0.0))
    assert table.closes() == [Close(1, why=f"lobby refused a peer: {why}")]
    assert table.opener.taken == 1 and table.notices() == []


def test_a_join_with_an_address_no_roster_can_carry_is_refused_at_the_door() -> None:
    """Port 0, signed: it would make every honest joiner refuse the roster (one cheater
    spoiling the table); it is refused before it takes a seat."""
    table = Table(3)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    table.opener_did(table.opener.receive(1, wire({"t": "join", **_join_of(1, port=0)}), 0.0))
    (close,) = table.closes()
    assert close.why is not None and close.why.startswith(
        "lobby refused a peer: a join no roster can carry: roster seat has a bad port")


@pytest.mark.parametrize("host", ["x..y", "laptop.local", "10.0.0.300"])
def test_a_join_whose_signed_host_is_no_ip_address_is_refused_at_the_door(host: str) -> None:
    """Red team 3 (stop 28, r4): a seated cheater signed "x..y" as where it listens; every honest
    joiner after it dialed that for the early mesh and died of a UnicodeError out of the name
    lookup. Where a seat listens is an address, never a name to look up: refused at the door,
    and in a roster by every joiner."""
    table = Table(3)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    table.opener_did(table.opener.receive(1, wire({"t": "join", **_join_of(1, host=host)}),
                                          0.0))
    (close,) = table.closes()
    assert close.why == (f"lobby refused a peer: a join no roster can carry: roster seat host "
                         f"{host!r} is not an IP address")


def test_a_peer_that_sends_no_join_within_its_time_is_hung_up_on() -> None:
    table = Table(3)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    table.tick(JOIN_TIMEOUT - 0.5)
    assert table.closes() == []
    table.tick(1.0)
    assert table.closes() == [Close(1, why="lobby refused a peer: no join in 10 s")]
    assert not table.opener.reading(1)


def test_links_still_knocking_when_the_table_fills_are_told_it_is_full() -> None:
    table = Table(3)
    table.opener_did(table.opener.admitted(9, hello_of(3), 0.0))
    table.knock(1)
    table.knock(2)
    assert Close(9, bye="table full") in table.closes()
    assert sorted(table.signed()) == [0, 1, 2]


# --- getting up before the game ---------------------------------------------------------------


def test_a_joiner_that_hangs_up_in_the_lobby_frees_its_seat_for_another() -> None:
    table = Table(3)
    table.knock(1)
    table.hang_up(1)
    assert table.notices() == [("joined", hello_of(1)), ("left", hello_of(1))]
    assert [a.taken for a in table.said if isinstance(a, Announce)] == [2, 1]
    (close,) = table.closes()
    assert close.why == f"ada [{hello_of(1).fingerprint}] left the lobby: connection closed"
    table.knock(2)
    table.knock(3)
    done = table.signed()
    assert [k.name for k in done[0].genesis.genesis.seats] == ["opener", "bea", "cy"]


def test_a_joiner_that_speaks_in_the_lobby_got_up() -> None:
    table = Table(3)
    table.knock(1)
    table.opener_frame(1, {"t": "gsig", "seat": 1, "sig": bytes(64)})
    (close,) = table.closes()
    assert close.why == f"ada [{hello_of(1).fingerprint}] sent a gsig frame in the lobby"
    assert table.opener.taken == 1 and table.notices()[-1] == ("left", hello_of(1))


def test_a_link_lost_between_a_full_table_and_its_roster_stops_the_table() -> None:
    table = Table(2)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    actions = table.opener.receive(1, wire({"t": "join", **_join_of(1)}), 0.0)
    assert isinstance(actions[-1], Full) and table.opener.phase is Phase.FULL
    assert table.opener.link_down(1, "", 0.0) == [Failed(
        "the link to seat 1 broke before it had the roster: the table did not start")]
    assert table.opener.withdrawn(0.0) == []  # no roster goes out once the table failed


def test_a_signature_sent_before_the_roster_is_judged_after_it() -> None:
    """Frames of a full table's seats wait until the roster is out (nothing reaches a joiner
    before its roster), then count as their signatures."""
    table = Table(2)
    table.opener_did(table.opener.admitted(1, hello_of(1), 0.0))
    table.opener.receive(1, wire({"t": "join", **_join_of(1)}), 0.0)
    assert table.opener.receive(1, wire({"t": "gsig", "seat": 1, "sig": bytes(64)}), 0.0) == []
    actions = table.opener.withdrawn(0.0)
    assert [type(a) for a in actions] == [Send, Send, Failed]
    assert actions[-1] == Failed("seat 1 sent no valid genesis signature")


# --- the genesis signatures -------------------------------------------------------------------


@pytest.mark.parametrize(("then", "reason"), [
    pytest.param(None, "seat 2 did not sign the genesis (connection closed): the table did not "
                       "start", id="hangs-up"),
    pytest.param({"t": "bye", "reason": "no"},
                 "seat 2 got up before the table started: no", id="says-bye"),
    pytest.param({"t": "gsig", "seat": 2, "sig": bytes(64)},
                 "seat 2 sent no valid genesis signature", id="false-signature"),
    pytest.param("seat 1's", "seat 2 sent no valid genesis signature",
                 id="anothers-signature-as-is"),
    pytest.param("seat 1's as 2", "seat 2 sent no valid genesis signature",
                 id="anothers-signature-as-its-own"),
    pytest.param("other table", "seat 2 sent no valid genesis signature",
                 id="signature-of-another-genesis"),
    pytest.param({"t": "head", "seq": 0, "link": bytes(32)},
                 "seat 2 sent no valid genesis signature", id="a-head"),
])
def test_a_joiner_that_does_not_sign_stops_the_table_naming_its_seat(
    then: Any, reason: str,
) -> None:
    table = seated_table(3, hold={2})
    # bea holds every signature (it may start its session); the opener lacks hers
    assert table.opener.phase is Phase.SIGNING and sorted(table.signed()) == [2]
    if then is None:
        table.hang_up(2)
    else:
        if then in ("seat 1's", "seat 1's as 2"):  # ada's signature, relayed to bea
            adas = next(s.frame for s in table.sent
                        if s.link == 2 and s.frame["t"] == "gsig" and s.frame["seat"] == 1)
            then = adas if then == "seat 1's" else {**adas, "seat": 2}
        elif then == "other table":
            genesis = table.opener.genesis
            assert genesis is not None
            elsewhere = replace(genesis, table=bytes(16))
            then = {"t": "gsig", "seat": 2, "sig": genesis_signature(elsewhere, identity(2))}
        table.opener_frame(2, then)
    assert table.failures() == [reason]
    assert table.opener.phase is Phase.FAILED and 0 not in table.signed()
    assert table.opener.tick(table.now + 1000) == []  # it failed once, for one reason


def test_a_joiner_silent_past_the_signature_timeout_stops_the_table() -> None:
    table = seated_table(3, hold={1})
    table.tick(SIGNATURE_TIMEOUT - 1)
    assert table.failures() == []
    table.tick(1)
    assert table.failures() == [
        "seat 1 did not sign the genesis (no answer in 60 s): the table did not start"]


def test_a_seat_that_signed_is_not_read_again_its_next_frame_is_the_sessions() -> None:
    table = seated_table(3, hold={2})
    assert not table.opener.reading(1) and table.opener.reading(2)


# --- what a joiner refuses --------------------------------------------------------------------


def roster_for(table: Table, index: int) -> dict[str, Any]:
    """The roster frame the opener sent joiner ``index``."""
    return next(s.frame for s in table.sent if s.link == index and s.frame["t"] == "roster")


def fresh_joiner(index: int = 1) -> Joiner:
    joiner = Table(2).joiner(index)
    joiner.opened(hello_of(0, seat=0))
    return joiner


def lie(roster: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return wire({**roster, **changes})


def with_seat(roster: dict[str, Any], seat: int, **changes: Any) -> dict[str, Any]:
    seats = list(roster["seats"])
    seats[seat] = replace(RosterSeat.from_bytes(seats[seat]), **changes).to_bytes()
    return lie(roster, seats=seats)


@pytest.fixture(scope="module")
def honest_roster() -> dict[str, Any]:
    return roster_for(seated_table(3), 1)


@pytest.mark.parametrize(("forge", "reason"), [
    pytest.param(lambda r: with_seat(r, 2, host="10.9.9.9"),
                 "the roster gives seat 2 (bea) an address it did not sign (10.9.9.9:4002): "
                 "only the opener's word", id="anothers-address"),
    pytest.param(lambda r: with_seat(r, 0, port=5000),
                 "the roster gives seat 0 (opener) an address it did not sign (10.0.0.1:5000): "
                 "only the opener's word", id="its-own-address-unsigned"),
    pytest.param(lambda r: with_seat(r, 1, beacon=bytes(32)),
                 "the roster does not seat us as we asked", id="our-beacon-changed"),
    pytest.param(lambda r: lie(r, seats=[r["seats"][0], r["seats"][1], r["seats"][1]]),
                 "the roster does not seat us as we asked", id="seats-us-twice"),
    pytest.param(lambda r: lie(r, seats=[r["seats"][0], r["seats"][2], r["seats"][2]]),
                 "the roster does not seat us as we asked", id="leaves-us-out"),
    pytest.param(lambda r: lie(r, game="resistance"),
                 "the roster's game or options differ from the announcement", id="other-game"),
    pytest.param(lambda r: lie(r, options=encode({"rounds": 9})),
                 "the roster's game or options differ from the announcement", id="other-options"),
    pytest.param(lambda r: lie(r, options=encode([1])), "roster options are not a map",
                 id="options-not-a-map"),
    pytest.param(lambda r: lie(r, total=4), "the roster is not full or uses another beacon "
                 "length", id="not-full"),
    pytest.param(lambda r: lie(r, beacon_length=8), "the roster is not full or uses another "
                 "beacon length", id="other-beacon-length"),
    pytest.param(lambda r: lie(r, turn_timeout_ms=500), "the table's turn timeout of 0.5 s is "
                 "not playable (1 s to 24 h)", id="timeout-too-short"),
    pytest.param(lambda r: lie(r, seats=[r["seats"][0], b"\xa1\x61a\x18\x01", r["seats"][2]]),
                 "joining failed: not canonical CBOR (RFC 8949 §4.2.1): a head longer than its "
                 "value needs", id="non-canonical-seat"),
    pytest.param(lambda r: lie(r, options=b"\xa1\x61a\x18\x01"),
                 "joining failed: not canonical CBOR (RFC 8949 §4.2.1): a head longer than its "
                 "value needs",
                 id="non-canonical-options"),
    pytest.param(lambda r: lie(r, seats=[r["seats"][0], encode({"name": "x"}), r["seats"][2]]),
                 "joining failed: roster seat must be a map of name, identity, table_key, "
                 "beacon, host, port, sig", id="not-a-seat"),
])
def test_a_joiner_refuses_a_roster_that_is_not_the_table_it_asked_for(
    honest_roster: dict[str, Any], forge: Any, reason: str,
) -> None:
    joiner = fresh_joiner()
    assert joiner.receive(forge(honest_roster), 0.0) == [Failed(reason)]
    assert joiner.phase is Phase.FAILED and not joiner.reading()


def test_a_joiner_takes_the_honest_roster_signs_it_and_links_to_the_mesh_meanwhile() -> None:
    table = seated_table(3, hold={1})
    joiner = fresh_joiner()
    sent, mesh = joiner.receive(wire(roster_for(table, 1)), 0.0)
    assert isinstance(sent, Send) and sent.frame["t"] == "gsig" and sent.frame["seat"] == 1
    assert joiner.phase is Phase.SIGNING
    # seat 0 is the opener, whose link it holds: it dials nobody, and lets in seat 2 alone
    assert mesh == Mesh(1, (), frozenset({identity(2).public}))


def test_the_last_joiner_dials_every_seat_before_it_but_the_opener_at_its_own_address() -> None:
    table = seated_table(4, hold={3})
    joiner = Table(4).joiner(3)
    joiner.opened(hello_of(0, seat=0))
    _, mesh = joiner.receive(wire(roster_for(table, 3)), 0.0)
    roster = [RosterSeat.from_bytes(s) for s in roster_for(table, 3)["seats"]]
    assert isinstance(mesh, Mesh) and mesh.seat == 3 and mesh.accept == frozenset()
    assert mesh.dial == ((1, roster[1]), (2, roster[2]))
    assert all(seat.address_signed(table.opener.table) for _, seat in mesh.dial)


def test_a_joiner_refuses_a_table_opened_by_another_key_than_its_announcement_names() -> None:
    joiner = Table(2).joiner(1)
    stranger = hello_of(3)
    assert joiner.opened(stranger) == [Failed(
        f"the table is opened by {stranger.fingerprint}, not by {identity(0).fingerprint} as "
        f"its announcement says")]


def test_a_forged_or_foreign_signature_relayed_to_a_joiner_stops_it_naming_the_seat() -> None:
    table = seated_table(3, hold={1})
    joiner = fresh_joiner()
    joiner.receive(wire(roster_for(table, 1)), 0.0)
    genesis = table.opener.genesis
    assert genesis is not None
    foreign = genesis_signature(replace(genesis, turn_timeout_ms=3000), identity(2))
    assert joiner.receive(wire({"t": "gsig", "seat": 2, "sig": foreign}), 1.0) == [
        Failed("seat 2's genesis signature does not verify")]


def test_a_joiner_ignores_what_is_not_a_signature_and_gives_up_after_its_wait() -> None:
    table = seated_table(3, hold={1})
    joiner = fresh_joiner()
    joiner.receive(wire(roster_for(table, 1)), 0.0)
    assert joiner.receive(wire({"t": "gsig", "seat": 7, "sig": bytes(64)}), 50.0) == []
    assert joiner.receive(wire({"t": "head", "seq": 0, "link": bytes(32)}), 80.0) == []
    assert joiner.tick(80.0 + SIGNATURE_WAIT - 1) == []  # every frame restarts its wait
    assert joiner.tick(80.0 + SIGNATURE_WAIT) == [
        Failed("joining failed: no word from the table in 90 s")]


def test_a_goodbye_from_the_opener_ends_the_join_with_its_reason() -> None:
    joiner = fresh_joiner()
    lobby = {"t": "lobby", "seats": [bytes(32), bytes(32)], "total": 3}
    assert joiner.receive(wire(lobby), 0.0) == [Notice("lobby", (2, 3))]
    assert joiner.receive(wire({"t": "bye", "reason": "the host left"}), 0.0) == [
        Failed("the table said goodbye: the host left")]


def test_the_genesis_is_the_one_build_genesis_makes_of_the_roster() -> None:
    """The lobby adds nothing to the genesis: it is the roster's keys, in order, with the
    table's options and turn timeout (what every seat builds for itself and signs)."""
    table = seated_table(3)
    done = table.signed()[0]
    built = build_genesis(TABLE, GAME, OPTIONS, list(done.roster), 2000)
    assert done.genesis.genesis.payload == built.payload


# --- a spectator's first frame ----------------------------------------------------------------


@pytest.fixture(scope="module")
def signed_genesis() -> Any:
    return seated_table(3).signed()[0].genesis


def test_a_spectator_takes_the_genesis_of_the_table_it_asked_for_through_a_seat_of_it(
    signed_genesis: Any,
) -> None:
    assert watched(wire({"t": "genesis", "genesis": signed_genesis.raw}), table=TABLE,
                   game=GAME, peer=hello_of(2)) == (signed_genesis, 2)


@pytest.mark.parametrize(("change", "reason"), [
    pytest.param({"table": bytes(16)}, "watching failed: the genesis is for another table",
                 id="another-table"),
    pytest.param({"game": "resistance"},
                 "watching failed: the genesis is for spies-and-lies, the ad says resistance",
                 id="another-game"),
    pytest.param({"peer": hello_of(4)},
                 "watching failed: the peer that answered has no seat at its table",
                 id="not-a-seat"),
    pytest.param({"frame": {"t": "head", "seq": 0, "link": bytes(32)}},
                 "the seat sent a head frame, not the table's genesis", id="not-a-genesis"),
    pytest.param({"frame": {"t": "bye", "reason": "no room"}},
                 "the table said goodbye: no room", id="bye"),
])
def test_a_spectator_refuses_a_genesis_that_is_not_the_tables_it_asked_for(
    signed_genesis: Any, change: dict[str, Any], reason: str,
) -> None:
    asked: dict[str, Any] = {"table": TABLE, "game": GAME, "peer": hello_of(1),
                             "frame": {"t": "genesis", "genesis": signed_genesis.raw}, **change}
    frame = wire(asked.pop("frame"))
    assert watched(frame, **asked) == Failed(reason)


def test_a_spectator_refuses_a_genesis_one_seat_did_not_sign(signed_genesis: Any) -> None:
    """Seat 2's signature replaced by seat 1's: every signature is checked."""
    envelope = cbor2.loads(signed_genesis.raw)
    protected, _, payload, entries = envelope.value
    sigs = [list(entry) for entry in entries]
    sigs[2][2] = sigs[1][2]
    forged = cbor2.dumps(cbor2.CBORTag(envelope.tag, [protected, {}, payload, sigs]),
                         canonical=True)
    checked = watched(wire({"t": "genesis", "genesis": forged}), table=TABLE, game=GAME,
                      peer=hello_of(1))
    assert isinstance(checked, Failed) and checked.reason.startswith("watching failed: ")
    assert "signature" in checked.reason

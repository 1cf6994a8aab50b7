"""A modified spycraft client for the network tests: a bot peer that lies in one chosen way.

    python -m tests.net.cheater MODE INTERFACE OUT_FILE TABLE_ID [--game G] [--turn-timeout T]

Theory of operation: the cheater joins an announced table like ``spycraft bots`` (or, for
``low-order``, only knocks at the lobby's door), then plays honestly apart from one attack.
Attacks on its own turn live in ``_write_turn``; attacks that do not wait for its turn run in
``_attack``, a task beside the session's ticker that wakes whenever the table changes. It dials
back every seat that hangs up on it (an honest peer only redials lower seats), so each attack
can be tried on every link again. It prints ``seat N`` once seated and one line per attack.

The *trigger kind* of a game is the record kind the turn-bound attacks wait for: ``guess`` in
Spies & Lies, ``vote_commit`` in The Resistance (the team vote), ``action`` in SpyNet.

MODE is one of
  equivocate     at its first trigger turn, signs two different records for one place and
                 sends one to each half of its links (Spies & Lies: two guesses; The
                 Resistance: its record, and one whose body is off the game's schema)
  hide-equivocation  at its first trigger turn, sends its record ONE to every seat but the
                 lowest other one and a second record TWO (as ``equivocate``) to that one, then
                 on every link an ``evidence`` frame: two records of its own for that seq on a
                 made-up prev (issue 18, attack 2: that frame once hid the equivocation)
  withhold       at its first trigger turn, sends its record to every seat but the one the
                 engine names next (issue 18, attack 3: the others pass it on)
  stall          at its first trigger turn (or ``--stall-at KIND``), goes silent (its
                 connections stay open); in SpyNet only once it has sealed a token (issue 17:
                 an absent seat's seals once counted as its fraud)
  forge          at its first turn, sends a record that claims to be another seat's
  lie            at its first ``reveal`` (Spies & Lies), opens its card with a false nonce
  garbage-seal   (SpyNet) at its first ``deck_tokens`` that owes a sealed token (a card it
                 knows, shown to one more seat: the draft hand it passes on), seals garbage
                 for that card (two valid points and a proof that is not one) and sends it
  abandon-now    where another seat is first expected at a trigger kind, signs an abandon of it
                 carrying only its own vote, and at the next such place one in the old
                 ``{seat, reason}`` form; each goes to everyone at once
  abandon-retro  after some records, abandons for an earlier place another seat wrote (right
                 ``prev``): with its own vote only, then with forged votes added (random
                 signatures, then votes it signed itself under other seats' numbers)
  frame          ``evidence`` frames pairing an honest seat's record with its own record for
                 that seq, one from another table, one by another seat, the same record twice,
                 and a record forged in that seat's name
  hello-replay   replays the hellos (and auths) other seats sent it on new connections to the
                 remaining seats
  low-order      knocks at the lobby with an all-zero and a non-canonical X25519 table key and
                 with small-order Ed25519 identity keys; never sits down
  flood          500 frames of its own signed records for seqs just ahead and far ahead, then
                 a storm of sync requests, and acks and heads for huge seqs
  chatter        table talk that lies, each on fresh links: two different messages under one
                 counter (a chat equivocation), 30 lines at once (over every receiver's
                 bucket), a 281-character line, a line with an escape sequence, a line signed
                 with its key in another seat's name; and to every observer linked to it, once,
                 a record forged in another seat's name
  talker         SpyNet, whose table may not talk while the game runs: once linked to every
                 seat and to ``--observers`` observers, it signs ``TALKS`` lines of table talk
                 during play, a few records apart, and sends each to every link (as a client
                 with no talk rule would)
  spectator      no seat: dials a seat of the table in play as a spectator (its hello asking
                 for seat 0), takes the genesis, then sends a record, a chat message and an
                 absence vote, each on a new connection, and prints how the seat answered
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import trio

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.chat import PROTECTED_CHAT, ChatMessage
from spycraft.crypto.encoding import encode
from spycraft.crypto.group import Point, Scalar
from spycraft.crypto.identity import Identity
from spycraft.crypto.records import (
    Record,
    SignedRecord,
    parse_genesis,
    sign1,
    sign_record,
)
from spycraft.engines import absence, registry
from spycraft.engines.table import TableState
from spycraft.p2p import handshake
from spycraft.p2p.discovery import TableAd, browse_tables
from spycraft.p2p.entropy import SystemEntropy
from spycraft.p2p.lobby import Me, join_table
from spycraft.p2p.protocol import Send
from spycraft.p2p.session import Link, Session, SessionConfig
from spycraft.p2p.wire import NO_ECHO, FramedStream, FrameError, make_hello

TRIGGER = {"spies-and-lies": "guess", "resistance": "vote_commit", "spynet": "deck_tokens"}
TALKS = 3
"""Lines the ``talker`` says during play."""
TALK_TEXT = "partner, I hold the Intelligence mission"
"""What it says (with the line's number): no honest peer may ever show it."""
RETRO_AFTER = 36
"""Records the table holds before ``abandon-retro``, ``frame`` and ``flood`` begin."""
FLOOD_BODY = 64 * 1024
"""Padding of each flood record: 500 of them are 32 MiB per link."""


def say(text: str) -> None:
    print(text, flush=True)


def garbage_seal() -> list[Any]:
    """A sealed token that decodes (two valid points, three scalars) but proves nothing."""
    points = [Point.hash_to("cheater/garbage", i).encode() for i in range(2)]
    return [*points, [Scalar.from_int(i + 1).encode() for i in range(3)]]


class Cheater(Session):
    mode: ClassVar[str] = ""
    game: ClassVar[str] = "spies-and-lies"
    stall_at: ClassVar[str | None] = None
    observers_wanted: ClassVar[int] = 0
    done = False
    dialing: set[int]
    used_links: set[int]
    fed: set[int]
    last_place = 0
    captured: ClassVar[list[dict[str, Any]]] = []  # hello and auth frames other peers sent us

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dialing = set()  # seats we are dialing back
        self.used_links = set()  # links that carried an attack (their peers hang up)
        self.fed = set()  # observer links we fed a forged record

    @property
    def trigger(self) -> str:
        return TRIGGER[self.game]

    # --- attacks on our own turn ------------------------------------------------------------

    async def _write_turn(self, state: TableState[Any]) -> None:
        assert self.table_seat is not None and self.agent is not None
        turn = self.table_seat.my_turn(state)
        assert turn is not None
        now = trio.current_time()
        if not self.done:
            if self.mode == "stall" and (self.stall_at or self.trigger) in turn.kinds \
                    and self._sealed_if_spynet(state):
                say("stalling")
                await trio.sleep_forever()
            if self.mode in ("equivocate", "hide-equivocation") and self.trigger in turn.kinds:
                self.done = True
                if self.game == "spies-and-lies":
                    one = self.table_seat.sign(state, "guess", {"rank": 1})
                    two = self.table_seat.sign(state, "guess", {"rank": 2})
                else:
                    one = self.table_seat.build(state, self.agent)
                    body = dict(one.record.body) if isinstance(one.record.body, Mapping) else {}
                    two = self.table_seat.sign(state, one.record.kind, {**body, "twice": True})
                self._execute(
                    [a for a in self.protocol.submit(one, now) if not isinstance(a, Send)]
                )
                if self.mode == "equivocate":
                    for i, link in enumerate(self.links.values()):
                        link.post({"t": "record", "record": (one if i % 2 == 0 else two).raw})
                    say("equivocated")
                    return
                victim = min(link.seat for link in self.links.values() if link.seat is not None)
                made_up = os.urandom(32)
                bogus = [self._signed(one.seq, made_up, one.record.kind, {"framed": i}).raw
                         for i in range(2)]
                for link in self.links.values():
                    link.post({"t": "record", "record": (two if link.seat == victim else one).raw})
                    link.post({"t": "evidence", "records": bogus})
                say(f"equivocated at {one.seq}: TWO to seat {victim}, then a made-up pair")
                return
            if self.mode == "withhold" and self.trigger in turn.kinds:
                self.done = True
                signed = self.table_seat.build(state, self.agent)
                actions = self.protocol.submit(signed, now)
                self._execute([a for a in actions if not isinstance(a, Send)])
                after = self.table.expect(self.protocol.state)
                nxt = None if after is None else after.seat
                for link in self.links.values():
                    if link.seat != nxt:
                        link.post({"t": "record", "record": signed.raw})
                say(f"withheld record {signed.seq} from seat {nxt}")
                return
            if self.mode == "forge":
                self.done = True
                other = (self.table_seat.index + 1) % len(self.roster)
                record = Record(self.genesis.genesis.table, state.seq + 1, state.link,
                                other, turn.kinds[0], {"forged": True})
                forged = sign_record(record, self.identity)
                self._broadcast({"t": "record", "record": forged.raw})
                say("forged")
            if self.mode == "lie" and "reveal" in turn.kinds:
                self.done = True
                honest = self.table_seat.build(state, self.agent)
                lie_body: dict[str, Any] = dict(honest.record.body)
                lie_body["nonce"] = bytes(32)
                lie = self.table_seat.sign(state, "reveal", lie_body)
                self._broadcast({"t": "record", "record": lie.raw})
                say("lied")
                await trio.sleep_forever()
            if self.mode == "garbage-seal" and "deck_tokens" in turn.kinds:
                honest = self.table_seat.build(state, self.agent)
                sealed = list(honest.record.body["sealed"])
                if any(entry is not None for entry in sealed):
                    self.done = True
                    i = next(i for i, entry in enumerate(sealed) if entry is not None)
                    sealed[i] = garbage_seal()
                    body = {**honest.record.body, "sealed": sealed}
                    garbage = self.table_seat.sign(state, "deck_tokens", body)
                    self._broadcast({"t": "record", "record": garbage.raw})
                    say(f"sealed garbage at record {garbage.record.seq}")
                    await trio.sleep_forever()
        await super()._write_turn(state)

    def _sealed_if_spynet(self, state: TableState[Any]) -> bool:
        if self.game != "spynet":
            return True
        return any(seal.sender == self.seat for seal in state.game.ops.seals)

    # --- attacks at any time --------------------------------------------------------------

    async def _ticker(self) -> None:
        assert self._nursery is not None
        self._nursery.start_soon(self._attack)
        await super()._ticker()

    def _redial(self, link: Link, after: float = 1.0) -> None:
        """Dialing back is done in ``_drop``, for every seat."""

    def _drop(self, link: Link) -> None:
        """Unlike an honest peer, dial back every seat that hung up on us, even with a goodbye
        (one dialer per seat at a time: two would look like a replayed hello)."""
        super()._drop(link)
        seat = link.seat
        if self._nursery is not None and not self.finished and seat is not None \
                and seat not in self.dialing:
            self.dialing.add(seat)
            self._nursery.start_soon(self._dial_back, seat)

    async def _dial_back(self, seat: int) -> None:
        try:
            await self._dial(seat, 0.5)
        finally:
            self.dialing.discard(seat)

    def _linked_to_all(self) -> bool:
        return len({link.seat for link in self.links.values() if link.seat is not None}) \
            == len(self.roster) - 1

    def _relinked(self) -> bool:
        """Linked to every seat again, by links that carried none of our earlier attacks
        (each of those attacks makes honest peers hang up on us: the next must not be lost). A
        watcher's link does not count: a watcher may keep a link that carried one."""
        seated = {key for key, link in self.links.items() if link.seat is not None}
        return self._linked_to_all() and not (seated & self.used_links)

    def _send_attack(self, frame: dict[str, Any]) -> None:
        self.used_links |= set(self.links)
        self._broadcast(frame)

    async def _attack(self) -> None:
        steps = {
            "abandon-now": self._abandon_now,
            "abandon-retro": self._abandon_retro,
            "frame": self._frame,
            "hello-replay": self._hello_replay,
            "flood": self._flood,
            "chatter": self._chatter,
            "talker": self._talker,
        }
        step = steps.get(self.mode)
        if step is None:
            return
        round_ = 0
        while not self.finished:
            changed = self._changed
            if await step(round_):
                round_ += 1
            await changed.wait()

    def _signed(self, seq: int, prev: bytes, kind: str, body: Any, *, table: bytes | None = None,
                seat: int | None = None) -> SignedRecord:
        """A record signed with our key (``seat`` may name another seat: a forgery)."""
        assert self.seat is not None
        record = Record(table or self.genesis.genesis.table, seq, prev,
                        self.seat if seat is None else seat, kind, body)
        return sign_record(record, self.identity)

    def _vote(self, seq: int, prev: bytes, accused: int, voter: int) -> bytes:
        """A vote signed with our key under ``voter``'s number (a forgery unless it is us)."""
        table = self.genesis.genesis.table
        return absence.sign_vote(self.identity, table, seq, prev, accused, voter)

    async def _abandon_now(self, round_: int) -> bool:
        """Abandon the seat expected next, without any timeout waited."""
        state = self.state
        turn = self.table.expect(state)
        if round_ >= 2 or turn is None or turn.seat == self.seat or self.trigger not in turn.kinds:
            return False
        if not self._relinked() or state.seq + 1 == self.last_place:
            return False
        self.last_place = state.seq + 1
        assert self.seat is not None
        accused = turn.seat
        if round_ == 0:
            votes = {self.seat: self._vote(state.seq + 1, state.link, accused, self.seat)}
            body: dict[str, Any] = absence.abandon_body(accused, votes)
        else:
            body = {"seat": accused, "reason": "timeout"}
        signed = self._signed(state.seq + 1, state.link, "abandon", body)
        self._send_attack({"t": "record", "record": signed.raw})
        form = "own vote" if round_ == 0 else "old form"
        say(f"abandon of seat {accused} at {state.seq + 1} ({form})")
        return True

    async def _abandon_retro(self, round_: int) -> bool:
        """An abandon for a place another seat already wrote, with forged votes."""
        state = self.state
        if round_ >= 3 or state.seq < RETRO_AFTER + 5 * round_ or not self._relinked():
            return False
        assert self.seat is not None
        n = len(self.roster)
        held = next(
            r for r in reversed(self.records[:-3])
            if r.seat != self.seat and r.record.kind not in ("fraud", "abandon", "result")
        )
        seq, accused, prev = held.seq, held.seat, held.record.prev
        others = [v for v in range(n) if v not in (accused, self.seat)][: absence.quorum(n) - 1]
        votes = {self.seat: self._vote(seq, prev, accused, self.seat)}
        for voter in others if round_ > 0 else ():
            votes[voter] = os.urandom(64) if round_ == 1 else self._vote(seq, prev, accused, voter)
        signed = self._signed(seq, prev, "abandon", absence.abandon_body(accused, votes))
        self._send_attack({"t": "record", "record": signed.raw})
        forged = ["only its own vote", "random signatures", "votes signed with its own key"][round_]
        say(f"retroactive abandon of seat {accused} at {seq} (head {state.seq}), {forged}")
        return True

    async def _frame(self, round_: int) -> bool:
        """Evidence that pairs an honest seat's record with something that proves nothing."""
        state = self.state
        if round_ >= 5 or state.seq < RETRO_AFTER + 4 * round_ or not self._relinked():
            return False
        victim = next(r for r in reversed(self.records[:-1]) if r.seat != self.seat)
        seq, prev = victim.seq, victim.record.prev
        body = {"framed": round_}
        if round_ == 0:
            other = self._signed(seq, prev, victim.record.kind, body)
            what = "its own record for that seq"
        elif round_ == 1:
            other = self._signed(seq, prev, victim.record.kind, body, table=os.urandom(16),
                                 seat=victim.seat)
            what = "a record from another table"
        elif round_ == 2:
            other = next(r for r in reversed(self.records)
                         if r.seat not in (self.seat, victim.seat))
            what = f"seat {other.seat}'s record {other.seq}"
        elif round_ == 3:
            other = victim
            what = "the same record"
        else:
            other = self._signed(seq, prev, victim.record.kind, body, seat=victim.seat)
            what = "a record forged in its name"
        self._send_attack({"t": "evidence", "records": [victim.raw, other.raw]})
        say(f"evidence against seat {victim.seat} at {seq}: paired with {what}")
        return True

    async def _hello_replay(self, round_: int) -> bool:
        """Replay captured hellos (and the auth that followed) to every other seat."""
        if round_ >= 3 or not self._linked_to_all() or self.state.seq < 5 * (round_ + 1):
            return False
        seats = {r.identity: i for i, r in enumerate(self.roster)}
        hellos = [f for f in self.captured if f["t"] == "hello" and f["id_key"] in seats]
        if not hellos:
            return False
        for hello in hellos:
            owner = seats[hello["id_key"]]
            auth = next((f for f in self.captured if f["t"] == "auth"
                         and f.get("for") == hello["sig"]), None)
            for target in range(len(self.roster)):
                if target in (owner, self.seat):
                    continue
                outcome = await self._replay_to(target, hello, auth)
                side = "dialer" if hello["echo"] == NO_ECHO else "listener"
                say(f"replayed seat {owner}'s {side} hello to seat {target}: {outcome}")
        return True

    async def _replay_to(
        self, target: int, hello: dict[str, Any], auth: dict[str, Any] | None
    ) -> str:
        entry = self.roster[target]
        try:
            with trio.fail_after(5):
                framed = FramedStream(await trio.open_tcp_stream(entry.host, entry.port))
                async with framed:
                    await framed.send(hello)
                    answer = await framed.receive()
                    if answer["t"] != "hello":
                        return f"answered {answer['t']}"
                    if auth is not None:
                        await framed.send({k: v for k, v in auth.items() if k != "for"})
                    answer = await framed.receive()
                    return f"then answered {answer['t']}"
        except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, trio.TooSlowError,
                OSError) as exc:
            return f"closed ({type(exc).__name__})"

    def _chat(self, counter: int, text: str, seat: int | None = None) -> dict[str, Any]:
        """A chat frame signed with our key (``seat``: in another seat's name), whatever the
        text."""
        assert self.seat is not None
        message = ChatMessage(self.genesis.genesis.table, self.seat if seat is None else seat,
                              counter, self.state.seq, text)
        raw, _ = sign1(encode(message.to_cbor()), self.identity, PROTECTED_CHAT)
        return {"t": "chat", "message": raw}

    async def _chatter(self, round_: int) -> bool:
        self._feed_observers()
        state = self.state
        if round_ >= 5 or state.seq < 4 + 3 * round_ or not self._relinked():
            return False
        assert self.seat is not None
        counter = 10 * (round_ + 1)
        if round_ == 0:
            for text in ("I am Red, trust me", "I am Blue, trust me"):
                self._broadcast(self._chat(counter, text))
            say("said two things under one counter")
            return True
        if round_ == 1:
            for i in range(30):
                self._broadcast(self._chat(counter + i, f"spam {i}"))
            say("said 30 lines at once")
            return True
        attack = {
            2: (self._chat(counter, "x" * 281), "a 281-character line"),
            3: (self._chat(counter, "look\x1b[2J\x1b]0;pwned\x07 here"), "an escape sequence"),
            4: (self._chat(counter, "I resign", seat=(self.seat + 1) % len(self.roster)),
                "a line in another seat's name"),
        }[round_]
        self._send_attack(attack[0])
        say(f"said {attack[1]}")
        return True

    async def _talker(self, round_: int) -> bool:
        """Table talk during play, where the game has none: signed, sent to every link."""
        watching = sum(1 for link in self.links.values() if link.seat is None)
        if round_ >= TALKS or self.finished or not self._linked_to_all() \
                or watching < self.observers_wanted or self.state.seq < 10 + 10 * round_:
            return False
        self._broadcast(self._chat(round_ + 1, f"{TALK_TEXT} ({round_ + 1})"))
        say(f"talked during play at record {self.state.seq}: line {round_ + 1} to "
            f"{len(self.links)} links")
        return True

    def _feed_observers(self) -> None:
        """Once to every observer linked to us: a record forged in another seat's name."""
        assert self.seat is not None
        other = (self.seat + 1) % len(self.roster)
        for link in list(self.links.values()):
            if link.seat is None and link.id not in self.fed and self.state.seq >= 2:
                self.fed.add(link.id)
                forged = self._signed(self.state.seq + 1, self.state.link, "guess", {"rank": 3},
                                      seat=other)
                link.post({"t": "record", "record": forged.raw})
                say(f"fed an observer a record forged in seat {other}'s name")

    async def _flood(self, round_: int) -> bool:
        state = self.state
        if round_ >= 1 or state.seq < RETRO_AFTER or not self._linked_to_all():
            return False
        say(f"flooding at head {state.seq}")
        frames: list[dict[str, Any]] = []
        for i in range(500):
            ahead = 2 + i % 62 if i % 2 == 0 else 1000 + i * 1000
            pad = {"pad": os.urandom(FLOOD_BODY)}
            signed = self._signed(state.seq + ahead, os.urandom(32), self.trigger, pad)
            frames.append({"t": "record", "record": signed.raw})
        frames += [{"t": "sync", "from_seq": 1 + i % 3} for i in range(300)]
        huge = 1 << 40
        frames += [{"t": "ack", "seq": huge + i, "link": os.urandom(32)} for i in range(100)]
        frames += [{"t": "head", "seq": huge + i, "link": os.urandom(32)} for i in range(100)]
        for start in range(0, len(frames), 100):
            for link in list(self.links.values()):
                for frame in frames[start:start + 100]:
                    while link.queued > 1 << 20 and not link.closed:  # within its own outbox
                        await trio.sleep(0.01)
                    link.post(frame)
            await trio.sleep(0.01)
        say(f"flooded {len(frames)} frames to each of {len(self.links)} links")
        return True


def _capture() -> None:
    """Keep every hello and auth frame other peers send us (a wiretap on our own handshakes)."""
    verify_hello, verify_auth = handshake.verify_hello, handshake.verify_auth

    def hello_tap(frame: Mapping[str, Any], **kwargs: Any) -> Any:
        Cheater.captured.append(dict(frame))
        return verify_hello(frame, **kwargs)

    def auth_tap(frame: Mapping[str, Any], dialer: Any, nonce: bytes) -> None:
        Cheater.captured.append({**frame, "for": dialer.sig})
        verify_auth(frame, dialer, nonce)

    handshake.verify_hello = hello_tap  # type: ignore[assignment]
    handshake.verify_auth = auth_tap  # type: ignore[assignment]


# --- low-order keys: knock at the lobby, never sit down -----------------------------------------

SMALL_ORDER_ED25519 = {
    "the identity point": bytes([1]) + bytes(31),
    "the point of order 2": bytes([0xEC]) + b"\xff" * 30 + bytes([0x7F]),
}
BAD_X25519 = {
    "an all-zero table key": bytes(32),
    "a non-canonical table key": bytes([0xED]) + b"\xff" * 30 + bytes([0x7F]),
}


async def _knock(ad: TableAd, frame: dict[str, Any]) -> str:
    try:
        with trio.fail_after(10):
            framed = FramedStream(await trio.open_tcp_stream(ad.address, ad.port))
            async with framed:
                await framed.send(frame)
                answer = await framed.receive()
                return f"answered {answer['t']} {answer.get('reason', '')}".strip()
    except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, trio.TooSlowError,
            OSError) as exc:
        return f"closed ({type(exc).__name__})"


async def low_order(ad: TableAd) -> None:
    identity = Identity(SystemEntropy().take(32))
    nonce = handshake.fresh_nonce
    for what, key in BAD_X25519.items():
        frame = make_hello(identity, key, ad.table_id, "cheater-low-order", nonce=nonce())
        say(f"hello with {what}: {await _knock(ad, frame)}")
    for what, key in SMALL_ORDER_ED25519.items():
        frame = {
            "v": PROTOCOL_VERSION, "t": "hello", "table": ad.table_id, "id_key": key,
            "table_key": bytes.fromhex("09" + "00" * 31), "name": "cheater-low-order", "seat": None,
            "nonce": nonce(), "echo": NO_ECHO,
            # (R = the key's own point, S = 0): verifies any message if the key is accepted
            "sig": key + bytes(32),
        }
        say(f"hello with an identity key of small order ({what}): {await _knock(ad, frame)}")


async def spectator(args: argparse.Namespace) -> None:
    """A spectator that tries to write: each attempt on a fresh, authenticated connection."""
    identity = Identity(SystemEntropy().take(32))
    with trio.fail_after(30):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if (ad.change != "removed" and ad.table_id.hex() == args.table
                        and ad.watching is not None):
                    break
    me = Me.fresh(identity, "cheater-spectator")
    for what in ("record", "chat", "absent"):
        try:
            with trio.fail_after(10):
                framed = FramedStream(await trio.open_tcp_stream(ad.address, ad.port))
                async with framed:
                    await handshake.dial(framed, identity, me.hello(ad.table_id, seat=0),
                                         ad.table_id)
                    genesis = parse_genesis((await framed.receive())["genesis"])
                    table, link = genesis.genesis.table, genesis.link
                    forged = sign_record(Record(table, 1, link, 0, "beacon", {}), identity)
                    frame: dict[str, Any] = {
                        "record": {"t": "record", "record": forged.raw},
                        "chat": {"t": "chat", "message": forged.raw},
                        "absent": {"t": "absent", "seq": 1, "prev": link, "seat": 0, "voter": 1,
                                   "sig": bytes(64)},
                    }[what]
                    await framed.send(frame)
                    while True:
                        answer = await framed.receive()
                        if answer["t"] == "bye":
                            say(f"{what} frame: bye ({answer['reason']})")
                            break
        except (FrameError, trio.EndOfChannel, trio.BrokenResourceError, trio.TooSlowError,
                OSError) as exc:
            say(f"{what} frame: closed ({type(exc).__name__})")


async def main(args: argparse.Namespace) -> None:
    if args.mode == "spectator":
        await spectator(args)
        return
    Cheater.mode, Cheater.game, Cheater.stall_at = args.mode, args.game, args.stall_at
    Cheater.observers_wanted = args.observers
    definition = registry.load(args.game)
    entropy = SystemEntropy()
    identity = Identity(entropy.take(32))
    with trio.fail_after(30):
        async with browse_tables(args.interface) as ads:
            async for ad in ads:
                if ad.change != "removed" and ad.table_id.hex() == args.table:
                    break
    if args.mode == "low-order":
        await low_order(ad)
        return
    if args.mode == "hello-replay":
        _capture()
    session = await join_table(
        ad, definition=definition, me=Me.fresh(identity, f"cheater-{args.mode}"),
        interface=args.interface, root=Path(args.out).parent / "cheater-home",
        agent_for=lambda seat: definition.bots["random"](entropy, seat),
        config=SessionConfig(turn_timeout=args.turn_timeout,
                             announce=args.mode in ("chatter", "talker")),
        session_class=Cheater,
    )
    say(f"seat {session.seat}")
    await session.run()
    Path(args.out).write_bytes(session.transcript.to_bytes())


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tests.net.cheater")
    p.add_argument("mode")
    p.add_argument("interface")
    p.add_argument("out")
    p.add_argument("table")
    p.add_argument("--game", choices=sorted(TRIGGER), default="spies-and-lies")
    p.add_argument("--turn-timeout", type=float, default=300.0)
    p.add_argument("--observers", type=int, default=0,
                   help="talker: the observers to be linked to before it talks")
    p.add_argument("--stall-at", default=None, help="stall: the record kind to stall at "
                   "(default: the game's trigger kind)")
    return p.parse_args(argv)


if __name__ == "__main__":
    trio.run(main, parse())

"""Table talk and observers, without sockets: the signed chat format, the chat book's rules, the
audit of a chat file, gossip between real ``PeerProtocol``s, and what an observer link may
send and is sent."""

from __future__ import annotations

from typing import Any

import cbor2
import pytest

from spycraft.crypto.chat import (
    MAX_CHAT_CHARS,
    PROTECTED_CHAT,
    ChatError,
    ChatMessage,
    check_chat,
    check_chat_log,
    parse_chat,
    sign_chat,
)
from spycraft.crypto.encoding import encode
from spycraft.crypto.errors import MalformedRecord
from spycraft.crypto.records import COSE_SIGN1_TAG, parse_record, sign1
from spycraft.crypto.text import clean_line, printable
from spycraft.p2p.chat import SPEAKER_BURST, ChatBook, ChatRefused, Heard, Muted
from spycraft.p2p.discovery import (
    TableTxt,
    _txt_bytes,
    _txt_properties,
    options_digest,
    parse_table_txt,
)
from spycraft.p2p.protocol import OBSERVER_FRAMES, Action, Close, Notice, Send, StoreChat
from tests.p2p.simnet import Peer, SimNet, finish

ESC = "\x1b"


def _net(players: int = 3, seed: int = 7) -> SimNet:
    return SimNet(players, seed=seed)


def _said(net: SimNet, seat: int, counter: int, text: str, seen: int = 0,
          signer: int | None = None, table: bytes | None = None) -> bytes:
    """A chat message signed with seat ``signer``'s key (its own by default), bypassing the
    text rules of ``sign_chat`` (a modified client signs whatever it likes)."""
    genesis = net.local.genesis.genesis
    message = ChatMessage(table or genesis.table, seat, counter, seen, text)
    identity = net.peers[seat if signer is None else signer].seat.identity
    raw, _ = sign1(encode(message.to_cbor()), identity, PROTECTED_CHAT)
    return raw


# --- the signed format ------------------------------------------------------------------------


def test_a_chat_message_is_never_a_record_and_a_record_never_a_chat_message():
    net = _net()
    genesis = net.local.genesis.genesis
    said = sign_chat(ChatMessage(genesis.table, 0, 1, 0, "hello"), net.peers[0].seat.identity)
    check_chat(said, genesis)
    with pytest.raises(MalformedRecord):
        parse_record(said.raw)
    state = net.peers[0].protocol.state
    record = net.peers[0].seat.sign(state, "leg", {"number": 1})
    with pytest.raises(ChatError, match="not a chat message"):
        parse_chat(record.raw)
    # The record's signature under the chat header (same payload shape cannot even be built,
    # but the signature alone must not carry over either).
    relabelled = encode(cbor2.CBORTag(COSE_SIGN1_TAG, [PROTECTED_CHAT, {}, said.payload,
                                                       record.signature]))
    with pytest.raises(ChatError, match="does not verify"):
        check_chat(parse_chat(relabelled), genesis)


def test_chat_text_is_one_printable_line_of_at_most_280_characters():
    net = _net()
    for text in ("", " padded ", "x" * (MAX_CHAT_CHARS + 1), f"red {ESC}[2J", "a\nb", "\u202eevil"):
        with pytest.raises(ChatError):
            parse_chat(_said(net, 0, 1, text))
    assert parse_chat(_said(net, 0, 1, "é" * MAX_CHAT_CHARS)).text == "é" * MAX_CHAT_CHARS
    assert clean_line(f"  hi{ESC}[31m  there\n") == "hi [31m there"
    assert printable(f"bob{ESC}]0;pwned\x07") == "bob?]0;pwned?"


def test_a_message_signed_with_another_seats_key_or_for_another_table_is_named():
    net = _net()
    genesis = net.local.genesis.genesis
    with pytest.raises(ChatError, match="seat 1's key") as forged:
        check_chat(parse_chat(_said(net, 0, 4, "i am seat 0", signer=1)), genesis)
    assert (forged.value.seat, forged.value.counter) == (0, 4)
    with pytest.raises(ChatError, match="another table"):
        check_chat(parse_chat(_said(net, 0, 1, "hi", table=bytes(16))), genesis)


# --- the chat book ----------------------------------------------------------------------------


def test_a_speaker_over_its_bucket_is_dropped_with_one_notice_and_heard_again_later():
    net = _net()
    book = ChatBook(net.local.genesis.genesis, seat=2, identity=net.peers[2].seat.identity)
    verdicts = []
    for counter in range(1, int(SPEAKER_BURST) + 6):
        verdicts += book.offer(_said(net, 0, counter, f"line {counter}"), 0, now=0.0)
    heard = [v for v in verdicts if isinstance(v, Heard)]
    muted = [v for v in verdicts if isinstance(v, Muted)]
    assert len(heard) == SPEAKER_BURST and len(muted) == 1 and muted[0].seat == 0
    later = book.offer(_said(net, 0, 40, "calm again"), 0, now=10.0)
    assert [type(v) for v in later] == [Heard]
    # our own client holds us to the same bucket before it signs
    for _ in range(int(SPEAKER_BURST)):
        book.offer(book.compose("me", 0, now=20.0).raw, 0, now=20.0)
    with pytest.raises(ChatRefused, match="too fast"):
        book.compose("once more", 0, now=20.0)


def test_two_messages_with_one_counter_are_kept_as_a_chat_equivocation():
    net = _net()
    book = ChatBook(net.local.genesis.genesis, seat=2, identity=net.peers[2].seat.identity)
    one, two = _said(net, 1, 1, "go left"), _said(net, 1, 1, "go right")
    assert [type(v) for v in book.offer(one, 0, 0.0)] == [Heard]
    assert book.offer(one, 0, 0.0) == []  # the same message by another path
    (second,) = book.offer(two, 0, 0.0)
    assert isinstance(second, Heard) and second.line.equivocation
    assert "chat equivocation" in second.line.describe()
    assert book.offer(_said(net, 1, 1, "go back"), 0, 0.0) == []  # two variants are proof enough


def test_a_message_tied_to_a_record_not_yet_held_waits_for_it():
    net = _net()
    book = ChatBook(net.local.genesis.genesis, seat=None, identity=None)
    assert book.offer(_said(net, 0, 1, "after record 5", seen=5), 3, 0.0) == []
    assert book.advance(4, 0.1) == []
    (heard,) = book.advance(5, 0.2)
    assert isinstance(heard, Heard) and heard.line.seen == 5
    book.offer(_said(net, 0, 2, "a record never written", seen=99), 5, 0.3)
    (dropped,) = book.abandon_pending()
    assert isinstance(dropped, Muted) and "never wrote" in dropped.why
    with pytest.raises(ChatRefused):
        book.compose("spectators do not talk", 5, 1.0)


# --- the chat file's audit --------------------------------------------------------------------


def test_the_audit_of_a_chat_file_names_each_bad_message_by_speaker_and_counter():
    net = _net()
    genesis = net.local.genesis.genesis
    good = [_said(net, 0, 1, "hi", 0), _said(net, 1, 1, "hello", 1), _said(net, 0, 2, "gg", 2)]
    assert check_chat_log(b"".join(good), genesis, head=5).valid
    altered = bytearray(good[1])
    altered[good[1].index(b"hello")] ^= 1  # "iello": readable, no longer what seat 1 signed
    report = check_chat_log(good[0] + bytes(altered) + good[2], genesis, head=5)
    assert not report.valid
    assert any("message 1 of seat 1" in p and "does not verify" in p for p in report.problems)
    swapped = check_chat_log(good[2] + good[0], genesis, head=5)
    assert any("message 1 of seat 0: out of order" in p for p in swapped.problems)
    ahead = check_chat_log(_said(net, 2, 1, "from the future", 9), genesis, head=5)
    assert any("past the transcript's end" in p for p in ahead.problems)
    wrong = check_chat_log(_said(net, 2, 1, "hi", 0, signer=0), genesis, head=5)
    assert any("message 1 of seat 2: it is signed with seat 0's key" in p
               for p in wrong.problems)
    cut = check_chat_log(good[0] + good[1][:-3], genesis, head=5)
    assert any("cut or damaged" in p for p in cut.problems) and len(cut.lines) == 1
    lie = check_chat_log(good[0] + _said(net, 0, 1, "bye", 0), genesis, head=5)
    assert lie.valid and len(lie.equivocations) == 1 and "chat equivocation" in lie.describe()


# --- gossip between peers ---------------------------------------------------------------------


def _collect(net: SimNet) -> dict[int, list[Any]]:
    """Every peer's StoreChat and chat notices, as the real shell would store and show them."""
    seen: dict[int, list[Any]] = {p.index: [] for p in net.peers}
    original = net.apply

    def apply(peer: Peer, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, StoreChat):
                seen[peer.index].append(action.raw)
            elif isinstance(action, Notice) and action.kind in ("chat", "muted"):
                seen[peer.index].append(action)
        original(peer, actions)

    net.apply = apply  # type: ignore[method-assign]
    return seen


def test_a_line_reaches_every_peer_once_and_a_chat_equivocation_reaches_everyone():
    net = _net(players=4)
    seen = _collect(net)
    net.run(0.5)
    net.apply(net.peers[0], net.peers[0].protocol.say("good luck all", net.now))
    # seat 3 tells seats 0 and 1 one thing and seat 2 another, under one counter
    one, two = _said(net, 3, 1, "trust seat 1"), _said(net, 3, 1, "trust seat 2")
    for other, raw in ((0, one), (1, one), (2, two)):
        net.send(3, other, {"t": "chat", "message": raw}, lossless=True)
    finish(net)
    for peer in net.peers[:3]:
        stored = [x for x in seen[peer.index] if isinstance(x, bytes)]
        lines = [x.data for x in seen[peer.index] if isinstance(x, Notice) and x.kind == "chat"]
        assert len(stored) == 3, peer.index  # the greeting once, both versions of seat 3's
        assert [line.text for line in lines].count("good luck all") == 1
        assert sum(line.equivocation for line in lines) == 1
        report = check_chat_log(b"".join(stored), net.local.genesis.genesis,
                                peer.protocol.head)
        assert report.valid and len(report.equivocations) == 1
    assert not any(peer.closed for peer in net.peers)


def test_a_forged_or_escaped_chat_frame_closes_the_link_it_came_by_and_nothing_is_shown():
    net = _net()
    seen = _collect(net)
    net.run(0.5)
    for raw in (_said(net, 0, 1, "i am seat 0", signer=2), _said(net, 2, 1, f"x{ESC}[2J")):
        net.peers[1].closed.clear()
        net.peers[1].protocol.link_up(2, 2, net.now)  # seat 2 dials again after each close
        net.apply(net.peers[1], net.peers[1].protocol.receive(2, {"t": "chat", "message": raw},
                                                              net.now))
        assert 2 in net.peers[1].closed
    assert seen[1] == []


# --- observers --------------------------------------------------------------------------------


OBSERVER = 99


def test_an_observer_link_may_send_no_record_vote_or_chat_and_is_sent_no_vote_or_ack():
    net = _net(players=3)
    peer = net.peers[0]
    to_observer: list[dict[str, Any]] = []
    original = net.send

    def send(sender: int, receiver: int, frame: dict[str, Any], *, lossless: bool = False) -> None:
        if receiver == OBSERVER:
            to_observer.append(frame)
            return
        original(sender, receiver, frame, lossless=lossless)

    net.send = send  # type: ignore[method-assign]
    net.apply(peer, peer.protocol.link_up(OBSERVER, None, 0.0))
    net.run(1.0)
    net.apply(net.peers[1], net.peers[1].protocol.say("hello", net.now))
    finish(net)
    kinds = {frame["t"] for frame in to_observer}
    assert {"record", "head", "chat"} <= kinds
    assert not kinds & {"absent", "ack"}, kinds

    record = peer.protocol.records[-1].raw
    for frame, why in (({"t": "record", "record": record}, "observer"),
                       ({"t": "chat", "message": _said(net, 1, 9, "relayed by a spectator")},
                        "observer"),
                       # an observer may pass evidence on (it may hold both halves alone), but
                       # evidence that proves nothing closes its link like anyone's
                       ({"t": "evidence", "records": [record, record]}, "proves nothing")):
        peer.protocol.link_up(OBSERVER, None, net.now)
        actions = peer.protocol.receive(OBSERVER, frame, net.now)
        assert any(isinstance(a, Close) and a.link == OBSERVER and why in a.reason
                   for a in actions), frame["t"]
    assert {"head", "sync", "bye", "evidence", "sync_reply"} <= OBSERVER_FRAMES
    # an observer may send the branch that decided for its own record (its proof), paid from
    # its budget: records a seat signed, checked as anyone's; one we hold changes nothing
    peer.protocol.link_up(OBSERVER, None, net.now)
    actions = peer.protocol.receive(
        OBSERVER, {"t": "sync_reply", "from_seq": 1, "records": [record]}, net.now)
    assert not any(isinstance(a, Close) for a in actions) and OBSERVER in peer.protocol.links


def test_an_observer_protocol_sends_nothing_but_heads_and_sync_requests():
    net = _net(players=2)
    finish(net)
    from spycraft.p2p.protocol import PeerProtocol

    observer = PeerProtocol(table=net.definition.table(), genesis=net.local.genesis, seat=None)
    sent: list[Send] = []
    sent += [a for a in observer.link_up(0, 0, 0.0) if isinstance(a, Send)]
    records = [r.raw for r in net.peers[0].protocol.records]
    actions = observer.receive(0, {"t": "sync_reply", "from_seq": 1, "records": records}, 1.0)
    sent += [a for a in actions if isinstance(a, Send)]
    sent += [a for a in observer.tick(2.0) if isinstance(a, Send)]
    assert observer.finished and observer.records == net.peers[0].protocol.records
    assert {a.frame["t"] for a in sent} <= OBSERVER_FRAMES


def test_the_ad_of_a_table_in_play_says_how_many_watch_and_through_which_seat():
    txt = TableTxt(bytes(16), "resistance", options_digest("resistance", {}), 5, 5, "ABCD", 1,
                   watching=3, source="2")
    assert parse_table_txt(_txt_bytes(_txt_properties(txt))) == txt
    lobby = TableTxt(bytes(16), "resistance", options_digest("resistance", {}), 1, 5, "ABCD", 1)
    assert parse_table_txt(_txt_bytes(_txt_properties(lobby))).watching is None


# --- when a game allows talk ------------------------------------------------------------------


def test_a_spynet_line_said_during_play_is_dropped_and_counted_at_every_peer_never_kept():
    """SpyNet's rules §11: no channel between players while the game runs. A modified client
    (seat 2) signs lines anyway and sends them to both others: each honest peer checks the
    signature, drops the line unread, counts it against seat 2 and tells it once; nothing is
    stored, shown or passed on, and no link closes. Our own client refuses to sign one; after
    the result talk is open again."""
    from spycraft.engines import registry
    from spycraft.p2p.chat import talk_off_reason

    spynet = registry.load("spynet")
    assert spynet.talk == registry.TALK_AFTER
    net = SimNet(3, seed=3, definition=spynet, options=spynet.genesis_options(3))
    seen = _collect(net)
    relayed: list[int] = []

    def watch(receiver: Peer, sender: int, frame: dict[str, Any]) -> bool:
        if frame["t"] == "chat" and sender != 2:
            relayed.append(sender)
        return False

    net.on_frame = watch
    net.run(0.5)
    with pytest.raises(ChatRefused, match="talk is off in this game while it runs"):
        net.peers[0].protocol.say("partner, pass me a mission", net.now)
    for counter in range(1, 5):
        net.run(net.now + 0.3)
        head = net.peers[2].protocol.head
        for other in (0, 1):
            raw = _said(net, 2, counter, f"secret {counter}", seen=head)
            net.send(2, other, {"t": "chat", "message": raw}, lossless=True)
            net.send(2, other, {"t": "chat", "message": raw}, lossless=True)  # and a copy
    finish(net)
    for peer in net.peers[:2]:
        assert peer.protocol.finished
        assert not [x for x in seen[peer.index] if isinstance(x, bytes)], "nothing stored"
        notices = [x for x in seen[peer.index] if isinstance(x, Notice)]
        assert [n.kind for n in notices] == ["muted"], notices  # told once, never shown
        assert notices[0].data[0] == 2 and "talk is off" in notices[0].data[1]
        assert peer.protocol.chat.dropped == {2: 4}
        assert peer.protocol.chat.lines == [] and peer.protocol.chat.history == []
        assert "seat 2 4 lines" in peer.protocol.chat.dropped_lines()
        assert 2 not in peer.closed
    assert relayed == [], "a dropped line is passed on by nobody"
    assert "until the result" in talk_off_reason("spynet")

    # the result is recorded: talk is open, as in the lobby
    peer = net.peers[0]
    net.apply(peer, peer.protocol.say("good game", net.now))
    net.settle()
    assert [line.text for line in net.peers[1].protocol.chat.lines] == ["good game"]


def test_a_stored_line_said_while_talk_was_off_is_not_taken_back_on_a_restart():
    from spycraft.engines import registry
    from spycraft.p2p.chat import talk_off_reason

    spynet = registry.load("spynet")
    net = SimNet(2, seed=4, definition=spynet, options=spynet.genesis_options(2))
    raw = _said(net, 1, 1, "kept against the rules", seen=0)
    book = ChatBook(net.local.genesis.genesis, seat=0, identity=net.peers[0].seat.identity,
                    stored=(parse_chat(raw),))
    assert book.lines == []
    with pytest.raises(ChatRefused, match="until the result"):
        book.compose("hello", 0, 0.0)
    assert talk_off_reason("spynet") in str(ChatRefused(book.off_reason()))

"""One order rule for table talk, the receiver's and the audit's (issue 18, attack 8): whatever a
lying speaker signs, what an honest peer keeps always passes the audit of its own chat file."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spycraft.crypto.chat import PROTECTED_CHAT, ChatMessage, check_chat_log
from spycraft.crypto.encoding import encode
from spycraft.crypto.records import sign1
from spycraft.p2p.chat import ChatBook, Heard, Muted
from tests.p2p.simnet import SimNet

NET = SimNet(3, seed=11)
GENESIS = NET.local.genesis.genesis


def said(seat: int, counter: int, seen: int, text: str = "hello") -> bytes:
    message = ChatMessage(GENESIS.table, seat, counter, seen, text)
    raw, _ = sign1(encode(message.to_cbor()), NET.peers[seat].seat.identity, PROTECTED_CHAT)
    return raw


def kept(book: ChatBook) -> bytes:
    return b"".join(book.history)


def test_a_line_whose_seen_goes_back_is_dropped_with_one_notice_and_the_file_audits() -> None:
    book = ChatBook(GENESIS, seat=0, identity=NET.peers[0].seat.identity)
    assert [type(v) for v in book.offer(said(1, 1, 4), 6, 0.0)] == [Heard]
    (dropped,) = book.offer(said(1, 2, 2), 6, 0.0)  # a later line tied to an earlier record
    assert isinstance(dropped, Muted) and dropped.seat == 1
    assert "tied to record 4" in dropped.why and "tied to record 2" in dropped.why
    assert book.offer(said(1, 3, 1), 6, 0.0) == []  # one notice until its lines are kept again
    assert [type(v) for v in book.offer(said(1, 4, 5), 6, 0.0)] == [Heard]
    report = check_chat_log(kept(book), GENESIS, head=6)
    assert report.valid, report.problems
    # the audit would have refused the dropped line, by the same rule
    refused = check_chat_log(said(1, 1, 4) + said(1, 2, 2), GENESIS, head=6)
    assert any("message 2 of seat 1: out of order" in p for p in refused.problems)


def test_an_equivocation_of_an_older_counter_is_kept_and_audits_as_one() -> None:
    """Message 1, message 2, then another message 1: a chat equivocation, shown as such; the
    audit once called it out of order, so the honest peer's file failed."""
    book = ChatBook(GENESIS, seat=0, identity=NET.peers[0].seat.identity)
    for raw in (said(2, 1, 0, "left"), said(2, 2, 1), said(2, 1, 0, "right")):
        book.offer(raw, 3, 0.0)
    assert [line.equivocation for line in book.lines] == [False, False, True]
    report = check_chat_log(kept(book), GENESIS, head=3)
    assert report.valid and len(report.equivocations) == 1, report.problems


def test_our_own_line_after_a_rollback_is_tied_no_earlier_than_our_last() -> None:
    book = ChatBook(GENESIS, seat=0, identity=NET.peers[0].seat.identity)
    first = book.compose("before", 5, 0.0)
    book.offer(first.raw, 5, 0.0)
    second = book.compose("after the rollback", 3, 1.0)  # our head went back to 3
    assert second.seen == 5
    assert book.offer(second.raw, 3, 1.0) == []  # it waits until we hold record 5 again
    assert [type(v) for v in book.advance(5, 2.0)] == [Heard]
    assert check_chat_log(kept(book), GENESIS, head=5).valid


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(0, 8),
                          st.sampled_from(["a", "b"])), max_size=30),
       st.integers(0, 8))
def test_whatever_speakers_sign_an_honest_peers_own_chat_file_audits(
    lines: list[tuple[int, int, int, str]], head: int
) -> None:
    book = ChatBook(GENESIS, seat=0, identity=NET.peers[0].seat.identity)
    for i, (seat, counter, seen, text) in enumerate(lines):
        book.offer(said(seat, counter, seen, text), head, float(i))
    book.advance(head, 100.0)
    report = check_chat_log(kept(book), GENESIS, head=head)
    assert report.valid, report.problems
    assert len(report.lines) == len(book.lines)

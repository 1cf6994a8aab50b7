"""Who may link to a peer in play, and when a lost link is dialed again (``p2p.admission``):
the door's rules, without sockets or clocks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spycraft.p2p.admission import (
    ALREADY_CONNECTING,
    BACKOFF_MAX,
    FORGIVE_AFTER,
    LOWER_SEAT_DELAY,
    OFFENCE_BURST,
    REDIAL_AFTER,
    REDIAL_AFTER_BYE,
    SLOT_BACKOFF,
    WATCHERS_PER_ADDRESS,
    Admission,
)

SEATS = [bytes([i]) * 32 for i in range(4)]
HOST = b"\xee" * 32  # a seatless host, named at the start
STRANGER = b"\x99" * 32


def spectator(n: int) -> bytes:
    return (1000 + n).to_bytes(2, "big") * 16  # never a seat's key


def door(seat: int | None = 0, watchers: int = 8) -> Admission:
    return Admission(SEATS, seat, observers=frozenset({HOST}), watchers=watchers)


def test_a_seat_and_an_observer_named_at_the_start_always_come_in() -> None:
    d = door(watchers=0)
    full = {spectator(i): "10.0.0.9" for i in range(8)}
    for identity in [*SEATS, HOST]:
        assert d.admit(identity, "10.0.0.9", 0.0, full) is None


def test_a_seatless_peer_admits_no_spectator() -> None:
    assert door(seat=None).admit(STRANGER, "10.0.0.5", 0.0, {}) == \
        "not seated at this table (watch through a seat)"


def test_a_seat_admits_spectators_while_it_has_room_and_a_known_one_always() -> None:
    d = door(watchers=3)
    watching = {spectator(i): f"10.0.0.{i}" for i in range(3)}
    assert d.admit(STRANGER, "10.0.0.7", 0.0, dict(list(watching.items())[:2])) is None
    assert d.admit(STRANGER, "10.0.0.7", 0.0, watching) == \
        "no room for more spectators here (watch through another seat)"
    assert d.admit(spectator(1), "10.0.0.1", 0.0, watching) is None  # connects again


def test_one_address_holds_at_most_its_share_of_the_spectators_slots() -> None:
    """Red team 7: spectator identities cost nothing, so one silent stranger held every slot of
    every seat and shut ``spycraft watch`` out. One address now holds two at most."""
    d = door(watchers=8)
    mine = {spectator(i): "10.0.0.66" for i in range(WATCHERS_PER_ADDRESS)}
    assert d.admit(STRANGER, "10.0.0.66", 0.0, mine) == \
        "no room for more spectators from your address here"
    assert d.admit(STRANGER, "10.0.0.5", 0.0, mine) is None
    assert d.admit(spectator(0), "10.0.0.66", 0.0, mine) is None  # its own, connecting again


def test_a_newcomer_let_in_holds_its_slot_until_its_handshake_ends() -> None:
    """Red team 8: admission is asked at the first hello, and a stranger's sixteen handshakes
    in flight at once all passed it while only linked spectators counted. A newcomer let in
    reserves its slot; the slot is freed when its handshake ends, linked or not."""
    d = door(watchers=8)
    tickets = []
    for n in range(WATCHERS_PER_ADDRESS):
        assert d.admit(spectator(n), "10.0.0.66", 0.0, {}) is None
        ticket = d.reserve(spectator(n), "10.0.0.66", {})
        assert ticket is not None
        tickets.append(ticket)
    assert d.admit(spectator(99), "10.0.0.66", 0.0, {}) == \
        "no room for more spectators from your address here"
    for n in range(8 - WATCHERS_PER_ADDRESS):  # other addresses fill the rest
        assert d.admit(spectator(100 + n), f"10.0.1.{n}", 0.0, {}) is None
        d.reserve(spectator(100 + n), f"10.0.1.{n}", {})
    assert d.admit(spectator(200), "10.0.2.1", 0.0, {}) == \
        "no room for more spectators here (watch through another seat)"
    for ticket in tickets:  # those two handshakes gave way to newer ones (no fault of theirs)
        d.release(ticket, failed=False, now=0.0)
    assert d.admit(spectator(99), "10.0.0.66", 0.0, {}) is None


def test_an_address_whose_handshake_failed_holding_a_slot_waits_for_a_new_one() -> None:
    """Red team 9: four addresses that stalled after their hellos, and came back when the
    handshake timed out, held every slot for one refusal each per ten seconds. A handshake that
    held a slot and failed costs its address every new slot for ``SLOT_BACKOFF``."""
    d = door()
    ticket = d.reserve(spectator(1), "10.0.0.66", {})
    assert ticket is not None
    d.release(ticket, failed=True, now=100.0)
    refusal = d.admit(spectator(2), "10.0.0.66", 101.0, {})
    assert refusal is not None and refusal.endswith("try again in 29 s")
    assert d.admit(spectator(2), "10.0.0.5", 101.0, {}) is None  # another address: in
    assert d.admit(SEATS[1], "10.0.0.66", 101.0, {}) is None  # a seat is never a spectator
    assert d.admit(spectator(2), "10.0.0.66", 100.0 + SLOT_BACKOFF, {}) is None
    linked = d.reserve(spectator(3), "10.0.0.7", {})
    assert linked is not None
    d.release(linked, failed=False, now=100.0)  # adopted as a link: no wait
    assert d.admit(spectator(4), "10.0.0.7", 100.5, {}) is None


def test_seats_observers_and_linked_spectators_take_no_new_slot() -> None:
    d = door()
    linked = {spectator(1): "10.0.0.1"}
    assert d.reserve(SEATS[1], "10.0.0.1", linked) is None
    assert d.reserve(HOST, "10.0.0.1", linked) is None
    assert d.reserve(spectator(1), "10.0.0.1", linked) is None
    assert d.reserved == {}


def test_a_peer_whose_second_connection_is_settling_is_told_so() -> None:
    d = door()
    d.settling.add(SEATS[2])
    assert d.admit(SEATS[2], "10.0.0.2", 0.0, {}) == ALREADY_CONNECTING


def test_a_link_lost_by_chance_is_dialed_again_at_once_and_costs_its_seat_nothing() -> None:
    d = door()
    for _ in range(100):
        assert d.after_losing(SEATS[1], 1, lived=0.1, offence=None, now=5.0) == REDIAL_AFTER
    assert d.admit(SEATS[1], "10.0.0.1", 5.0, {}) is None
    assert d.dial_not_before(SEATS[1]) == 0.0


def test_a_seat_cut_off_for_what_it_sent_pays_from_its_bucket_then_waits_a_doubling_backoff(
) -> None:
    d = door()
    now = 100.0
    for _ in range(int(OFFENCE_BURST)):
        assert d.after_losing(SEATS[1], 1, lived=0.1, offence="garbage", now=now) == \
            REDIAL_AFTER_BYE
        assert d.admit(SEATS[1], "10.0.0.1", now, {}) is None
    waits = [d.after_losing(SEATS[1], 1, lived=0.1, offence="garbage", now=now)
             for _ in range(8)]
    assert waits == [min(REDIAL_AFTER_BYE * 2.0 ** k, BACKOFF_MAX) for k in range(8)]
    assert waits[-1] == BACKOFF_MAX
    refusal = d.admit(SEATS[1], "10.0.0.1", now + 1, {})
    assert refusal is not None and refusal.startswith("cut off for what it sent")
    assert d.dial_not_before(SEATS[1]) == now + BACKOFF_MAX
    assert d.admit(SEATS[1], "10.0.0.1", now + BACKOFF_MAX, {}) is None  # waited it out
    # a link that lived long enough clears the doubling
    later = now + 10_000.0  # the bucket is full again too
    for _ in range(int(OFFENCE_BURST)):
        d.after_losing(SEATS[1], 1, lived=0.1, offence="garbage", now=later)
    assert d.after_losing(SEATS[1], 1, lived=FORGIVE_AFTER, offence="garbage", now=later) == \
        REDIAL_AFTER_BYE


def test_a_spectators_offence_is_its_addresses_and_costs_no_identity_a_backoff() -> None:
    d = door()
    for _ in range(50):
        assert d.after_losing(STRANGER, None, lived=0.0, offence="garbage", now=1.0) == \
            REDIAL_AFTER
    assert STRANGER not in d.offences


def test_one_seats_offences_are_its_own() -> None:
    d = door()
    for _ in range(int(OFFENCE_BURST) + 3):
        d.after_losing(SEATS[1], 1, lived=0.0, offence="garbage", now=1.0)
    assert d.admit(SEATS[1], "10.0.0.1", 1.5, {}) is not None
    assert d.admit(SEATS[2], "10.0.0.1", 1.5, {}) is None
    assert d.after_losing(SEATS[2], 2, lived=0.0, offence="garbage", now=1.5) == REDIAL_AFTER_BYE


def test_the_lower_seat_dials_a_lost_link_back_later() -> None:
    assert door(seat=0).redial_delay(2, 1.0) == 1.0 + LOWER_SEAT_DELAY
    assert door(seat=2).redial_delay(0, 1.0) == 1.0
    assert door(seat=None).redial_delay(0, 1.0) == 1.0  # an observer dials every seat it loses


@given(st.integers(0, 3), st.integers(0, 3), st.booleans())
def test_two_live_links_of_two_seats_leave_both_ends_holding_the_same_one(
    a: int, b: int, a_dialed_first: bool,
) -> None:
    """Seats a and b dialed each other at once: each end holds one link as old and one as new,
    and both keep the one the lower seat dialed."""
    if a == b:
        return
    first_dialer = a if a_dialed_first else b
    for me, other in ((a, b), (b, a)):
        old_dialed = first_dialer == me  # the old link: did I dial it?
        keep_new = door(seat=me).keep_new(other, old_dialed, not old_dialed)
        kept_dialer = (me if not old_dialed else other) if keep_new else \
            (me if old_dialed else other)
        assert kept_dialer == min(a, b)


def test_with_one_dialer_or_an_observer_the_older_link_stays() -> None:
    assert not door(seat=0).keep_new(1, True, True)
    assert not door(seat=0).keep_new(None, False, True)
    assert not door(seat=None).keep_new(1, False, True)

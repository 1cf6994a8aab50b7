"""Red team 17: an observer (the host that does not play, a spectator) that holds the losing
record of a place must learn the branch that beat it.

Seen on the LAN (``test_lan``'s claim, about one run in four before its peer was made
deterministic): at two seats the loser claimed the winner absent at the winner's ``final`` and
built its own final and the result on the claim; the winner rolled back to that branch (a
result settles a branch, rule 1 of ``p2p.protocol``), but the host had taken the winner's
``final`` first. The seats told it their head; the host's head hash differed, so a seat sent it
its record of that place alone, which is only a claim against the record the host holds (rule
3) and loses there. An observer sends no records, so it can never offer its record as a
conflict and be answered with the proof; the seats finished and left, and the host waited
for ever with a transcript that no seat holds. Here, without sockets: the two branches are
built through the engines' API with the seats' own keys, and the frames are exchanged until
nothing more is sent.
"""

from __future__ import annotations

from typing import Any

from spycraft.p2p.protocol import PeerProtocol, Send
from tests.conformance.games import Config, declare_absent, new_table

SEAT_LINK, OBSERVER_LINK = 0, 1  # the observer's link to seat 1, seat 1's link to the observer


def branches() -> tuple[Any, list[Any], list[Any]]:
    """Confusion seed 0 at White's final: (the table, White's final on top, Red's claim branch
    up to the result)."""
    local, agents = new_table(Config("confusion", 2, ()), 0)
    while (turn := local.table.expect(local.state)) is not None and turn.kinds != ("final",):
        local.step(agents)
    assert turn is not None and turn.seat == 0
    base_state, base = local.state, list(local.records)
    local.step(agents)
    finals = list(local.records)
    local.state, local.records = base_state, list(base)
    declare_absent(local, by=(1,))
    local.run(agents)
    return local, finals, list(local.records)


def exchange(observer: PeerProtocol, seat: PeerProtocol) -> None:
    """Deliver every frame both ways, the clock ticking, until both are quiet."""
    now = 0.0
    to_seat = [a for a in observer.link_up(SEAT_LINK, 1, now) if isinstance(a, Send)]
    to_observer = [a for a in seat.link_up(OBSERVER_LINK, None, now) if isinstance(a, Send)]
    for _ in range(200):
        now += 0.5
        out_obs: list[Send] = []
        out_seat: list[Send] = []
        for send in to_observer:
            out_obs += [a for a in observer.receive(SEAT_LINK, send.frame, now)
                        if isinstance(a, Send)]
        for send in to_seat:
            out_seat += [a for a in seat.receive(OBSERVER_LINK, send.frame, now)
                         if isinstance(a, Send)]
        out_obs += [a for a in observer.tick(now) if isinstance(a, Send)]
        out_seat += [a for a in seat.tick(now) if isinstance(a, Send)]
        to_seat, to_observer = out_obs, out_seat
        if observer.finished and observer.records == seat.records:
            return


def test_an_observer_holding_the_losing_record_takes_the_branch_the_seats_settled() -> None:
    local, finals, claimed = branches()
    table = local.definition.table()
    observer = PeerProtocol(table=table, genesis=local.genesis, seat=None,
                            records=tuple(finals))
    seat = PeerProtocol(table=table, genesis=local.genesis, seat=local.seats[1],
                        records=tuple(claimed))
    assert seat.finished and not observer.finished
    exchange(observer, seat)
    place = len(finals) - 1
    held = [(r.seq, r.seat, r.record.kind) for r in observer.records[place:]]
    assert held == [(r.seq, r.seat, r.record.kind) for r in claimed[place:]], held
    assert observer.records == seat.records and observer.finished

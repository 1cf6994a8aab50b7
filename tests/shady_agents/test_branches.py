"""A seat whose table rolled back: what it knows of its own tools is the chain's it is on.

The peer protocol may move a table from one branch to another after a seat built on the first
(``p2p.protocol``: an equivocation proven, a record the order puts first) and back again, and a
seat asked again at a place where it signed sends the record it signed there. Its round-2 record
proves that all its tools, given and discarded, add up to one Bullet and one Medkit; the kinds
it used must be those of its records on the chain it is on, not those it chose last at that seq
on another branch (red team: a memo keyed by seq made an honest seat prove a falsehood, which
every other seat refused).
"""

from __future__ import annotations

from typing import Any

from spycraft.engines.agent import Decision

from .helpers import table


class Give:
    """Gives ``kind`` to the first seat it may give it to; at any other decision, the first."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def decide(self, decision: Decision) -> int:
        for i, option in enumerate(decision.options):
            if decision.kind == "round_one" and option[:2] == ("move", self.kind):
                return i
        return 0


def test_a_seat_that_gave_on_another_branch_proves_the_tools_of_the_chain_it_is_on() -> None:
    local, _ = table(4, seed=0)
    agents = [Give("B")] * 4  # every turn of round 1 a Move: the next is a round-1 turn too
    while local.table.expect(local.state).kinds != ("round_one",):
        local.step(agents)
    local.step(agents)  # the first player's turn: the next two are those of the others
    # Two round-1 turns in a row: the first writer's two records for one place (branches A
    # and B), and the next writer, our seat, builds on each.
    before = local.state
    writer = local.table.expect(before).seat
    first: Any = local.seats[writer]
    on_a = first.build(before, Give("B"))
    other, _ = table(4, seed=0)
    on_b = other.seats[writer].build(before, Give("M"))  # the same seat, its memo not shared
    assert on_a.record.seq == on_b.record.seq and on_a.raw != on_b.raw
    a, b = (local.table.apply(before, r) for r in (on_a, on_b))
    ours = local.table.expect(a).seat
    assert local.table.expect(b).seat == ours
    seat = local.seats[ours]
    mine_a = seat.build(a, Give("B"))  # gives its Bullet on branch A
    mine_b = seat.build(b, Give("M"))  # on branch B: asked again, gives its Medkit
    assert mine_a.record.seq == mine_b.record.seq and mine_a.raw != mine_b.raw
    # Back on branch A, where its Bullet is given: the protocol sends the record it signed
    # there again, and play goes on to its round-2 record, which every engine checks.
    local.state = local.table.apply(a, mine_a)
    local.records[:] = [*local.records, on_a, mine_a]
    assert seat.view(local.state).knowledge.holding == ("M",)
    while local.step(agents) is not None:
        pass
    assert local.state.forfeits == () and local.state.game.game.phase == "end"

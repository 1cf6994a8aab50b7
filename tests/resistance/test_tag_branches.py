"""Since a record's stream is its place's own (858df01), a resistance member's
spy tag differs on two branches while a spy's does not.

A spy's tag is HMAC(KDF(S, table), seat): the same on every branch that shares the recognition
contributions (S). A non-spy's tag is 32 bytes of its record's stream, which is now labelled
by the record's prev at any place but the first a seat built at that seq. So after a fork
anywhere past the recognition stage (here: the first tag writer's two tags), every seat that
writes its tag on both branches at one seq shows its role to anyone holding both: the same
tag twice is a spy (before 858df01 both roles repeated their tag at one seq).
"""

from __future__ import annotations

from spycraft.engines.resistance.rules import State
from spycraft.engines.table import TableState

from .helpers import run_until, seat_of, table


def test_two_branches_of_the_tags_do_not_tell_spies_from_resistance() -> None:
    local, agents = table(5, seed=3)
    run_until(local, agents, lambda game, turn: turn.kinds == ("spy_tag",))
    before: TableState[State] = local.state
    first = local.table.expect(before).seat
    on_a = local.seats[first].build(before, agents[first])
    tag = bytes(on_a.record.body["tag"])
    on_b = local.seats[first].sign(before, "spy_tag", {"tag": bytes(b ^ 1 for b in tag)})
    assert on_a.raw != on_b.raw  # its equivocation: two tags at one place

    def tags(state: TableState[State]) -> dict[int, bytes]:
        out = {}
        while True:
            turn = local.table.expect(state)
            if turn is None or turn.kinds != ("spy_tag",):
                return out
            signed = local.seats[turn.seat].build(state, agents[turn.seat])
            out[turn.seat] = bytes(signed.record.body["tag"])
            state = local.table.apply(state, signed)

    branch_a = tags(local.table.apply(before, on_a))
    branch_b = tags(local.table.apply(before, on_b))
    assert branch_a.keys() == branch_b.keys() and len(branch_a) == 4
    spy = {s: seat_of(local, s).view(before.game).knowledge.spy for s in branch_a}
    assert set(spy.values()) == {True, False}  # both roles write after the fork
    same = {s: branch_a[s] == branch_b[s] for s in branch_a}
    read = {s for s in same if same[s] != same[first + 1]}
    assert not read, f"tags repeated on both branches: {same}, spies: {spy}"

"""A seat whose table rolled back: its vote and its mission card are those it chose on the
chain it is on.

The peer protocol may move a table from one branch to another after a seat built on the first
(``p2p.protocol``: an equivocation proven, a record the order puts first) and back again. A
vote and a mission card are chosen before the record that hides them; kept by number alone
(``vote/<k>/<step>``, ``card/<round>``), a seat on another branch committed the other branch's
choice without being asked, and with that branch's nonce or randomness, so once that branch's
opening was out the new commitment could be read (red team 17). Now each is kept with its place,
asked again on another branch under fresh secrets, and opened by the commitment on the chain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import LocalTable
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.rules import State
from spycraft.engines.table import TableState

from .helpers import run_until, seat_of, table


class Scripted:
    """Answers ``kind`` from ``answers`` in turn (the option equal to it); anything else, as
    ``rest`` does. Counts how often it was asked ``kind``."""

    def __init__(self, kind: str, answers: list[Any], rest: Agent) -> None:
        self.kind, self.answers, self.rest, self.asked = kind, list(answers), rest, 0

    def decide(self, decision: Decision) -> int:
        if decision.kind != self.kind:
            return self.rest.decide(decision)
        self.asked += 1
        return decision.options.index(self.answers.pop(0))


class Option:
    """Chooses option ``index`` of every decision."""

    def __init__(self, index: int) -> None:
        self.index = index

    def decide(self, decision: Decision) -> int:
        return min(self.index, len(decision.options) - 1)


def fork(local: LocalTable, seed: int, n: int, agents: list[Agent], kinds: tuple[str, ...]
         ) -> tuple[TableState[State], TableState[State]]:
    """Two branches from one place: the next writer of ``kinds`` writes its first option on A
    and its last on B (from a twin table, so its memo is not shared: an equivocation)."""
    run_until(local, agents, lambda game, turn: turn.kinds == kinds)
    before = local.state
    writer = local.table.expect(before).seat
    twin, _ = table(n, seed=seed)
    on_a = local.seats[writer].build(before, Option(0))
    on_b = twin.seats[writer].build(before, Option(99))
    assert on_a.record.seq == on_b.record.seq and on_a.raw != on_b.raw
    return local.table.apply(before, on_a), local.table.apply(before, on_b)


def play(local: LocalTable, state: TableState[State], agents: list[Agent],
         until: Callable[[TableState[State]], bool]) -> TableState[State]:
    """Every seat builds in turn on ``state`` (one branch) until ``until`` holds."""
    while not until(state):
        turn = local.table.expect(state)
        assert turn is not None, "the game ended first"
        state = local.table.apply(state, local.seats[turn.seat].build(state, agents[turn.seat]))
    return state


def test_a_seat_is_asked_its_vote_again_on_another_branch_and_opens_the_one_on_its_chain(
) -> None:
    local, agents = table(5, seed=4)
    a, b = fork(local, 4, 5, agents, ("propose",))  # two teams proposed for one vote
    assert a.game.game.proposal != b.game.game.proposal
    ours = local.table.expect(a).seat
    assert local.table.expect(b).seat == ours  # the first voter on either branch
    voter = Scripted("vote", [True, False, True], agents[ours])
    mine = [*agents]
    mine[ours] = voter
    seat = seat_of(local, ours)
    built = [local.seats[ours].build(s, voter) for s in (a, b)]
    assert voter.asked == 2  # asked on B, not handed A's approval
    assert built[0].record.body["commitment"] != built[1].record.body["commitment"]
    votes = len(a.game.game.vote_log)
    decided = [
        play(local, local.table.apply(s, signed), mine,
             lambda s: len(s.game.game.vote_log) > votes)
        for s, signed in zip((a, b), built)
    ]
    assert decided[0].game.game.vote_log[-1].votes[ours] is True
    assert decided[1].game.game.vote_log[-1].votes[ours] is False
    # the two openings: each its own nonce, so A's opening says nothing of B's commitment
    key = f"vote/{votes}/0"
    assert len(seat.context.memo[key]) == 2
    on_b = bytes(seat.context.memo[key][1][1]).hex()
    nonces = {seat.context.secret(key), seat.context.secret(key, on_b)}
    assert len(nonces) == 2
    # back on branch A after B: the seat opens what it committed there, not B's last choice
    again = play(local, local.table.apply(a, built[0]), mine,
                 lambda s: len(s.game.game.vote_log) > votes)
    assert again.game.game.vote_log[-1].votes[ours] is True and voter.asked == 2


def test_a_spy_is_asked_its_mission_card_again_on_another_branch_and_sees_the_one_it_played(
) -> None:
    def two_spies_in_a_row(local: LocalTable) -> int | None:
        """The seat that plays its mission card right after a spy, if it is a spy too."""
        state = local.state.game
        players = [c.seat for c in state.cards]
        rest = [s for s in state.game.proposal.team if s not in players]
        if len(rest) < 2:
            return None
        spies = [seat_of(local, s).view(state).knowledge.spy for s in rest[:2]]
        return rest[1] if all(spies) else None

    for seed in range(37, 237):  # a table where two spies play one after the other (37's)
        local, agents = table(5, seed=seed)
        turn = local.table.expect(local.state)
        while turn is not None and not (
                turn.kinds == ("mission_card",) and two_spies_in_a_row(local) is not None):
            local.step(agents)
            turn = local.table.expect(local.state)
        if turn is not None:
            second = two_spies_in_a_row(local)
            break
    else:
        raise AssertionError("no table of 200 had two spies play in a row")
    a, b = fork(local, seed, 5, agents, ("mission_card",))
    ours = local.table.expect(a).seat
    assert local.table.expect(b).seat == ours == second
    spy = Scripted("mission_card", [R.FAIL, R.SUCCESS], agents[ours])
    built = [local.seats[ours].build(s, spy) for s in (a, b)]
    assert spy.asked == 2  # asked on B, not handed A's Fail
    cards = [signed.record.body["card"][0] for signed in built]
    assert cards[0][0] != cards[1][0]  # fresh randomness on B: the two cannot be compared
    seat = seat_of(local, ours)
    rnd = a.game.game.round
    for state, signed, card in zip((a, b), built, (R.FAIL, R.SUCCESS)):
        after = local.table.apply(state, signed)
        assert (rnd, card) in seat.view(after.game).knowledge.own_cards
        assert len([c for r, c in seat.view(after.game).knowledge.own_cards if r == rnd]) == 1
    assert all(r != rnd for r, _ in seat.view(a.game).knowledge.own_cards)


def test_a_vote_kept_by_an_older_version_bare_is_committed_and_opened_as_it_was() -> None:
    """A seat file of an older version keeps a vote bare, with no place: the resumed seat
    commits and opens it with the nonce it had, and is not asked."""
    local, agents = table(5, seed=4)
    run_until(local, agents, lambda game, turn: turn.kinds == ("vote_commit",))
    ours = local.table.expect(local.state).seat
    seat = seat_of(local, ours)
    key = f"vote/{len(local.state.game.game.vote_log)}/0"
    seat.context.memo[key] = False  # as an older version wrote it
    never = Scripted("vote", [], agents[ours])
    mine = [*agents]
    mine[ours] = never
    votes = len(local.state.game.game.vote_log)
    decided = play(local, local.state, mine, lambda s: len(s.game.game.vote_log) > votes)
    assert decided.game.game.vote_log[-1].votes[ours] is False and never.asked == 0

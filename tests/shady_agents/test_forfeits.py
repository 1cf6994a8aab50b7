"""Shady Agents' forfeits on the kit's one rule: a forfeiter owes nothing, nothing is guessed.

Issue 17, attack 2: when two seats of different teams were declared absent, their role cards
stayed closed, ``_roles`` guessed them from the deck count (the Law-abiding card to the lower
seat) and ``model.judge`` re-judged their answers against the guess, so an absent Corrupt seat
that lied as its role required was named a liar. Now a closed card is read from the count only
when the count leaves it one face (``role_deal.roles_known``), an answer is judged on every kind
its closed tools could have, and what stays open is listed, in words, as not judged.
"""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.errors import RuleViolation
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable
from spycraft.engines.shady_agents import cards
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING
from spycraft.engines.shady_agents.rules import SIDES, State
from spycraft.engines.shady_agents.seat import ShadyAgentsSeat
from spycraft.engines.table import DESERTED, FRAUD, NOT_JUDGED
from tests.conformance.games import declare_absent
from tests.shady_agents.helpers import table


def team(local: LocalTable, seat: int) -> str | None:
    """What the seat itself knows its team to be (its own card)."""
    return local.seats[seat].game.knowledge(local.state.game).team


def answered(local: LocalTable, seat: int) -> list[int]:
    game: M.Game = local.state.game.game
    return [seq for asking in game.interrogations for s, _, seq in asking.answers if s == seat]


def until(local: LocalTable, agents: list[Any], found: Any) -> bool:
    """Step until ``found(state, turn)``; False if the game ends first."""
    while (turn := local.table.expect(local.state)) is not None:
        if turn.kinds == ("result",):
            return False
        if found(local.state.game, turn):
            return True
        local.step(agents)
    return False


def two_absent(seed: int, n: int, mixed: bool) -> tuple[LocalTable, int, int] | None:
    """A table where a seat that has answered is declared absent at its next turn, then a seat
    of the other team (``mixed``) or of its own, above it in seat order, at its reveal."""
    local, agents = table(n, seed)

    def liar_to_play(state: State, turn: Any) -> bool:
        seat = turn.seat
        if state.act != "play" or turn.kinds in (("beacon",), ("answer",)):
            return False
        mine = team(local, seat)
        others = [s for s in range(seat + 1, n) if (team(local, s) != mine) == mixed]
        return bool(answered(local, seat)) and bool(others) and (not mixed or mine == CORRUPT)

    if not until(local, agents, liar_to_play):
        return None
    first, _ = declare_absent(local)
    mine = team(local, first)
    second = next(s for s in range(first + 1, n) if (team(local, s) != mine) == mixed)
    if not until(local, agents, lambda s, t: t.seat == second and t.kinds == ("reveal",)):
        return None
    declare_absent(local, [first])
    local.run(agents)
    return local, first, second


def first_table(n: int, mixed: bool) -> tuple[LocalTable, int, int]:
    for seed in range(40):
        found = two_absent(seed, n, mixed)
        if found is not None:
            return found
    pytest.fail("no seed gave that pair of absences")


@pytest.mark.parametrize("n", [4, 6, 7])
def test_two_absent_seats_of_two_teams_keep_their_cards_closed_and_nobody_is_convicted(
    n: int,
) -> None:
    local, first, second = first_table(n, mixed=True)
    assert (team(local, first), team(local, second)) == (CORRUPT, LAW_ABIDING)
    end: State = local.state.game
    assert (end.roles[first], end.roles[second]) == (None, None)  # the count leaves a choice
    assert all(end.roles[s] == team(local, s) for s in range(n) if s not in (first, second))
    result = local.state.result
    assert result is not None
    assert (result.winner, result.reason, result.forfeits) == (None, DESERTED, (first, second))
    assert FRAUD not in result.describe() and "rule violation" not in result.detail
    lies = answered(local, first)  # a Corrupt seat's answers: lies, as its role requires
    assert lies and f"seat {first}'s role" in result.detail, result.detail
    for seq in lies:
        assert str(seq) in result.detail
    assert NOT_JUDGED in result.detail
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()


def test_two_absent_seats_of_one_team_are_read_from_the_count_and_that_team_loses() -> None:
    local, first, second = first_table(6, mixed=False)
    end: State = local.state.game
    lost = team(local, first)
    assert (end.roles[first], end.roles[second]) == (lost, lost)  # proven: one face is left
    result = local.state.result
    assert result is not None
    winner = SIDES[1] if lost == LAW_ABIDING else SIDES[0]
    assert (result.winner, result.reason, result.forfeits) == (winner, DESERTED,
                                                               (first, second))
    assert audit_transcript(local.transcript).valid


class LawAbidingLiar(ShadyAgentsSeat):
    """A Law-abiding seat that lies wherever a lie is open to it."""

    def answer_options(self, state: State) -> tuple[Any, ...]:
        allowed = super().answer_options(state)
        if self.knowledge(state).team != LAW_ABIDING:
            return allowed
        asking = state.game.asking
        assert asking is not None and asking.snapshot is not None
        every = cards.options(asking.drawn, asking.snapshot, self.seat)
        return tuple(a for a in every if a not in allowed) or allowed


def test_a_lie_no_closed_tool_can_excuse_is_still_proven_after_an_absence() -> None:
    for seed in range(60):
        local, agents = table(6, seed, cheaters={s: LawAbidingLiar for s in range(6)})

        def lied_then_other_turn(state: State, turn: Any, local: LocalTable = local) -> bool:
            if state.act != "play" or turn.kinds in (("beacon",), ("answer",)):
                return False
            return any(team(local, s) == LAW_ABIDING and s != turn.seat and answered(local, s)
                       for s in range(6))

        if not until(local, agents, lied_then_other_turn):
            continue
        declare_absent(local)
        local.run(agents)
        end: State = local.state.game
        liars = {(v.seat, v.seq) for v in end.violations}
        if not liars:
            continue  # every lie so far depended on the absent seat's closed tool
        errors = [v.error() for v in end.violations]
        assert all(isinstance(e, RuleViolation) for e in errors)
        for seat, seq in liars:
            assert team(local, seat) == LAW_ABIDING and seq in answered(local, seat)
        result = local.state.result
        assert result is not None and result.reason == FRAUD
        assert {s for s, _ in liars} <= set(result.forfeits)
        assert not audit_transcript(local.transcript).valid
        return
    pytest.fail("no table where a Law-abiding lie was proven after an absence")


def test_with_one_absent_seat_every_honest_answer_is_judged() -> None:
    """An honest answer reads only the answerer's own tools (given, received, discarded), which
    its own key share opens, a gift from the absent seat included; so what stays unjudged is
    the absent seat's own (an answer needing its closed discard, or its role)."""
    checked = 0
    for seed in range(20):
        local, agents = table(6, seed)

        def answered_then_turn(state: State, turn: Any) -> bool:
            game = state.game
            return state.act == "play" and turn.kinds not in (("beacon",), ("answer",)) and (
                any(a.answers for a in game.interrogations)
            )

        if not until(local, agents, answered_then_turn):
            continue
        absent, _ = declare_absent(local)
        local.run(agents)
        result = local.state.result
        assert result is not None and result.reason != FRAUD, result.describe()
        assert all(w.startswith(f"seat {absent}'s") for w in result.unjudged), result.unjudged
        checked += 1
    assert checked >= 5

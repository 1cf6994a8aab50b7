"""Red team 25: in Shady Agents a team, whose members are hidden, is ``quorum(n)`` seats at every
count, so its votes alone must be a claim, not a proof (docs/rulings.md, ``hidden_side``); red
team 26: so are The Resistance's members."""

from __future__ import annotations

import pytest

from spycraft.engines import absence
from spycraft.engines.registry import load
from spycraft.engines.resistance.model import RESISTANCE_COUNT
from spycraft.engines.shady_agents import scoring
from spycraft.engines.table import ABANDONED, DESERTED
from tests.conformance.games import GAMES, Config, declare_absent, play_fresh
from tests.conformance.games import load as load_any
from tests.resistance.helpers import table as resistance_table
from tests.shady_agents.helpers import table

GAME = load("shady-agents")


@pytest.mark.parametrize("n", range(4, 11))
def test_a_teams_number_of_votes_is_a_claim_and_one_more_is_a_proof(n: int) -> None:
    local, _ = table(n, 1)
    rules = local.table.rules
    team = max(scoring.role_deck(n).count(face) for face in set(scoring.role_deck(n)))
    assert rules.hidden_side(local.state.game, 0) == team >= absence.quorum(n)
    others = range(1, n)
    assert local.table.claiming_party(local.state, 0, others[:team]) == frozenset(others[:team])
    assert local.table.claiming_party(local.state, 0, others[:team + 1]) is None


@pytest.mark.parametrize("n", range(5, 11))
def test_in_the_resistance_its_members_are_the_hidden_side_and_the_spies_are_fewer(n: int) -> None:
    """Red team 26: the Resistance members are a quorum at every count; the spies never are."""
    local, _ = resistance_table(n, 1)
    members = RESISTANCE_COUNT[n]
    assert n - members < absence.quorum(n) <= members
    assert local.table.rules.hidden_side(local.state.game, 0) == members
    others = range(1, n)
    assert local.table.claiming_party(local.state, 0, others[:members]) is not None
    assert local.table.claiming_party(local.state, 0, others[:members + 1]) is None


@pytest.mark.parametrize("n", [4, 6])
def test_votes_of_every_seat_still_there_prove_an_absence_and_a_teams_only_claim_it(n: int) -> None:
    local, agents = table(n, 3)
    while (turn := local.table.expect(local.state)) is not None and \
            (local.state.game.act != "play" or turn.kinds != ("round_one",)):
        local.step(agents)
    assert turn is not None
    proven, _ = declare_absent(local)  # by a team and one seat more: a proof
    local.run(agents)
    result = local.state.result
    assert result is not None and result.forfeits == (proven,)
    assert result.reason == DESERTED and "claimed" not in result.describe()

    local, agents = table(n, 3)
    while (turn := local.table.expect(local.state)) is not None and \
            (local.state.game.act != "play" or turn.kinds != ("round_one",)):
        local.step(agents)
    assert turn is not None
    team = scoring.role_deck(n).count(scoring.role_deck(n)[0])
    voters = [s for s in range(n) if s != turn.seat][:team]
    votes = {v: local.seats[v].absence_vote(local.state) for v in voters}
    claim = local.seats[voters[0]].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, claim)
    local.records.append(claim)
    local.run(agents)
    result = local.state.result
    assert result is not None
    assert (result.winner, result.reason) == (None, ABANDONED), result.describe()
    assert result.describe().startswith("abandoned, claimed by seats ")
    assert not [r for r in local.records if r.record.kind == "reveal"]  # a claim in play


def _every_count() -> list[Config]:
    return [Config(name, n, ()) for name in GAMES for n in load_any(name).rules.seat_counts]


@pytest.mark.parametrize("config", _every_count(), ids=str)
def test_in_every_game_the_votes_of_one_side_alone_are_never_a_proof(config: Config) -> None:
    """The guarantee behind ``hidden_side``, checked for every game rather than declared by
    hand: whichever side the accused is not on (its members hidden or public), and its own
    side without it, the votes of all of that side's other seats are a claim. A game that
    forgets to declare a hidden side as large as a quorum of the others fails here (red teams
    25 and 26 found two such games by attacking them)."""
    ended = play_fresh(config, 3)
    last = ended.states[-1].game
    rules = ended.local.table.rules
    sides: dict[str, set[int]] = {}
    for seat in range(config.players):
        side = rules.side_of(last, seat)
        assert side is not None, f"seat {seat}'s side is not open at the end"
        sides.setdefault(side, set()).add(seat)
    playing = ended.states[len(ended.states) // 2]  # asked mid-game, the sides still hidden
    for accused in range(config.players):
        for side, members in sorted(sides.items()):
            voters = sorted(members - {accused})
            if len(voters) < absence.quorum(config.players):
                continue  # too few votes for any abandon
            assert ended.local.table.claiming_party(playing, accused, voters) is not None, (
                f"{config}: the votes of the {side} side {voters} alone are a proof against "
                f"seat {accused}")

"""Red team 26: the Resistance's own side is a hidden side that is a quorum on its own, the very
case docs/rulings.md made a claim in Shady Agents (red team 25), but ``hidden_side`` was 0 in The
Resistance ("the spies are always fewer than quorum(n)": the loyal side is forgotten). At five
seats the three Resistance seats are quorum(5): acting together (as Shady Agents' teams do, out of
band: none of them knows the others in the game either), they sign their absence votes the moment
an online Spy's turn begins (a vote proves no time) and their abandon is a *proof*: it outranks
the Spy's record (rule 4: a proven abandon before any other record), the Spy forfeits and the
Resistance wins. One side's word decides another seat's fate."""

from __future__ import annotations

from spycraft.engines.resistance import rules as resistance_rules
from spycraft.engines.table import ABANDONED, DESERTED
from tests.resistance.helpers import run_until, table

N, SEED = 5, 1


def _roles() -> tuple[str, ...]:
    local, agents = table(N, SEED)
    end = local.run(agents)
    return tuple(local.table.rules.side_of(end.game, s) for s in range(N))


def test_three_resistance_votes_against_an_online_spy_are_only_a_claim() -> None:
    roles = _roles()
    spies = [s for s in range(N) if roles[s] == resistance_rules.R.SPIES]
    loyal = [s for s in range(N) if roles[s] == resistance_rules.R.RESISTANCE]
    assert len(loyal) == 3 and len(spies) == 2
    local, agents = table(N, SEED)
    # play to the first turn of a Spy in play (not the deal, not a beacon)
    turn = run_until(local, agents, lambda game, turn: turn.seat in spies
                     and local.state.game.act == "play")
    spy = turn.seat
    # the Spy is online: its record for this place is ready (and would be sent at once)
    online = local.seats[spy].build(local.state, agents[spy])
    local.table.apply(local.state, online)  # valid
    # the three Resistance seats vote at once and write the abandon
    votes = {v: local.seats[v].absence_vote(local.state) for v in loyal}
    abandon = local.seats[loyal[0]].sign_abandon(local.state, votes)
    party = local.table.claiming_party(local.state, spy, loyal)
    state = local.table.apply(local.state, abandon)
    forfeit = state.forfeits[-1]
    assert forfeit.reason in (ABANDONED, DESERTED)
    local.state = state
    end = local.run(agents)  # the ready stage, the final reveal, the result
    result = end.result
    assert result is not None
    assert result.winner != resistance_rules.R.RESISTANCE, (
        f"the Resistance's own votes evicted the online Spy {spy} and won: {result.describe()}")
    # one side's votes: it must be a claim (no side loses), as a Shady Agents team's are
    assert party is not None and forfeit.claimed_by, (
        "three Resistance votes are a proof against an online Spy: it outranks the Spy's record")

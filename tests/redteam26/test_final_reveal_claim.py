"""Red team 26: at Shady Agents with four seats, the losing Corrupt team turns a Law-abiding win
that play fixed into "no winner": the last Corrupt seat to reveal stalls at its final reveal and
its Corrupt teammate refuses to vote, so the two Law-abiding seats' votes are only a claim
(``hidden_side`` is 2 at four seats). Every other key share is open: the stalling seat's role is
proven by the deck count and every gift it gave or received opened through its counterpart, so
the score (which needs no discard) is what play fixed, and its side lost it. The loser's stall
must not erase the win (engines/table.py: "a loser cannot turn its defeat into 'abandoned' by
never opening its last secrets")."""

from __future__ import annotations

from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING
from tests.shady_agents.helpers import table

SEED = 2  # the last revealer, seat 3, is Corrupt, and the honest end is a Law-abiding win


def _to_last_reveal(seed: int):
    local, agents = table(4, seed)
    rules = local.table.rules
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if turn.kinds == ("reveal",) and len(rules.still_to_reveal(local.state.game)) == 1:
            return local, agents, turn.seat
        local.step(agents)


def test_corrupt_stall_at_last_reveal_keeps_the_law_abiding_win() -> None:
    local, agents, last = _to_last_reveal(SEED)
    rules = local.table.rules
    # the honest end, for reference
    honest = local.table.apply(local.state, local.seats[last].build(local.state, agents[last]))
    natural = local.table.need(honest)
    assert natural.winner == "Law-abiding" and natural.reason == "score"
    roles = honest.game.roles
    assert roles[last] == CORRUPT
    law = [s for s in range(4) if roles[s] == LAW_ABIDING]
    # seat 3 stalls; its Corrupt teammate never votes; the two Law-abiding seats vote
    votes = {v: local.seats[v].absence_vote(local.state) for v in law}
    record = local.seats[law[0]].sign_abandon(local.state, votes)
    state = local.table.apply(local.state, record)
    result = local.table.need(state)
    assert rules.side_of(state.game, last) == "Corrupt"  # proven by the deck count
    assert result.winner == "Law-abiding", result.describe()

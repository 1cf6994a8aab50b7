"""Every commitment names its seat: a copied commitment cannot be opened with a copied opening."""

from __future__ import annotations

import pytest

from spycraft.crypto.errors import BadOpening
from spycraft.engines.resistance.rules import State

from .helpers import run_until, table


def test_a_voter_cannot_copy_an_earlier_voters_commitment_and_opening() -> None:
    """Seat B re-posts seat A's vote commitment, then A's opening: "vote whatever A voted"."""
    local, agents = table(5, 6)
    turn = run_until(
        local, agents, lambda s, t: t.kinds == ("vote_commit",) and len(s.commits) >= 1
    )
    game: State = local.state.game
    copier, copied = turn.seat, game.game.voters[len(game.commits) - 1]
    digest = game.commits[-1]
    record = local.seats[copier].sign(local.state, "vote_commit", {"commitment": digest})
    local.state = local.table.apply(local.state, record)
    local.records.append(record)
    openings: dict[int, dict[str, object]] = {}
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if turn.kinds == ("vote_open",) and turn.seat == copier:
            break
        signed = local.step(agents)
        assert signed is not None
        if signed.record.kind == "vote_open":
            openings[signed.record.seat] = dict(signed.record.body)
    stolen = local.seats[copier].sign(local.state, "vote_open", openings[copied])
    with pytest.raises(BadOpening) as err:
        local.table.apply(local.state, stolen)
    assert (err.value.seat, err.value.seq) == (copier, local.state.seq + 1)

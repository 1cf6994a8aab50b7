"""Nothing opens on a claim made in play (docs/rulings.md, red team 19 of stop 34, red team 24).

SpyNet at four: the teams sit opposite (0 and 2 against 1 and 3), so votes of seats 0 and 2
against seat 1 are one party's word, a claim. Until a seat outside the party (here seat 3, the
accused's partner) builds on the claim, seat 1's withheld record can still displace it and play
goes on (rule 3 of ``p2p.protocol``); seat 3 can take back what it built by proving its own
equivocation before a quorum built on it; and the party can settle seat 1's record by building
on it, which rule 1 puts first (red team 24, ``tests/redteam24/test_claim_in_play.py``). So after
a claim in play nobody is asked to open anything, and the game ends on the claim.
"""

from __future__ import annotations

from spycraft.crypto.records import SignedRecord
from spycraft.engines.agent import Agent
from spycraft.engines.game import PLAY
from spycraft.engines.local import LocalTable
from spycraft.engines.table import ABANDONED, Turn
from spycraft.p2p.protocol import PeerProtocol
from tests.conformance.games import Config, declare_absent, new_table


def at_seat_1_in_play(seed: int = 0) -> tuple[LocalTable, list[Agent]]:
    local, agents = new_table(Config("spynet", 4, ()), seed)
    while True:
        turn = local.table.expect(local.state)
        assert turn is not None
        if local.state.game.act == PLAY and turn.seat == 1 and turn.kinds != ("beacon",):
            return local, agents
        local.step(agents)


def kinds_from(local: LocalTable, seq: int) -> list[tuple[int, str]]:
    return [(r.seat, r.record.kind) for r in local.records[seq - 1:]]


def test_after_a_claim_in_play_nobody_opens_a_key_share() -> None:
    local, agents = at_seat_1_in_play()
    accused, claim = declare_absent(local, by=(0, 2))
    assert accused == 1
    assert local.table.expect(local.state) == Turn(0, ("result",))
    local.run(agents)
    assert kinds_from(local, claim) == [(0, "abandon"), (0, "result")]
    result = local.state.result
    assert result is not None
    assert (result.winner, result.reason, result.forfeits) == (None, ABANDONED, (1,))
    assert result.describe().startswith("abandoned, claimed by seats 0, 2: ")


def test_a_withheld_record_that_displaces_the_claim_finds_no_key_share_opened() -> None:
    """Red team 19's attack: seat 1 withholds, is claimed absent, then sends its record. It
    still displaces the claim (the claiming team's own result settles nothing), and play goes
    on: but nobody opened a key share on the branch it displaced."""
    local, agents = at_seat_1_in_play()
    withheld = local.seats[1].build(local.state, agents[1])
    _, claim = declare_absent(local, by=(0, 2))
    local.run(agents)
    dropped: list[SignedRecord] = list(local.records[claim - 1:])
    assert dropped[-1].record.kind == "result"

    seat0 = PeerProtocol(table=local.table, genesis=local.genesis, seat=local.seats[0],
                         records=tuple(local.records))
    seat0.link_up(1, 1, 0.0)
    seat0.receive(1, {"t": "record", "record": withheld.raw}, 1.0)
    assert seat0.records[claim - 1].raw == withheld.raw  # the claim never stood: play goes on
    assert seat0.state.game.act == PLAY
    assert not [r for r in dropped if r.record.kind == "reveal"]


def test_a_claim_at_the_final_reveal_leaves_the_claimers_to_open_theirs() -> None:
    """Play is over on every branch there: opening shows nothing play could use."""
    local, agents = new_table(Config("spynet", 4, ()), 0)
    while (turn := local.table.expect(local.state)) is not None and turn.kinds != ("reveal",):
        local.step(agents)
    assert turn == Turn(0, ("reveal",))
    local.step(agents)
    accused, claim = declare_absent(local, by=(0, 2))  # seat 1 stalls at its reveal
    assert accused == 1
    local.run(agents)
    assert kinds_from(local, claim) == [(0, "abandon"), (2, "reveal"), (3, "reveal"), (0, "result")]

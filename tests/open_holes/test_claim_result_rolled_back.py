"""red25: tools/adversary.py --first 730000, seed 730573 (four seats in public teams, the
coalition 1+3): the adversary's own check fails, before today's changes too (8a61841).

Seat 1 is proven (a result out of turn at record 2) and forfeits. Later seat 3 withholds its
leg for record 7 past its timeout; seats 0 and 2 (one party) vote, seat 0 writes the abandon, a
claim, and the result on top. Seat 3 then sends the leg it withheld: the only seat outside the
claiming party that could make the claim stand is seat 1, which forfeited, so the claim can
never stand and the accused's leg outranks it and the result on top (``_own_word``): honest
seat 0 rolls back a result it held. ``adversary.check`` allows that at two seats only. In a
real session an honest seat that left after the first result keeps it while one still
lingering takes the leg and plays on: the honest peers' transcripts fork.
"""

from __future__ import annotations

import pytest

from tests.p2p.adversary import check, play


@pytest.mark.xfail(strict=True, reason="red25: a claim no outside seat can make stand is "
                   "rolled back with its result at four seats (seed 730573)")
def test_a_claims_result_at_four_seats_in_teams_is_never_rolled_back() -> None:
    net, coalition = play(730573)
    check(net, coalition)

"""A mission card of one round on branch A and of another round on branch B, both
written by one seat at one seq, are hidden under the same ElGamal randomness.

Each is the first entry of its memo key (``card/1`` on A, ``card/2`` on B), and a first entry
keeps the old derivation: ``b.entropy``, the stream of (``mission_card``, seq), which does not
depend on the round or the place. So the two ciphertexts share r: c1 is equal, and
c2(A) - c2(B) = face(A) - face(B), which every peer holding both branches' records can
compute: a spy that failed on A and succeeded on B is read as a spy, and its card on A is read.
(The one-of proof reuses its stream too, which may give away r itself.)
"""

from __future__ import annotations

from typing import Any

from spycraft.crypto.elgamal import ProvenCiphertext
from spycraft.engines.agent import Decision
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.rules import MISSION_FACES, State
from spycraft.engines.table import TableState

from .helpers import run_until, seat_of, table


class Option:
    def __init__(self, index: int) -> None:
        self.index = index

    def decide(self, decision: Decision) -> int:
        return min(self.index, len(decision.options) - 1)


class Branchy:
    """Rejects the first ``rejects`` proposals, then approves; plays ``card`` when it may."""

    def __init__(self, base: Any, rejects: int, card: str) -> None:
        self.base, self.rejects, self.card, self.votes = base, rejects, card, 0

    def decide(self, decision: Decision) -> int:
        if decision.kind == "vote":
            self.votes += 1
            return decision.options.index(self.votes > self.rejects)
        if decision.kind == "mission_card" and self.card in decision.options:
            return decision.options.index(self.card)
        return int(self.base.decide(decision))


def test_cards_of_two_rounds_at_one_seq_on_two_branches_do_not_share_randomness() -> None:
    seed, seq, victim = 15, 65, 0  # found by search: spy 0 plays at seq 65 on both branches
    local, agents = table(5, seed=seed)
    run_until(local, agents, lambda game, turn: turn.kinds == ("propose",))
    before = local.state
    writer = local.table.expect(before).seat
    twin, _ = table(5, seed=seed)  # the proposer equivocates: two teams at one place
    on_a = local.seats[writer].build(before, Option(0))
    on_b = twin.seats[writer].build(before, Option(99))
    assert on_a.raw != on_b.raw

    def play(state: TableState[State], rejects: int, card: str) -> tuple[Any, int]:
        """Every seat (the same seats, with their memo) plays on until ``victim`` writes at
        ``seq``: its record and the round it was for."""
        mine = [Branchy(agent, rejects, card) for agent in agents]
        while True:
            turn = local.table.expect(state)
            assert turn is not None
            signed = local.seats[turn.seat].build(state, mine[turn.seat])
            if signed.record.seq == seq:
                assert turn.seat == victim and signed.record.kind == "mission_card"
                return signed, state.game.game.round
            state = local.table.apply(state, signed)

    # branch A (two teams rejected first): the victim fails round 1's mission at seq 65; then
    # the table rolls back to B (approved at once), where it succeeds round 2's at seq 65
    card_a, round_a = play(local.table.apply(before, on_a), 2, R.FAIL)
    card_b, round_b = play(local.table.apply(before, on_b), 0, R.SUCCESS)
    assert (round_a, round_b) == (1, 2)
    assert seat_of(local, victim).view(before.game).knowledge.spy
    a = ProvenCiphertext.decode(card_a.record.body["card"], 2).ciphertext
    b = ProvenCiphertext.decode(card_b.record.body["card"], 2).ciphertext
    success, fail = MISSION_FACES.points
    read = a.c2 + (-b.c2) == fail + (-success)  # what any peer holding both can test
    assert not read, "one randomness hides both cards: A's Fail, B's Success are read"
    assert a.c1 != b.c1

"""Whole games between bots: every invariant after every record, and determinism."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.crypto.records import SignedRecord
from spycraft.engines.local import LocalTable
from spycraft.engines.spies_and_lies import GAME, model
from spycraft.engines.spies_and_lies.model import RANKS, Board
from spycraft.engines.spies_and_lies.rules import State
from spycraft.engines.table import TableState

from .support import honest_table

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
BOTS = st.tuples(st.sampled_from(["random", "heuristic"]), st.sampled_from(["random", "heuristic"]))
TOTAL_DTS = 4


class Invariants:
    """Checks the rules' invariants after every record of one game."""

    def __init__(self, table: LocalTable) -> None:
        self.table = table
        self.placed = 0
        self.previous: Board = table.state.game.game
        self.deployed: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def __call__(self, signed: SignedRecord, state: TableState[State]) -> None:
        b, before = state.game.game, self.previous
        record = signed.record
        if record.kind == "deceive" and record.body["place"]:
            self.placed += 1
        assert -4 <= b.da <= 4
        if b.captured_by is not None:
            assert b.da == model.ENEMY_WALL * model.direction(b.captured_by)
        assert all(0 <= m <= 9 for m in b.markers)
        assert all(0 <= d <= model.MAX_DT for d in b.dt) and 0 <= b.supply <= before.supply
        assert sum(b.dt) + b.supply + self.placed == TOTAL_DTS
        assert 1 <= b.day <= model.LAST_DAY
        assert all(1 <= len(e) <= 2 for e in b.exhausted) or b.phase == "setup"
        for seat in (0, 1):
            self.check_cards(b, seat)
        if before.phase == "exhaustion" and b.phase == "deploy":
            for seat in (0, 1):
                assert set(b.exhausted[seat]) <= set(self.deployed[before.day][seat])
                assert len(b.exhausted[seat]) == (2 if before.flags[seat].double else 1)
        if b.cards[0] and b.cards[1]:
            self.deployed[b.day] = (self.memo(0, b.day), self.memo(1, b.day))
        self.previous = b

    def memo(self, seat: int, day: int) -> tuple[int, ...]:
        return tuple(self.table.seats[seat].memo[f"deploy/{day}"])

    def check_cards(self, b: Board, seat: int) -> None:
        cards = b.cards[seat]
        if not cards:
            return
        assert len(cards) == 4
        ranks = self.memo(seat, b.day)
        assert model.is_legal_deployment(ranks, model.hand(b, seat)), (
            "exhausted cards never deployed"
        )
        revealed = [c.rank for c in cards if c.rank is not None]
        assert revealed == list(ranks[: len(revealed)]), "cards are revealed in mission order"
        for card, rank in zip(cards, ranks):
            if card.token is not None and rank != model.SERGEANT and b.current is not None:
                assert card.token == model.forced_token(rank, b.current)
            if card.state == "activated":
                assert card.guess is not None and card.guess != card.rank
            elif card.state == "retired":
                assert card.guess in RANKS
            elif card.state == "shown":
                assert b.phase == "over" and card.guess is None
            if card.guess == card.rank and card.rank is not None:
                assert card.state == "retired"


def play(seed: int, bots: tuple[str, str]) -> LocalTable:
    table, agents = honest_table(seed, bots)
    final = table.run(agents, on_record=Invariants(table))
    assert final.result is not None
    b: Board = final.game.game
    assert b.phase == "over"
    assert b.captured_by is not None or (b.day == model.LAST_DAY and b.step == model.STEPS)
    assert all(c.rank is not None for side in b.cards for c in side), (
        "everything is open at the end"
    )
    return table


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bots=BOTS)
def test_whole_games_keep_every_invariant_and_replay_to_the_same_state(
    seed: int, bots: tuple[str, str]
) -> None:
    table = play(seed, bots)
    engine = GAME.table()
    state = engine.start(table.genesis)
    for signed in table.records:
        state = engine.apply(state, signed)
    assert state.game == table.state.game
    assert state.result == table.state.result


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, bots=BOTS)
def test_two_runs_with_one_seed_write_byte_identical_transcripts(
    seed: int, bots: tuple[str, str]
) -> None:
    assert play(seed, bots).transcript.to_bytes() == play(seed, bots).transcript.to_bytes()

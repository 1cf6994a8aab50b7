"""What a forfeiter owes, in every registered game: nothing (``engines.table``, "What a
forfeiter owes").

Honest tables where seats are declared absent by the others, at chosen places and at random
ones: a seat's closed secrets are never a lie, so no violation is ever found against anyone,
absent or present; the audit says what the live engine says; a two-seat abandon is only claimed
("abandoned, claimed by seat N"), unless it is a loser's in the final reveal of a win that play
had fixed, which stands; with more seats an absent seat's side loses as an abandon or a
desertion, never as a fraud; and whatever the closed secrets leave unjudged is in the result's
words. A second absence needs a quorum of the seats still playing, so it is tried from four
seats up.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.engines import registry
from spycraft.engines.absence import quorum
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable
from spycraft.engines.table import ABANDONED, CLAIMED, DESERTED, FRAUD, NOT_JUDGED, Over

from .games import CONFIGS, TEST_GAMES, Config, declare_absent, load, new_table, played

every_config = pytest.mark.parametrize("config", CONFIGS, ids=str)
# a second absence needs a quorum of the seats still playing: four seats and more
two_absences_configs = pytest.mark.parametrize(
    "config", [c for c in CONFIGS if c.players >= 4], ids=str)


def _opens_key_shares(config: Config) -> bool:
    from spycraft.engines.game import KeyShareRules

    return isinstance(config.definition.rules, KeyShareRules)


key_share_configs = pytest.mark.parametrize(
    "config", [c for c in CONFIGS if _opens_key_shares(c)], ids=str)


def absent_at(config: Config, seed: int, places: Sequence[int]) -> tuple[LocalTable, list[int]]:
    """The seed's honest game with a seat declared absent at (or after) each place, where a
    seat still playing is expected and enough others are left to declare it; then played to
    its end. Returns the table and the absent seats."""
    local, agents = new_table(config, seed)
    gone: list[int] = []
    final = config.definition.rules.final_reveal
    for place in places:
        while True:
            turn = local.table.expect(local.state)
            if turn is None or turn.kinds == ("result",):
                break
            left = [s for s in range(config.players) if s != turn.seat and s not in gone]
            if turn.seat not in gone and len(left) >= quorum(config.players) and (
                local.state.seq + 1 >= place or set(turn.kinds) <= set(final)
            ):
                seat, _ = declare_absent(local, gone)
                gone.append(seat)
                break
            local.step(agents)
    local.run(agents)
    return local, gone


def nobody_is_convicted(local: LocalTable, config: Config, gone: Sequence[int]) -> None:
    """The rule's promises for an honest table whose ``gone`` seats were declared absent."""
    state = local.state
    result = state.result
    assert result is not None
    what = result.describe()
    assert result.reason != FRAUD, what
    assert "rule violation" not in result.detail, what
    assert not [i for i in state.incidents if i.kind == "fraud"], what
    assert result.forfeits == tuple(sorted(gone)), what
    for forfeit in state.forfeits:
        assert forfeit.reason in (ABANDONED, DESERTED), what
        assert f"seat {forfeit.seat} at record {forfeit.seq}: {forfeit.what}" in result.detail
    for words in result.unjudged:
        assert words in result.detail, what
    if result.unjudged:
        assert NOT_JUDGED in result.detail, what
    if config.players == 2 and gone and result.reason not in (ABANDONED, DESERTED, FRAUD):
        # Gone in the final reveal of a result play had fixed (a loser, or anyone where
        # nothing left to open could change it): that result stands.
        (seat,) = gone
        over = config.definition.rules.next(state.game)
        assert isinstance(over, Over) and over.natural is not None, what
        assert (result.winner, result.reason) == (over.natural.winner, over.natural.reason), what
        side = config.definition.rules.side_of(state.game, seat)
        assert over.fixed or side not in result.winners, what
    elif config.players == 2 and gone:
        (seat,) = gone
        assert result.winner is None and result.reason == ABANDONED, what
        assert result.detail.startswith(f"{CLAIMED} {1 - seat}"), what
        assert what.startswith(f"abandoned, {CLAIMED} {1 - seat}: no winner, no fraud"), what
    elif gone:
        rules = config.definition.rules
        for forfeit in state.forfeits:
            if forfeit.claimed_by:
                continue  # one party's word (SpyNet's public opponents at four): no side loses
            side = rules.side_of(state.game, forfeit.seat)
            assert side is None or side not in result.winners, what
    report = audit_transcript(local.transcript)
    assert report.valid and report.result == result, report.describe()
    assert report.describe().startswith("VALID "), report.describe()


@every_config
def test_a_seat_absent_at_any_moment_is_never_convicted(config: Config) -> None:
    length = len(played(config).records)
    final = config.definition.rules.final_reveal
    kinds = [r.record.kind for r in played(config).records]
    reveal = next((i for i, k in enumerate(kinds) if k in final), length - 2)
    for place in (length // 2, reveal + 1):  # in play, and at the final reveal
        local, gone = absent_at(config, 5, (place,))
        assert len(gone) == 1, f"nobody could be declared absent at {place}"
        nobody_is_convicted(local, config, gone)


@two_absences_configs
def test_two_seats_absent_convict_nobody(config: Config) -> None:
    length = len(played(config).records)
    local, gone = absent_at(config, 5, (length // 2, length // 2))
    assert len(gone) == 2
    nobody_is_convicted(local, config, gone)


# Every game at every seat count, random seeds, one or two random absences. A game plays once
# to learn its length (the places are fractions of it), then again with the absences; a budget
# of 30 examples keeps this near 30 s on one core.
TABLES = [
    (name, players)
    for name in registry.game_names()
    for players in registry.load(name).rules.seat_counts
]
# The test games' tables (tests/kit): checked at every seat count below, and by a property of
# their own, so the product games' random examples stay the ones drawn before there were any.
TEST_TABLES = [(name, players) for name in TEST_GAMES for players in load(name).rules.seat_counts]
EVERY_TABLE = TABLES + TEST_TABLES


@pytest.mark.parametrize("table", EVERY_TABLE, ids=lambda t: f"{t[0]}-{t[1]}")
def test_every_seat_count_of_every_game_convicts_no_absent_seat(table: tuple[str, int]) -> None:
    name, players = table
    config = Config(name, players, ())
    place = 20 + 6 * players  # past every game's setup, so play goes on to a second absence
    places = (place, place) if players >= 4 else (place,)
    local, gone = absent_at(config, 7, places)
    assert len(gone) == len(places)
    nobody_is_convicted(local, config, gone)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 1 << 20),
    places=st.lists(st.floats(0, 1), min_size=1, max_size=2),
)
def test_property_no_honest_seat_is_convicted_with_random_absences(
    table: tuple[str, int], seed: int, places: list[float]
) -> None:
    name, players = table
    config = Config(name, players, ())
    honest, agents = new_table(config, seed)
    honest.run(agents)
    length = len(honest.records)
    wanted = places if players >= 4 else places[:1]
    local, gone = absent_at(config, seed, [1 + int(f * (length - 2)) for f in sorted(wanted)])
    assert gone, "nobody could be declared absent"
    nobody_is_convicted(local, config, gone)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    table=st.sampled_from(TEST_TABLES),
    seed=st.integers(0, 1 << 20),
    places=st.lists(st.floats(0, 1), min_size=1, max_size=2),
)
def test_property_no_honest_seat_of_a_test_game_is_convicted_with_random_absences(
    table: tuple[str, int], seed: int, places: list[float]
) -> None:
    """The property above, over the test games (one game here takes a tenth of a second)."""
    property_above = test_property_no_honest_seat_is_convicted_with_random_absences
    property_above.hypothesis.inner_test(table, seed, places)  # type: ignore[attr-defined]


# --- the beacon's last mover (issue 17, item 5; docs/rulings.md) --------------------------------


def at_a_beacon_place(config: Config, mover: int) -> tuple[LocalTable, int]:
    """The game's first beacon round, stopped where ``mover`` is to reveal, declared absent."""
    local, agents = new_table(config, 5)
    while (turn := local.table.expect(local.state)) is not None:
        if turn.kinds == ("beacon",) and turn.seat == mover:
            seat, seq = declare_absent(local)
            assert seat == mover
            local.run(agents)
            return local, seq
        local.step(agents)
    pytest.fail("the game drew nothing from the beacon")


@every_config
def test_the_last_seat_of_a_beacon_round_that_stalls_has_deserted_after_seeing_the_draw(
    config: Config,
) -> None:
    last = config.players - 1
    local, seq = at_a_beacon_place(config, last)
    (forfeit,) = local.state.forfeits
    assert (forfeit.seat, forfeit.seq, forfeit.reason) == (last, seq, DESERTED)
    assert forfeit.what.startswith("deserted after seeing") and forfeit.what.endswith("the draw")
    nobody_is_convicted(local, config, [last])
    assert f"seat {last} at record {seq}: {forfeit.what}" in audit_transcript(
        local.transcript
    ).describe()


@every_config
def test_a_seat_that_stalls_before_the_last_pre_image_has_not_seen_the_draw(
    config: Config,
) -> None:
    local, seq = at_a_beacon_place(config, 0)
    (forfeit,) = local.state.forfeits
    assert (forfeit.seat, forfeit.seq) == (0, seq)
    assert "the draw" not in forfeit.what
    nobody_is_convicted(local, config, [0])


# --- the kit's final reveal of key shares (engines.game.KeyShareRules) --------------------------


@key_share_configs
def test_a_false_key_share_secret_at_the_final_reveal_is_a_false_opening(config: Config) -> None:
    from spycraft.crypto.entropy import SeededEntropy
    from spycraft.crypto.errors import BadOpening
    from spycraft.crypto.group import Scalar
    from spycraft.engines.game import REVEAL

    game = played(config)
    reveals = [i for i, r in enumerate(game.records) if r.record.kind == REVEAL]
    assert len(reveals) == config.players, "every seat opens its key share"
    for position in reveals:
        honest = game.records[position]
        state = game.states[position]
        false = Scalar.random(SeededEntropy(position)).encode()
        for body in ({"secret": false}, {"secret": game.records[reveals[0]].record.body["secret"]}):
            if body == dict(honest.record.body):
                continue
            forged = game.local.seats[honest.record.seat].sign(state, REVEAL, body)
            with pytest.raises(BadOpening) as error:
                game.local.table.apply(state, forged)
            assert (error.value.seat, error.value.seq) == (honest.record.seat, honest.record.seq)

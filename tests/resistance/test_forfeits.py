"""The one forfeit rule on The Resistance: abandons are not fraud, deserters are named."""

from __future__ import annotations

from spycraft.crypto import recognition
from spycraft.engines.audit import audit_transcript
from spycraft.engines.local import LocalTable
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.rules import State
from spycraft.engines.table import ABANDONED, DESERTED
from tests.conformance import games

from .helpers import run_until, seat_of, table


def declare_absent(local: LocalTable) -> int:
    """The expected seat voted absent by enough of the others for a proof (every other seat but
    what a proof does not need: the Resistance are a quorum, ``hidden_side``); the lowest
    voter writes."""
    return games.declare_absent(local)[0]


def side(local: LocalTable, seat: int) -> str:
    reading = seat_of(local, seat).reading(local.state.game)
    assert reading is not None
    return R.SPIES if reading.role == recognition.SPY else R.RESISTANCE


def test_two_abandons_one_on_each_side_end_with_no_winner_abandoned_and_audit_valid() -> None:
    local, agents = table(7, 3)  # at five, a second seat gone leaves too few for a proof
    run_until(local, agents, lambda s, t: s.stage == "play" and s.game.phase == R.VOTE)
    first = declare_absent(local)
    sides = {side(local, first)}
    while len(sides) < 2:  # then a seat of the other side, at its turn to build on it
        turn = local.table.expect(local.state)
        assert turn is not None and turn.kinds in (("ready",), ("reveal",))
        if side(local, turn.seat) in sides:
            local.step(agents)
            continue
        sides.add(side(local, declare_absent(local)))
    final = local.run(agents)
    result = final.result
    assert result is not None
    assert (result.winner, result.reason) == (None, DESERTED)
    assert "fraud" not in result.describe()
    gone = result.forfeits
    # one spy and one resistance card stayed closed: the count does not say which is which
    assert all(final.game.roles[s] is None for s in gone)
    assert all(local.table.rules.side_of(final.game, s) is None for s in gone)
    assert any("mission card" in w or "spy tag" in w for w in result.unjudged), result.detail
    report = audit_transcript(local.transcript)
    assert report.valid, report.describe()
    assert report.describe().startswith("VALID ")


def test_an_absent_spy_loses_the_game_for_the_spies_without_fraud() -> None:
    for seed in range(20):
        local, agents = table(5, seed)
        turn = run_until(local, agents, lambda s, t: s.stage == "play" and s.game.phase == R.VOTE)
        if side(local, turn.seat) != R.SPIES:
            continue
        declare_absent(local)
        final = local.run(agents)
        assert final.result is not None
        assert (final.result.winner, final.result.forfeits) == (R.RESISTANCE, (turn.seat,))
        assert final.game.roles[turn.seat] == recognition.SPY  # the only card the count leaves
        assert final.result.reason == DESERTED  # it had seen its role
        assert audit_transcript(local.transcript).valid
        return
    raise AssertionError("no spy was the first voter")


def test_the_last_seat_of_the_deal_reads_its_role_and_walking_away_is_desertion() -> None:
    local, agents = table(5, 4)
    last = 4
    run_until(local, agents, lambda s, t: t.kinds == ("deal_tokens",) and t.seat == last)
    state: State = local.state.game
    assert local.table.rules.seen_secret(state, last) == "its role"
    assert declare_absent(local) == last
    final = local.run(agents)
    result = final.result
    assert result is not None
    assert (result.winner, result.reason, result.forfeits) == (None, DESERTED, (last,))
    assert f"seat {last} at record" in result.detail
    assert "deserted after seeing its role" in result.detail
    assert audit_transcript(local.transcript).valid


def test_a_seat_that_walks_away_before_seeing_its_role_has_only_abandoned() -> None:
    local, agents = table(5, 4)
    run_until(local, agents, lambda s, t: t.kinds == ("deal_tokens",) and t.seat == 2)
    assert local.table.rules.seen_secret(local.state.game, 2) is None
    declare_absent(local)
    final = local.run(agents)
    assert final.result is not None
    result = final.result
    assert (result.winner, result.reason, result.forfeits) == (None, ABANDONED, (2,))
    assert "the side of seat 2 is not known" in result.detail

"""A result that forfeits decided, as a person reads it (the result line and the final screen),
from real games where a majority declares a seat absent; the audit keeps the record's exact
form ("abandoned, claimed by seat N"), which tests and people grep."""

from __future__ import annotations

from typing import Any

from spycraft.cli.outcome import verdict
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import absence, registry
from spycraft.engines.audit import audit
from spycraft.engines.local import LocalTable, new_local_table


def abandoned(game: str, players: int, until: Any, seed: int = 3) -> tuple[LocalTable, int]:
    """Play ``game`` with bots until ``until(turn)``; then enough of the others for a proof
    declare the seat expected absent, and the game plays on to its result. The table and that
    seat."""
    definition = registry.load(game)
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, definition.genesis_options(players), players,
                            entropy.child("table"))
    agents = [definition.bots["heuristic"](entropy.child(f"bot{i}"), i) for i in range(players)]
    while not until(local.table.expect(local.state)):
        local.step(agents)
    accused = local.table.expect(local.state).seat
    hidden = local.table.rules.hidden_side(local.state.game, accused)  # a proof outvotes it
    wanted = max(absence.quorum(players), hidden + 1)
    others = [s for s in range(players) if s != accused][:wanted]
    votes = {s: local.seats[s].absence_vote(local.state) for s in others}
    record = local.seats[others[0]].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, record)
    local.records.append(record)
    local.run(agents)
    return local, accused


def test_a_two_seat_abandon_reads_ran_out_of_time_and_claims_with_no_winner():
    local, gone = abandoned("spies-and-lies", 2, lambda turn: turn.kinds == ("guess",))
    claimer = 1 - gone
    definition, state = local.definition, local.state
    plain = f"seat {gone} ran out of time; seat {claimer} claims the game: no winner"
    for seat in (claimer, gone, None):
        assert verdict(definition, state, seat) == f"result: {plain}"
    end = definition.screen(state, claimer, None).result
    assert end is not None and end.headline == "No winner"
    assert end.detail[-1] == plain[0].upper() + plain[1:]
    assert "no fraud; forfeit by" not in verdict(definition, state, claimer)
    # the audit's line stays the record's exact form
    described = audit(local.transcript.to_bytes()).describe()
    assert f"abandoned, claimed by seat {claimer}: no winner, no fraud" in described


def test_a_seat_that_walks_away_after_seeing_its_role_loses_it_for_its_side_in_words():
    local, gone = abandoned("resistance", 5, lambda turn: turn.kinds == ("vote_commit",))
    state = local.state
    result = state.result
    assert result is not None and result.winner is not None
    side = "The Resistance" if result.winner == "resistance" else "The Spies"
    said = verdict(local.definition, state, None)
    assert said == f"result: seat {gone} walked away after seeing its role: " \
                   f"{side[4:].capitalize()} won", said
    mine = local.definition.rules.side_of(state.game, gone)
    me = verdict(local.definition, state, gone)
    assert me.startswith("result: you lost, playing ") and mine != result.winner
    end = local.definition.screen(state, None, None).result
    assert end is not None and \
        f"Seat {gone} walked away after seeing its role: {side} won" in end.detail, end.detail


def after(records: int) -> Any:
    """An ``until`` for ``abandoned``: the turn after ``records`` records."""
    turns = iter(range(records))
    return lambda turn: next(turns, None) is None


def test_the_history_tells_an_abandon_as_a_seat_that_ran_out_of_time():
    """In every game (Shady Agents' story unpacked each forfeit as (seat, seq, reason) after the
    state came to list seats: a host narrating an abandon crashed, found by the chaos run)."""
    from spycraft.cli.app.picture import Painter

    for game, players, until in (
            ("resistance", 5, lambda turn: turn.kinds == ("vote_commit",)),
            ("spies-and-lies", 2, lambda turn: turn.kinds == ("guess",)),
            ("shady-agents", 4, after(12)), ("spynet", 4, after(12)),
            ("confusion", 2, after(12))):
        local, gone = abandoned(game, players, until)
        painter = Painter(local.definition)
        states = [local.table.start(local.genesis)]
        for signed in local.records:
            states.append(local.table.apply(states[-1], signed))
        i = next(i for i, r in enumerate(local.records) if r.record.kind == "abandon")
        event = painter.tell(states[i], local.records[i], states[i + 1])
        assert event is not None
        sides = {"spies-and-lies": ("Red", "Blue"), "confusion": ("White", "Red")}
        who = sides[game][gone] if game in sides else f"Seat {gone}"
        assert event.text.startswith(f"{who} ran out of time and is declared absent by a "
                                     f"majority: it forfeits"), event.text

"""The game on the table: seats, memo, forfeits, options, the text views."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.cli.main import main
from spycraft.engines.evolve import evolve
from spycraft.engines.registry import load
from spycraft.engines.seat import SeatContext
from spycraft.engines.spies_and_lies import GAME, RULES, model
from spycraft.engines.spies_and_lies.model import BLUE, RED, Board
from spycraft.engines.spies_and_lies.rules import State, outcome
from spycraft.engines.spies_and_lies.seat import SpiesAndLiesSeat
from spycraft.engines.spies_and_lies.view import SeatView
from spycraft.engines.table import ABANDONED, FRAUD, Forfeit, Over, Turn, settle

from .support import Refuses, board, expected, honest_table, play_until


def test_the_registry_loads_spies_and_lies() -> None:
    assert load("spies-and-lies") is GAME
    assert GAME.rules.seat_counts == (2,)


def test_spies_and_lies_takes_no_options_and_two_players() -> None:
    options = GAME.options  # the genesis options from keywords, derived from the declared ones
    assert options() == {} and options(players=2) == {}
    with pytest.raises(ValueError):
        options(players=3)
    with pytest.raises(ValueError):
        options(variant="blind")
    with pytest.raises(ValueError):
        RULES.check_options({"variant": 1}, 2)
    RULES.check_options({}, 2)


@pytest.mark.parametrize("kind", ["deploy", "layout"])
def test_a_resumed_seat_reads_its_private_choices_from_memo(kind: str) -> None:
    table, agents = honest_table(7)
    turn = play_until(table, agents, lambda turn, b: turn == Turn(RED, (kind,)))
    seat = table.seats[RED]
    first = seat.game.build(table.state.game, turn, agents[RED])
    context = seat.context
    resumed = SpiesAndLiesSeat(
        SeatContext(context.genesis, RED, context.master, dict(context.memo)), GAME.rules
    )
    assert resumed.build(table.state.game, turn, Refuses()) == first


def test_the_seat_writes_its_memo_before_the_commitment() -> None:
    table, agents = honest_table(8)
    turn = play_until(table, agents, lambda turn, b: turn == Turn(BLUE, ("deploy",)))
    assert "deploy/1" not in table.seats[BLUE].memo
    kind, _ = table.seats[BLUE].game.build(table.state.game, turn, agents[BLUE])
    assert kind == "deploy" and len(table.seats[BLUE].memo["deploy/1"]) == 4


def test_an_abandon_in_play_between_two_seats_is_claimed_with_no_winner_and_opens_nothing() -> None:
    """The claimer opens none of its cards: the accused's withheld record could still displace
    the claim until its result, and play would go on with the claimer's cards known."""
    table, agents = honest_table(9)
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("guess",))
    deserter = turn.seat
    claimer = table.seats[1 - deserter]
    hidden = model.hidden_indices(table.state.game.game, 1 - deserter)
    assert hidden
    abandon = claimer.sign_abandon(table.state, {1 - deserter: claimer.absence_vote(table.state)})
    table.state = table.table.apply(table.state, abandon)
    table.records.append(abandon)
    assert expected(table) == Turn(1 - deserter, ("result",))
    final = table.run(agents)
    assert final.result is not None
    assert (final.result.winner, final.result.reason) == (None, ABANDONED)
    assert final.result.forfeits == (deserter,)
    assert final.result.describe().startswith(f"abandoned, claimed by seat {1 - deserter}: ")
    assert model.hidden_indices(final.game.game, 1 - deserter) == hidden
    assert [r.record.kind for r in table.records[-2:]] == ["abandon", "result"]


def test_an_abandon_at_the_final_reveal_between_two_seats_still_asks_the_claimer_to_open() -> None:
    """Once play is over nothing rolls back into play: the claimer opens its cards as ever."""
    table, agents = honest_table(22)  # its game ends with both seats' cards still hidden
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("final",))
    deserter = turn.seat
    claimer = table.seats[1 - deserter]
    abandon = claimer.sign_abandon(table.state, {1 - deserter: claimer.absence_vote(table.state)})
    table.state = table.table.apply(table.state, abandon)
    table.records.append(abandon)
    final = table.run(agents)
    assert final.result is not None
    assert final.result.forfeits == (deserter,)
    assert not model.hidden_indices(final.game.game, 1 - deserter)


def test_when_both_seats_forfeit_nobody_wins() -> None:
    table, agents = honest_table(28)
    play_until(table, agents, lambda turn, b: turn.kinds == ("final",))
    for _ in range(2):
        deserter = expected(table).seat
        claimer = table.seats[1 - deserter]
        abandon = claimer.sign_abandon(
            table.state, {1 - deserter: claimer.absence_vote(table.state)}
        )
        table.state = table.table.apply(table.state, abandon)
        table.records.append(abandon)
    final = table.run(agents)
    assert final.result is not None
    assert (final.result.winner, final.result.forfeits) == (None, (0, 1))


def after_capture() -> Board:
    """Example 3's board right after Red captured the flag at step 4."""
    cards = (
        (model.Card(bytes(32), True, "activated", 8), model.Card(bytes(32), True, "activated", 9)),
        (model.Card(bytes(32), True, "retired", 1), model.Card(bytes(32), False, "retired", 3)),
    )
    hidden = (model.Card(bytes(32), True), model.Card(bytes(32), True))
    return Board(
        phase="over",
        day=3,
        da=4,
        exhausted=((2,), (6,)),
        current=6,
        captured_by=RED,
        cards=(
            cards[0] + hidden,
            cards[1] + (model.Card(bytes(32), False), model.Card(bytes(32), True)),
        ),
    )


def test_a_cheat_found_at_the_final_reveal_costs_the_flag_capture() -> None:
    b = after_capture()
    with pytest.raises(model.Violation, match="not increasing"):
        model.final_open(b, RED, [10, 3])
    state = RULES.forfeit(State(game=b), RED, 40, "rule violation: not increasing")
    assert model.final_opener(state.game, state.forfeits) == BLUE
    state = evolve(state, game=model.final_open(state.game, BLUE, [5, 9]))
    over = RULES.next(state)
    assert isinstance(over, Over) and over.natural is not None  # play fixed the capture
    cheat = Forfeit(RED, 40, FRAUD, "rule violation: not increasing", BLUE)
    result = settle(2, RULES.sides, lambda seat: RULES.side_of(state, seat), [cheat], over)
    assert (result.winner, result.reason, result.forfeits, result.evidence) == (
        "Blue",
        "fraud",
        (0,),
        (40,),
    )


def test_the_centre_tie_break_goes_to_the_higher_marker_and_equal_markers_draw() -> None:
    end = Board(phase="over", day=3, step=8, da=0, markers=(3, 5))
    assert outcome(end).winner == "Blue"
    assert outcome(Board(phase="over", day=3, step=8, da=0, markers=(4, 4))).winner is None
    assert outcome(Board(phase="over", day=3, step=8, da=1, markers=(0, 9))).winner == "Red"


def test_the_seat_view_shows_its_own_hidden_ranks_and_the_public_view_does_not() -> None:
    table, agents = honest_table(11)
    play_until(table, agents, lambda turn, b: turn.kinds == ("guess",))
    own = tuple(table.seats[RED].memo["deploy/1"])
    mine = GAME.screen(table.state, RED, SeatView(board(table), RED, own))
    public = GAME.screen(table.state, None, None)

    def cells(screen: Any) -> list[str]:
        return [cell.text for grid in screen.board for row in grid.rows for cell in row]

    assert any(text.startswith(f"your {model.rank_label(own[-1])}, face down")
               for text in cells(mine))
    assert not any(text.startswith("your ") for text in cells(public))
    assert {"Double Agent", "Old Intel", "Intel card"} <= {fact.label for fact in public.status}


def test_replay_narrates_every_record_in_one_line_but_a_beacon_value_before_the_draw() -> None:
    table, agents = honest_table(12, ("random", "heuristic"))
    table.run(agents)
    engine = GAME.table()
    state = engine.start(table.genesis)
    for signed in table.records:
        after = engine.apply(state, signed)
        event = GAME.story(state.game, signed.record, after.game)
        assert event is None or "\n" not in event.text
        # a draw is told by its last value; the result by the screen's result
        assert event is not None or signed.record.kind in ("beacon", "result")
        state = after


def test_the_audit_of_a_two_seat_abandon_says_claimed_and_exits_0(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    table, agents = honest_table(9)
    turn = play_until(table, agents, lambda turn, b: turn.kinds == ("guess",))
    claimer = table.seats[1 - turn.seat]
    abandon = claimer.sign_abandon(table.state, {1 - turn.seat: claimer.absence_vote(table.state)})
    table.state = table.table.apply(table.state, abandon)
    table.records.append(abandon)
    table.run(agents)
    path = tmp_path / "abandoned.cbor"
    path.write_bytes(table.transcript.to_bytes())
    assert main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VALID ")
    assert f"abandoned, claimed by seat {1 - turn.seat}: no winner, no fraud" in out


def test_next_answers_each_board_by_its_rules_whatever_board_it_answered_last() -> None:
    # ``next`` keeps its last answer for the table's second question about the same board: a
    # board it did not answer last (another, or an equal copy) is answered anew.
    setup, deploy = State(), State(game=model.setup(Board(), 0, 0, 0, 0))
    assert RULES.next(setup) == RULES.next(setup) == RULES._next(setup)
    assert RULES.next(deploy) == Turn(0, ("deploy",)) == RULES._next(deploy)
    assert RULES.next(setup) == RULES._next(setup) != RULES.next(deploy)
    copy = State(game=model.setup(Board(), 0, 0, 0, 0))
    assert RULES.next(copy) == Turn(0, ("deploy",))


def test_every_phase_of_the_board_says_what_the_game_waits_for() -> None:
    """The phases table (``rules.WAITS_FOR``) has one entry for each phase the board can be
    in, and no other: a phase added to the model without its entry fails here, not in play."""
    from typing import get_args

    from spycraft.engines.spies_and_lies.model import Phase
    from spycraft.engines.spies_and_lies.rules import WAITS_FOR

    assert list(WAITS_FOR) == list(get_args(Phase))

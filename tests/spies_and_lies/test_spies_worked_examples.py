"""The rules' worked examples (§11), fed to the pure rule functions with the examples' numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.model import BLUE, RED, Board
from spycraft.engines.spies_and_lies.rules import outcome

DIGEST = bytes(32)


def deployed(board: Board, red: tuple[int, ...], blue: tuple[int, ...], intel_draw: int) -> Board:
    """Both deployments committed (the ranks stay with the test), then the Intel draw."""
    assert model.is_legal_deployment(red, model.hand(board, RED))
    assert model.is_legal_deployment(blue, model.hand(board, BLUE))
    board = model.deploy(board, RED, [DIGEST] * 4)
    board = model.deploy(board, BLUE, [DIGEST] * 4)
    assert board.phase == "intel"
    assert model.draw_sizes(board) == (len(board.deck),)
    return model.draw_intel(board, intel_draw)


def with_tokens(board: Board, red: tuple[bool, ...], blue: tuple[bool, ...]) -> Board:
    board = model.commit_layout(board, RED, DIGEST)
    board = model.commit_layout(board, BLUE, DIGEST)
    board = model.open_layout(board, RED, red)
    board = model.open_layout(board, BLUE, blue)
    assert board.phase == "mission" and board.step == 1
    return board


def play_step(
    board: Board,
    *,
    dt: bool,
    guess: int,
    card: int,
    captain: int | None = None,
    split: bool | None = None,
) -> Board:
    if board.stage == "deceive":
        board = model.deceive(board, dt)
    else:
        assert not dt, "the defender has no DT to place"
    board = model.guess(board, guess)
    board = model.reveal(board, card)
    if captain is not None:
        assert board.stage == "captain"
        board = model.captain(board, captain)
    if split is not None:
        assert board.stage == "marshal"
        board = model.marshal(board, split)
    return board


def check_row(board: Board, red: int, blue: int, da: int) -> None:
    assert (board.markers, board.da) == ((red, blue), da)


ON, OFF = True, False


def test_example_1_day_one_colonel_rollover_deception_and_spy_against_marshal() -> None:
    board = model.setup(Board(), 2, 8, 1, 0)
    assert board.old_intel == (3,) and board.deck == (1, 2, 4, 5, 6)
    assert board.exhausted == ((9,), (2,)) and board.sp == RED
    board = deployed(board, (1, 4, 6, 8), (3, 5, 8, 10), intel_draw=1)
    assert board.current == 2
    board = with_tokens(board, (OFF, ON, ON, ON), (OFF, OFF, ON, ON))

    board = play_step(board, dt=False, guess=1, card=3)
    check_row(board, 0, 3, 0)
    assert board.flags[BLUE].miner
    board = play_step(board, dt=True, guess=2, card=1)
    check_row(board, 5, 3, 0)
    assert board.dt == (1, 1) and board.supply == 1 and board.flags[RED].spy
    board = play_step(board, dt=False, guess=5, card=5)
    check_row(board, 7, 3, 0)
    board = play_step(board, dt=False, guess=4, card=4)
    check_row(board, 7, 5, 0)
    board = play_step(board, dt=True, guess=9, card=8)
    check_row(board, 7, 7, -1)
    board = model.guess(model.deceive(board, False), 8)
    board = model.reveal(board, 6)
    assert board.stage == "captain" and model.captain_options(board, RED) == (0, 9)
    board = model.captain(board, 9)
    check_row(board, 7, 7, 1)
    board = play_step(board, dt=False, guess=9, card=10)
    check_row(board, 7, 7, 1)
    assert board.cards[BLUE][3].state == "retired"
    board = play_step(board, dt=True, guess=10, card=8)
    check_row(board, 9, 7, 2)

    assert board.phase == "exhaustion"
    assert board.dt == (0, 0) and board.supply == 1
    assert model.draw_sizes(board) == (4, 4)
    board = model.exhaust(board, 2, 3)
    assert board.old_intel == (3, 2)
    assert board.exhausted == ((6,), (10,))
    assert board.day == 2 and board.sp == BLUE and board.phase == "deploy"
    assert model.hand(board, RED) == (1, 2, 3, 4, 5, 7, 8, 9, 10)


def test_example_2_day_two_bomb_double_damage_miner_against_bomb_and_marshal_split() -> None:
    given = Board(
        phase="deploy",
        day=2,
        sp=BLUE,
        da=1,
        markers=(6, 2),
        dt=(1, 1),
        supply=1,
        exhausted=((6,), (10,)),
        old_intel=(3, 2),
        deck=(1, 4, 5, 6),
    )
    board = deployed(given, (2, 3, 7, 10), (1, 4, 6, 7), intel_draw=2)
    assert board.current == 5
    board = with_tokens(board, (ON, ON, ON, OFF), (OFF, OFF, OFF, ON))

    board = play_step(board, dt=False, guess=2, card=2)
    check_row(board, 6, 4, 1)
    board = play_step(board, dt=False, guess=1, card=1)
    check_row(board, 8, 4, 1)
    assert board.dt == (1, 1), "a Spy guessed correctly gives no DT"
    board = play_step(board, dt=False, guess=5, card=3)
    check_row(board, 0, 4, 3)
    assert board.flags[RED].miner
    board = play_step(board, dt=False, guess=4, card=4)
    check_row(board, 2, 4, 3)
    board = play_step(board, dt=False, guess=8, card=7)
    check_row(board, 2, 4, 3)
    assert board.flags[RED].bomb
    board = play_step(board, dt=False, guess=6, card=6)
    check_row(board, 4, 4, 3)
    assert board.flags[BLUE].double and not board.flags[RED].bomb
    board = play_step(board, dt=False, guess=9, card=10, split=True)
    check_row(board, 9, 0, 3)
    board = play_step(board, dt=True, guess=8, card=7)
    check_row(board, 9, 4, 3)
    assert board.cards[BLUE][3].state == "retired"

    assert board.dt == (1, 0) and board.supply == 1
    assert model.draw_sizes(board) == (4, 6)
    board = model.exhaust(board, 3, 4)
    assert board.exhausted == ((10,), (4, 7))
    assert board.day == 3 and board.sp == RED


def test_example_3_day_three_wall_lock_and_flag_capture() -> None:
    given = Board(
        phase="deploy",
        day=3,
        sp=RED,
        da=2,
        markers=(6, 7),
        dt=(1, 1),
        supply=0,
        exhausted=((2,), (6,)),
        old_intel=(1, 3, 5),
        deck=(2, 4, 6),
    )
    board = deployed(given, (8, 9, 10, 4), (1, 3, 5, 9), intel_draw=2)
    assert board.current == 6
    board = with_tokens(board, (ON, ON, ON, ON), (ON, OFF, OFF, ON))

    board = play_step(board, dt=False, guess=1, card=1)
    check_row(board, 8, 7, 2)
    board = model.guess(model.deceive(board, True), 6)
    board = model.reveal(board, 8)
    check_row(board, 0, 7, 4)
    assert board.captured_by is None, "the second infiltration is absorbed by the wall lock"
    assert board.phase == "mission" and board.step == 3 and board.wall_lock == (False, False)
    board = play_step(board, dt=False, guess=3, card=3)
    check_row(board, 2, 7, 4)
    known = [8, None, None, None]
    tokens = [c.token for c in board.cards[RED]]
    assert model.consistent(model.hand(board, RED), known, tokens, 6) == (
        (8, 4, 9, 10),
        (8, 9, 4, 10),
        (8, 9, 10, 4),
    )
    board = play_step(board, dt=False, guess=4, card=9)
    assert board.captured_by == RED and board.phase == "over"

    assert model.final_opener(board) == RED
    board = model.final_open(board, RED, [10, 4])
    assert model.final_opener(board) == BLUE
    board = model.final_open(board, BLUE, [5, 9])
    assert model.final_opener(board) is None
    result = outcome(board)
    assert (result.winner, result.reason) == ("Red", "flag captured")


def test_wall_lock_stops_the_double_agent_on_the_enemy_wall_and_loses_the_rest() -> None:
    board = replace(Board(phase="mission", day=3, da=2, step=1), markers=(8, 0))
    board = model.gain(board, RED, 8, rollover=True)
    assert (board.da, board.markers[RED], board.wall_lock) == (4, 6, (True, False))
    board = model.gain(board, RED, 4)
    assert (board.da, board.markers[RED], board.captured_by) == (4, 0, None)


def test_infiltration_from_the_enemy_wall_captures_the_flag() -> None:
    board = Board(phase="mission", day=1, da=-4, step=1, markers=(0, 9))
    board = model.gain(board, BLUE, 1)
    assert board.captured_by == BLUE and board.phase == "over"


def test_moving_away_from_your_own_wall_does_not_stop() -> None:
    board = Board(phase="mission", day=3, da=-4, step=1)
    assert model.move_da(board, RED, 3).da == -1


def test_colonel_rolls_over_the_excess_and_other_gains_lose_it() -> None:
    board = Board(phase="mission", day=1, step=1, markers=(7, 7))
    assert model.gain(board, RED, 8, rollover=True).markers[RED] == 5
    assert model.gain(board, RED, 8).markers[RED] == 0


@pytest.mark.parametrize(
    ("spy", "miner", "options"),
    [
        (False, False, (0, 7, 10)),
        (True, False, (0, 7)),
        (False, True, (0, 10)),
        (True, True, (0,)),
    ],
)
def test_captain_may_not_copy_what_the_opponent_would_retire_at_once(
    spy: bool, miner: bool, options: tuple[int, ...]
) -> None:
    board = Board(
        exhausted=((7, 10), (1,)), flags=(model.Flags(), model.Flags(spy=spy, miner=miner))
    )
    assert model.captain_options(board, RED) == options


def test_a_captain_with_nothing_to_copy_takes_six_ip_without_asking() -> None:
    board = Board(
        phase="mission",
        step=1,
        stage="resolve",
        exhausted=((10,), (1,)),
        flags=(model.Flags(), model.Flags(spy=True)),
    )
    board = model.activate(board, RED, 6)
    assert board.stage == "resolve" and board.markers == (6, 0)


def test_a_spy_whose_ip_captures_the_flag_takes_no_deception_token() -> None:
    board = Board(phase="mission", step=1, stage="resolve", da=4, markers=(9, 0))
    board = model.activate(board, RED, 1)
    assert board.captured_by == RED
    assert (board.dt, board.supply, board.flags[RED].spy) == ((1, 1), 2, False)

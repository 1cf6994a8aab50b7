"""What the heuristic bot does in the positions the rules describe."""

from __future__ import annotations

from dataclasses import replace

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines.agent import Decision
from spycraft.engines.spies_and_lies import model
from spycraft.engines.spies_and_lies.bots import HeuristicBot
from spycraft.engines.spies_and_lies.model import BLUE, RED, Board, Card
from spycraft.engines.spies_and_lies.rules import State
from spycraft.engines.spies_and_lies.screen import story
from spycraft.engines.spies_and_lies.view import SeatView


def decide(board: Board, seat: int, kind: str, options: tuple[object, ...]) -> object:
    bot = HeuristicBot(SeededEntropy(0), seat)
    labels = tuple(str(o) for o in options)
    index = bot.decide(Decision(seat, kind, "", options, labels, SeatView(board, seat)))
    return options[index]


def example_3_at_step_4() -> Board:
    red = (Card(bytes(32), True, "activated", 8, guess=6),) + (Card(bytes(32), True),) * 3
    blue = (
        Card(bytes(32), True, "retired", 1, guess=1),
        Card(bytes(32), False, "retired", 3, guess=3),
        Card(bytes(32), False),
        Card(bytes(32), True),
    )
    return Board(
        phase="mission",
        day=3,
        sp=RED,
        da=4,
        markers=(2, 7),
        dt=(0, 1),
        supply=0,
        exhausted=((2,), (6,)),
        old_intel=(1, 3, 5),
        deck=(2, 4),
        current=6,
        cards=(red, blue),
        step=4,
        stage="guess",
    )


def test_the_heuristic_guesser_names_the_rank_most_consistent_deployments_put_there() -> None:
    assert decide(example_3_at_step_4(), BLUE, "guess", model.RANKS) == 9


def test_the_heuristic_marshal_splits_when_the_opponent_is_close_to_infiltrating() -> None:
    board = replace(example_3_at_step_4(), day=1, da=0, markers=(9, 6), stage="marshal")
    board = replace(board, step=3)  # Blue defends its M2
    assert decide(board, BLUE, "marshal", (False, True)) is True
    assert decide(replace(board, markers=(0, 0)), BLUE, "marshal", (False, True)) is False


def test_a_guess_is_told_from_the_board_it_leaves() -> None:
    before = example_3_at_step_4()
    board = model.guess(before, 9)
    record = type("R", (), {"seat": BLUE, "kind": "guess", "body": {"rank": 9}, "seq": 40})()
    event = story(State(game=before), record, State(game=board))
    assert event is not None and event.text == "Step 4: Blue guesses 9 General at Red's M2"

"""The kit's own parts: body schemas, declared options, the moves table, the ask-once memo."""

from __future__ import annotations

from typing import Any

import pytest

from spycraft.crypto.errors import MalformedValue
from spycraft.engines.agent import Decision
from spycraft.engines.game import About, GameSeat, Move, Option, Rules, moves
from spycraft.engines.registry import declare
from spycraft.engines.schema import BOOL, SEAT, Int, ListOf, Nullable, body
from spycraft.engines.seat import SeatContext
from spycraft.engines.spies_and_lies import GAME as SPIES
from spycraft.engines.viewmodel import Screen


def test_a_boolean_is_never_a_number_or_a_seat() -> None:
    schema = body(mission=Int(1, 5), target=Nullable(SEAT), team=ListOf(SEAT, size=-1))
    schema.check({"mission": 2, "target": None, "team": (0, 1, 2)}, 3, "propose")
    for bad in (
        {"mission": True, "target": None, "team": (0, 1, 2)},
        {"mission": 2, "target": True, "team": (0, 1, 2)},
        {"mission": 2, "target": 3, "team": (0, 1, 2)},
        {"mission": 2, "target": None, "team": (0, 1)},
        {"mission": 2, "target": None, "team": (0, 1, 2), "extra": 1},
    ):
        with pytest.raises(MalformedValue):
            schema.check(bad, 3, "propose")


def test_a_record_kind_is_declared_once() -> None:
    move: Move[Any] = Move("x", body(play=BOOL), lambda s, r, b: s, lambda seat, s, b: {})
    with pytest.raises(ValueError):
        moves(move, move)


class Situations(Rules[None]):
    about = About(
        "situations",
        "Situations",
        (2, 3),
        (
            Option("fast", "a yes/no option"),
            Option("situation", "a choice", choices=("off", "random", "S01"), default="off"),
        ),
    )
    sides = ("a", "b")


def test_declared_options_give_the_genesis_options_and_refuse_the_rest() -> None:
    rules = Situations({})
    definition = declare(
        rules.about,
        rules,
        GameSeat,
        bots={},
        screen=lambda table, seat, view: Screen("Situations", ()),
        story=lambda before, record, after: None,
        hindsight=lambda states, seat: list(states),
    )
    assert definition.genesis_options(2) == {"fast": False, "situation": "off"}
    assert definition.genesis_options(3, {"fast": True, "situation": "S01"}) == {
        "fast": True,
        "situation": "S01",
    }
    for players, given in ((4, {}), (2, {"situation": "S09"}), (2, {"plot": True})):
        with pytest.raises(ValueError):
            definition.genesis_options(players, given)


class Always:
    def __init__(self, index: int) -> None:
        self.index = index

    def decide(self, decision: Decision) -> int:
        return self.index


def test_a_seat_asked_again_at_the_same_seq_answers_the_same() -> None:
    context = SeatContext(None, 0, bytes(32), {})  # type: ignore[arg-type]
    seat: GameSeat[Any, Any] = GameSeat(context, SPIES.rules)
    decision = Decision(0, "guess", "which?", (1, 2, 3), ("1", "2", "3"), None)
    assert seat.asked_once(7, decision, Always(2)) == 3
    assert seat.asked_once(7, decision, Always(0)) == 3
    assert context.memo == {"ask/7/guess": [2, b""]}
    assert seat.asked_once(8, decision, Always(0)) == 1


def test_a_seat_asked_at_the_same_seq_of_another_place_is_asked_again() -> None:
    context = SeatContext(None, 0, bytes(32), {}, prev=b"branch A")  # type: ignore[arg-type]
    seat: GameSeat[Any, Any] = GameSeat(context, SPIES.rules)
    decision = Decision(0, "guess", "which?", (1, 2, 3), ("1", "2", "3"), None)
    assert seat.asked_once(7, decision, Always(2)) == 3
    context.prev = b"branch B"
    fewer = Decision(0, "guess", "which?", (1, 2), ("1", "2"), None)
    assert seat.asked_once(7, fewer, Always(0)) == 1
    assert seat.asked_once(7, fewer, Always(1)) == 1
    assert context.memo == {"ask/7/guess": [0, b"branch B"]}


def test_an_answer_kept_by_an_older_version_without_its_place_is_still_taken() -> None:
    context = SeatContext(None, 0, bytes(32), {"ask/7/guess": 2})  # type: ignore[arg-type]
    seat: GameSeat[Any, Any] = GameSeat(context, SPIES.rules)
    decision = Decision(0, "guess", "which?", (1, 2, 3), ("1", "2", "3"), None)
    assert seat.asked_once(7, decision, Always(0)) == 3
    fewer = Decision(0, "guess", "which?", (1, 2), ("1", "2"), None)
    assert seat.asked_once(7, fewer, Always(1)) == 2  # not one of these options: asked


def test_a_game_that_declares_the_kits_reveal_itself_is_refused() -> None:
    from spycraft.engines.resistance.definition import MOVES, ResistanceRules
    from spycraft.engines.schema import Encoded

    own: Move[Any] = Move("reveal", body(secret=Encoded("secret")), lambda s, r, b: s,
                          lambda seat, s, b: {})
    with pytest.raises(ValueError):
        ResistanceRules({**MOVES, "reveal": own})


def test_every_game_of_key_shares_ends_with_the_kits_reveal() -> None:
    from spycraft.engines import registry
    from spycraft.engines.game import REVEAL, KeyShareRules

    found = []
    for name in registry.game_names():
        definition = registry.load(name)
        if isinstance(definition.rules, KeyShareRules):
            found.append(name)
            assert definition.rules.final_reveal == (REVEAL,)
            assert definition.moves[REVEAL].apply == definition.rules.apply_reveal, name
    assert sorted(found) == ["resistance", "shady-agents", "spynet"]


def test_the_keyword_options_of_every_game_are_its_declared_options() -> None:
    from spycraft.engines import registry

    for name in registry.game_names():
        definition = registry.load(name)
        fewest = definition.rules.seat_counts[0]
        assert definition.options() == definition.genesis_options(fewest), name
        for option in definition.flags:
            given = True if not option.choices else option.choices[-1]
            wanted = definition.genesis_options(fewest, {option.name: given})
            assert definition.options(**{option.name: given}) == wanted, name
            assert definition.options(**{option.name: None}) == definition.options(), name
        with pytest.raises(ValueError):
            definition.options(no_such_option=True)

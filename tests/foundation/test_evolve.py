"""``evolve`` gives what ``dataclasses.replace`` gives, and refuses what it cannot copy safely."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property

import pytest

from spycraft.engines.evolve import evolve
from spycraft.engines.spies_and_lies.model import Board, Card


def test_the_next_state_equals_what_replace_gives_and_the_old_one_is_unchanged() -> None:
    board = Board()
    moved = evolve(board, step=3, phase="mission", markers=(4, 1))
    assert moved == dataclasses.replace(board, step=3, phase="mission", markers=(4, 1))
    assert hash(moved) == hash(dataclasses.replace(moved))
    assert board == Board() and board.step == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.step = 4  # type: ignore[misc]


def test_a_field_named_state_can_change() -> None:
    card = Card(bytes(32))
    assert evolve(card, state="retired", rank=7) == Card(bytes(32), state="retired", rank=7)


def test_a_name_that_is_no_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field stpe"):
        evolve(Board(), stpe=3)


@dataclass(frozen=True)
class Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


@dataclass(frozen=True)
class Cached:
    value: int

    @cached_property
    def double(self) -> int:
        return 2 * self.value


@dataclass(frozen=True)
class Derived:
    value: int
    square: int = field(init=False, default=0)


@dataclass
class Mutable:
    value: int


@dataclass(frozen=True, slots=True)
class Slotted:
    value: int


@pytest.mark.parametrize("state", [Checked(1), Cached(1), Derived(1), Mutable(1), Slotted(1), 1])
def test_a_class_whose_init_does_more_than_store_its_fields_is_refused(state: object) -> None:
    with pytest.raises(TypeError):
        evolve(state, value=2)

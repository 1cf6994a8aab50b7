"""The easy bot's beginner habits, each in a situation built on the rules model: it never
interrogates, shoots first (back at whoever shot it, else its left neighbour), and keeps its
Medkit for whoever healed it, else for the nearest seat on its right it has no quarrel with
(module docstring of ``engines.shady_agents.bots``)."""

from __future__ import annotations

from typing import Any

from spycraft.engines.shady_agents.bots import EasyAgent
from spycraft.engines.shady_agents.components import BULLET, CORRUPT, LAW_ABIDING, MEDKIT
from spycraft.engines.shady_agents.simulation import Deal, World

ROLES = (LAW_ABIDING, CORRUPT, LAW_ABIDING, CORRUPT, LAW_ABIDING, CORRUPT)


def table(*moves: tuple[Any, ...]) -> World:
    """Six seats, seat 0 the first player, round 1's Moves played in turn order."""
    world = World.start(Deal(ROLES, None, 0, (0,) * 6))
    for move in moves:
        world = world.play(move)
    return world


def easy_choice(world: World) -> Any:
    decision = world.decision()
    return decision.options[EasyAgent(decision.seat).decide(decision)]


def test_the_first_player_shoots_its_left_neighbour_rather_than_interrogate_for_free() -> None:
    assert easy_choice(table()) == ("move", BULLET, 1)


def test_a_shot_beginner_shoots_back_and_heals_whoever_healed_it() -> None:
    world = table(("move", BULLET, 3), ("move", MEDKIT, 3), ("move", BULLET, 5))
    assert easy_choice(world) == ("move", BULLET, 0)  # not its left neighbour, seat 4
    world = world.play(("move", BULLET, 0))
    world = world.play(("move", BULLET, 1)).play(("move", BULLET, 2))  # seats 4 and 5
    world = world.play(2).play(0)  # round 2: seats 5 and 4 give their Medkits
    assert world.decision().seat == 3
    assert easy_choice(world) == 1  # its healer, though seat 2 is its right neighbour


def test_unhealed_its_medkit_goes_right_past_the_seats_it_quarrels_with() -> None:
    # Seat 2 shoots seat 3; seat 3, easy, shoots back; in round 2 its right neighbour is seat 2.
    world = table(("move", BULLET, 4), ("move", BULLET, 5), ("move", BULLET, 3))
    assert easy_choice(world) == ("move", BULLET, 2)
    world = world.play(("move", BULLET, 2))
    world = world.play(("move", BULLET, 0)).play(("move", BULLET, 1))
    world = world.play(4).play(0)
    assert world.decision().seat == 3
    assert easy_choice(world) == 1  # seat 2 shot it and was shot by it: the next one right

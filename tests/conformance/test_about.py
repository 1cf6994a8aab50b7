"""Every game's ``ABOUT`` (read by the command line without the engine) says what its engine says.

``engines.about``: the name, title, seat counts and options a game package states as plain data
are the one declaration its engine reads (``Rules.about``, ``registry.declare``); the genesis is
checked against the engine's. These tests hold every game to it, so a flag offered by ``--help``
is the option the engine takes, with the same help, choices and default.
"""

from __future__ import annotations

import importlib

import pytest

from spycraft.engines import registry

from .games import GAMES


@pytest.mark.parametrize("game", GAMES)
def test_about_is_what_the_engine_declares(game: str) -> None:
    about = registry.about(game)
    definition = registry.load(game)
    assert about.name == game == definition.name == definition.rules.name
    assert about.title == definition.title
    assert about.seat_counts == tuple(definition.rules.seat_counts)
    assert about.options == definition.flags  # names, help, choices, defaults, in order


@pytest.mark.parametrize("game", GAMES)
def test_the_package_gives_the_declaration_by_name(game: str) -> None:
    package = importlib.import_module(registry._MODULES[game])
    assert package.GAME is registry.load(game)
    assert package.ABOUT is registry.about(game)
    for name in package.__all__:  # every name it offers is there
        assert getattr(package, name) is not None
    with pytest.raises(AttributeError):
        package.NO_SUCH_NAME  # noqa: B018


def test_an_unknown_game_is_named_in_the_error() -> None:
    with pytest.raises(KeyError, match="chess"):
        registry.about("chess")


def test_the_command_line_offers_every_declared_option_once() -> None:
    declared = {o.name for g in registry.game_names() for o in registry.load(g).flags}
    assert set(registry.option_names()) == declared
    assert list(registry.option_names()) == sorted(declared)

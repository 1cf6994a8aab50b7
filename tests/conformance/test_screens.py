"""What every game that declares a view model (``screen`` and ``story``) must give a table UI.

A seeded game of every configuration is read back record by record: every history line and every
picture (the public one, and each seat's with its live view, at every step) is built without an
error, says everything in words for people (no record kind, no internal ``_`` identifier, no
card id, no Python value), keeps every grid rectangular, and the final picture has the result,
from each seat's own side when its side is known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from spycraft.engines.table import TABLE_KINDS
from spycraft.engines.viewmodel import Event, Screen

from .games import CONFIGS, Config, played

VIEWED = [c for c in CONFIGS if c.definition.screen is not None and c.definition.story is not None]
every_viewed = pytest.mark.parametrize("config", VIEWED, ids=str)

IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b")  # three_failures, key_share
CARD_ID = re.compile(r"\b[A-Z]\d\d\b")  # P08, Q21, S01
PYTHON_VALUES = re.compile(r"\b(True|False|None)\b")  # a Python value printed as it is


def texts(screen: Screen) -> Iterator[str]:
    yield screen.game
    yield from screen.notes
    for fact in (*screen.status, *screen.private):
        yield from (fact.label, fact.text, fact.explain)
    grids = screen.board + (screen.result.reveal if screen.result else ())
    for grid in grids:
        yield grid.title
        yield from grid.columns
        for row in grid.rows:
            yield from (cell.text for cell in row)
    if screen.result is not None:
        yield screen.result.headline
        yield from screen.result.detail


def problems(text: str, kinds: tuple[str, ...]) -> list[str]:
    found = [m.group(0) for m in IDENTIFIER.finditer(text)]
    found += [m.group(0) for m in CARD_ID.finditer(text)]
    found += [m.group(0) for m in PYTHON_VALUES.finditer(text)]
    found += [kind for kind in kinds if re.search(rf"(^|: ){kind}$", text)]  # "seat 2: reveal"
    return found


def kinds_of(config: Config) -> tuple[str, ...]:
    return tuple(config.definition.moves) + TABLE_KINDS


def checked(screen: Any, kinds: tuple[str, ...]) -> Screen:
    assert isinstance(screen, Screen)
    for grid in screen.board + (screen.result.reveal if screen.result else ()):
        assert all(len(row) == len(grid.columns) for row in grid.rows), grid.title
    for text in texts(screen):
        assert not problems(text, kinds), (text, problems(text, kinds))
    return screen


@every_viewed
def test_every_record_tells_its_story_in_words(config: Config) -> None:
    game = played(config)
    story = config.definition.story
    assert story is not None
    kinds = kinds_of(config)
    told = []
    for i, signed in enumerate(game.records):
        event = story(game.states[i].game, signed.record, game.states[i + 1].game)
        if event is None:
            continue
        assert isinstance(event, Event)
        assert event.seq == signed.seq
        for text in (event.text, event.why):
            assert "\n" not in text
            assert not problems(text, kinds), (signed.record.kind, text)
        told.append(event)
    assert told, "a game's history tells something"
    assert len(told) < len(game.records), "cryptographic steps are folded, not told one by one"


@every_viewed
def test_every_picture_is_built_for_the_public_and_every_seat_at_every_step(
    config: Config,
) -> None:
    game = played(config)
    screen = config.definition.screen
    assert screen is not None
    kinds = kinds_of(config)
    seats = game.local.seats
    for state in game.states:
        checked(screen(state, None, None), kinds)
        for seat in seats:
            mine = checked(screen(state, seat.index, seat.view(state)), kinds)
            assert mine.game == config.definition.title or mine.game


@every_viewed
def test_the_final_picture_has_the_result_from_each_side(config: Config) -> None:
    game = played(config)
    screen = config.definition.screen
    assert screen is not None
    final = game.states[-1]
    assert final.result is not None
    public = screen(final, None, None)
    assert public.result is not None and public.result.headline
    assert public.result.reveal, "the final reveal is shown"
    for seat in game.local.seats:
        mine = screen(final, seat.index, seat.view(final)).result
        assert mine is not None
        side = config.definition.rules.side_of(final.game, seat.index)
        if final.result.winner is not None and side is not None:
            expected = "You won" if side == final.result.winner else "You lost"
            assert mine.headline == expected, (seat.index, side, final.result)

"""The conformance suite checks the test games too: each of its tests runs with them registered.

``games.TEST_GAMES`` (Liar's Dice, ``tests/kit/liars_dice``) are games written against the kit
alone, offered by no product command; this fixture puts them in the registry for every test of
this suite, so ``spycraft selfplay liars-dice`` and ``registry.load`` find them as they find the
five games, and takes them out again after (no other test sees them).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .games import registered


@pytest.fixture(autouse=True, scope="package")
def test_games_registered() -> Iterator[None]:
    with registered():
        yield

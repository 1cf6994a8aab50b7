"""What a game is before its engine is loaded: its name, title, seat counts and options.

Theory of operation: a command that only talks about the games (``spycraft --help``, ``spycraft
rules GAME``, the flags of ``selfplay`` and ``play``) must not pay for importing five rules
engines and the cryptography under them. So each game package's ``__init__.py`` holds only its
``ABOUT``, plain data built from this module (which imports nothing of spycraft), and imports its
declaration (``definition.py``: the moves, the rules, the ``GameDefinition``) on first use of
``GAME`` or any other name of the declaration. ``registry.about`` reads the first,
``registry.load`` the second.

``ABOUT`` is the one declaration of these facts: the engine reads it (a game's ``Rules`` name it
as ``about``, which gives ``Rules.name``, ``seat_counts`` and ``options``;
``registry.declare`` takes the name and the title from it), and the genesis is checked against
the engine's rules; ``tests/conformance/test_about.py`` holds every game to it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    """A genesis option: yes/no (``--name-with-dashes``), or one of ``choices`` (``--name X``,
    ``default`` when not given)."""

    name: str
    help: str
    choices: tuple[str, ...] = ()
    default: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def value(self, given: object) -> bool | str:
        """The genesis value for what the player gave (None: not given)."""
        if not self.choices:
            return given is True
        return self.default if given is None and self.default is not None else str(given)

    def check(self, value: object) -> None:
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.name} is one of {', '.join(self.choices)}")
        if not self.choices and not isinstance(value, bool):
            raise ValueError(f"{self.name} is true or false")


@dataclass(frozen=True)
class About:
    """A game as the command line names it: ``name`` (the genesis's game), ``title``, the seat
    counts it is played with (ascending) and its options, in the engine's order."""

    name: str
    title: str
    seat_counts: tuple[int, ...]
    options: tuple[Option, ...] = ()


def declared_on_use(package: str, names: Sequence[str]) -> Callable[[str], object]:
    """A game package's module ``__getattr__`` (PEP 562): ``names`` come from its
    ``definition`` module on first use, so reading ``ABOUT`` imports no engine."""

    def __getattr__(name: str) -> object:
        if name in names:
            return getattr(importlib.import_module(f"{package}.definition"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__

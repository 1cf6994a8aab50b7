"""Bot levels: what a person chooses to play against, the same words in every game.

Theory of operation
-------------------
Every game's ``bots`` module declares its bots in one mapping (``GameDefinition.bots``): name ->
``(entropy, seat) -> Agent``. Three of the names are *levels*, the ones a person is offered
(``--level``, the lobby's form, the seat's name "bot 2 (expert)"):

* ``easy``: plays like a beginner, with mistakes a person can learn to exploit;
* ``normal``: the game's heuristic bot (``heuristic`` is the same bot under its older name);
* ``expert``: as strong as the game's information allows, within a decision budget a person
  does not notice (the benchmark, ``benchmarks/bench_bots.py``, measures it).

``levels(...)`` builds a game's mapping: the random bot (for tests), ``heuristic``, and the
levels the game has. A game that has no expert yet simply leaves it out; ``offered`` is what a
game has, in the order easy, normal, expert, so adding one to a game's mapping is all it takes
to offer it. An expert's factory may take ``effort`` (a whole number, default 1: how much more
work per decision it may do); ``make`` passes it to those that take it.

``SeatBot`` is the kit's part of a bot: the stream of randomness it draws from and its seat,
and ``view_of``, the decision's view as the seat view of its game (``reads``), a ``TypeError``
for another game's.

``Stream`` is the experts' play-out randomness (SplitMix64: fast, and the same on every
machine), seeded from a bot's own entropy; it is never a secret's source, only a search's.

``thinks`` names the levels whose decisions take long enough (tens or hundreds of milliseconds)
that a bot peer must decide off the event loop of its table's session (``cli.lan``), so that the
session keeps answering its peers meanwhile; the others decide inline.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from spycraft.crypto.entropy import Entropy
from spycraft.engines.agent import Agent, Decision, RandomAgent

V = TypeVar("V")  # a game's seat view

Factory = Callable[[Entropy, int], Agent]

EASY, NORMAL, EXPERT = "easy", "normal", "expert"
LEVELS = (EASY, NORMAL, EXPERT)
DEFAULT = NORMAL
THINKING = frozenset({EXPERT})


class SeatBot(Generic[V]):
    """A bot of one game: its randomness (``entropy``), its seat, and the view it reads."""

    reads: type[V]  # the game's seat view

    def __init__(self, entropy: Entropy, seat: int) -> None:
        self.entropy = entropy
        self.seat = seat

    def view_of(self, decision: Decision) -> V:
        view = decision.view
        if not isinstance(view, self.reads):
            raise TypeError(f"{type(self).__name__} reads a {self.reads.__module__} "
                            f"{self.reads.__name__}, not a {type(view).__name__}")
        return view


MASK = (1 << 64) - 1


class Stream:
    """SplitMix64, for an expert's play-outs, with ``Entropy``'s interface (``take``,
    ``child``) for the bots it plays them with."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, k: int) -> int:
        return self.next() % k

    def take(self, n: int) -> bytes:
        words = (n + 7) // 8
        return b"".join(self.next().to_bytes(8, "big") for _ in range(words))[:n]

    def child(self, label: str) -> Stream:
        digest = hashlib.blake2b(f"{self.state}/{label}".encode(), digest_size=8).digest()
        return Stream(int.from_bytes(digest, "big"))

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def random_bot(entropy: Entropy, seat: int) -> Agent:
    return RandomAgent(entropy)


def levels(*, normal: Factory, easy: Factory | None = None, expert: Factory | None = None,
           random: Factory = random_bot) -> dict[str, Factory]:
    """A game's bots: ``random``, ``heuristic`` (= ``normal``) and each level it has."""
    bots: dict[str, Factory] = {"random": random, "heuristic": normal}
    for name, factory in ((EASY, easy), (NORMAL, normal), (EXPERT, expert)):
        if factory is not None:
            bots[name] = factory
    return bots


def offered(bots: Mapping[str, Factory]) -> tuple[str, ...]:
    """The levels a game's bots offer a person, easiest first."""
    return tuple(level for level in LEVELS if level in bots)


def thinks(kind: str) -> bool:
    """Whether a bot of this kind (a level or a bot name) should decide off the event loop."""
    return kind in THINKING


def make(bots: Mapping[str, Factory], kind: str, entropy: Entropy, seat: int,
         effort: int = 1) -> Agent:
    """The bot ``kind`` for ``seat``; ``effort`` goes to a factory that takes it."""
    factory = bots[kind]
    if effort != 1 and _takes_effort(factory):
        return factory(entropy, seat, effort=effort)  # type: ignore[call-arg]
    return factory(entropy, seat)


def _takes_effort(factory: Factory) -> bool:
    try:
        return "effort" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def parse(spec: str, bots: Mapping[str, Factory], count: int, what: str = "--level",
          where: str = "this game") -> list[str]:
    """A level (or bot name) for each of ``count`` bot seats, from ``spec``: one name for all,
    or a comma list with one per seat. ValueError says what is wrong, in the person's words
    (``where``: whose levels ``bots`` are)."""
    names = [word.strip() for word in spec.split(",")]
    if len(names) == 1:
        names = names * count
    known = offered(bots)
    unknown = sorted({name for name in names if name not in bots})
    if unknown:
        raise ValueError(f"{what}: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} "
                         f"not a level of {where}; the levels are {', '.join(known)}")
    if len(names) != count:
        raise ValueError(f"{what}: give one level for all {count} bot seats, or one per seat "
                         f"({count}, not {len(names)})")
    return names


def seat_name(seat: int | str, level: str) -> str:
    """How a bot seat is named at the table: ``bot 2 (expert)``."""
    return f"bot {seat} ({level})"

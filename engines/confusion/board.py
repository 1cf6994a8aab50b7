"""Confusion's 11x11 board and its geometry, as data and pure functions (rules/confusion.md §1-§4).

Theory of operation
-------------------
A ``Square`` is a pair of board coordinates: ``x`` the file index (a=0 ... k=10), ``y`` the rank
minus one, so White's home row is y=0 and Red's is y=10. Its name is file then rank, as the
rules print it: ``f6``. ``square("f6")`` parses a name and refuses anything else with
``Illegal``, so a name taken from a peer's record is checked on the way in.

Geometry is in two frames. The *board* frame is the displacement ``to - from``. The *owner*
frame names a straight displacement as a direction and a distance (a ``Line``, "N4", "NW2"),
read from the side that owns the spy, so N always points at the opponent's home row: White's
frame is the board's, Red's is turned 180 degrees (each step negated, §2). ``line(side, o, to)``
converts; ``path(o, to)`` is the squares strictly between.

Sides are seat numbers (White = seat 0, Red = seat 1, §1). Spies are named ``W-A`` ... ``R-M``;
the start squares of §4 are a table per letter for White, and Red's are White's turned 180
degrees, which a test pins against the printed table. The other special squares are the
briefcase's start (the centre, f6) and the two home rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from spycraft.engines.errors import Illegal

SIZE = 11
FILES = "abcdefghijk"

Side = Literal[0, 1]
WHITE: Side = 0
RED: Side = 1
SIDES: tuple[Side, Side] = (WHITE, RED)
SIDE_NAMES = ("White", "Red")
SIDE_PREFIXES = ("W", "R")
LETTERS = "ABCDEFGHIJKLM"

Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
DIRECTIONS: tuple[Direction, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
WHITE_STEPS: tuple[tuple[int, int], ...] = (
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
)


class Square(NamedTuple):
    x: int
    y: int

    @property
    def name(self) -> str:
        return f"{FILES[self.x]}{self.y + 1}"

    @property
    def rank(self) -> int:
        return self.y + 1

    def __str__(self) -> str:
        return self.name


def on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def square(name: object) -> Square:
    """The square a name like ``f6`` denotes; anything else is ``Illegal``."""
    if type(name) is str and 2 <= len(name) <= 3 and name[0] in FILES and name[1:].isdigit():
        rank = name[1:]
        if rank[0] != "0" and 1 <= int(rank) <= SIZE:
            return Square(FILES.index(name[0]), int(rank) - 1)
    raise Illegal(f"no square of the board is called {name!r}")


SQUARES: tuple[Square, ...] = tuple(Square(x, y) for y in range(SIZE) for x in range(SIZE))
CENTRE = Square(5, 5)
BRIEFCASE_START = CENTRE


def rotate(where: Square) -> Square:
    """The square turned 180 degrees about the centre: Red's view of White's square (§4)."""
    return Square(SIZE - 1 - where.x, SIZE - 1 - where.y)


def mirror(where: Square) -> Square:
    """The square reflected left to right (files a <-> k)."""
    return Square(SIZE - 1 - where.x, where.y)


def opp(side: Side) -> Side:
    return RED if side == WHITE else WHITE


def home_rank(side: Side) -> int:
    """White's home row is rank 1, Red's is rank 11."""
    return 1 if side == WHITE else SIZE


def goal_rank(side: Side) -> int:
    """A player's goal row is the opponent's home row."""
    return home_rank(opp(side))


# Spies.


def spy_id(side: Side, letter: str) -> str:
    return f"{SIDE_PREFIXES[side]}-{letter}"


SPIES: tuple[tuple[str, ...], tuple[str, ...]] = (
    tuple(spy_id(WHITE, letter) for letter in LETTERS),
    tuple(spy_id(RED, letter) for letter in LETTERS),
)
ALL_SPIES: tuple[str, ...] = SPIES[WHITE] + SPIES[RED]


_SIDE_OF: dict[str, Side] = {spy: side for side in SIDES for spy in SPIES[side]}


def side_of(spy: object) -> Side:
    """The side a spy id belongs to; anything that is not a spy id is ``Illegal``."""
    if type(spy) is str and spy in _SIDE_OF:
        return _SIDE_OF[spy]
    raise Illegal(f"no spy is called {spy!r}")


def letter_of(spy: str) -> str:
    side_of(spy)
    return spy[2]


WHITE_START: tuple[Square, ...] = tuple(
    square(name)
    for name in ("b1", "d1", "f1", "h1", "j1", "a2", "c2", "d2", "e2", "g2", "h2", "i2", "k2")
)


def start_square(spy: str) -> Square:
    """§4: White's table by letter; Red's square is White's turned 180 degrees."""
    white = WHITE_START[LETTERS.index(letter_of(spy))]
    return white if side_of(spy) == WHITE else rotate(white)


START: tuple[tuple[str, Square], ...] = tuple((spy, start_square(spy)) for spy in ALL_SPIES)


# Directions and lines.


def opposite(direction: Direction) -> Direction:
    return DIRECTIONS[(DIRECTIONS.index(direction) + 4) % 8]


def reflected(direction: Direction) -> Direction:
    """The direction seen in a left-right mirror (E <-> W, NE <-> NW, SE <-> SW)."""
    return DIRECTIONS[(8 - DIRECTIONS.index(direction)) % 8]


def step(side: Side, direction: Direction) -> tuple[int, int]:
    """The board step of one owner-frame direction (§2)."""
    dx, dy = WHITE_STEPS[DIRECTIONS.index(direction)]
    return (dx, dy) if side == WHITE else (-dx, -dy)


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def is_straight(dx: int, dy: int) -> bool:
    return (dx, dy) != (0, 0) and (dx == 0 or dy == 0 or abs(dx) == abs(dy))


@dataclass(frozen=True, order=True)
class Line:
    """A straight move in its owner's frame: a direction and a distance, written "N4"."""

    direction: Direction
    distance: int

    def __str__(self) -> str:
        return f"{self.direction}{self.distance}"


def line(side: Side, origin: Square, to: Square) -> Line:
    """The owner-frame line from ``origin`` to ``to`` (§2); ``Illegal`` if it is not straight."""
    dx, dy = to.x - origin.x, to.y - origin.y
    if not is_straight(dx, dy):
        raise Illegal(f"{origin}->{to} is not a straight move")
    unit = (_sign(dx), _sign(dy))
    if side == RED:
        unit = (-unit[0], -unit[1])
    return Line(DIRECTIONS[WHITE_STEPS.index(unit)], max(abs(dx), abs(dy)))


def path(origin: Square, to: Square) -> tuple[Square, ...]:
    """The squares strictly between two squares on one straight line (§2)."""
    dx, dy = to.x - origin.x, to.y - origin.y
    if not is_straight(dx, dy):
        raise Illegal(f"{origin}->{to} is not a straight move")
    sx, sy = _sign(dx), _sign(dy)
    return tuple(
        Square(origin.x + i * sx, origin.y + i * sy) for i in range(1, max(abs(dx), abs(dy)))
    )


def target(side: Side, origin: Square, move: Line) -> Square | None:
    """Where ``move`` takes a spy of ``side`` from ``origin``; None if it leaves the board."""
    dx, dy = step(side, move.direction)
    x, y = origin.x + move.distance * dx, origin.y + move.distance * dy
    return Square(x, y) if on_board(x, y) else None

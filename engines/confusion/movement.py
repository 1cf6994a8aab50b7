"""Confusion's 13 movement types, their assignment and announcement legality (§3, §4, §6).

Theory of operation
-------------------
A ``MovementType`` gives each owner-frame direction (N, NE, ..., NW) a maximum distance; it
allows a ``Line`` (direction, distance) iff the distance is at most that maximum (§3). The 13
pieces each side assigns are ``T01`` ... ``T12`` and the Double Agent ``DA``, which has no lines;
``PR`` is the promoted side. ``reach``, ``crown`` and ``lock`` are as the table prints them,
and the tests derive them again from the lines.

The assignment of §4 is a permutation of one side's 13 commitments onto its spies A..M, made
by 12 public draws (``assignment``); which type each commitment holds stays with its committer.

An answer is about a line: ``answer_sets(line)`` splits the 13 types into those that make the
answer "yes" and those that make it "no", with the DA in both (its answer is free, §8). These
are exactly the sets a proof of an answer ranges over (DESIGN §5): the answerer proves that the
spy's committed type lies in the set of the answer it gave. Promotion statements are forced by
the type, the DA included: "promotion yes" for the four crowns, "no" for everything else
(``promotion_sets``).

Which announcements exist is pure geometry on a ``Situation``: where each spy on the board
stands, the briefcase's square and the promoted spies. ``check_announcement`` applies §6.2's
five conditions in order and returns the line the opponent is asked about (the spy's own line;
for a ``throw``, the briefcase's), or raises ``Illegal`` naming the broken condition.
``announceable`` lists every legal announcement in one fixed order, and ``asked`` gives the two
sets an answer to one of them ranges over (none for a promoted spy). Answers, resolution and
every other consequence belong to the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from spycraft.engines.confusion.board import (
    ALL_SPIES,
    BRIEFCASE_START,
    DIRECTIONS,
    SPIES,
    START,
    Direction,
    Line,
    Side,
    Square,
    goal_rank,
    line,
    on_board,
    opposite,
    path,
    side_of,
    step,
)
from spycraft.engines.errors import Illegal

MAX_UNPROMOTED = 4
MAX_PROMOTED = 2


@dataclass(frozen=True)
class MovementType:
    """One movement piece: a maximum distance per direction, N to NW (None: no lines, the DA)."""

    id: str
    name: str
    maxima: tuple[int, ...] | None
    crown: bool = False

    def max(self, direction: Direction) -> int:
        return 0 if self.maxima is None else self.maxima[DIRECTIONS.index(direction)]

    def allows(self, move: Line) -> bool:
        """``allows(t, d, k)`` iff ``k <= max_t(d)`` (§3); the DA has no lines."""
        return 1 <= move.distance <= self.max(move.direction)

    @property
    def reach(self) -> int | None:
        """Squares reached from f6 on an empty board: the sum of the maxima."""
        return None if self.maxima is None else sum(self.maxima)

    @property
    def lock(self) -> bool | None:
        """Some move cannot be undone by the exact reverse move (reference only, §3)."""
        if self.maxima is None:
            return None
        return any(self.max(d) > self.max(opposite(d)) for d in DIRECTIONS)


TYPES: tuple[MovementType, ...] = (
    # maxima in the order of DIRECTIONS: N, NE, E, SE, S, SW, W, NW
    MovementType("T01", "Sentry", (1, 0, 1, 0, 1, 0, 1, 0)),
    MovementType("T02", "Courier", (1, 1, 1, 1, 1, 1, 1, 1)),
    MovementType("T03", "Diplomat", (0, 2, 0, 2, 0, 2, 0, 2)),
    MovementType("T04", "Enforcer", (2, 0, 2, 0, 2, 0, 2, 0)),
    MovementType("T05", "Mole", (3, 0, 0, 0, 3, 0, 0, 0)),
    MovementType("T06", "Flanker", (1, 0, 4, 0, 1, 0, 4, 0)),
    MovementType("T07", "Handler", (1, 0, 0, 2, 0, 2, 0, 0)),
    MovementType("T08", "Sniper", (0, 3, 0, 0, 1, 0, 0, 3)),
    MovementType("T09", "Vanguard", (2, 1, 0, 0, 0, 0, 0, 1), crown=True),
    MovementType("T10", "Sprinter", (4, 0, 0, 0, 0, 0, 0, 0), crown=True),
    MovementType("T11", "Raider", (0, 2, 0, 0, 0, 0, 0, 2), crown=True),
    MovementType("T12", "Scout", (1, 0, 3, 0, 0, 0, 3, 0), crown=True),
)
DOUBLE_AGENT = MovementType("DA", 'Double Agent "?"', None)
PROMOTED = MovementType("PR", "promoted side", (2, 2, 2, 2, 2, 2, 2, 2))

ASSIGNED: tuple[MovementType, ...] = (*TYPES, DOUBLE_AGENT)
"""The 13 movement pieces of one side, in id order: what each player commits to (§4)."""
TYPE_IDS: tuple[str, ...] = tuple(t.id for t in ASSIGNED)
CROWNS: tuple[str, ...] = tuple(t.id for t in TYPES if t.crown)


_BY_ID: dict[str, MovementType] = {piece.id: piece for piece in (*ASSIGNED, PROMOTED)}


def movement_type(type_id: object) -> MovementType:
    """The movement piece with this id (``PR`` included); anything else is ``Illegal``."""
    if type(type_id) is str and type_id in _BY_ID:
        return _BY_ID[type_id]
    raise Illegal(f"no movement type is called {type_id!r}")


# The assignment (§4).

ASSIGNMENT_DRAWS: tuple[int, ...] = tuple(range(len(ASSIGNED), 1, -1))
"""The ``uniform(r)`` sizes of one side's assignment: r = 13, 12, ..., 2 (§4)."""


def assignment(draws: tuple[int, ...]) -> tuple[int, ...]:
    """§4's permutation: for A, B, ..., L in turn the spy takes the commitment at index
    ``draws[i]`` of the list still unassigned, which it leaves; M takes the last one.

    Returns, by letter, the index of the spy's commitment in its record's order.
    """
    if len(draws) != len(ASSIGNMENT_DRAWS) or any(
        type(d) is not int or not 0 <= d < r for d, r in zip(draws, ASSIGNMENT_DRAWS, strict=False)
    ):
        raise ValueError(f"{draws!r} are not draws of sizes {ASSIGNMENT_DRAWS}")
    remaining = list(range(len(ASSIGNED)))
    return (*(remaining.pop(d) for d in draws), remaining[0])


# Answers and promotion statements.


@dataclass(frozen=True)
class AnswerSets:
    """The types (ids, in ``TYPE_IDS`` order) that give each answer; the DA is in both."""

    yes: tuple[str, ...]
    no: tuple[str, ...]

    def for_answer(self, answer: bool) -> tuple[str, ...]:
        return self.yes if answer else self.no


def answer_sets(move: Line) -> AnswerSets:
    """§6.3: "yes" iff the type allows the line; the Double Agent may give either (§8)."""
    return AnswerSets(
        yes=tuple(t.id for t in ASSIGNED if t is DOUBLE_AGENT or t.allows(move)),
        no=tuple(t.id for t in ASSIGNED if t is DOUBLE_AGENT or not t.allows(move)),
    )


def forced_answer(type_id: str, move: Line) -> bool | None:
    """The answer a type forces for a line; None for the DA, whose answer is free."""
    piece = movement_type(type_id)
    if piece is PROMOTED:
        raise Illegal("no answer is asked for a promoted spy (§6.3)")
    return None if piece is DOUBLE_AGENT else piece.allows(move)


def promotion_sets() -> AnswerSets:
    """§6.5: "promotion yes" for the crowns; "no" for every other type and for the DA."""
    return AnswerSets(
        yes=tuple(t for t in TYPE_IDS if t in CROWNS),
        no=tuple(t for t in TYPE_IDS if t not in CROWNS),
    )


def promotion_statement(type_id: str) -> bool:
    """The statement a type forces when its spy ends a move on its goal row."""
    movement_type(type_id)
    return type_id in CROWNS


# The board situation and announcements.


class ImpossibleSituation(ValueError):
    """A situation no game can reach: a bug in whoever built it, never a peer's."""


Mode = Literal["move", "leave", "carry", "throw"]
MODES: tuple[Mode, ...] = ("move", "leave", "carry", "throw")
BRIEFCASE_MODES: tuple[Mode, ...] = ("leave", "carry", "throw")


@dataclass(frozen=True)
class Situation:
    """What §6.2 looks at: each spy on the board (sorted by id), the briefcase, promoted spies."""

    spies: tuple[tuple[str, Square], ...]
    briefcase: Square
    promoted: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ids = [spy for spy, _ in self.spies]
        squares = [where for _, where in self.spies]
        if not set(ids) <= set(ALL_SPIES):
            raise ImpossibleSituation(f"not all of {ids} are spies")
        for where in (*squares, self.briefcase):
            if not (isinstance(where, Square) and on_board(where.x, where.y)):
                raise ImpossibleSituation(f"{where!r} is not a square of the board")
        if ids != sorted(set(ids)) or len(set(squares)) != len(squares):
            raise ImpossibleSituation("each spy once, by id; a square holds at most one spy")
        if list(self.promoted) != sorted(set(self.promoted)) or not set(self.promoted) <= set(ids):
            raise ImpossibleSituation("promoted spies are listed once, by id, and on the board")

    @classmethod
    def start(cls) -> Situation:
        """§4: every spy on its start square, the briefcase on f6, nobody promoted."""
        return cls(tuple(sorted(START)), BRIEFCASE_START)

    def position(self, spy: str) -> Square | None:
        return next((where for s, where in self.spies if s == spy), None)

    def occupant(self, where: Square) -> str | None:
        return next((s for s, there in self.spies if there == where), None)

    def controller(self) -> str | None:
        """The spy standing on the briefcase, if any (§4)."""
        return self.occupant(self.briefcase)

    def on_board(self, side: Side) -> tuple[str, ...]:
        return tuple(spy for spy, _ in self.spies if spy in SPIES[side])

    def moved(self, spy: str, to: Square | None) -> Situation:
        """The situation with ``spy`` placed on ``to`` (None: removed); for setting up examples."""
        spies = tuple((s, w) for s, w in self.spies if s != spy)
        spies += () if to is None else ((spy, to),)
        promoted = tuple(p for p in self.promoted if to is not None or p != spy)
        return Situation(tuple(sorted(spies)), self.briefcase, promoted)


@dataclass(frozen=True, order=True)
class Announcement:
    """``(s, mode, to)`` of §6.1."""

    spy: str
    mode: Mode
    to: Square

    def __str__(self) -> str:
        return f"{self.spy} {self.mode} {self.to}"


def check_announcement(situation: Situation, side: Side, announced: Announcement) -> Line:
    """§6.2, condition by condition; returns the line the answer is about, else ``Illegal``."""
    spy, mode, to = announced.spy, announced.mode, announced.to
    origin = situation.position(spy)
    if side_of(spy) != side or origin is None:
        raise Illegal(f"{spy} is not a spy of this player on the board")
    allowed = BRIEFCASE_MODES if origin == situation.briefcase else ("move",)
    if mode not in allowed:
        raise Illegal(f"{spy} on {origin} may {' or '.join(allowed)}, not {mode!r}")
    if not (isinstance(to, Square) and on_board(to.x, to.y)):
        raise Illegal(f"{to!r} is not a square of the board")
    move = line(side, origin, to)
    limit = MAX_PROMOTED if spy in situation.promoted else MAX_UNPROMOTED
    if move.distance > limit:
        raise Illegal(f"{spy} may announce at most {limit} squares, not {move}")
    for between in path(origin, to):
        if situation.occupant(between) is not None or between == situation.briefcase:
            raise Illegal(f"{spy}'s path {origin}->{to} is blocked on {between}")
    occupant = situation.occupant(to)
    if mode != "throw" and occupant is not None and side_of(occupant) == side:
        raise Illegal(f"{to} holds {occupant}, a spy of the same player")
    return move


def announceable(situation: Situation, side: Side) -> tuple[Announcement, ...]:
    """Every announcement §6.2 allows ``side``, sorted (spy, mode, square)."""
    return tuple(sorted(_announcements(situation, side), key=_order))


def _order(a: Announcement) -> tuple[str, str, Square]:
    return (a.spy, a.mode, a.to)


def _announcements(situation: Situation, side: Side) -> Iterator[Announcement]:
    # one map of the occupied squares instead of a scan per square, and the board steps of the
    # eight directions computed once (the bots and tests call this on every turn)
    occupied = {where: spy for spy, where in situation.spies}
    steps = [step(side, direction) for direction in DIRECTIONS]
    for spy, origin in situation.spies:
        if side_of(spy) != side:
            continue
        modes = BRIEFCASE_MODES if origin == situation.briefcase else ("move",)
        limit = MAX_PROMOTED if spy in situation.promoted else MAX_UNPROMOTED
        for dx, dy in steps:
            for distance in range(1, limit + 1):
                x, y = origin.x + distance * dx, origin.y + distance * dy
                if not on_board(x, y):
                    break
                to = Square(x, y)
                occupant = occupied.get(to)
                for mode in modes:
                    if mode == "throw" or occupant is None or side_of(occupant) != side:
                        yield Announcement(spy, mode, to)
                if occupant is not None or to == situation.briefcase:
                    break


def needs_answer(situation: Situation, spy: str) -> bool:
    """§6.3: a promoted spy's announceable move is a "yes" without asking."""
    return spy not in situation.promoted


def asked(situation: Situation, side: Side, announced: Announcement) -> AnswerSets | None:
    """The yes and no sets the opponent's answer to a legal announcement ranges over (§6.3);
    None when no answer is asked (a promoted spy). ``Illegal`` if it is not announceable."""
    move = check_announcement(situation, side, announced)
    return answer_sets(move) if needs_answer(situation, announced.spy) else None


def statement_due(situation: Situation, side: Side, announced: Announcement) -> bool:
    """§6.5: after a "yes", the opponent states promotion yes/no when the unpromoted spy itself
    moved (not a ``throw``) and ends on its goal row."""
    return (
        announced.mode != "throw"
        and announced.spy not in situation.promoted
        and announced.to.rank == goal_rank(side)
    )

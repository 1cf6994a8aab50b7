"""Record body schemas: what each field of a game record must be, checked before any rule runs.

Theory of operation
-------------------
Every record kind a game declares (``engines.game.Move``) carries a ``Shape`` of its body. The
kit checks the body against it before the move's ``apply`` sees it, the way ``p2p/wire.py``
checks frames, so an engine only ever reads values of the declared type: ``true`` is never a
seat or a mission number (CBOR booleans are not integers here), a list has the declared length,
a map has exactly the declared keys. A body that does not fit is the writer's
``MalformedRecord``; anything that goes wrong *after* the check (a ``KeyError``, a
``TypeError``) is a bug in the engine and propagates as one.

Shapes are plain frozen values, so a schema is data: the conformance suite reads it to build
bodies that fit (and bodies that do not). Bounds that depend on the table (a seat is below the
number of seats) are given the seat count at check time. Values that a crypto decoder parses
(points, proofs, ciphertexts) are ``Encoded``: any CBOR value here, and the decoder raises
``MalformedValue`` for anything of the wrong form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spycraft.crypto.errors import MalformedValue

Body = dict[str, Any]  # a move reads each field as the type its schema checked
"""A record's body as CBOR decodes it: a map of text to CBOR values."""


class Shape:
    """One field's type. ``check`` raises ``MalformedValue`` naming the path."""

    def check(self, value: object, seats: int, path: str) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def _fail(path: str, shape: Shape, value: object) -> MalformedValue:
    return MalformedValue(f"{path} must be {shape.describe()}, not {_show(value)}")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Bool(Shape):
    def check(self, value: object, seats: int, path: str) -> None:
        if not isinstance(value, bool):
            raise _fail(path, self, value)

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Int(Shape):
    """An integer in [low, high] (never a boolean)."""

    low: int
    high: int

    def check(self, value: object, seats: int, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(path, self, value)
        if not self.low <= value <= self.high:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return f"an integer from {self.low} to {self.high}"


@dataclass(frozen=True)
class Seat(Shape):
    """A seat index of this table (never a boolean)."""

    def check(self, value: object, seats: int, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
            raise MalformedValue(f"{path} must be a seat from 0 to {seats - 1}, not {_show(value)}")

    def describe(self) -> str:
        return "a seat"


@dataclass(frozen=True)
class Bytes(Shape):
    size: int

    def check(self, value: object, seats: int, path: str) -> None:
        if not isinstance(value, bytes) or len(value) != self.size:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return f"{self.size} bytes"


@dataclass(frozen=True)
class Text(Shape):
    max_size: int

    def check(self, value: object, seats: int, path: str) -> None:
        if not isinstance(value, str) or len(value) > self.max_size:
            raise _fail(path, self, value)

    def describe(self) -> str:
        return f"a text of at most {self.max_size} characters"


@dataclass(frozen=True)
class Nullable(Shape):
    """``null`` or the inner shape (a pass, no target)."""

    inner: Shape

    def check(self, value: object, seats: int, path: str) -> None:
        if value is not None:
            self.inner.check(value, seats, path)

    def describe(self) -> str:
        return f"null or {self.inner.describe()}"


@dataclass(frozen=True)
class ListOf(Shape):
    """An array of ``items``: ``size`` exact (-1: one per seat, -2: one per other seat) or
    between ``low`` and ``high`` long (``high`` -1: at most one per seat)."""

    items: Shape
    size: int | None = None
    low: int = 0
    high: int = 1 << 16

    def bounds(self, seats: int) -> tuple[int, int]:
        if self.size is not None:
            exact = {-1: seats, -2: seats - 1}.get(self.size, self.size)
            return exact, exact
        return self.low, seats if self.high == -1 else self.high

    def check(self, value: object, seats: int, path: str) -> None:
        low, high = self.bounds(seats)
        if not isinstance(value, (tuple, list)) or not low <= len(value) <= high:
            raise MalformedValue(
                f"{path} must be a list of {low}" + ("" if low == high else f" to {high}")
                + f" items, not {_show(value)}"
            )
        for i, item in enumerate(value):
            self.items.check(item, seats, f"{path}[{i}]")

    def describe(self) -> str:
        return f"a list of {self.items.describe()}"


@dataclass(frozen=True)
class Fixed(Shape):
    """An array of exactly these shapes, in order (a pair, a triple)."""

    items: tuple[Shape, ...]

    def check(self, value: object, seats: int, path: str) -> None:
        if not isinstance(value, (tuple, list)) or len(value) != len(self.items):
            raise _fail(path, self, value)
        for i, (shape, item) in enumerate(zip(self.items, value)):
            shape.check(item, seats, f"{path}[{i}]")

    def describe(self) -> str:
        return "[" + ", ".join(s.describe() for s in self.items) + "]"


@dataclass(frozen=True)
class Encoded(Shape):
    """A value a crypto decoder parses and checks itself (a point, a proof, a ciphertext)."""

    what: str

    def check(self, value: object, seats: int, path: str) -> None:
        return None

    def describe(self) -> str:
        return f"an encoded {self.what}"


@dataclass(frozen=True)
class Fields(Shape):
    """A map with exactly these text keys."""

    fields: tuple[tuple[str, Shape], ...]
    names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The key set, made once: a body is checked against it at every record.
        object.__setattr__(self, "names", frozenset(name for name, _ in self.fields))

    @classmethod
    def of(cls, fields: Mapping[str, Shape]) -> Fields:
        return cls(tuple(fields.items()))

    def check(self, value: object, seats: int, path: str) -> None:
        if not isinstance(value, dict) or value.keys() != self.names:
            names = ", ".join(name for name, _ in self.fields)
            raise MalformedValue(f"{path} must be {{{names}}}")
        for name, shape in self.fields:
            shape.check(value[name], seats, f"{path}.{name}")

    def describe(self) -> str:
        return "{" + ", ".join(f"{n}: {s.describe()}" for n, s in self.fields) + "}"


def body(**fields: Shape) -> Fields:
    """The schema of a record body: ``body(target=Nullable(SEAT))``."""
    return Fields.of(fields)


BOOL = Bool()
SEAT = Seat()
BYTES32 = Bytes(32)

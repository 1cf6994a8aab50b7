"""``evolve``: the next immutable state, at the speed the hot paths of an audit need.

Theory of operation: engine states are frozen dataclasses, and every move returns a new one with
some fields changed. ``dataclasses.replace`` reads every field through ``getattr`` and runs the
generated ``__init__``, which stores each field with ``object.__setattr__``: about 11 us for a
state of twenty fields, several times per record of an audit. A frozen dataclass whose
``__init__`` only stores its fields (no ``__post_init__``, no field outside ``__init__``, no
cached property living beside the fields) is fully described by its ``__dict__``, so its next
state is a new object whose ``__dict__`` is the old one updated: the same value, about six times
faster. ``evolve`` refuses any other class, and any name that is not a field, with a
``TypeError``, as ``replace`` would.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import TypeVar

T = TypeVar("T")


def _field_names(cls: type) -> frozenset[str]:
    """The fields of ``cls`` if ``evolve`` may copy it by its ``__dict__``; TypeError if not."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"evolve takes a frozen dataclass, not a {cls.__name__}")
    if hasattr(cls, "__post_init__") or any(vars(k).get("__slots__") for k in cls.__mro__):
        raise TypeError(f"{cls.__name__} has a __post_init__ or slots: use dataclasses.replace")
    if any(isinstance(v, cached_property) for k in cls.__mro__ for v in vars(k).values()):
        raise TypeError(f"{cls.__name__} caches properties: use dataclasses.replace")
    fields = dataclasses.fields(cls)
    if not all(f.init for f in fields):
        raise TypeError(f"{cls.__name__} has fields outside __init__: use dataclasses.replace")
    return frozenset(f.name for f in fields)


_FIELDS: dict[type, frozenset[str]] = {}  # the classes ``evolve`` has admitted, by their fields


def evolve(state: T, /, **changes: object) -> T:
    """``dataclasses.replace(state, **changes)`` for a frozen dataclass that only stores its
    fields (module docstring)."""
    cls: type = type(state)
    fields = _FIELDS.get(cls)  # a dict lookup, no call: evolve runs several times a record
    if fields is None:
        fields = _FIELDS[cls] = _field_names(cls)
    if not changes.keys() <= fields:  # no new set unless a name is wrong
        unknown = changes.keys() - fields
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    new: T = object.__new__(cls)
    values = new.__dict__
    values.update(state.__dict__)
    values.update(changes)
    return new

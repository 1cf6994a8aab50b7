"""The notebook (§11): what anyone can deduce about a side's types, from public data only.

Theory of operation: a ``Notebook`` is a pure function of the public log (``model.Observation``),
so both players' notebooks, the replay's and the audit's are the same bytes. For each spy of the
side, the *local candidates* ``L(s)`` are the 13 types that meet every observation about ``s``.
The *candidates* ``C(s)`` keep a type only if some bijection of all 13 spies onto the 13 types
(removed spies included) gives every spy a type in its ``L``. One perfect matching is found by
augmenting paths; a pair (s, t) outside it belongs to some perfect matching iff, after taking t
from its spy and freeing s's type, an alternating path re-matches t's old spy, which is one
search per pair (169 pairs of 13 x 13). An empty ``C(s)`` proves a lie (never in an honest
game). Marks: *known* when ``|C(s)| = 1``, *suspect* when the DA is a candidate. The probe hint
splits ``C(s)`` by the answer each candidate would give to one line (the DA on both sides).

The move menu (``refusals``) asks the notebook of every announceable move: a move whose line
was already refused for that spy, or that no type its observations leave can make, would be
refused again (the Double Agent may say either, so only the first holds while it may be the DA).
The menu shows those moves last and says why, so the default choice never repeats a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from spycraft.engines.confusion.board import SPIES, Line, Side, line
from spycraft.engines.confusion.model import Game, Observation
from spycraft.engines.confusion.movement import TYPE_IDS, Announcement, movement_type

REFUSED = "refused before"
RULED_OUT = "no type it may have moves so"


def local_candidates(log: Sequence[Observation], spy: str) -> tuple[str, ...]:
    """``L(spy)``: the types meeting every observation about ``spy``, in id order."""
    return _meeting([o for o in log if o.spy == spy])


def _meeting(about: Sequence[Observation]) -> tuple[str, ...]:
    return tuple(t for t in TYPE_IDS if all(o.allows(t) for o in about))


def _by_spy(log: Sequence[Observation]) -> dict[str, list[Observation]]:
    """The observations about each spy, in log order (one pass instead of one per spy)."""
    about: dict[str, list[Observation]] = {}
    for o in log:
        about.setdefault(o.spy, []).append(o)
    return about


def _perfect(local: dict[str, tuple[str, ...]]) -> dict[str, str] | None:
    owner: dict[str, str] = {}

    def augment(spy: str, seen: set[str]) -> bool:
        for t in local[spy]:
            if t in seen:
                continue
            seen.add(t)
            if t not in owner or augment(owner[t], seen):
                owner[t] = spy
                return True
        return False

    for spy in local:
        if not augment(spy, set()):
            return None
    return {spy: t for t, spy in owner.items()}


def matched_candidates(local: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """``C(s)`` for each spy: the types of ``L(s)`` that some perfect matching gives it."""
    match = _perfect(local)
    if match is None:
        return {spy: () for spy in local}
    owner = {t: s for s, t in match.items()}

    def reaches(spy: str, free: str, banned_spy: str, banned_type: str, seen: set[str]) -> bool:
        for t in local[spy]:
            if t == banned_type or t in seen:
                continue
            seen.add(t)
            if t == free:
                return True
            nxt = owner[t]
            if nxt != banned_spy and reaches(nxt, free, banned_spy, banned_type, seen):
                return True
        return False

    result: dict[str, tuple[str, ...]] = {}
    for spy, types in local.items():
        keep = []
        for t in types:
            if match[spy] == t or reaches(owner[t], match[spy], spy, t, set()):
                keep.append(t)
        result[spy] = tuple(keep)
    return result


@dataclass(frozen=True)
class Page:
    """One side's page: ``L`` and ``C`` for each of its 13 spies, by letter."""

    side: Side
    local: tuple[tuple[str, tuple[str, ...]], ...]
    candidates: tuple[tuple[str, tuple[str, ...]], ...]

    def of(self, spy: str) -> tuple[str, ...]:
        return dict(self.candidates)[spy]

    def known(self, spy: str) -> str | None:
        c = self.of(spy)
        return c[0] if len(c) == 1 else None

    def suspect(self, spy: str) -> bool:
        return "DA" in self.of(spy)

    def consistent(self) -> bool:
        return all(c for _, c in self.candidates)


def page(log: Sequence[Observation], side: Side) -> Page:
    return _page(tuple(log), side)


@lru_cache(maxsize=16)
def _page(log: tuple[Observation, ...], side: Side) -> Page:
    # kept for the same log: a bot, the screen and the menu read one page several times a turn
    about = _by_spy(log)
    local = {spy: _meeting(about.get(spy, ())) for spy in SPIES[side]}
    matched = matched_candidates(local)
    return Page(side, tuple(local.items()), tuple((s, matched[s]) for s in SPIES[side]))


def probe(candidates: Sequence[str], move: Line) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The probe hint: (types answering yes, types answering no); the DA is in both."""
    yes = tuple(t for t in candidates if t == "DA" or movement_type(t).allows(move))
    no = tuple(t for t in candidates if t == "DA" or not movement_type(t).allows(move))
    return yes, no


def refusals(g: Game, options: Sequence[Announcement]) -> list[str]:
    """For each announceable move of the side to play, why the notebook knows it would be
    refused (``REFUSED``: this spy was refused this very line; ``RULED_OUT``: none of the types
    the observations leave it, ``L(s)``, makes it), or "" when it may be accepted. A promoted
    spy is never refused. (``L`` rather than ``C``: as sound, and cheap enough for every turn.)"""
    refused = {(o.spy, o.line) for o in g.log if o.kind == "no"}
    about = _by_spy(g.log)
    local: dict[str, tuple[str, ...]] = {}
    notes = []
    for option in options:
        origin = g.board.position(option.spy)
        if option.spy in g.board.promoted or origin is None:
            notes.append("")
            continue
        move = line(g.turn, origin, option.to)  # the line the answer is about (§6.2)
        if (option.spy, move) in refused:
            notes.append(REFUSED)
            continue
        if option.spy not in local:
            local[option.spy] = _meeting(about.get(option.spy, ()))
        may = any(t == "DA" or movement_type(t).allows(move) for t in local[option.spy])
        notes.append("" if may else RULED_OUT)
    return notes

"""Liar's Dice bots at the three levels (``engines.bots``), each reading only its own view.

Every level judges a bid by what it sees: its own dice and how many dice are hidden in the other
cups, each of which shows a given face with chance 1/6 (1/3 for a face other than one when ones
are wild).

* easy: calls a quarter of the time when it may, else makes the smallest raise on a face drawn
  at random;
* normal (the heuristic): expects its own matching dice plus the hidden dice times that chance;
  calls a bid above that by more than one die, else raises on the face it holds most, or makes
  the smallest raise if that face would be too high;
* expert: the exact binomial chance that a bid holds; calls when the last bid is more likely to
  fail than its best raise is to hold, else bids the raise most likely to hold (the lowest
  among equals).
"""

from __future__ import annotations

from math import comb

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines import bots
from spycraft.engines.agent import Agent, Decision

from . import model
from .view import SeatView

Option = tuple[int, int] | None


def chance(face: int, wild: bool) -> float:
    return 1 / 3 if wild and face != 1 else 1 / 6


def own_matches(view: SeatView, face: int) -> int:
    return sum(1 for die in view.dice or () if model.matches(die, face, view.table.game.wild))


def hidden(view: SeatView) -> int:
    return model.dice_in_play(view.table.game) - len(view.dice or ())


def holds(view: SeatView, count: int, face: int) -> float:
    """The chance that at least ``count`` dice show ``face``, from this seat's knowledge."""
    need = count - own_matches(view, face)
    n, p = hidden(view), chance(face, view.table.game.wild)
    if need <= 0:
        return 1.0
    return sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(need, n + 1))


def expected(view: SeatView, face: int) -> float:
    return own_matches(view, face) + hidden(view) * chance(face, view.table.game.wild)


class Easy:
    def __init__(self, entropy: Entropy) -> None:
        self.entropy = entropy

    def decide(self, decision: Decision) -> int:
        options: tuple[Option, ...] = decision.options
        if options[0] is None and (below(self.entropy, 4) == 0 or len(options) == 1):
            return 0
        face = below(self.entropy, 6) + 1
        raises = [i for i, o in enumerate(options) if o is not None and o[1] == face]
        return raises[0] if raises else len(options) - 1


class Heuristic:
    def decide(self, decision: Decision) -> int:
        view: SeatView = decision.view
        options: tuple[Option, ...] = decision.options
        g = view.table.game
        if options[0] is None:
            last = g.bids[-1]
            if last.count > expected(view, last.face) + 1 or len(options) == 1:
                return 0
        faces = sorted(model.FACES, key=lambda f: (own_matches(view, f), f))
        best = faces[-1]
        for i, o in enumerate(options):
            if o is not None and o[1] == best and o[0] <= expected(view, best) + 0.5:
                return i
        return 1 if options[0] is None else 0


class Expert:
    def decide(self, decision: Decision) -> int:
        view: SeatView = decision.view
        options: tuple[Option, ...] = decision.options
        scores = [(holds(view, *o), -i) for i, o in enumerate(options) if o is not None]
        if not scores:
            return 0
        best, index = max(scores)
        if options[0] is None:
            last = view.table.game.bids[-1]
            if 1 - holds(view, last.count, last.face) > best:
                return 0
        return -index


def easy(entropy: Entropy, seat: int) -> Agent:
    return Easy(entropy)


def heuristic(entropy: Entropy, seat: int) -> Agent:
    return Heuristic()


def expert(entropy: Entropy, seat: int) -> Agent:
    return Expert()


BOTS = bots.levels(easy=easy, normal=heuristic, expert=expert)

"""Confusion without the cryptography: the rules model played by the seats' bots.

Theory of operation
-------------------
A full game (``engines.local``) commits every type, proves every answer and signs every record:
a game of heuristic bots costs 0.5 to 3 CPU s, far too much for the thousands of games that
measure a bot. The bots never see any of that: each decision shows its agent a ``SeatView``, the
public ``Game`` of ``model`` and the types the seat assigned to the enemy's spies. This module
plays the same game on the rules model alone, and asks each seat exactly what its
``ConfusionSeat`` would ask, in the same order, with the same ``Decision`` (kind, prompt,
options, labels and view):

* the **chance** of a game is a ``Deal``: each seat's commitment order (the 13 types in the
  order of its ``assign`` record, a secret permutation in the full game) and the values of the
  setup's beacon draws (§4: 12 per side, then the first player's unless the ``first`` option
  fixes it). ``Deal.draw`` makes one from seeded entropy; ``deal_of`` reads it back from a
  finished full game, so the two can be compared;
* the **records** of play are numbered as the table numbers them: seq 1 and 2 are the two
  ``assign`` records, 3 and 4 the seats' beacon reveals, and every step of play is one record
  from ``FIRST_PLAY_SEQ`` on (the public log's observations carry these numbers);
* what a seat **writes without asking** (a shown type, a promotion statement) follows from the
  types it assigned, as ``ConfusionSeat`` writes it.

The model's ``Game`` holds no commitment here (``commitments`` stays empty): nothing a bot reads
depends on the bytes of a commitment. ``run`` returns the ``Game`` when play has ended (the
outcome set, before the final reveal, which decides nothing); ``on_decision`` sees every
decision and its answer, which is how the equivalence with the full game is tested
(``tests/confusion/test_simulation.py``) and how the benchmark (``benchmarks/bench_bots.py``)
counts decisions and their cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.confusion import model
from spycraft.engines.confusion.board import SIDE_NAMES, Side, opp
from spycraft.engines.confusion.model import Game
from spycraft.engines.confusion.movement import TYPE_IDS, promotion_statement
from spycraft.engines.confusion.seat import (
    announce_menu,
    answer_question,
    free_label,
    token_label,
)
from spycraft.engines.confusion.view import SeatView

FIRST_PLAY_SEQ = 5  # after the two assign records and the two beacon reveals
MAX_RECORDS = 100_000  # far above any game (the draw rule ends one within 8,800 turns)


@dataclass(frozen=True)
class Deal:
    """Everything chance (and each seat's secret order) decides in one game."""

    orders: tuple[tuple[str, ...], tuple[str, ...]]  # per seat: the types in commitment order
    draws: tuple[int, ...]  # the setup's beacon draws, of the sizes ``model.draw_sizes``

    @staticmethod
    def draw(entropy: Entropy, first: str = "random") -> Deal:
        """A uniformly random deal: two shuffles of the 13 types, then the setup's draws."""
        orders = []
        for _ in range(2):
            types = list(TYPE_IDS)
            for i in range(len(types) - 1, 0, -1):
                j = below(entropy, i + 1)
                types[i], types[j] = types[j], types[i]
            orders.append(tuple(types))
        sizes = model.draw_sizes(model.start(b"", False, first))
        return Deal((orders[0], orders[1]), tuple(below(entropy, k) for k in sizes))


def deal_of(games: Sequence[Game]) -> Deal:
    """The deal of a played full game, from its successive states (the last one opened)."""
    last = games[-1]
    opened = last.openings
    if opened[0] is None or opened[1] is None:
        raise ValueError("the deal of a game is read from its final openings")
    drawn = next(g for g in games if g.phase == "play")
    draws: list[int] = []
    for side in (0, 1):
        remaining = list(range(len(TYPE_IDS)))
        for index in drawn.assigned[side][:-1]:
            draws.append(remaining.index(index))
            remaining.remove(index)
    if drawn.first == "random":
        draws.append(0 if drawn.turn == 0 else 1)
    return Deal((opened[0], opened[1]), tuple(draws))


def comparable(decision: Decision) -> tuple[Any, ...]:
    """A decision as the simulation and the full game must both make it: seat, kind, prompt,
    options, labels and view, the view's game without what only the full game holds (the
    table's id, the commitments' bytes, the final openings)."""
    view = decision.view
    assert isinstance(view, SeatView)
    game = replace(view.game, table=b"", commitments=((), ()), openings=(None, None))
    return (decision.seat, decision.kind, decision.prompt, decision.options, decision.labels,
            replace(view, game=game))


OnDecision = Callable[[Decision, int], None]


class Simulation:
    """One game on the rules model: ``run`` plays it to the end with one agent per seat."""

    def __init__(self, game: Game, deal: Deal, agents: Sequence[Agent],
                 on_decision: OnDecision | None = None) -> None:
        if len(agents) != 2 or game.phase != "assign":
            raise ValueError("two agents, and a game that has not begun (model.start)")
        self.agents = agents
        self.on_decision = on_decision
        g = model.commit_assignment(model.commit_assignment(game, 0, ()), 1, ())
        self.game = model.apply_draw(g, list(deal.draws))
        # enemy[seat]: each enemy spy's type, as that seat assigned it (ConfusionSeat.enemy_types)
        self.enemy = tuple(tuple(model.types_of(self.game, opp(self._side(seat)),
                                                deal.orders[seat]).items())
                           for seat in (0, 1))
        self.seq = FIRST_PLAY_SEQ

    @staticmethod
    def _side(seat: int) -> Side:
        return 0 if seat == 0 else 1

    def ask(self, seat: int, kind: str, prompt: str, options: Sequence[Any],
            labels: Sequence[str]) -> Any:
        view = SeatView(self.game, seat, self.enemy[seat])
        decision = Decision(seat, kind, prompt, tuple(options), tuple(labels), view)
        index = self.agents[seat].decide(decision)
        if not 0 <= index < len(decision.options):
            raise ValueError(f"agent chose option {index} of {len(decision.options)}")
        if self.on_decision is not None:
            self.on_decision(decision, index)
        return decision.options[index]

    def run(self) -> Game:
        while self.game.outcome is None:
            if self.seq - FIRST_PLAY_SEQ > MAX_RECORDS:
                raise RuntimeError("the game did not end")
            self.game = self.step(self.game)
            self.seq += 1
        return self.game

    def step(self, g: Game) -> Game:
        """One record of play: the step's seat decides (or writes what its types force)."""
        player, answerer = g.turn, opp(g.turn)
        types = dict(self.enemy[answerer])
        if g.step == "token":
            options = model.token_options(g) + [("resign", ())]
            token, spies = self.ask(player, "token", f"{SIDE_NAMES[player]}: use a token?",
                                    options, [token_label(g, t, s) for t, s in options])
            return model.use_token(g, token, spies)
        if g.step == "show":
            assert g.reveal is not None
            return model.show(g, types[g.reveal], self.seq)
        if g.step == "free":
            da = next((s for s, t in self.enemy[player] if t == "DA"), None)
            options_free = model.free_options(g, da)
            action, spy = self.ask(player, "free_action", "Free action?", options_free,
                                   [free_label(g, a, s) for a, s in options_free])
            return model.free_action(g, action, spy, self.seq)
        if g.step == "announce":
            moves, labels = announce_menu(g)
            return model.announce(g, self.ask(player, "announce", "Announce a move", moves,
                                              labels))
        if g.step == "answer":
            assert g.pending is not None
            type_id = types[g.pending.spy]
            prompt, answers = answer_question(g, type_id)
            yes = bool(self.ask(answerer, "answer", prompt, answers,
                                ["yes" if a else "no" for a in answers]))
            promoted = promotion_statement(type_id) if yes and model.promotion_due(g) else None
            return model.answer(g, yes, promoted, self.seq)
        assert g.step == "statement"
        return model.statement(g, promotion_statement(types[g.statements[0]]), self.seq)


def play(game: Game, deal: Deal, agents: Sequence[Agent],
         on_decision: OnDecision | None = None) -> Game:
    """Play ``game`` (a ``model.start``) to the end of play with ``deal`` and one agent per seat."""
    return Simulation(game, deal, agents, on_decision).run()

"""The Resistance without the cryptography: the rules model played by the seats' bots.

Theory of operation
-------------------
A full game (``engines.local``) proves every hidden step: a 10-player game with The Plot
Thickens costs about 0.7 CPU s, far too much for the thousands of games that measure a bot. The
bots never see any of that: each decision shows its agent the public ``Game`` of
``model`` and the seat's ``Knowledge`` (``view``). This module plays the same game on the rules
model alone, and asks each seat exactly what its ``ResistanceSeat`` would ask, in the same order,
with the same ``Decision`` (kind, prompt, options, labels and view):

* the **chance** of a game is a ``Deal``: the set of spies, the first Leader and the value of
  every plot draw (``uniform(len(deck))`` each, in order). ``Deal.draw`` makes one from seeded
  entropy; ``deal_of`` reads it back from a finished full game, so the two can be compared;
* a seat's **knowledge** is kept as the seat keeps it: its role, every spy when it is a spy and
  the spies recognise each other, the roles its plot looks showed (in the order of the looks),
  the cards its Close Eye showed (each as soon as the examination is made: in the full game
  every other seat's token follows the examination before anyone decides again) and the mission
  cards it played;
* **hidden steps** are resolved in the clear: votes are asked of every voter of a step in
  priority order and cast together (``model.cast_votes``), mission cards are asked of the team in
  priority order, the spotlighted ones shown (``play_mission``) and the rest counted
  (``reveal_mission``).

``play`` returns the finished ``Game``; ``on_decision`` sees every decision and its answer, which
is how the equivalence with the full game is tested (``tests/resistance/test_simulation.py``) and
how the benchmark (``benchmarks/bench_bots.py``) counts decisions and their cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.resistance import model as R
from spycraft.engines.resistance.model import Game
from spycraft.engines.resistance.seat import PROMPTS, label
from spycraft.engines.resistance.view import Knowledge, SeatView

MAX_DECISIONS = 10_000  # far above any game (at most 25 proposals, each a few dozen decisions)


@dataclass(frozen=True)
class Deal:
    """Everything chance decides in one game."""

    spies: tuple[int, ...]  # sorted
    first_leader: int
    draws: tuple[int, ...]  # plot draw i takes D[draws[i]] from the deck D sorted by id

    @staticmethod
    def draw(entropy: Entropy, n: int, plot: bool) -> Deal:
        """A uniformly random deal (the roles as the role deal gives them, the beacon's draws)."""
        seats = list(range(n))
        spies = []
        for _ in range(R.spies(n)):
            spies.append(seats.pop(below(entropy, len(seats))))
        first = below(entropy, n)
        size = len(R.plot_deck(n)) if plot else 0
        draws = tuple(below(entropy, size - i) for i in range(size))
        return Deal(tuple(sorted(spies)), first, draws)


def deal_of(games: Sequence[Game], spies: Sequence[int]) -> Deal:
    """The deal of a played game, read from its successive public states and its spies."""
    first = next(g.leader for g in games if g.phase != R.FIRST_LEADER)
    draws = []
    for before, after in pairwise(games):
        for card in after.drawn_cards[len(before.drawn_cards):]:
            deck = tuple(sorted(before.deck))
            draws.append(deck.index(card))
            before = R.draw_plot_card(before, deck.index(card))
    return Deal(tuple(sorted(spies)), first, tuple(draws))


@dataclass
class _Seat:
    """What one seat knows, kept as ``ResistanceSeat.knowledge`` computes it."""

    seat: int
    spy: bool
    known_spies: tuple[int, ...]
    seen_roles: list[tuple[int, bool]]
    seen_cards: list[tuple[int, int, str]]
    own_cards: list[tuple[int, str]]

    def knowledge(self) -> Knowledge:
        return Knowledge(self.seat, self.spy, self.known_spies, tuple(self.seen_roles),
                         tuple(self.seen_cards), tuple(self.own_cards))


OnDecision = Callable[[Decision, int], None]


class Simulation:
    """One game on the rules model: ``run`` plays it to the end with one agent per seat."""

    def __init__(self, game: Game, deal: Deal, agents: Sequence[Agent],
                 on_decision: OnDecision | None = None) -> None:
        if len(agents) != game.n or len(deal.spies) != R.spies(game.n):
            raise ValueError("one agent per seat, and the spies of the seat count")
        self.game = game
        self.deal = deal
        self.agents = agents
        self.on_decision = on_decision
        spies = set(deal.spies)
        recognised = () if game.blind_spies else deal.spies
        self.seats = [
            _Seat(s, s in spies, recognised if s in spies else (), [], [], [])
            for s in range(game.n)
        ]
        self.draws = iter(deal.draws)
        self.cards: dict[int, str] = {}  # this mission's cards, by seat
        self.decisions = 0

    def ask(self, seat: int, kind: str, options: tuple[Any, ...]) -> Any:
        self.decisions += 1
        if self.decisions > MAX_DECISIONS:
            raise RuntimeError("the game did not end")
        view = SeatView(self.game, self.seats[seat].knowledge())
        decision = Decision(seat, kind, PROMPTS[kind], options,
                            tuple(label(kind, o) for o in options), view)
        index = self.agents[seat].decide(decision)
        if not 0 <= index < len(options):
            raise ValueError(f"agent chose option {index} of {len(options)}")
        if self.on_decision is not None:
            self.on_decision(decision, index)
        return options[index]

    def run(self) -> Game:
        while self.game.phase != R.END:
            self.step()
        return self.game

    def step(self) -> None:
        game = self.game
        phase = game.phase
        looks = len(game.looks)
        if phase == R.FIRST_LEADER:
            self.game = R.set_first_leader(game, self.deal.first_leader)
        elif phase == R.PLOT_DRAW:
            self.game = R.draw_plot_card(game, next(self.draws))
        elif phase == R.VOTE:
            votes = {s: bool(self.ask(s, "vote", (True, False))) for s in game.voters}
            self.game = R.cast_votes(game, votes)
        elif phase == R.MISSION_PLAY:
            self.cards = {}
            for s in game.mission_players():
                options = R.mission_card_options(self.seats[s].spy)
                card = str(self.ask(s, "mission_card", options))
                self.cards[s] = card
                self.seats[s].own_cards.append((game.round, card))
            self.game = R.play_mission(game, {s: self.cards[s] for s in game.spotlighted})
        elif phase == R.MISSION_REVEAL:
            hidden = [c for s, c in self.cards.items() if s not in game.spotlighted]
            fails = hidden.count(R.FAIL)
            self.game = R.reveal_mission(game, len(hidden) - fails, fails)
        else:
            self._decide()
        self._learn(self.game.looks[looks:])

    def _decide(self) -> None:
        game = self.game
        point = R.decision(game)
        assert point is not None, game.phase
        seat = point.seats[0]
        choice = self.ask(seat, point.kind, point.options)
        if game.window is not None:
            self.game = R.play_window(game, seat, choice)
        elif point.kind == "plot_deal":
            self.game = R.deal_plot(game, seat, dict(choice))
        elif point.kind == "overheard_target":
            self.game = R.resolve_overheard(game, seat, choice)
        elif point.kind == "open_up_viewer":
            self.game = R.resolve_open_up(game, seat, choice)
        else:
            self.game = R.propose(game, seat, choice)

    def _learn(self, looks: Sequence[R.Look]) -> None:
        """What the new looks showed their viewers (the full game's ``look`` and ``eye_token``
        records come before anyone decides again)."""
        for look in looks:
            viewer = self.seats[look.viewer]
            if look.what == "role":
                viewer.seen_roles.append((look.subject, self.seats[look.subject].spy))
            else:
                viewer.seen_cards.append((look.round, look.subject, self.cards[look.subject]))


def play(game: Game, deal: Deal, agents: Sequence[Agent],
         on_decision: OnDecision | None = None) -> Game:
    """Play ``game`` (a ``model.new_game``) to its end with ``deal`` and one agent per seat."""
    return Simulation(game, deal, agents, on_decision).run()

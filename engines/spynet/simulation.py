"""SpyNet without the cryptography: the rules model played with every card's face in the clear.

Theory of operation
-------------------
A full game (``engines.local``) proves every shuffle and every reveal: about 0.6-0.9 CPU s a
game, and the bots never see any of it. Each decision shows an agent the public ``model.Game``
and what its seat knows (``view.SeatView``). This module plays the same game on the model alone
and asks each seat exactly what its ``SpyNetSeat`` would ask, in the same order, with the same
kind, prompt, options and labels, and a view with the same hand, piles, missions, draft and
public game:

* the **chance** of a game is a ``Deal``: the face at every deck position (the shuffled deck),
  the first player and the situation in play. ``Deal.draw`` makes one from seeded entropy;
  ``deal_of`` reads it back from a finished full game, so the two can be compared;
* a seat **knows** a position once a reveal showed it to that seat or to everyone (the
  ``model.Need`` of each step, as ``deck_ops.DeckOps.knows`` follows it), which is rules §12;
* **reveals** are done at once: the model's ``revealed`` gets the faces it asked for.

The view's ``state`` is a ``Table`` (the seat count and the public game), where the full game
has the protocol state; bots read its ``game`` and its ``n`` only. The one difference in the
public game is a mission's ``seq`` (the record that played it), which counts records here and
every record there; no decision reads it.

``run`` plays to the end (or until ``stop`` says so) and returns the ``Game``; ``on_decision``
sees every decision and its answer, which is how the equivalence with the full game is tested
(``tests/spynet/test_spynet_simulation.py``) and how ``benchmarks/bench_bots.py`` plays SpyNet.
The expert bot plays its searches on ``apply`` and ``options`` too (``expert``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet import setup as SU
from spycraft.engines.spynet.cards import BRANCHES, DECK, PAPER_TRAIL_HAND_LIMIT, SITUATIONS
from spycraft.engines.spynet.labels import describe_option
from spycraft.engines.spynet.scoring import Score, score
from spycraft.engines.spynet.seat import PROMPTS
from spycraft.engines.spynet.view import SeatView

MAX_DECISIONS = 20_000  # far above any game (about 200-300 decisions)


@dataclass(frozen=True)
class Deal:
    """Everything chance decides in one game."""

    faces: tuple[str, ...]  # the face at each deck position
    first: int
    situation: str | None

    @staticmethod
    def draw(entropy: Entropy, n: int, option: str = SU.OFF) -> Deal:
        """A uniformly random deal: the deck shuffled, the first player, the situation."""
        cards = list(DECK)
        faces = []
        while cards:
            faces.append(cards.pop(below(entropy, len(cards))))
        first = below(entropy, n)
        draw = below(entropy, len(SITUATIONS)) if option == SU.RANDOM else None
        return Deal(tuple(faces), first, SU.situation_in_play(option, draw))


def deal_of(state: Any) -> Deal:
    """The deal of a finished full game (``protocol.State`` after the final reveal)."""
    game = state.game
    assert game is not None and state.faces, "a game that reached its final reveal"
    return Deal(tuple(state.faces), game.first, game.situation)


@dataclass(frozen=True)
class Table:
    """What a simulated view's ``state`` holds: the seat count and the public game."""

    n: int
    game: M.Game


def hand_faces(game: M.Game, seat: int, faces: Sequence[str]) -> list[tuple[int, str]]:
    return [(p, faces[p]) for p in game.hands[seat]]


def options(game: M.Game, seat: int, faces: Sequence[str], chosen: Sequence[int] = ()
            ) -> tuple[str, tuple[Any, ...]]:
    """The decision ``seat`` (the current one) faces in ``game``: its kind and legal options,
    in the seat's order (``seat.SpyNetSeat``). ``chosen``: Paper Trail cards picked so far."""
    phase = game.phase
    if phase == M.DRAFT:
        return "draft_pick", game.draft
    if phase == M.ACTION:
        return "turn_action", (True, False)
    if phase == M.RECRUIT:
        return "pile", (True, False)
    if phase == M.EFFECT:
        return "effect", M.effect_options(game, seat, hand_faces(game, seat, faces))
    if phase == M.PAPER:
        return "paper_trail", tuple(p for p in game.hands[seat] if p not in chosen)
    return "deploy", M.deploy_options(game, seat, hand_faces(game, seat, faces))


def apply(game: M.Game, kind: str, option: Any, seq: int = 0) -> M.Game:
    """The model's move for ``option`` of decision ``kind`` by the current seat (before its
    reveal; Paper Trail takes the whole list of cards)."""
    seat = game.current
    if kind == "draft_pick":
        return M.draft_pick(game, seat, option)
    if kind == "turn_action":
        return M.choose_action(game, seat, bool(option))
    if kind == "pile":
        return M.pile_choice(game, seat, bool(option))
    if kind == "effect":
        if option is None:
            return M.play_effect(game, seat, None, None)
        use, discard = option
        return M.play_effect(game, seat, replace(use, discard=None), discard)
    if kind == "paper_trail":
        return M.paper_trail(game, seat, option)
    what = option[0]
    if what == "play_agent":
        return M.play_agent(game, seat, option[1], option[2], option[3])
    if what == "play_mission":
        return M.play_mission(game, seat, option[1], option[2], seq)
    if what == "pass_card":
        return M.pass_card(game, seat, option[1])
    return M.end_deploy(game, seat)


def settle(game: M.Game, faces: Sequence[str], learn: Callable[[M.Need], None] | None = None
           ) -> M.Game:
    """Every reveal the game asks for, done at once (``learn`` hears each one first)."""
    while game.reveal is not None:
        need = game.reveal
        if learn is not None:
            learn(need)
        game = M.revealed(game, {c: faces[c] for c in need.cards})
    return game


def final_score(game: M.Game, faces: Sequence[str]) -> Score:
    return score(M.board_with_missions(game, dict(enumerate(faces))))


def without_seqs(game: M.Game) -> M.Game:
    """``game`` with every mission's ``seq`` set to 0 (the one thing a simulated game counts
    otherwise than the full game)."""
    missions = tuple(tuple(tuple(replace(m, seq=0) for m in pile) for pile in piles)
                     for piles in game.missions)
    return replace(game, missions=missions)


def same_view(a: SeatView, b: SeatView) -> bool:
    """Whether two views show a seat the same: its cards and the public game (seqs aside)."""
    return ((a.seat, a.hand, a.piles, a.missions, a.draft)
            == (b.seat, b.hand, b.piles, b.missions, b.draft)
            and a.game is not None and b.game is not None
            and without_seqs(a.game) == without_seqs(b.game))


OnDecision = Callable[[Decision, int], None]


class Simulation:
    """One game on the rules model: ``run`` plays it with one agent per seat."""

    def __init__(self, n: int, deal: Deal, agents: Sequence[Agent],
                 on_decision: OnDecision | None = None) -> None:
        if len(agents) != n or len(deal.faces) != len(DECK):
            raise ValueError("one agent per seat, and a face for every deck position")
        self.n = n
        self.faces = deal.faces
        self.agents = agents
        self.on_decision = on_decision
        self.known: list[set[int]] = [set() for _ in range(n)]
        self.public: set[int] = set()
        self.decisions = 0
        self.game = settle(M.new_game(n, deal.first, deal.situation), self.faces, self._learn)

    def _learn(self, need: M.Need) -> None:
        (self.public if need.to is None else self.known[need.to]).update(need.cards)

    def view(self, seat: int) -> SeatView:
        game = self.game
        known, public, faces = self.known[seat], self.public, self.faces

        def face(p: int) -> str | None:
            return faces[p] if p in known or p in public else None

        return SeatView(
            Table(self.n, game),
            seat,
            tuple((p, face(p) or "?") for p in game.hands[seat]),
            tuple(tuple(face(p) for p in pile) for pile in game.piles),
            tuple((b, face(m.position) or "?")
                  for b, pile in zip(BRANCHES, game.missions[seat]) for m in pile),
            tuple((p, face(p) or "?") for p in game.draft),
        )

    def ask(self, seat: int, kind: str, choices: tuple[Any, ...]) -> Any:
        self.decisions += 1
        if self.decisions > MAX_DECISIONS:
            raise RuntimeError("the game did not end")
        view = self.view(seat)
        decision = Decision(seat, kind, PROMPTS[kind], choices,
                            tuple(describe_option(kind, o, view) for o in choices), view)
        index = self.agents[seat].decide(decision)
        if not 0 <= index < len(choices):
            raise ValueError(f"agent chose option {index} of {len(choices)}")
        if self.on_decision is not None:
            self.on_decision(decision, index)
        return choices[index]

    def step(self) -> None:
        game = self.game
        seat = game.current
        kind, choices = options(game, seat, self.faces)
        if kind == "paper_trail":
            chosen: list[int] = []
            for _ in range(len(game.hands[seat]) - PAPER_TRAIL_HAND_LIMIT):
                chosen.append(self.ask(seat, kind, options(game, seat, self.faces, chosen)[1]))
            move = apply(game, kind, tuple(chosen))
        else:
            move = apply(game, kind, self.ask(seat, kind, choices), self.decisions)
        self.game = settle(move, self.faces, self._learn)

    def run(self) -> M.Game:
        while self.game.phase != M.END:
            self.step()
        return self.game

    def score(self) -> Score:
        return final_score(self.game, self.faces)


def play(n: int, deal: Deal, agents: Sequence[Agent],
         on_decision: OnDecision | None = None) -> tuple[M.Game, Score]:
    """Play a game of ``n`` seats to its end with ``deal`` and one agent per seat."""
    simulation = Simulation(n, deal, agents, on_decision)
    simulation.run()
    return simulation.game, simulation.score()

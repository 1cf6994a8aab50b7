"""SpyNet's expert bot: determinised search, the hidden cards sampled from what its seat knows.

Theory of operation
-------------------
At a decision with a real choice, the bot keeps the few options the heuristic (``bots``) rates
best, and plays each of them out on the rules model (``simulation.apply``, ``settle``) in
several *determinisations* of the game: worlds in which every card its seat cannot see is given
a face, drawn at random from the cards it has not seen anywhere, so that every world is one the
seat cannot rule out:

* what the seat knows is its ``SeatView`` (its hand, the pile cards it looked at, its own
  missions, the draft cards it holds) and what earlier views showed it (the bot remembers every
  face it was shown with the position: a card it passed, a pile card an opponent took since);
  what everyone knows is the public game (every tableau, the discard pile, S03's missions);
* the cards left are dealt to the positions it cannot read (the deck, the pile cards it has not
  seen, the other hands, the other seats' face-down missions); a face-down mission gets a
  mission of its branch (it was proven to be one when played).

In every world each option is played out to the end of the game (or, early in the game, for a
bounded number of decisions, then scored as if the game ended there), every seat playing the
heuristic with the faces of that world, and scored for the bot's team: 1 for a win, 1/2 for a
shared win, 0 for a loss, plus a little for the points margin (so that a lead is worth keeping
when the win is certain either way). Every option is played in the same worlds, so the
comparison is paired; the option with the best mean wins, the heuristic's order breaking ties,
and the heuristic's own first choice starts ``PRIOR`` ahead per world, so that the noise of a
few worlds alone does not overturn it (30 seeded four-seat games: without it the expert lost
ground to the heuristic it searches with).

The work per decision is a count, not a clock: ``WORLDS`` worlds times ``CANDIDATES`` options
(``effort`` multiplies the worlds), each rollout at most ``HORIZON`` decisions. The worlds are
what the strength is bought with: at two seats (seeds 1-60, both seats, paired against the
heuristic) 4 worlds gained +10.8 +- 11.6 points and 16 worlds +32.1 +- 10.4, at a median of 47 ms
and a 99th percentile of 90 ms of CPU per decision, within the budget (200 ms, 1 s). Its randomness
(the worlds) comes from the bot's own entropy, one draw per searched decision, stretched by a
small counter-based generator (``Stream``), so a seeded bot plays the same game every time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from spycraft.crypto.entropy import Entropy
from spycraft.engines.agent import Decision
from spycraft.engines.bots import Stream
from spycraft.engines.spynet import model as M
from spycraft.engines.spynet.bots import HeuristicAgent, Powers, value
from spycraft.engines.spynet.cards import (
    BRANCHES,
    DECK,
    PAPER_TRAIL_HAND_LIMIT,
    Branch,
    Kind,
    card,
)
from spycraft.engines.spynet.scoring import score, team_of, teams
from spycraft.engines.spynet.simulation import Table, apply, options, settle
from spycraft.engines.spynet.view import SeatView

WORLDS = 16  # determinisations per searched decision (times effort)
CANDIDATES = 3  # the heuristic's best options that are searched
HORIZON = 40  # decisions a rollout plays before it is scored as it stands
MARGIN = 0.02  # what a point of margin adds to a finished rollout's value
CUT_MARGIN = 0.05  # what a point of margin is worth in a rollout cut short
IN_HAND = 0.5  # how much of a mission's stars in hand a rollout cut short counts
PRIOR = 0.1  # what the heuristic's own choice is worth before the search, per world
SEARCHED = frozenset({"draft_pick", "turn_action", "pile", "deploy", "effect"})


def public_faces(game: M.Game) -> Counter[str]:
    """The faces everyone sees in play: every agent and its funding, the discard pile and the
    missions played face up."""
    seen: Counter[str] = Counter(game.discard)
    for tableau in game.board.tableaux:
        for agent in tableau.agents():
            seen[agent.card] += 1
            seen.update(agent.funding)
    for piles in game.missions:
        for pile in piles:
            seen.update(m.face for m in pile if m.face is not None)
    return seen


def hidden_positions(game: M.Game) -> list[int]:
    """Every position whose card is out of play and face down somewhere: the deck, the piles,
    the hands, the draft and the missions played face down."""
    found = list(game.deck)
    for pile in game.piles:
        found.extend(pile)
    for hand in game.hands:
        found.extend(hand)
    found.extend(p for p in game.draft if p not in found)
    for seat_missions in game.missions:
        for missions in seat_missions:
            found.extend(m.position for m in missions if m.face is None)
    return found


def mission_branches(game: M.Game) -> dict[int, Branch]:
    """The branch of every face-down mission, by position."""
    return {m.position: branch for piles in game.missions
            for branch, pile in zip(BRANCHES, piles) for m in pile if m.face is None}


def determinise(game: M.Game, known: dict[int, str], stream: Stream) -> list[str]:
    """A face for every position: the known ones as known, the others dealt at random from the
    cards not accounted for; a face-down mission gets a mission of its branch when one is left."""
    faces = ["?"] * len(DECK)
    pool = Counter(DECK) - public_faces(game)
    unknown = []
    for p in hidden_positions(game):
        face = known.get(p)
        if face is not None and pool[face] > 0:
            faces[p] = face
            pool[face] -= 1
        else:
            unknown.append(p)
    cards = list(pool.elements())
    stream.shuffle(cards)
    branches = mission_branches(game)
    rest = []
    for p in unknown:
        branch = branches.get(p)
        if branch is None:
            rest.append(p)
            continue
        fit = next((i for i, f in enumerate(cards)
                    if card(f).kind is Kind.MISSION and card(f).belongs_to(branch)), None)
        if fit is not None:
            faces[p] = cards.pop(fit)
        else:
            rest.append(p)
    for p, face in zip(rest, cards):
        faces[p] = face
    return faces


def outcome(game: M.Game, faces: Sequence[str], seat: int) -> float:
    """A rollout's worth to ``seat``'s team. At the end: 1 for a win, 1/2 for a shared win, 0
    for a loss, plus ``MARGIN`` a point of margin over the best other team. Cut short: the
    margin alone (``CUT_MARGIN`` a point), each team's points being what its missions would
    score if the game ended now plus ``IN_HAND`` of the stars of the missions its seats hold."""
    final = score(M.board_with_missions(game, dict(enumerate(faces))))
    n = game.n
    sides = teams(n)
    index = sides.index(team_of(seat, n))
    points = list(map(float, final.points))
    if game.phase != M.END:
        for i, team in enumerate(sides):
            points[i] += IN_HAND * sum(card(faces[p]).stars for s in team for p in game.hands[s])
        return CUT_MARGIN * (points[index] - max(p for i, p in enumerate(points) if i != index))
    won = 0.0
    if sides[index] in final.winners:
        won = 1.0 if len(final.winners) == 1 else 0.5
    return won + MARGIN * (points[index] - max(p for i, p in enumerate(points) if i != index))


class Rollout:
    """Every seat playing the heuristic with every face of one world."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.policies = [HeuristicAgent(s) for s in range(n)]
        self.powers: Powers | None = None  # of the last board a seat decided on

    def view(self, game: M.Game, seat: int, faces: Sequence[str]) -> SeatView:
        # lists, then tuples: several times a rollout step, and faster than from generators
        return SeatView(
            Table(self.n, game),
            seat,
            tuple([(p, faces[p]) for p in game.hands[seat]]),
            tuple([tuple([faces[p] for p in pile]) for pile in game.piles]),
            tuple([(b, faces[m.position])
                   for b, pile in zip(BRANCHES, game.missions[seat]) for m in pile]),
            tuple([(p, faces[p]) for p in game.draft]),
        )

    def choose(self, game: M.Game, kind: str, choices: tuple[Any, ...],
               faces: Sequence[str]) -> Any:
        if len(choices) == 1:
            return choices[0]
        seat = game.current
        view = self.view(game, seat, faces)
        if self.powers is None or self.powers.board is not game.board:
            self.powers = Powers(game.board)
        scores = self.policies[seat].scores(kind, choices, view, self.powers)
        return choices[scores.index(max(scores))]  # the first of the best, as the heuristic

    def play(self, game: M.Game, faces: Sequence[str], horizon: int) -> M.Game:
        for _ in range(horizon):
            if game.phase == M.END:
                break
            seat = game.current
            kind, choices = options(game, seat, faces)
            if kind == "paper_trail":
                excess = len(game.hands[seat]) - PAPER_TRAIL_HAND_LIMIT
                worst = sorted(choices, key=lambda p: value(faces[p]))[:excess]
                game = settle(apply(game, kind, tuple(worst)), faces)
                continue
            game = settle(apply(game, kind, self.choose(game, kind, choices, faces)), faces)
        return game


class ExpertAgent:
    """The expert (see the module's docstring)."""

    def __init__(self, entropy: Entropy, seat: int, effort: int = 1) -> None:
        self.entropy = entropy
        self.seat = seat
        self.worlds = WORLDS * max(1, effort)
        self.horizon = HORIZON
        self.heuristic = HeuristicAgent(seat)
        self.memory: dict[int, str] = {}

    def remember(self, view: SeatView) -> None:
        game = view.game
        assert game is not None
        for p, face in view.hand + view.draft:
            if face != "?":
                self.memory[p] = face
        for pile, seen in zip(game.piles, view.piles):
            for p, shown in zip(pile, seen):
                if shown is not None:
                    self.memory[p] = shown
        own = [m.position for pile in game.missions[self.seat] for m in pile]
        for p, (_, mine) in zip(own, view.missions):
            if mine != "?":
                self.memory[p] = mine

    def decide(self, decision: Decision) -> int:
        view = decision.view
        choices = decision.options
        if not isinstance(view, SeatView) or view.game is None:
            return 0
        self.remember(view)
        if len(choices) == 1:
            return 0
        kind = decision.kind
        scores = self.heuristic.scores(kind, choices, view)
        ranked = sorted(range(len(choices)), key=lambda i: (-scores[i], i))
        if kind not in SEARCHED:
            return ranked[0]
        candidates = ranked[:CANDIDATES]
        return self.search(view, kind, choices, candidates)

    def search(self, view: SeatView, kind: str, choices: tuple[Any, ...],
               candidates: list[int]) -> int:
        game = view.game
        assert game is not None
        stream = Stream(int.from_bytes(self.entropy.take(8), "big"))
        rollout = Rollout(game.n)
        totals = [0.0] * len(candidates)
        totals[0] = PRIOR * self.worlds
        for _ in range(self.worlds):
            faces = determinise(game, self.memory, stream)
            for j, i in enumerate(candidates):
                after = settle(apply(game, kind, choices[i]), faces)
                totals[j] += outcome(rollout.play(after, faces, self.horizon), faces, self.seat)
        best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
        return candidates[best]

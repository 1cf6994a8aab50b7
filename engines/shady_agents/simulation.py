"""Shady Agents without the cryptography: the rules model played by the seats' bots.

Theory of operation
-------------------
A full game (``engines.local``) seals every tool, encrypts every discard and proves every
round-2 record; the bots never see any of that. Each decision shows its agent a ``SeatView``:
the public ``Game`` of ``model`` and the seat's ``Knowledge`` (its team, the kinds it gave,
received and discarded). This module plays the same game on the rules model alone, and asks
each seat exactly what its ``ShadyAgentsSeat`` would ask, in the same order, with the same
``Decision`` (kind, prompt, options, labels and view):

* the **chance** of a game is a ``Deal``: every seat's role, the leftover card (odd n), the
  first player and the value of every card draw (``uniform(len(deck))`` each, in order).
  ``Deal.draw`` makes one from seeded entropy; ``deal_of`` reads it back from a finished full
  game, so the two can be compared;
* a ``World`` is everything a full game knows at one moment: the public ``Game``, the kind of
  every tool given and discarded so far, the roles and the draws to come. ``Simulation`` plays a
  world to its end, asking each seat's agent in turn; the expert bot plays the worlds it samples
  from its own seat's belief this way (``expert``);
* **record numbers**: the full game numbers each record by its place in the transcript (the
  setup's records first); here they count from ``SEQ_BASE``. The bots read a record number only
  to match a tool with its record, so the decisions are the same; the test compares them with
  the numbers renamed in order (``tests/shady_agents/test_simulation.py``).

``Simulation.run`` returns the finished ``World``; ``outcome`` scores it (the winning team, or
``None`` for a draw), as the final reveal would when nobody cheated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spycraft.crypto.entropy import Entropy, below
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.shady_agents import cards, scoring
from spycraft.engines.shady_agents import model as M
from spycraft.engines.shady_agents.cards import Answer
from spycraft.engines.shady_agents.components import (
    BULLET,
    MEDKIT,
    Discard,
    Gift,
    Team,
    Tool,
)
from spycraft.engines.shady_agents.seat import PROMPTS, label
from spycraft.engines.shady_agents.view import Knowledge, SeatView

SEQ_BASE = 1000  # record numbers of the model game (any increasing numbers decide the same)


@dataclass(frozen=True)
class Deal:
    """Everything chance decides in one game."""

    roles: tuple[Team, ...]
    leftover: Team | None
    first: int
    draws: tuple[int, ...]  # draw i takes sorted(deck)[draws[i]] from the deck left

    @staticmethod
    def draw(entropy: Entropy, n: int) -> Deal:
        """A uniformly random deal: the role deck shuffled (seat i gets card i, odd n leaves
        card n over), the first player, then a value for every draw there could be."""
        deck = list(scoring.role_deck(n))
        shuffled = [deck.pop(below(entropy, len(deck))) for _ in range(len(deck))]
        leftover = shuffled[n] if scoring.needs_leftover(n) else None
        first = below(entropy, n)
        draws = tuple(below(entropy, len(cards.CARD_IDS) - i) for i in range(n))
        return Deal(tuple(shuffled[:n]), leftover, first, draws)


def deal_of(game: M.Game, roles: Sequence[Team]) -> Deal:
    """The deal of a finished game, from its public state and its opened roles."""
    remaining = sorted(cards.CARD_IDS)
    draws = []
    for asking in game.interrogations:
        if asking.card is None:
            continue
        draws.append(remaining.index(asking.card))
        remaining.remove(asking.card)
    return Deal(tuple(roles), game.leftover, game.first, tuple(draws))


@dataclass(frozen=True)
class World:
    """A game at one moment with nothing hidden: the public game, every kind used so far (in the
    order of ``game.gifts`` and ``game.discards``), the roles and the card draws to come."""

    game: M.Game
    roles: tuple[Team, ...]
    gift_kinds: tuple[Tool, ...] = ()
    discard_kinds: tuple[Tool, ...] = ()
    draws: tuple[int, ...] = ()  # the values of the draws not made yet, in order
    seq: int = SEQ_BASE  # the number of the next record

    @staticmethod
    def start(deal: Deal) -> World:
        game = M.set_first(M.new_game(len(deal.roles), deal.leftover), deal.first)
        return World(game, deal.roles, draws=deal.draws)

    def knowledge(self, seat: int) -> Knowledge:
        """What ``seat`` knows, as its ``ShadyAgentsSeat`` computes it."""
        given = tuple((g.seq, g.receiver, k) for g, k in zip(self.game.gifts, self.gift_kinds)
                      if g.giver == seat)
        received: tuple[tuple[int, int, Tool | None], ...] = tuple(
            (g.seq, g.giver, k) for g, k in zip(self.game.gifts, self.gift_kinds)
            if g.receiver == seat)
        discarded = next((k for d, k in zip(self.game.discards, self.discard_kinds)
                          if d.seat == seat), None)
        return Knowledge(seat, self.roles[seat], given, received, discarded)

    def to_decide(self) -> int | None:
        """The seat a decision is asked of now, or None at the end."""
        game = self.game
        if game.phase in (M.ROUND1, M.ROUND2):
            return game.turn_seat()
        if game.phase == M.ANSWERS:
            return game.next_answerer()
        return None

    def decision(self) -> Decision:
        """The decision the seat to decide is asked now (``to_decide`` is not None)."""
        seat = self.to_decide()
        assert seat is not None
        me = self.knowledge(seat)
        game = self.game
        if game.phase == M.ROUND1:
            kind, options = "round_one", round_one_options(game, me)
        elif game.phase == M.ANSWERS:
            kind, options = "answer", answer_options(game, me)
        else:
            kind, options = "round_two", round_two_options(game, me)
        labels = tuple(label(kind, o) for o in options)
        return Decision(seat, kind, PROMPTS[kind], options, labels, SeatView(game, me))

    def play(self, choice: Any) -> World:
        """The world after the seat to decide chose ``choice`` (an option of ``decision``),
        with the card drawn at once when it called an interrogation."""
        seat = self.to_decide()
        assert seat is not None
        game, seq = self.game, self.seq
        gift_kinds, discard_kinds, draws = self.gift_kinds, self.discard_kinds, self.draws
        if game.phase == M.ROUND1:
            if choice[0] == "move":
                game = M.move(game, seat, choice[2], seq)
                gift_kinds += (choice[1],)
            else:
                game = M.interrogate(game, seat, choice[1] is not None, seq)
                if choice[1] is not None:
                    discard_kinds += (choice[1],)
                game = M.draw_card(game, draws[0])
                draws = draws[1:]
        elif game.phase == M.ANSWERS:
            game = M.answer(game, seat, choice, seq)
        else:
            holding = self.knowledge(seat).holding
            if isinstance(choice, tuple):  # (Bullet to, Medkit to), given in receiver order
                gifts = sorted([(choice[0], BULLET), (choice[1], MEDKIT)])
            else:
                gifts = [(choice, holding[0])]
            game = M.give_all(game, seat, tuple(r for r, _ in gifts), seq)
            gift_kinds += tuple(k for _, k in gifts)
        return replace(self, game=game, gift_kinds=gift_kinds, discard_kinds=discard_kinds,
                       draws=draws, seq=seq + 1)

    def facts(self) -> scoring.FinalFacts:
        gifts = tuple(Gift(g.giver, g.receiver, k) for g, k in zip(self.game.gifts,
                                                                    self.gift_kinds))
        discards = tuple(Discard(d.seat, k) for d, k in zip(self.game.discards,
                                                            self.discard_kinds))
        return scoring.FinalFacts(self.game.n, self.roles, self.game.leftover, gifts, discards)


def outcome(world: World) -> Team | None:
    """The winning team of a finished world (None: a draw)."""
    return scoring.score(world.facts()).winner


def round_one_options(game: M.Game, me: Knowledge) -> tuple[Any, ...]:
    others = [s for s in range(game.n) if s != me.seat]
    moves = tuple(("move", kind, r) for kind in me.holding for r in others)
    if me.seat == game.first:
        return moves + (("interrogate", None),)
    return moves + tuple(("interrogate", kind) for kind in me.holding)


def answer_options(game: M.Game, me: Knowledge) -> tuple[Answer, ...]:
    asking = game.asking
    assert asking is not None and asking.snapshot is not None and me.team is not None
    return cards.required_answers(asking.drawn, me.known_snapshot(asking.snapshot), me.seat,
                                  me.team)


def round_two_options(game: M.Game, me: Knowledge) -> tuple[Any, ...]:
    others = [s for s in range(game.n) if s != me.seat]
    if len(me.holding) == 2:
        return tuple((x, y) for x in others for y in others if x != y)
    return tuple(others)


class Simulation:
    """A world played to its end by one agent per seat; ``on_decision(decision, index)`` sees
    every decision and its answer."""

    def __init__(self, world: World, agents: Sequence[Agent],
                 on_decision: Callable[[Decision, int], None] | None = None) -> None:
        self.world = world
        self.agents = agents
        self.on_decision = on_decision

    def run(self) -> World:
        world = self.world
        while world.to_decide() is not None:
            decision = world.decision()
            index = self.agents[decision.seat].decide(decision)
            if not 0 <= index < len(decision.options):
                raise ValueError(f"agent chose option {index} of {len(decision.options)}")
            if self.on_decision is not None:
                self.on_decision(decision, index)
            world = world.play(decision.options[index])
        return world

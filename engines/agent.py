"""Agents make a seat's game decisions; everything else a seat does is automatic.

A seat (the private side of one player) asks its agent only for choices the rulebook gives a
player, as a ``Decision`` listing every legal option in the rules' canonical order. The agent
answers with the index of one option: a bot computes it, a human picks it at the prompt. The
same interface serves bots in selfplay, bot peers on the LAN and the terminal UI. An option is
a ``Choice``: its type is its decision kind's, as the game's seat and bots read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from spycraft.crypto.entropy import Entropy, below

Choice = Any  # one decision's option; its type is its kind's: a seat, a team, a bid, yes or no
"""An option of a decision. Each decision kind has options of its own type (The Resistance's
``propose`` a ``Proposal``, a vote a bool, a pass None); a seat's ``label`` and a game's bots
read them as the kind says."""


@dataclass(frozen=True)
class Decision:
    seat: int
    kind: str  # the rulebook's name for the choice, e.g. "deploy", "guess"
    prompt: str  # the question, in the rulebook's words
    options: tuple[Choice, ...]  # legal options, in canonical order
    labels: tuple[str, ...]  # how each option is shown and typed
    view: Any  # what this seat knows right now (game-specific, read by bots and the UI)


class Agent(Protocol):
    def decide(self, decision: Decision) -> int:
        """The index of the chosen option."""
        ...


class RandomAgent:
    """Uniformly random among the legal options."""

    def __init__(self, entropy: Entropy) -> None:
        self.entropy = entropy

    def decide(self, decision: Decision) -> int:
        return below(self.entropy, len(decision.options))

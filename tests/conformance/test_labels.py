"""What a person reads and types at a decision, for every game: each option's label is a phrase.

Every configuration of every registered game is played by its bots from a seed, and every
``Decision`` a seat asks is recorded (up to ``MAX_DECISIONS`` a game, so the test stays fast).
Each label must be unique within its decision, say nothing in internal words (no ``_``
identifier, no record kind, no card id such as ``P08`` or ``C12``, no ``->``, no Python value)
and be typed back to its own option at the line prompt (``cli.tui.choose``), whatever the case
and spacing of the typing.
"""

from __future__ import annotations

from functools import cache

import pytest

from spycraft.cli.tui import choose
from spycraft.engines.agent import Decision

from .games import CONFIGS, Config, Recording, new_table
from .test_screens import kinds_of, problems

MAX_DECISIONS = 300

@cache
def asked(config: Config) -> tuple[Decision, ...]:
    local, bots = new_table(config)
    decisions: list[Decision] = []
    agents = [Recording(bot, decisions) for bot in bots]
    while len(decisions) < MAX_DECISIONS and local.step(agents) is not None:
        pass
    return tuple(decisions)


def internal_words(label: str, kinds: tuple[str, ...]) -> list[str]:
    found = problems(label, kinds)
    found += [s for s in ("_", "->") if s in label]
    found += [label] if label.strip().lower() in kinds else []
    return found


def test_internal_words_are_found() -> None:
    """Labels these games once showed, each caught."""
    kinds = ("free", "end_deploy", "plot_deal")
    for label in ("eliminate_own R-A", "agent A15+F01 in INT", "seat 1 INT #2 -> SIG", "P01->2",
                  "free", "end_deploy", "None"):
        assert internal_words(label, kinds), label
    for label in ("remove your own spy R-A from j11", "play Spymaster into Intelligence",
                  "Strong Leader to seat 2", "1-2-3-4", "mission 1: 0 2"):
        assert not internal_words(label, kinds), label


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_every_option_is_a_phrase_a_person_reads_and_types(config: Config) -> None:
    decisions = asked(config)
    assert decisions, "the bots were never asked anything"
    kinds = kinds_of(config)
    for d in decisions:
        assert len(d.labels) == len(d.options)
        assert len(set(d.labels)) == len(d.labels), (d.kind, d.labels)
        for i, label in enumerate(d.labels):
            assert label and label == label.strip(), (d.kind, label)
            assert not internal_words(label, kinds), (d.kind, label, internal_words(label, kinds))
            assert choose(d, label) == i, (d.kind, label)
            assert choose(d, "  " + " ".join(label.upper().split()) + " ") == i, (d.kind, label)

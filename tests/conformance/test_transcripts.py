"""Seeded games are the same game, byte for byte, before and after a change to the engines.

A refactor of the kit or of a game (issue 20) must keep every transcript: the same records, the
same bodies, the same proofs, the same result. Each case below is a seeded game of a registered
game; its transcript bytes and the decisions its seats asked (kind, prompt, options, labels and
the choice, what a person at the keyboard reads) are hashed, and the hashes were computed on the
main branch before the change (``transcripts.json`` beside this file). Cases: every
configuration of the conformance suite played honestly with two seeds; every seat count of every
game with a seat (two from four seats up) declared absent in play; every configuration with a
seat declared absent at its final reveal; every game with a cheat proven by a fraud record; and
the cheats that only the final reveal proves (a Resistance member's Fail, a false spy tag, a
Shady Agents answer its team may not give).

``python -m tests.conformance.test_transcripts`` writes the file anew: only on purpose, when a
change is meant to change the games (a new record field, a new rule), said in its commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.errors import RecordError
from spycraft.engines import registry
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING

from ..resistance.helpers import cheating_seat
from ..resistance.test_protocol import fail_always, hide_from_the_team
from ..shady_agents.helpers import seats as shady_seats
from ..shady_agents.test_protocol import liars
from .games import CONFIGS, SMALLEST, Config, agents_for, flipped, new_table, play_fresh
from .test_forfeits import EVERY_TABLE, absent_at

HASHES = Path(__file__).with_name("transcripts.json")


class Asked:
    """A bot whose every decision is written down as a person would read it."""

    def __init__(self, bot: Agent, log: list[str]) -> None:
        self.bot = bot
        self.log = log

    def decide(self, decision: Decision) -> int:
        chosen = self.bot.decide(decision)
        self.log.append(repr((decision.seat, decision.kind, decision.prompt,
                              decision.options, decision.labels, chosen)))
        return chosen


def asking(agents: list[Agent], log: list[str]) -> list[Agent]:
    return [Asked(a, log) for a in agents]


def digest(local: LocalTable, log: list[str]) -> str:
    h = hashlib.sha256(local.transcript.to_bytes())
    h.update(b"\0decisions\0")
    for line in log:
        h.update(line.encode() + b"\n")
    return h.hexdigest()


def honest(config: Config, seed: int) -> str:
    local, agents = new_table(config, seed)
    log: list[str] = []
    local.run(asking(agents, log))
    return digest(local, log)


def absent_in_play(table: tuple[str, int]) -> str:
    name, players = table
    config = Config(name, players, ())
    place = 20 + 6 * players
    local, gone = absent_at(config, 7, (place, place) if players >= 4 else (place,))
    assert gone
    return digest(local, [])


def absent_at_the_reveal(config: Config) -> str:
    fresh = play_fresh(config, 5)
    final = config.definition.rules.final_reveal
    kinds = [r.record.kind for r in fresh.records]
    reveal = next((i for i, k in enumerate(kinds) if k in final), len(kinds) - 2)
    local, gone = absent_at(config, 5, (reveal + 1,))
    assert gone
    return digest(local, [])


def fraud(config: Config) -> str:
    """The first record from a third of the game on whose flipped body the engine refuses,
    signed by its writer and proven by the next seat's fraud record; then played out."""
    game = play_fresh(config, 5)
    for position in range(len(game.records) // 3, len(game.records)):
        honest_record = game.records[position]
        if honest_record.record.kind in ("beacon", "result"):
            continue
        body = flipped(dict(honest_record.record.body))
        if body is None:
            continue
        state = game.states[position]
        cheat = game.local.seats[honest_record.record.seat].sign(
            state, honest_record.record.kind, body
        )
        try:
            game.local.table.apply(state, cheat)
        except RecordError:
            break
    else:
        raise AssertionError(f"no cheat in {config}")
    local, agents = new_table(config, 5)
    while local.state.seq < position:
        local.step(agents)
    accuser = (honest_record.record.seat + 1) % config.players
    signed = local.seats[accuser].sign(local.state, "fraud", {"evidence": [cheat.raw]})
    local.state = local.table.apply(local.state, signed)
    local.records.append(signed)
    local.run(agents)
    return digest(local, [])


def with_seats(game: str, players: int, seed: int, factory: Callable[..., Any], bot: str) -> str:
    definition = replace(registry.load(game), seat=factory)
    config = Config(game, players, ())
    entropy = SeededEntropy(seed)
    local = new_local_table(definition, config.options, players, entropy)
    log: list[str] = []
    local.run(asking(agents_for(config, entropy, bot), log))
    return digest(local, log)


def cases() -> dict[str, Callable[[], str]]:
    found: dict[str, Callable[[], str]] = {}
    for config in CONFIGS:
        for seed in (5, 6):
            found[f"honest/{config}/{seed}"] = lambda c=config, s=seed: honest(c, s)
    for table in EVERY_TABLE:
        found[f"absent-in-play/{table[0]}-{table[1]}/7"] = lambda t=table: absent_in_play(t)
    for config in CONFIGS:
        found[f"absent-at-the-reveal/{config}/5"] = lambda c=config: absent_at_the_reveal(c)
    for config in SMALLEST:
        found[f"fraud/{config}/5"] = lambda c=config: fraud(c)
    # seeds where the cheater's role makes it a cheat the final reveal proves
    for seed in (1, 3):
        found[f"resistance-fail/{seed}"] = lambda s=seed: with_seats(
            "resistance", 5, s, cheating_seat(1, fail_always), "heuristic")
    for seed in (1, 10):
        found[f"resistance-tag/{seed}"] = lambda s=seed: with_seats(
            "resistance", 5, s, cheating_seat(0, hide_from_the_team), "heuristic")
    for team in (LAW_ABIDING, CORRUPT):
        found[f"shady-liars/{team}/3"] = lambda t=team: with_seats(
            "shady-agents", 6, 3, shady_seats({s: liars(t) for s in range(6)}), "random")
    return found


CASES = cases()


def expected() -> dict[str, str]:
    stored: dict[str, str] = json.loads(HASHES.read_text())
    return stored


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_seeded_game_is_the_same_game_byte_for_byte(case: str) -> None:
    wanted = expected()
    assert case in wanted, f"{case} has no stored hash: write transcripts.json on purpose"
    assert CASES[case]() == wanted[case], f"{case}: its transcript or its decisions changed"


def test_every_stored_case_is_still_played() -> None:
    assert sorted(expected()) == sorted(CASES)


if __name__ == "__main__":
    computed = {name: CASES[name]() for name in sorted(CASES)}
    HASHES.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n")
    print(f"{len(computed)} hashes written to {HASHES}", file=sys.stderr)

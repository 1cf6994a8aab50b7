"""Every registered game, played by its bots: the tables the conformance suite checks.

A game is listed here by being in the registry, or in ``TEST_GAMES``: a game written in the
tests against the kit alone (``tests/kit``: Liar's Dice), which the product does not offer; the
suite's fixture (``conftest.py``) registers those for every test of the suite (``registered``),
so the commands and the registry see them as they see the five. Its configurations come from
what it declares (seat counts and options): the smallest table with no option, and a
middle-sized table with every yes/no option switched on. Games are played once per
configuration and cached, with the state after every record, so each conformance test reads
them instead of playing again.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.crypto.records import SignedRecord
from spycraft.engines import registry
from spycraft.engines.absence import quorum
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.local import LocalTable, new_local_table
from spycraft.engines.registry import GameDefinition
from spycraft.engines.schema import Fields, Fixed, Int, ListOf, Nullable, Seat, Shape
from spycraft.engines.table import TableState

SEED = 5

TEST_GAMES = {"liars-dice": "tests.kit.liars_dice"}
"""Games of the tests (name -> package), checked here like the registered ones."""
GAMES = registry.game_names() + tuple(TEST_GAMES)


def load(name: str) -> GameDefinition:
    """A game's declaration: a test game's from its package (as ``registry.load`` reads it once
    ``registered``), any other from the registry."""
    if name in TEST_GAMES:
        definition: GameDefinition = importlib.import_module(TEST_GAMES[name] + ".definition").GAME
        return definition
    return registry.load(name)


@contextmanager
def registered() -> Iterator[None]:
    """The registry with the test games in it (for the commands, which read the registry)."""
    added = {name: module for name, module in TEST_GAMES.items()
             if name not in registry._MODULES}
    registry._MODULES.update(added)
    try:
        yield
    finally:
        for name in added:
            del registry._MODULES[name]


@dataclass(frozen=True)
class Config:
    game: str
    players: int
    given: tuple[tuple[str, Any], ...]  # the options the player gave

    @property
    def definition(self) -> GameDefinition:
        return load(self.game)

    @property
    def options(self) -> dict[str, Any]:
        return self.definition.genesis_options(self.players, dict(self.given))

    @property
    def flags(self) -> list[str]:
        """The command-line arguments that ask for this configuration."""
        args = ["--players", str(self.players)]
        for name, value in self.given:
            flag = "--" + name.replace("_", "-")
            args += [flag] if value is True else [flag, str(value)]
        return args

    def __str__(self) -> str:
        given = ",".join(name for name, _ in self.given)
        return f"{self.game}-{self.players}" + (f"-{given}" if given else "")


def configs() -> list[Config]:
    found = []
    for name in GAMES:
        definition = load(name)
        counts = definition.rules.seat_counts
        found.append(Config(name, counts[0], ()))
        yes_no = tuple((o.name, True) for o in definition.flags if not o.choices)
        if yes_no or len(counts) > 1:
            found.append(Config(name, counts[len(counts) // 2], yes_no))
    return found


CONFIGS = configs()
SMALLEST = [c for c in CONFIGS if not c.given and c.players == c.definition.rules.seat_counts[0]]


@dataclass
class Played:
    config: Config
    local: LocalTable
    states: list[TableState[Any]]  # states[i]: the state before records[i]; states[-1]: the end

    @property
    def records(self) -> list[SignedRecord]:
        return self.local.records


def agents_for(config: Config, entropy: SeededEntropy, bot: str = "random") -> list[Agent]:
    bots = config.definition.bots
    kind = bot if bot in bots else next(iter(bots))
    return [bots[kind](entropy.child(f"bot/{i}"), i) for i in range(config.players)]


def new_table(config: Config, seed: int = SEED) -> tuple[LocalTable, list[Agent]]:
    entropy = SeededEntropy(seed)
    local = new_local_table(config.definition, config.options, config.players, entropy)
    return local, agents_for(config, entropy)


def play_fresh(config: Config, seed: int = SEED) -> Played:
    local, agents = new_table(config, seed)
    states = [local.state]
    while local.step(agents) is not None:
        states.append(local.state)
    return Played(config, local, states)


@cache
def played(config: Config) -> Played:
    return play_fresh(config)


def number_paths(shape: Shape, value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where a body holds a number (an ``Int`` or a ``Seat``), by its schema."""
    if isinstance(shape, (Int, Seat)):
        return [path]
    if isinstance(shape, Nullable):
        return [] if value is None else number_paths(shape.inner, value, path)
    if isinstance(shape, Fields):
        return [
            p for name, s in shape.fields for p in number_paths(s, value[name], path + (name,))
        ]
    if isinstance(shape, Fixed):
        return [
            p for i, s in enumerate(shape.items) for p in number_paths(s, value[i], path + (i,))
        ]
    if isinstance(shape, ListOf):
        return [p for i, v in enumerate(value) for p in number_paths(shape.items, v, path + (i,))]
    return []


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """``value`` (maps and lists as a body decodes them) with the item at ``path`` replaced."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    items = list(value)
    items[head] = replaced(items[head], rest, new)
    return items


def flipped(value: Any) -> Any | None:
    """The body with its first byte string changed, or its first boolean or number changed;
    None if it holds none of these."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, bytes) and value:
        return value[:-1] + bytes([value[-1] ^ 1])
    if isinstance(value, dict):
        for key in sorted(value):
            new = flipped(value[key])
            if new is not None:
                return {**value, key: new}
    if isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            new = flipped(item)
            if new is not None:
                return [*value[:i], new, *value[i + 1 :]]
    return None


class Recording:
    """A bot that also keeps every decision it was asked."""

    def __init__(self, bot: Agent, asked: list[Decision]) -> None:
        self.bot = bot
        self.asked = asked

    def decide(self, decision: Decision) -> int:
        self.asked.append(decision)
        return self.bot.decide(decision)


class Recorder:
    """A bot that keeps every decision it is shown and its answer (``asked``)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.asked: list[tuple[Decision, int]] = []

    def decide(self, decision: Decision) -> int:
        choice = self.agent.decide(decision)
        self.asked.append((decision, choice))
        return choice


def live_steps(local: LocalTable, agents: list[Any]) -> tuple[Any, ...]:
    """Play ``local`` to its end: (state before, record, state after, every seat's view right
    after it), the views taken live (a seat's view of an old state read later would know what it
    saw only later)."""
    steps = []
    while True:
        before = local.state
        signed = local.step(agents)
        if signed is None:
            return tuple(steps)
        views = tuple(seat.view(local.state) for seat in local.seats)
        steps.append((before, signed.record, local.state, views))


def declare_absent(local: LocalTable, gone: Sequence[int] = (),
                   by: Sequence[int] = ()) -> tuple[int, int]:
    """The seat expected next declared absent by a quorum of the seats still playing (never by
    one already gone; ``by`` first when given), the lowest of them writing the abandon: (the
    absent seat, the seq). Where a hidden side may be a quorum (``GameRules.hidden_side``), by
    one seat more if one is left, so that the votes are a proof, as at a table every seat that
    is still there votes; else they are a claim."""
    turn = local.table.expect(local.state)
    assert turn is not None
    n = len(local.seats)
    others = [s for s in range(n) if s != turn.seat and s not in gone and s not in by]
    wanted = max(quorum(n), local.table.rules.hidden_side(local.state.game, turn.seat) + 1)
    voters = sorted([*by, *others][:wanted])
    assert len(voters) >= quorum(n), f"too few seats left to declare seat {turn.seat} absent"
    votes = {v: local.seats[v].absence_vote(local.state) for v in voters}
    record = local.seats[voters[0]].sign_abandon(local.state, votes)
    local.state = local.table.apply(local.state, record)
    local.records.append(record)
    return turn.seat, record.seq

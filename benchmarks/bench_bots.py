"""How strong each bot level is: every level against every other, per side and seat count.

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_bots.py GAME [--games N] [--players 5,7,10]
[--options plot] [--levels easy,normal,expert] [--jobs J] [--check K] [--targets]
[--against normal,expert] [--sides S1,S2] [--one-seat] [--chunk C] [--save FILE]
[--report FILE...]``.

Method
------
A *configuration* is a seat count and the game's yes/no options (each one given by ``--options``
is played on and off). A *cell* gives each side a level: every pair of levels for a two-sided game
(the 3 x 3 matrix of, in The Resistance, the Resistance's level by the spies'), and for a game of
more sides each side at each level against the others at each other level. Every cell plays the
same seeds (1.. ``--games``), so a seed deals the same roles in every cell, and two cells that
differ in one side's level compare that side's level *in the same seats*: the difference of their
win rates is reported with a paired 95 % interval (the games of one seed are correlated, which
makes it tighter than two independent intervals). A single rate has its 95 % Wilson interval;
about 1,070 games give +-3 points at 50 %.

Seeds: seed ``s`` gives ``SeededEntropy(s)``; bot ``i`` takes its choices from
``child("bot/i")`` whichever level it plays, so a cell whose every seat plays one level is exactly
that level's selfplay game.

Games: The Resistance, Shady Agents, Confusion and SpyNet (without a situation) run on the rules
model with the seats' views (``engines.resistance.simulation``, ``engines.shady_agents.simulation``,
``engines.confusion.simulation``, ``engines.spynet.simulation``: the same decisions as the full
game, about 100, 30, 2 and 20 times cheaper, Confusion's bots' own work being most of its game;
``--check K`` plays K seeds of every cell through the full engine and asserts that the model game
decides exactly the same: seat by seat, view by view for The Resistance and SpyNet, and for
Confusion but for the commitments' bytes; option by option for Shady Agents, whose record numbers
differ). Their seeds deal from ``child("deal")`` (SpyNet's deal: the deck's order and the first
player). Every other game runs through ``engines.local`` (every record built, signed and
verified): any registered game works. A side is read from the rules (``side_of``) at the end of
each seed's first game, and later cells seat the levels by it (a game whose sides would depend on
play is refused).

``--targets``: only the cells the targets compare (every side ``normal``, and each side alone
at each other level), five of the nine for a two-sided game. Each comparison is given per side
and, where a seat count deals more than one, *pooled*: per seed, the mean of every side's paired
difference, with its 95 % interval over the seeds. A side that a seat count does not deal
(SpyNet's teams of two below four seats, its third seat at two) plays no seat there: a cell that
differs from another only in its level is the same game, and it is not played again.

``--against L1,L2``: the targets' comparisons with every other side at each of these levels
(default ``normal``): ``--against expert`` compares the expert with the heuristic against expert
opposition (in The Resistance: expert spies and normal spies, both against expert Resistance),
where a table of heuristic opponents may leave little to win. With ``--targets`` the run plays
the cells those comparisons need; ``--sides`` keeps only the comparisons of these sides (the
cells of a side's raised level are the costly ones where a machine is short of time).

``--one-seat``: seat 0 plays each level while every other seat plays ``normal``, per seat 0's side
(how much one stronger player changes a table of heuristic bots).

``--save FILE`` appends each finished part of the run (``--chunk`` seeds of every cell) to a
file, and ``--report FILE...`` reports from such files without playing: a long run stopped early,
or several runs of different seeds, still give their figures.

Decision time: CPU time (``time.process_time``) of each ``decide`` call, per level: median and
99th percentile over every decision of the run, with the machine's load average when it ended.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.agent import Agent, Decision
from spycraft.engines.bots import LEVELS, offered
from spycraft.engines.local import new_local_table
from spycraft.engines.registry import GameDefinition

Z = 1.959964  # the 95 % normal quantile


@dataclass(frozen=True)
class Config:
    players: int
    options: tuple[tuple[str, bool], ...]  # the yes/no options given, on or off

    def label(self) -> str:
        on = [name for name, value in self.options if value]
        return f"{self.players} seats" + (f", {'+'.join(on)}" if on else "")


@dataclass(frozen=True)
class Cell:
    """The level each side plays (for ``--one-seat``: seat 0's level, the rest ``normal``)."""

    levels: tuple[tuple[str, str], ...]  # (side, level)
    one_seat: str | None = None

    def level_of(self, side: str) -> str:
        return dict(self.levels)[side]


@dataclass
class Outcome:
    sides: tuple[str, ...]  # per seat
    winner: str | None


@dataclass
class Tally:
    """What a run measured: outcomes per (config, cell, seed) and decision CPU per level."""

    outcomes: dict[tuple[Config, Cell], dict[int, Outcome]] = field(
        default_factory=lambda: defaultdict(dict))
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def merge(self, other: Tally) -> None:
        for key, games in other.outcomes.items():
            self.outcomes[key].update(games)
        for level, spent in other.times.items():
            self.times[level].extend(spent)


class Timed:
    """A bot whose decisions are timed (CPU) into ``times[level]``."""

    def __init__(self, agent: Agent, level: str, times: dict[str, list[float]]) -> None:
        self.agent = agent
        self.level = level
        self.times = times

    def decide(self, decision: Decision) -> int:
        start = time.process_time()
        choice = self.agent.decide(decision)
        self.times[self.level].append(time.process_time() - start)
        return choice


class Recording:
    """A bot that also keeps each decision and its answer (for ``--check``)."""

    def __init__(self, agent: Agent, log: list[tuple[Any, ...]]) -> None:
        self.agent = agent
        self.log = log

    def decide(self, decision: Decision) -> int:
        choice = self.agent.decide(decision)
        self.log.append((decision.seat, decision.kind, decision.options, decision.labels,
                         decision.view, choice))
        return choice


def level_for(cell: Cell, seat: int, side: str) -> str:
    if cell.one_seat is not None:
        return cell.one_seat if seat == 0 else "normal"
    return cell.level_of(side)


def seat_levels(cell: Cell, sides: Sequence[str]) -> list[str]:
    return [level_for(cell, seat, side) for seat, side in enumerate(sides)]


def agents_for(definition: GameDefinition, levels: Sequence[str], seed: int,
               times: dict[str, list[float]] | None) -> list[Agent]:
    entropy = SeededEntropy(seed)
    agents: list[Agent] = []
    for i, level in enumerate(levels):
        bot = definition.bots[level](entropy.child(f"bot/{i}"), i)
        agents.append(Timed(bot, level, times) if times is not None else bot)
    return agents


# --- playing one game --------------------------------------------------------------------------


def resistance_game(config: Config, cell: Cell, seed: int, times: dict[str, list[float]],
                    check: bool) -> Outcome:
    from spycraft.engines.resistance import GAME
    from spycraft.engines.resistance import model as R
    from spycraft.engines.resistance.simulation import Deal, Simulation

    options = dict(config.options)
    n = config.players
    deal = Deal.draw(SeededEntropy(seed).child("deal"), n, bool(options.get("plot")))
    sides = tuple(R.SPIES if s in deal.spies else R.RESISTANCE for s in range(n))
    levels = seat_levels(cell, sides)
    game = R.new_game(n, plot=bool(options.get("plot")),
                      targeting=bool(options.get("targeting")),
                      blind_spies=bool(options.get("blind_spies")))
    end = Simulation(game, deal, agents_for(GAME, levels, seed, times)).run()
    if check:
        check_resistance(config, cell, seed)
    assert end.ending is not None
    return Outcome(sides, end.ending.winner)


def check_resistance(config: Config, cell: Cell, seed: int) -> None:
    """Play ``seed`` through the full engine, then its deal on the model: every decision (seat,
    kind, options, labels, view, answer) must be the same."""
    from spycraft.crypto import recognition
    from spycraft.engines.resistance import GAME
    from spycraft.engines.resistance import model as R
    from spycraft.engines.resistance.simulation import Simulation, deal_of
    from spycraft.engines.resistance.view import SeatView

    class BySide:
        """The level of this seat's side, known from its view at its first decision."""

        def __init__(self, seat: int, log: list[tuple[Any, ...]]) -> None:
            self.seat, self.log = seat, log
            self.bot: Agent | None = None

        def decide(self, decision: Decision) -> int:
            if self.bot is None:
                assert isinstance(decision.view, SeatView)
                side = R.SPIES if decision.view.knowledge.spy else R.RESISTANCE
                level = level_for(cell, self.seat, side)
                entropy = SeededEntropy(seed).child(f"bot/{self.seat}")
                self.bot = Recording(GAME.bots[level](entropy, self.seat), self.log)
            return self.bot.decide(decision)

    options = GAME.genesis_options(config.players, {k: v for k, v in config.options if v})
    local = new_local_table(GAME, options, config.players, SeededEntropy(seed))
    full_log: list[tuple[Any, ...]] = []
    agents = [BySide(i, full_log) for i in range(config.players)]
    games = [local.state.game.game]
    while local.step(agents) is not None:
        games.append(local.state.game.game)
    spies = [s for s, role in enumerate(local.state.game.roles) if role == recognition.SPY]
    deal = deal_of(games, spies)
    sides = [R.SPIES if s in deal.spies else R.RESISTANCE for s in range(config.players)]
    model_log: list[tuple[Any, ...]] = []
    bots = [Recording(agent, model_log)
            for agent in agents_for(GAME, seat_levels(cell, sides), seed, None)]
    end = Simulation(R.new_game(config.players, **{k: v for k, v in options.items()}), deal,
                     bots).run()
    if model_log != full_log or end != games[-1]:
        at = next((i for i, (a, b) in enumerate(zip(model_log, full_log)) if a != b),
                  min(len(model_log), len(full_log)))
        raise SystemExit(f"--check: seed {seed}, {config.label()}, {cell}: the model game "
                         f"decides otherwise than the full game at decision {at}")


def shady_game(config: Config, cell: Cell, seed: int, times: dict[str, list[float]],
               check: bool) -> Outcome:
    from spycraft.engines.shady_agents import GAME
    from spycraft.engines.shady_agents.rules import TEAM_NAME
    from spycraft.engines.shady_agents.simulation import Deal, Simulation, World, outcome

    deal = Deal.draw(SeededEntropy(seed).child("deal"), config.players)
    sides = tuple(TEAM_NAME[team] for team in deal.roles)
    levels = seat_levels(cell, sides)
    end = Simulation(World.start(deal), agents_for(GAME, levels, seed, times)).run()
    if check:
        check_shady(config, cell, seed)
    winner = outcome(end)
    return Outcome(sides, None if winner is None else TEAM_NAME[winner])


def check_shady(config: Config, cell: Cell, seed: int) -> None:
    """Play ``seed`` through the full engine, then its deal on the model: every decision (seat,
    kind, options, labels, answer) and the winner must be the same."""
    from spycraft.engines.shady_agents import GAME
    from spycraft.engines.shady_agents.rules import TEAM_NAME
    from spycraft.engines.shady_agents.simulation import Simulation, World, deal_of, outcome
    from spycraft.engines.shady_agents.view import SeatView

    class BySide:
        """The level of this seat's side, known from its view at its first decision."""

        def __init__(self, seat: int, log: list[tuple[Any, ...]]) -> None:
            self.seat, self.log = seat, log
            self.bot: Agent | None = None

        def decide(self, decision: Decision) -> int:
            if self.bot is None:
                assert isinstance(decision.view, SeatView)
                team = decision.view.knowledge.team
                assert team is not None
                level = level_for(cell, self.seat, TEAM_NAME[team])
                entropy = SeededEntropy(seed).child(f"bot/{self.seat}")
                self.bot = GAME.bots[level](entropy, self.seat)
            choice = self.bot.decide(decision)
            self.log.append((decision.seat, decision.kind, decision.options, decision.labels,
                             choice))
            return choice

    local = new_local_table(GAME, GAME.genesis_options(config.players, {}), config.players,
                            SeededEntropy(seed))
    full_log: list[tuple[Any, ...]] = []
    state = local.run([BySide(i, full_log) for i in range(config.players)])
    deal = deal_of(state.game.game, state.game.roles)
    sides = [TEAM_NAME[team] for team in deal.roles]
    model_log: list[tuple[Any, ...]] = []
    bots = [Recording(agent, model_log)
            for agent in agents_for(GAME, seat_levels(cell, sides), seed, None)]
    end = Simulation(World.start(deal), bots).run()
    model_log = [entry[:4] + entry[5:] for entry in model_log]  # the views' record numbers differ
    winner = outcome(end)
    assert state.result is not None
    if model_log != full_log or state.result.winner != (winner and TEAM_NAME[winner]):
        raise SystemExit(f"--check: seed {seed}, {config.label()}, {cell}: the model game "
                         "decides otherwise than the full game")


def confusion_game(config: Config, cell: Cell, seed: int, times: dict[str, list[float]],
                   check: bool) -> Outcome:
    from spycraft.engines.confusion import GAME
    from spycraft.engines.confusion import model as C
    from spycraft.engines.confusion.board import SIDE_NAMES
    from spycraft.engines.confusion.simulation import Deal, Simulation

    tokens = bool(dict(config.options).get("tokens"))
    deal = Deal.draw(SeededEntropy(seed).child("deal"))
    levels = seat_levels(cell, SIDE_NAMES)
    end = Simulation(C.start(b"", tokens, "random"), deal,
                     agents_for(GAME, levels, seed, times)).run()
    if check:
        check_confusion(config, cell, seed)
    assert end.outcome is not None
    winner = end.outcome.winner
    return Outcome(SIDE_NAMES, None if winner is None else SIDE_NAMES[winner])


def check_confusion(config: Config, cell: Cell, seed: int) -> None:
    """Play ``seed`` through the full engine, then its deal on the model: every decision (seat,
    kind, prompt, options, labels, view but for the commitments, answer) must be the same."""
    from spycraft.engines.confusion import GAME
    from spycraft.engines.confusion import model as C
    from spycraft.engines.confusion.board import SIDE_NAMES
    from spycraft.engines.confusion.simulation import Simulation, comparable, deal_of

    class Comparing:
        def __init__(self, agent: Agent, log: list[tuple[Any, ...]]) -> None:
            self.agent, self.log = agent, log

        def decide(self, decision: Decision) -> int:
            choice = self.agent.decide(decision)
            self.log.append((comparable(decision), choice))
            return choice

    options = GAME.genesis_options(2, {k: v for k, v in config.options if v})
    local = new_local_table(GAME, options, 2, SeededEntropy(seed))
    levels = seat_levels(cell, SIDE_NAMES)
    full_log: list[tuple[Any, ...]] = []
    agents = [Comparing(agent, full_log) for agent in agents_for(GAME, levels, seed, None)]
    games = [local.state.game.game]
    while local.step(agents) is not None:
        games.append(local.state.game.game)
    model_log: list[tuple[Any, ...]] = []
    bots = [Comparing(agent, model_log) for agent in agents_for(GAME, levels, seed, None)]
    end = Simulation(C.start(b"", bool(options["tokens"]), str(options["first"])),
                     deal_of(games), bots).run()
    played = next(g for g in games if g.outcome is not None)
    if model_log != full_log or end.outcome != played.outcome or end.log != played.log:
        at = next((i for i, (a, b) in enumerate(zip(model_log, full_log)) if a != b),
                  min(len(model_log), len(full_log)))
        raise SystemExit(f"--check: seed {seed}, {config.label()}, {cell}: the model game "
                         f"decides otherwise than the full game at decision {at}")


def spynet_game(config: Config, cell: Cell, seed: int, times: dict[str, list[float]],
                check: bool) -> Outcome:
    from spycraft.engines.spynet import GAME
    from spycraft.engines.spynet.rules import side_name
    from spycraft.engines.spynet.scoring import team_of
    from spycraft.engines.spynet.simulation import Deal, play

    n = config.players
    deal = Deal.draw(SeededEntropy(seed).child("deal"), n)
    sides = tuple(side_name(team_of(s, n)) for s in range(n))
    _, final = play(n, deal, agents_for(GAME, seat_levels(cell, sides), seed, times))
    if check:
        check_spynet(config, cell, seed)
    winner = side_name(final.winners[0]) if len(final.winners) == 1 else None
    return Outcome(sides, winner)


def check_spynet(config: Config, cell: Cell, seed: int) -> None:
    """Play ``seed`` through the full engine, then its deal on the model: every decision (seat,
    kind, prompt, options, labels, the view's cards and public game, answer) must be the same."""
    from spycraft.engines.spynet import GAME
    from spycraft.engines.spynet.rules import side_name
    from spycraft.engines.spynet.scoring import team_of
    from spycraft.engines.spynet.simulation import Simulation, deal_of, same_view

    n = config.players
    sides = [side_name(team_of(s, n)) for s in range(n)]
    full_log: list[tuple[Any, ...]] = []
    model_log: list[tuple[Any, ...]] = []
    options = GAME.genesis_options(n, {})
    local = new_local_table(GAME, options, n, SeededEntropy(seed))
    levels = seat_levels(cell, sides)
    state = local.run([Recording(a, full_log) for a in agents_for(GAME, levels, seed, None)])
    simulation = Simulation(n, deal_of(state.game), [
        Recording(a, model_log) for a in agents_for(GAME, levels, seed, None)])
    simulation.run()
    ok = len(model_log) == len(full_log) and all(
        a[:4] == b[:4] and a[5] == b[5] and same_view(a[4], b[4])
        for a, b in zip(model_log, full_log))
    if not ok:
        raise SystemExit(f"--check: seed {seed}, {config.label()}, {cell}: the model game "
                         f"decides otherwise than the full game")


def generic_game(definition: GameDefinition, config: Config, cell: Cell, seed: int,
                 times: dict[str, list[float]], sides: Sequence[str]) -> Outcome:
    options = definition.genesis_options(config.players,
                                         {name: True for name, on in config.options if on})
    local = new_local_table(definition, options, config.players, SeededEntropy(seed))
    levels = seat_levels(cell, sides)
    state = local.run(agents_for(definition, levels, seed, times))
    found = tuple(definition.rules.side_of(state.game, s) or "" for s in range(config.players))
    if tuple(sides) != found:
        raise SystemExit(f"{definition.name}: the sides of seed {seed} changed with the bots "
                         f"({sides} then {found}); this benchmark needs sides dealt by chance")
    assert state.result is not None
    return Outcome(found, state.result.winner)


def sides_of(definition: GameDefinition, config: Config, seed: int) -> tuple[str, ...]:
    """The sides a seed deals (from a game of normal bots: the deal does not depend on them)."""
    options = definition.genesis_options(config.players,
                                         {name: True for name, on in config.options if on})
    local = new_local_table(definition, options, config.players, SeededEntropy(seed))
    state = local.run(agents_for(definition, ["normal"] * config.players, seed, None))
    return tuple(definition.rules.side_of(state.game, s) or "" for s in range(config.players))


# --- a run -------------------------------------------------------------------------------------


def configs(definition: GameDefinition, players: Sequence[int] | None,
            options: Sequence[str]) -> list[Config]:
    counts = players or definition.rules.seat_counts
    for count in counts:
        if count not in definition.rules.seat_counts:
            raise SystemExit(f"{definition.name} is not played by {count}")
    known = {o.name for o in definition.flags if not o.choices}
    for name in options:
        if name not in known:
            raise SystemExit(f"{definition.name} has no yes/no option {name!r} "
                             f"({', '.join(sorted(known)) or 'none'})")
    out = []
    for count in counts:
        for values in product((False, True), repeat=len(options)):
            out.append(Config(count, tuple(zip(options, values))))
    return out


def cells(sides: Sequence[str], levels: Sequence[str], one_seat: bool,
          targets: bool = False, against: Sequence[str] = ("normal",),
          raised: Sequence[str] | None = None) -> list[Cell]:
    """Every assignment of levels to sides this run plays (see the module's docstring)."""
    if one_seat:
        return [Cell((), one_seat=level) for level in levels]
    if targets:  # every side at a level of ``against``, and each side alone at each other level
        found: list[Cell] = []
        for base in against:
            found.append(Cell(tuple((s, base) for s in sides)))
            for side in sides if raised is None else raised:
                found += [_cell(sides, side, level, base) for level in levels if level != base]
        return list(dict.fromkeys(found))
    if len(sides) == 2:
        return [Cell(tuple(zip(sides, pair))) for pair in product(levels, repeat=2)]
    found = [Cell(tuple((side, level) for side in sides)) for level in levels]
    for side in sides:
        for mine, theirs in product(levels, repeat=2):
            if mine != theirs:
                found.append(Cell(tuple((s, mine if s == side else theirs) for s in sides)))
    return found


@dataclass(frozen=True)
class Job:
    game: str
    config: Config
    cells: tuple[Cell, ...]
    seeds: tuple[int, ...]
    check: tuple[int, ...]


def run_job(job: Job) -> Tally:
    definition = registry.load(job.game)
    tally = Tally()
    for seed in job.seeds:
        sides: tuple[str, ...] | None = None
        played: set[tuple[tuple[str, str], ...]] = set()
        for cell in job.cells:
            if sides is not None and _seated(cell, sides) in played:
                continue  # the same game as a cell played (see ``_seated``)
            if job.game == "resistance":
                outcome = resistance_game(job.config, cell, seed, tally.times,
                                          seed in job.check)
            elif job.game == "shady-agents":
                outcome = shady_game(job.config, cell, seed, tally.times, seed in job.check)
            elif job.game == "confusion":
                outcome = confusion_game(job.config, cell, seed, tally.times, seed in job.check)
            elif job.game == "spynet" and not job.config.options:
                outcome = spynet_game(job.config, cell, seed, tally.times, seed in job.check)
            else:
                if sides is None:
                    sides = sides_of(definition, job.config, seed)
                outcome = generic_game(definition, job.config, cell, seed, tally.times, sides)
            sides = sides or outcome.sides
            played.add(_seated(cell, sides))
            tally.outcomes[(job.config, cell)][seed] = outcome
    return tally


def _seated(cell: Cell, sides: Sequence[str]) -> tuple[Any, ...]:
    """The levels a cell gives the seats of a seed whose seats have ``sides``: a side the seat
    count does not deal (SpyNet's teams of two below four seats) plays no seat, so two cells that
    differ only in such a side's level are one game."""
    if cell.one_seat:
        return (cell.one_seat,)
    return tuple((side, level) for side, level in cell.levels if side in sides)


def wilson(wins: float, games: int) -> tuple[float, float]:
    if games == 0:
        return 0.0, 0.0
    p = wins / games
    denominator = 1 + Z * Z / games
    centre = (p + Z * Z / (2 * games)) / denominator
    half = Z * math.sqrt(p * (1 - p) / games + Z * Z / (4 * games * games)) / denominator
    return centre - half, centre + half


def _point(game: Outcome, side: str) -> float:
    """What a game gives ``side``: 1 for a win, a half for a draw or a win shared by all."""
    return 1.0 if game.winner == side else 0.5 if game.winner is None else 0.0


def win_rate(games: dict[int, Outcome], side: str) -> tuple[float, int, tuple[float, float]]:
    """The win rate of ``side`` (a draw counts half) and its interval."""
    points = sum(_point(g, side) for g in games.values())
    return points / max(1, len(games)), len(games), wilson(points, len(games))


def paired(a: dict[int, Outcome], b: dict[int, Outcome], side: str) -> tuple[float, float, int]:
    """Mean and 95 % half-width of (a's result - b's result) for ``side`` over common seeds."""
    seeds = sorted(set(a) & set(b))
    diffs = [_point(a[s], side) - _point(b[s], side) for s in seeds]
    if len(diffs) < 2:
        return 0.0, 0.0, len(diffs)
    return statistics.fmean(diffs), Z * statistics.stdev(diffs) / math.sqrt(len(diffs)), len(diffs)


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def report(definition: GameDefinition, tally: Tally, configs_: Sequence[Config],
           sides: Sequence[str], levels: Sequence[str], one_seat: bool,
           against: Sequence[str] = ("normal",)) -> None:
    print(f"## {definition.title}: bot levels")
    print()
    if one_seat:
        print("Seat 0 plays the level, every other seat `normal`; seat 0's win rate by its side.")
        print()
        print("| seats | side | " + " | ".join(levels) + " | expert - normal | normal - easy |")
        print("|---|---|" + "---|" * (len(levels) + 2))
        for config in configs_:
            for side in sides:
                row = []
                by_level = {}
                for level in levels:
                    games = {s: g for s, g in tally.outcomes[(config, Cell((), level))].items()
                             if g.sides[0] == side}
                    by_level[level] = games
                    rate, count, (low, high) = win_rate(games, side)
                    row.append(f"{pct(rate)} ({pct(low)}-{pct(high)}, {count})")
                row += [_difference(by_level, "expert", "normal", side),
                        _difference(by_level, "normal", "easy", side)]
                print(f"| {config.label()} | {side} | " + " | ".join(row) + " |")
        print()
    else:
        print("Win rate of the side named, in %, with its 95 % interval and the games played; "
              "a row is that side's level, a column the level of every other side.")
        print()
        print("| seats | side | level | " + " | ".join(f"vs {lv}" for lv in levels) + " |")
        print("|---|---|---|" + "---|" * len(levels))
        for config in configs_:
            for side in _present(tally, config, sides):
                for mine in levels:
                    row = []
                    for theirs in levels:
                        cell = _cell(sides, side, mine, theirs)
                        if (config, cell) not in tally.outcomes:
                            row.append("-")
                            continue
                        rate, _, (low, high) = win_rate(tally.outcomes[(config, cell)], side)
                        row.append(f"{pct(rate)} ({pct(low)}-{pct(high)})")
                    print(f"| {config.label()} | {side} | {mine} | " + " | ".join(row) + " |")
        for base in against:
            print()
            print(f"The targets: a side's level raised, every other side at {base}, the same "
                  "seeds; difference in points with its paired 95 % interval.")
            print()
            print("| seats | side | expert - normal | normal - easy | games |")
            print("|---|---|---|---|---|")
            for config in configs_:
                present = _present(tally, config, sides)
                by_side = {}
                for side in present:
                    games = {level: tally.outcomes[key] for level in levels
                             if (key := (config, _cell(sides, side, level, base)))
                             in tally.outcomes}
                    by_side[side] = games
                    count = min((len(g) for g in games.values()), default=0)
                    print(f"| {config.label()} | {side} | "
                          f"{_difference(games, 'expert', 'normal', side)} | "
                          f"{_difference(games, 'normal', 'easy', side)} | {count} |")
                if len(present) > 1:
                    pooled = [_pooled(by_side, a, b) for a, b in (("expert", "normal"),
                                                                  ("normal", "easy"))]
                    count = max(n for _, n in pooled)
                    print(f"| {config.label()} | pooled | {pooled[0][0]} | {pooled[1][0]} | "
                          f"{count} seeds |")
        print()
    print("Decision CPU time per level (ms): median, 99th percentile, decisions; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end.")
    print()
    print("| level | median | p99 | max | decisions |")
    print("|---|---|---|---|---|")
    for level in levels:
        spent = sorted(tally.times.get(level, []))
        if not spent:
            continue
        p99 = spent[min(len(spent) - 1, int(0.99 * len(spent)))]
        print(f"| {level} | {1000 * statistics.median(spent):.2f} | {1000 * p99:.2f} | "
              f"{1000 * spent[-1]:.1f} | {len(spent)} |")
    print()


def _present(tally: Tally, config: Config, sides: Sequence[str]) -> list[str]:
    """The sides some seat played in this configuration's games (SpyNet's teams of two exist
    only at four seats, its third seat only at three and four)."""
    seen = {side for (c, _), games in tally.outcomes.items() if c == config
            for game in games.values() for side in game.sides}
    return [side for side in sides if side in seen]


def _cell(sides: Sequence[str], side: str, mine: str, theirs: str) -> Cell:
    return Cell(tuple((s, mine if s == side else theirs) for s in sides))


def _difference(games: dict[str, dict[int, Outcome]], a: str, b: str, side: str) -> str:
    if a not in games or b not in games:
        return "-"
    mean, half, _ = paired(games[a], games[b], side)
    return f"{100 * mean:+.1f} +- {100 * half:.1f}"


def _pooled(by_side: dict[str, dict[str, dict[int, Outcome]]], a: str,
            b: str) -> tuple[str, int]:
    """Level ``a`` - level ``b`` pooled over the sides: per seed, the mean of every side's
    paired difference, over the seeds every side played at both levels; its mean and 95 %
    interval, and the seeds."""
    if any(a not in games or b not in games for games in by_side.values()):
        return "-", 0
    seeds = sorted(set.intersection(*(set(games[a]) & set(games[b])
                                      for games in by_side.values())))
    per_seed = [statistics.fmean(_point(games[a][seed], side) - _point(games[b][seed], side)
                                 for side, games in by_side.items())
                for seed in seeds]
    if len(per_seed) < 2:
        return "-", len(per_seed)
    half = Z * statistics.stdev(per_seed) / math.sqrt(len(per_seed))
    return f"{100 * statistics.fmean(per_seed):+.1f} +- {100 * half:.1f}", len(per_seed)


def save(path: str | None, part: Tally) -> None:
    """Append one finished part of a run to ``path`` (one JSON line), if given."""
    if path is None:
        return
    games = [{"players": config.players, "options": config.options, "levels": cell.levels,
              "one_seat": cell.one_seat, "seed": seed, "sides": outcome.sides,
              "winner": outcome.winner}
             for (config, cell), by_seed in part.outcomes.items()
             for seed, outcome in by_seed.items()]
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({"games": games, "times": part.times}) + "\n")


def load(paths: Sequence[str]) -> Tally:
    """The games and decision times that ``save`` wrote to ``paths``."""
    tally = Tally()
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                part = json.loads(line)
                for game in part["games"]:
                    config = Config(game["players"],
                                    tuple((name, on) for name, on in game["options"]))
                    cell = Cell(tuple((side, level) for side, level in game["levels"]),
                                game["one_seat"])
                    tally.outcomes[(config, cell)][game["seed"]] = Outcome(
                        tuple(game["sides"]), game["winner"])
                for level, spent in part["times"].items():
                    tally.times[level].extend(spent)
    return tally


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("game", choices=registry.game_names())
    parser.add_argument("--games", type=int, default=1070, help="seeds per cell (default 1070)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--players", default=None, help="seat counts, e.g. 5,7,10")
    parser.add_argument("--options", default="", help="yes/no options played on and off")
    parser.add_argument("--levels", default=None, help="levels to play (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--check", type=int, default=0,
                        help="The Resistance, Shady Agents, Confusion: play this many seeds per "
                             "cell through the full engine too, and check that the model game "
                             "decides the same")
    parser.add_argument("--targets", action="store_true",
                        help="only the cells the targets compare: every side normal, and each "
                             "side alone at each other level")
    parser.add_argument("--against", default="normal",
                        help="the levels of the other sides the targets compare against, e.g. "
                             "normal,expert (default normal)")
    parser.add_argument("--sides", default=None,
                        help="with --targets: only the comparisons of these sides")
    parser.add_argument("--one-seat", action="store_true",
                        help="seat 0 plays each level, every other seat normal")
    parser.add_argument("--chunk", type=int, default=0,
                        help="seeds per part of the run (default: a quarter of a job's share)")
    parser.add_argument("--save", default=None,
                        help="append each finished part (its games and decision times) to this "
                             "file as a JSON line, so that a run stopped early still reports")
    parser.add_argument("--report", nargs="+", default=None, metavar="FILE",
                        help="play nothing: report the games --save wrote to these files")
    args = parser.parse_args(None if argv is None else list(argv))
    definition = registry.load(args.game)
    levels = (args.levels.split(",") if args.levels else list(offered(definition.bots)))
    for level in levels:
        if level not in definition.bots or level not in LEVELS:
            known = ", ".join(offered(definition.bots))
            raise SystemExit(f"{definition.name} has the levels {known}")
    against = args.against.split(",")
    for level in against:
        if level not in levels:
            raise SystemExit(f"--against {level}: not among the levels played "
                             f"({', '.join(levels)})")
    sides = tuple(definition.rules.sides)
    raised = args.sides.split(",") if args.sides else None
    for side in raised or ():
        if side not in sides:
            raise SystemExit(f"--sides {side}: the sides are {', '.join(sides)}")
    players = [int(p) for p in args.players.split(",")] if args.players else None
    options = [o for o in args.options.split(",") if o]
    configs_ = configs(definition, players, options)
    seeds = tuple(range(args.first_seed, args.first_seed + args.games))
    checked = seeds[: args.check]
    if args.report:
        tally = load(args.report)
        found = sorted({config for config, _ in tally.outcomes}, key=Config.label)
        report(definition, tally, found, sides, levels, args.one_seat, against)
        seeds_found = {seed for games in tally.outcomes.values() for seed in games}
        print(f"{sum(len(g) for g in tally.outcomes.values())} games, {len(seeds_found)} seeds "
              f"({min(seeds_found)}-{max(seeds_found)}), from {', '.join(args.report)}")
        return 0
    chunk = args.chunk or max(1, len(seeds) // max(1, 4 * args.jobs))
    chosen = tuple(cells(sides, levels, args.one_seat, args.targets, against, raised))
    jobs = [Job(definition.name, config, chosen,
                seeds[i: i + chunk], tuple(s for s in checked if s in seeds[i: i + chunk]))
            for config in configs_ for i in range(0, len(seeds), chunk)]
    started = time.time()
    tally = Tally()
    if args.jobs > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for part in pool.imap_unordered(run_job, jobs):
                tally.merge(part)
                save(args.save, part)
    else:
        for job in jobs:
            part = run_job(job)
            tally.merge(part)
            save(args.save, part)
    report(definition, tally, configs_, sides, levels, args.one_seat, against)
    games = sum(len(g) for g in tally.outcomes.values())
    print(f"{games} games in {time.time() - started:.0f} s wall"
          + (f"; {args.check} seeds per cell checked against the full engine" if args.check
             else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``spycraft play`` on one machine: a human seat and bot seats in one process."""

from __future__ import annotations

import argparse
from typing import Any

from spycraft.cli.offline import game_options, players_of
from spycraft.cli.tui import TerminalAgent
from spycraft.engines import registry
from spycraft.engines.agent import Agent
from spycraft.engines.local import new_local_table
from spycraft.p2p.entropy import SystemEntropy


def play(args: argparse.Namespace) -> int:
    definition = registry.load(args.game)
    options = game_options(definition, args)
    players = players_of(args, definition)
    entropy = SystemEntropy()
    names = [f"bot{i}" for i in range(players)]
    names[0] = "you"
    local = new_local_table(definition, options, players, entropy, names)
    human = TerminalAgent(lambda: definition.render(local.seats[0].view(local.state), 0))
    agents: list[Agent] = [
        human if i == 0 else definition.bots["heuristic"](entropy, i) for i in range(players)
    ]
    print(f"{definition.title}: you are seat {0}.")

    before = [local.state.game]  # the game before the record being narrated

    def narrate(signed: Any, state: Any) -> None:
        line = definition.narrate(before[0], signed.record, state.game)
        before[0] = state.game
        if line:
            print(f"  {line}")

    state = local.run(agents, on_record=narrate)
    print(definition.render(local.seats[0].view(state), 0))
    assert state.result is not None
    print(f"result: {state.result.describe()}")
    return 0

"""``spycraft play --offline``: a human seat and bot seats in one process, no network.

Theory of operation: one ``LocalTable`` runs every seat; seat 0 asks the person, the others are
heuristic bots. In a terminal the person plays in the full-screen application (``cli.app``);
piped or with ``--line``, at the line prompt (``cli.tui``), where each record is told as the
game's narration. The end says the result from the person's side; a finished game's transcript
is stored (``<data>/offline/``) so it can be audited and replayed. Leaving ends the game."""

from __future__ import annotations

import argparse
from typing import Any

from spycraft.cli import app
from spycraft.cli.app.run import play_offline, store_offline
from spycraft.cli.config import player_name
from spycraft.cli.offline import game_options, players_of
from spycraft.cli.outcome import roster, verdict
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
    names[0] = (args.name or player_name())[:64]
    local = new_local_table(definition, options, players, entropy, names)
    if app.wanted(args):
        bots = [None if i == 0 else definition.bots["heuristic"](entropy, i)
                for i in range(players)]
        return play_offline(definition, local, names, bots)
    human = TerminalAgent(lambda: definition.render(local.seats[0].view(local.state), 0))
    agents: list[Agent] = [
        human if i == 0 else definition.bots["heuristic"](entropy, i) for i in range(players)
    ]
    print(f"{definition.title}: you are seat 0.")
    print(roster(names, 0))

    before = [local.state.game]  # the game before the record being narrated

    def narrate(signed: Any, state: Any) -> None:
        line = definition.narrate(before[0], signed.record, state.game)
        before[0] = state.game
        if line:
            print(f"  {line}")

    state = local.run(agents, on_record=narrate)
    print(definition.render(local.seats[0].view(state), 0))
    print(f"transcript stored in {store_offline(local)}")
    print(verdict(definition, state, 0))
    return 0

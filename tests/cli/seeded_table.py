"""``python -m tests.cli.seeded_table GAME PLAYERS SEED [OPTION...]``: an offline game in the
full-screen table on this terminal, seat 0 the person's, the other seats heuristic bots, every
secret from ``SEED``; so a test can play the very game it also plays in its own process (where
it reads what each decision offers) and compare the terminal's screen with it."""

from __future__ import annotations

import sys

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.agent import Agent
from spycraft.engines.local import LocalTable, new_local_table


def seeded(game: str, players: int, seed: int, given: tuple[str, ...] = ()
           ) -> tuple[registry.GameDefinition, LocalTable, list[Agent | None], list[str]]:
    """The table, the bots (None for the person's seat 0) and the names."""
    definition = registry.load(game)
    options = definition.genesis_options(players, {name: True for name in given})
    entropy = SeededEntropy(seed)
    names = [f"p{i}" for i in range(players)]
    local = new_local_table(definition, options, players, entropy.child("table"), names)
    bots: list[Agent | None] = [None] + [
        definition.bots["heuristic"](entropy.child(f"bot{i}"), i) for i in range(1, players)]
    return definition, local, bots, names


def main(argv: list[str]) -> int:
    from spycraft.cli.app.run import play_offline
    from spycraft.cli.tui import PlayerLeft

    game, players, seed, *given = argv
    definition, local, bots, names = seeded(game, int(players), int(seed), tuple(given))
    try:
        return play_offline(definition, local, names, bots)
    except (KeyboardInterrupt, PlayerLeft):
        print("left the table")  # as spycraft says it, in one line
        return 130


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

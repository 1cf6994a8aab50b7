"""The heuristic bot's strength, pinned: a team of heuristic bots against a team of random bots.

Theory: whole six-player games are played through ``new_local_table`` (every record built,
signed, verified and applied, as in ``benchmarks/bench_shady_agents.py``), the heuristic team
Law-abiding in even games and Corrupt in odd ones, on a fixed seed set disjoint from the
benchmark's two sets. Games are deterministic given the seed, so the number of wins is a fixed
figure: a change to the bot that loses any of it fails here. The benchmark measures the rate on
2 x 200 games; this set is small enough to run in the suite.
"""

from __future__ import annotations

from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import new_local_table
from spycraft.engines.shady_agents.bots import team_bot
from spycraft.engines.shady_agents.components import CORRUPT, LAW_ABIDING
from spycraft.engines.shady_agents.rules import TEAM_NAME

SEEDS = range(9000, 9032)  # disjoint from the benchmark's 1000.. and 5000..
PINNED_WINS = 20  # measured with this bot (and 2 draws, 10 losses in 32 games)


def test_heuristic_team_beats_random_team_on_fixed_seeds() -> None:
    definition = registry.load("shady-agents")
    wins = draws = 0
    for index, seed in enumerate(SEEDS):
        team = LAW_ABIDING if index % 2 == 0 else CORRUPT
        entropy = SeededEntropy(seed)
        local = new_local_table(definition, {}, 6, entropy)
        agents = [team_bot(entropy.child(f"bot/{i}"), i, team) for i in range(6)]
        result = local.run(agents).result
        assert result is not None and result.forfeits == ()
        wins += result.winner == TEAM_NAME[team]
        draws += result.winner is None
    figure = f"{wins} wins and {draws} draws in {len(SEEDS)} games"
    assert wins >= PINNED_WINS and wins > len(SEEDS) // 2, figure

"""What every game's bots must do, at every level a person can choose (``engines.bots``).

Every registered game offers the levels easy and normal (and expert where it has one), and
``heuristic`` is its normal level. A bot of any level, in any seat, in hypothesis-chosen games:

* offers only legal choices (the seat refuses any other index, the table every record, and the
  transcript audits VALID);
* reads only its own seat's view: its answers are a function of the decisions it was shown and
  its own entropy (a fresh bot fed the same decisions answers the same, so nothing else, no
  table, no other seat, no shared state, steers it), and no view it is shown holds another
  seat's kept secret or master secret;
* is deterministic from its seed.
The normal level is today's heuristic, decision for decision: seeded games decide exactly as the
heuristic did before the levels existed (pinned), and ``--level normal`` writes the transcript
``--bots heuristic`` writes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycraft.cli.main import main
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import bots, registry
from spycraft.engines.agent import Decision
from spycraft.engines.audit import audit_transcript
from spycraft.engines.game import GameSeat
from spycraft.engines.local import new_local_table
from spycraft.engines.seat import table_key_secret

from .games import CONFIGS, SMALLEST, Config, Recorder

# Decisions of seeded heuristic games (seed 1, SeededEntropy(1) for the table and bot i on
# child "bot/i"), (seat, kind, label chosen) per line, as the heuristic bots make them on main
# without the levels (3d4d6f9). Confusion's normal bot changed on purpose (issue 23: it no
# longer always eliminates the enemy Double Agent on its first turn), so it is not pinned here.
PINNED = {
    "spies-and-lies-2": "96081a4e538f1d85",
    "resistance-5": "3b2b0efdac4a8cd0",
    "shady-agents-4": "8f9a64f45a3d48e5",
    "spynet-2": "04a9f063006959fb",
}



def test_every_game_offers_easy_normal_and_expert_and_normal_is_its_heuristic() -> None:
    for name in registry.game_names():
        definition = registry.load(name)
        offered = bots.offered(definition.bots)
        assert offered == ("easy", "normal", "expert"), name
        assert definition.bots["normal"] is definition.bots["heuristic"], name


def _levels(definition: registry.GameDefinition) -> list[str]:
    return list(bots.offered(definition.bots))


def _bytes_in(value: Any, depth: int = 0) -> Iterator[bytes]:
    """Every byte string held anywhere in ``value`` (dataclasses, containers)."""
    if depth > 12:
        return
    if isinstance(value, (bytes, bytearray)):
        yield bytes(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _bytes_in(getattr(value, field.name), depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _bytes_in(key, depth + 1)
            yield from _bytes_in(item, depth + 1)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _bytes_in(item, depth + 1)


def play(config: Config, seed: int, levels: list[str]) -> tuple[Any, list[Recorder]]:
    entropy = SeededEntropy(seed)
    local = new_local_table(config.definition, config.options, config.players, entropy)
    agents = [Recorder(bots.make(config.definition.bots, level, entropy.child(f"bot/{i}"), i))
              for i, level in enumerate(levels)]
    local.run(agents)
    return local, agents


def small(config: Config) -> bool:
    """The tables cheap enough for many games (the biggest are played through the rules model,
    tests/resistance/test_expert_bots.py)."""
    return config.players <= 5


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_level_in_any_seat_chooses_legally_from_its_own_view_alone(data: st.DataObject) -> None:
    config = data.draw(st.sampled_from([c for c in CONFIGS if small(c)]), label="config")
    definition = config.definition
    levels = data.draw(st.lists(st.sampled_from(_levels(definition)), min_size=config.players,
                                max_size=config.players), label="levels")
    seed = data.draw(st.integers(0, 10**6), label="seed")
    local, agents = play(config, seed, levels)
    assert local.state.result is not None
    assert audit_transcript(local.transcript).valid
    secrets = []
    for seat in local.seats:
        kept = seat.game.kept_secrets() if isinstance(seat.game, GameSeat) else ()
        secrets.append((seat.context.master, table_key_secret(seat.context.master), *kept))
    entropy = SeededEntropy(seed)
    for i, (level, agent) in enumerate(zip(levels, agents)):
        others = [s for j, held in enumerate(secrets) if j != i for s in held]
        fresh = bots.make(definition.bots, level, entropy.child(f"bot/{i}"), i)
        for decision, choice in agent.asked:
            assert decision.seat == i
            assert 0 <= choice < len(decision.options)
            assert fresh.decide(decision) == choice, f"seat {i} ({level}): not its view alone"
            for held in _bytes_in(decision.view):
                assert not any(s in held for s in others), f"seat {i} was shown a secret"


@pytest.mark.parametrize("config", [c for c in SMALLEST if str(c) in PINNED], ids=str)
def test_the_normal_level_decides_as_the_heuristic_did(config: Config) -> None:
    entropy = SeededEntropy(1)
    local = new_local_table(config.definition, config.options, config.players, entropy)
    digest = hashlib.sha256()

    class Pinned:
        def __init__(self, seat: int) -> None:
            self.bot = config.definition.bots["normal"](entropy.child(f"bot/{seat}"), seat)

        def decide(self, decision: Decision) -> int:
            choice = self.bot.decide(decision)
            digest.update(f"{decision.seat}|{decision.kind}|{decision.labels[choice]}\n".encode())
            return choice

    local.run([Pinned(i) for i in range(config.players)])
    assert digest.hexdigest()[:16] == PINNED[str(config)]


@pytest.mark.parametrize("config", SMALLEST, ids=str)
def test_level_normal_writes_the_transcript_bots_heuristic_writes(
    config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["selfplay", config.game, "--seed", "3", "--quiet", *config.flags]
    assert main([*base, "--level", "normal", "--out", str(tmp_path / "a.cbor")]) == 0
    assert main([*base, "--bots", "heuristic", "--out", str(tmp_path / "b.cbor")]) == 0
    assert (tmp_path / "a.cbor").read_bytes() == (tmp_path / "b.cbor").read_bytes()


@pytest.mark.parametrize("config", SMALLEST, ids=str)
def test_a_seeded_game_of_every_level_is_deterministic(
    config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = ",".join(_levels(config.definition)[i % len(_levels(config.definition))]
                      for i in range(config.players))
    out = []
    for run in range(2):
        path = tmp_path / f"{run}.cbor"
        assert main(["selfplay", config.game, "--seed", "4", "--quiet", "--level", levels,
                     "--out", str(path), *config.flags]) == 0
        out.append(path.read_bytes())
    assert out[0] == out[1]

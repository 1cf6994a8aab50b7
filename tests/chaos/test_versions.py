"""A peer of another protocol version (another spycraft release) is refused at the door, and
told so in a line that names both versions (issue 22): at the lobby, where it looks for a table
whose ad speaks another version, and at ``resume``, where the stored game was started with
another version. ``tests/chaos/other_version.py`` is the real program of the next version."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spycraft import PROTOCOL_VERSION
from spycraft.crypto.entropy import SeededEntropy
from spycraft.engines import registry
from spycraft.engines.local import new_local_table
from spycraft.p2p.storage import GameStore, SeatFile
from tests.net.harness import ROOT, wait_all
from tests.net.test_loopback import LO, bots, host

OTHER = ROOT / "tests" / "chaos" / "other_version.py"
NEXT = PROTOCOL_VERSION + 1


def other_version(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SPYCRAFT_HOME=str(home), CHAOS_PROTOCOL_VERSION=str(NEXT))
    return subprocess.run([sys.executable, str(OTHER), *args], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=120, check=False)


def test_resuming_a_game_started_with_another_protocol_version_is_refused_naming_both(
    tmp_path: Path,
) -> None:
    definition = registry.load("spies-and-lies")
    local = new_local_table(definition, {}, 2, SeededEntropy(3))
    agents = [definition.bots["random"](SeededEntropy(3).child(f"b{i}"), i) for i in range(2)]
    for _ in range(6):
        local.step(agents)
    table = local.genesis.genesis.table
    store = GameStore.create(tmp_path / "data", table, 1)
    roster = [{"identity": b"\x03" * 32, "host": LO, "port": 9}] * 2
    store.save_seat(SeatFile(game="spies-and-lies", table=table, seat=1, master=b"\x02" * 32,
                             memo={}, roster=roster, identity=b"\x04" * 32, interface=LO,
                             extra={"bot": "random"}))
    store.write_genesis(local.genesis)
    store.append(*local.records)
    before = store.transcript_path.read_bytes()

    done = other_version("resume", "--interface", LO, home=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"spycraft: this game was started with protocol version {PROTOCOL_VERSION} and this "
        f"spycraft speaks {NEXT}: resume it with the release it was started with")
    assert store.transcript_path.read_bytes() == before  # nothing written, nothing dialed


@pytest.mark.network
def test_a_peer_of_another_version_looking_for_a_table_is_told_both_versions_and_never_sits(
    tmp_path: Path,
) -> None:
    h = host(tmp_path)
    table = h.table_id()
    stranger = other_version("bots", "--table", table, "--wait", "4", "--interface", LO,
                             home=tmp_path / "home-stranger")
    told = [line for line in stranger.stderr.splitlines() if "speaks protocol version" in line]
    assert len(told) == 1, stranger.stderr  # once, however many times the ad changes
    assert told[0].endswith(
        f"WARNING: table {table} speaks protocol version {PROTOCOL_VERSION} and this spycraft "
        f"speaks {NEXT}: it cannot be joined or watched from here (both need the same "
        f"release)"), told
    assert stranger.returncode == 1 and "Traceback" not in stranger.stderr, stranger.stderr
    assert not (tmp_path / "home-stranger" / "data" / "games").exists()  # it never sat down
    wait_all([h, bots(tmp_path, "alice", table), bots(tmp_path, "bob", table)], 90)

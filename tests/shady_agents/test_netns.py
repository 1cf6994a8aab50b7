"""Shady Agents, five bot seats on three LAN hosts in network namespaces (real multicast, TCP)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lab.netns import Lab
from tests.net.test_netns import crossed_the_bridge, identical_and_audited, lab, play

pytestmark = [pytest.mark.network, pytest.mark.netns]
__all__ = ["lab"]  # the fixture, used by name


def test_shady_agents_five_players_on_three_lab_hosts(lab: Lab, tmp_path: Path) -> None:
    table, port, sniff = play(lab, tmp_path, "shady-agents", {2: 2, 3: 3}, "--players", "5")
    transcript = identical_and_audited(tmp_path, table, "shady-agents", 5)
    crossed_the_bridge(lab, sniff, port, [2, 3])
    assert [r.record.kind for r in transcript.records].count("reveal") == 5

"""SpyNet (four bot seats, two teams) and Confusion (two bot seats) across network-namespace LAN
hosts: real multicast discovery, real TCP over a bridge, identical audited transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lab.netns import Lab
from tests.net.test_netns import crossed_the_bridge, identical_and_audited, lab, play

pytestmark = [pytest.mark.network, pytest.mark.netns]
__all__ = ["lab"]  # the fixture, used by name


def test_spynet_four_players_in_two_teams_on_three_lab_hosts(lab: Lab, tmp_path: Path) -> None:
    table, port, sniff = play(lab, tmp_path, "spynet", {2: 2, 3: 2}, "--players", "4")
    transcript = identical_and_audited(tmp_path, table, "spynet", 4)
    crossed_the_bridge(lab, sniff, port, [2, 3])
    assert transcript.records[-1].record.kind == "result"


def test_confusion_two_players_on_two_lab_hosts(lab: Lab, tmp_path: Path) -> None:
    table, port, sniff = play(lab, tmp_path, "confusion", {2: 1, 3: 1})
    transcript = identical_and_audited(tmp_path, table, "confusion", 2)
    crossed_the_bridge(lab, sniff, port, [2, 3])
    assert transcript.records[-1].record.kind == "result"

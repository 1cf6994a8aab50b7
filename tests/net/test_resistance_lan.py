"""The Resistance with The Plot Thickens on loopback: a host and five bot peers in two processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from spycraft.crypto.transcript import Transcript
from tests.net.test_loopback import bot_peers_play

pytestmark = pytest.mark.network

GAME_WAIT = 120  # seconds; a game takes about 10-15 s here, 25 s with the machine busy


def test_five_bot_peers_in_two_processes_play_the_plot_thickens_to_identical_audited_ends(
    tmp_path: Path,
) -> None:
    final, mine, _ = bot_peers_play(tmp_path, "resistance", ("--players", "5", "--plot"),
                                 {"two": 2, "three": 3}, GAME_WAIT)
    seats = sorted(int(f.stem.rsplit("seat", 1)[1]) for files in mine.values() for f in files)
    assert seats == [0, 1, 2, 3, 4], "every seat is played by exactly one bot peer"
    transcript = Transcript.from_bytes(final)
    assert transcript.genesis.genesis.options["plot"] is True
    assert len(transcript.genesis.genesis.seats) == 5
    kinds = {r.record.kind for r in transcript.records}
    assert "plot_deal" in kinds, f"no plot card was dealt: {sorted(kinds)}"

"""A person at a real pseudo-terminal (an xterm of 80x24) plays a whole ``--offline`` game of
each game in the full-screen table by pressing Enter only; the stored transcript audits."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from spycraft.engines.audit import audit
from tests.cli.person import Person
from tests.cli.test_app import PLAYERS

pytestmark = pytest.mark.network  # real processes, like the other terminal tests


def enter_until_done(person: Person, limit: float) -> str:
    """Enter every few tenths of a second (reading the screen meanwhile, as a terminal does)
    until the program ends; what it printed once the full screen was gone."""
    deadline = time.monotonic() + limit
    while person.process.poll() is None and time.monotonic() < deadline:
        person.type("\r")
        time.sleep(0.15)
        person.output()
    assert person.finish(15) == 0, person.output()[-3000:]
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", person.output())


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_whole_offline_game_by_enter_alone_in_a_terminal(game, tmp_path):
    person = Person(["play", game, "--players", str(PLAYERS[game]), "--offline"],
                    tmp_path / "me", terminal=True, term="xterm")
    try:
        # 120 s: a Confusion game that ends in the 200-turn draw takes some 400 Enters, as every
        # answer is asked (the forced ones too), and each Enter waits 0.15 s; more, as its move
        # menu never repeats a refused move, so the person's spies keep moving
        text = enter_until_done(person, 180 if game == "confusion" else 120)
    finally:
        person.kill()
    assert "Traceback" not in text
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    result, verdict, stored = lines[-3:]
    assert re.match(r"result: (you won|you lost|no winner)", result), lines[-3:]
    assert verdict.startswith("audit: VALID")
    path = stored.removeprefix("transcript stored in ")
    assert audit(Path(path).read_bytes()).valid

"""The story a person reads: no protocol steps, no internal ids, every score change explained."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from spycraft.engines.resistance.screen import PHASE_TEXT
from tests.cli.person import ROOT

PROTOCOL = ("key_share", "recognition", "shuffle", "deal_tokens", "spy_tag", "vote_commit",
            "mix", "mission_shares", "beacon", "True", "False")


def story(*args: str) -> list[str]:
    """The lines of the story, each whole: a line wrapped at 80 columns goes on in lines that
    start under its text (seven spaces), which are joined back to it here."""
    done = subprocess.run([sys.executable, "-m", "spycraft", "selfplay", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    lines: list[str] = []
    for line in done.stdout.splitlines():
        assert len(line) <= 80, line  # set for a pipe's 80 columns, never cut
        if line.startswith("result:"):
            break
        if line.startswith(" " * 7) and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


@pytest.fixture(scope="module")
def resistance() -> list[str]:
    return story("resistance", "--players", "7", "--plot", "--seed", "3")


def test_the_resistance_setup_is_one_line_and_no_protocol_step_is_told(resistance):
    text = "\n".join(resistance)
    assert sum("Roles dealt and verified" in line for line in resistance) == 1
    for word in PROTOCOL:
        assert word not in text, word
    assert len(resistance) < 40  # about 25 lines of setup alone before


def test_no_internal_id_reaches_the_story(resistance):
    text = "\n".join(resistance)
    assert not re.search(r"\bP\d\d\b", text)  # plot cards by their names
    assert not re.search(r"[a-z]_[a-z]", text)  # three_failures, strong_leader
    assert re.search(r"[Ss]eat 1 plays No Confidence: overturns the approved team", text)


def test_the_deciding_mission_is_told_with_the_end_and_the_roles_are_revealed(resistance):
    deciding = next(line for line in resistance if "game over" in line)
    assert re.search(r"[Mm]ission \d \(seats [\d, and]+, Leader seat \d\): .*game over: the",
                     deciding)
    assert any(re.search("[Tt]he final reveal: the Spies were seats", line) for line in resistance)


def test_spies_and_lies_says_why_each_score_changed():
    lines = story("spies-and-lies", "--seed", "7")
    # the markers or the Double Agent before and after, in brackets: "(Red 0 to 4; ...)"
    changes = [line for line in lines
               if re.search(r"\((Red|Blue|Double Agent) [+-]?\d+ to [+-]?\d+", line)]
    assert changes
    for line in changes:
        assert any(why in line for why in ("guessed right", "activates", "Deception token",
                                           "Captain takes", "Captain copies", "Marshal takes",
                                           "infiltrates", "loses 5 IP")), line
    infiltration = next(line for line in lines if "infiltrates" in line)
    assert "markers reach 10" in infiltration and "Double Agent" in infiltration


def test_the_resistance_board_names_plot_cards_and_phases_in_words(tmp_path):
    game = tmp_path / "r.cbor"
    subprocess.run([sys.executable, "-m", "spycraft", "selfplay", "resistance", "--players", "7",
                    "--plot", "--seed", "3", "--out", str(game), "--quiet"], cwd=ROOT,
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-m", "spycraft", "replay", str(game), "--as", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert not re.search(r"\bP\d\d\b", done.stdout)
    assert re.search(r"(?m)^Plot cards in front of each player", done.stdout)
    assert re.search(r"(?m)^seat 0 +In the Spotlight", done.stdout)
    phases = {line for line in done.stdout.splitlines() if line.startswith("Now: ")}
    assert phases  # a board at the end of each round, its phase in the rulebook's words
    assert all(line[5:].split(" (")[0] in PHASE_TEXT.values() for line in phases), phases
    assert not any(re.search(r"[A-Z]{4}|_", line) for line in phases), phases

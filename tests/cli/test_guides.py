"""The player guides: every game has one, it ships with the package, and ``spycraft rules`` shows
it (issue 12: a help key shows the game's rules, written for players)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from spycraft.cli import markdown, typeset
from spycraft.cli.guide import guide, guide_text, has_guide
from spycraft.cli.main import main
from spycraft.engines.registry import game_names, load

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ("## What you see on screen", "## The cryptography, for you")


@pytest.mark.parametrize("game", game_names())
def test_every_registered_game_has_a_guide_for_players(game: str) -> None:
    assert has_guide(game)
    text = guide(game)
    heading = text.splitlines()[0]
    assert heading.startswith("# ") and heading.endswith(": how to play")
    assert heading[2 : -len(": how to play")] in load(game).title
    for section in SECTIONS:
        assert section in text, f"{game}'s guide says {section[3:]}"
    # written for players, not copied from the normative rulebook
    assert "Decision:" not in text and "§" not in text and "uniform(" not in text
    assert all(len(line) <= 100 or line.startswith("|") for line in text.splitlines())


def test_a_game_without_a_guide_gets_a_sentence_not_a_traceback() -> None:
    assert not has_guide("chess")
    assert guide("chess").startswith("There is no game called 'chess'")


def _words(markdown_source: str) -> list[str]:
    """The words a reader sees in a guide: its text without Markdown's marks."""
    text = re.sub(r"^\s*(#+|[-*]|\d+\.)\s+", " ", markdown_source, flags=re.MULTILINE)
    text = re.sub(r"\|?\s*:?-{3,}:?\s*", " ", text)
    text = text.replace("**", "").replace("`", "").replace("\\", "").replace("|", " ")
    return text.split()


@pytest.mark.parametrize("game", game_names())
def test_spycraft_rules_prints_the_guide_as_text_wrapped_at_words(
        game: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["rules", game, "--all"]) == 0
    out = capsys.readouterr().out
    assert out == guide_text(game, 60) + "\n"
    assert "**" not in out and "|---" not in out and "## " not in out  # no Markdown marks
    assert all(len(line) <= 60 for line in out.splitlines())
    # every word of the guide is there, whole (a table's cells wrap, so count, not order)
    missing = Counter(w for w in _words(guide(game)) if w.strip("-*")) - Counter(out.split())
    assert not missing, f"words of {game}'s guide not shown whole: {missing}"


def test_spycraft_rules_into_a_pipe_never_waits() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spycraft", "rules", "spynet"],
        check=False, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "\nScoring\n-------\n" in done.stdout and "Enter:" not in done.stdout


def test_a_guide_reads_as_formatted_text_bold_lists_and_tables_laid_out() -> None:
    source = ("# Title: how to play\n\nA **bold** word and `--flag`, *leaning* too.\n\n"
              "- first item that is long enough to wrap at the width\n"
              "1. a numbered step\n\n   | card | what it does |\n   |---|---|\n"
              "   | Strong Leader | before a proposal, become the Leader |\n")
    lines = markdown.render(source, 30)
    text = typeset.plain(lines).splitlines()
    assert text[0] == "Title: how to play"
    styles = {style for line in lines for style, _ in line}
    assert {"class:md.h1", "class:md.bold", "class:md.code", "class:md.em"} <= styles
    assert text[2:4] == ["A bold word and --flag,", "leaning too."]
    assert text[5:7] == ["• first item that is long", "  enough to wrap at the width"]
    assert text[7] == "1. a numbered step"
    table = [line for line in text if "card" in line or "Leader" in line or "become" in line]
    assert table[0].split() == ["card", "what", "it", "does"]
    assert all(line.startswith("   ") for line in table)  # kept inside its list item
    assert all(len(line) <= 30 for line in text)
    assert "|" not in typeset.plain(lines) and "**" not in typeset.plain(lines)


def test_the_guides_load_from_a_built_package(tmp_path: Path) -> None:
    """The package as setuptools builds it (the build a wheel is made of) holds every guide,
    and ``guide`` reads them from there, not from the source tree."""
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("crypto", "engines", "p2p", "cli", "spycraft"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    built = tmp_path / "built"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(built)],
        cwd=source, check=True, capture_output=True, timeout=120,
    )
    for game in game_names():
        assert (built / "spycraft" / "cli" / "guides" / f"{game}.md").is_file()
    check = (
        "import sys, spycraft.cli\n"
        f"assert spycraft.cli.__file__.startswith({str(built)!r}), spycraft.cli.__file__\n"
        "from spycraft.cli.guide import guide, has_guide\n"
        "from spycraft.engines.registry import game_names\n"
        "assert all(has_guide(g) for g in game_names())\n"
        "sys.stdout.write(guide('resistance'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], check=False, cwd=tmp_path, capture_output=True, text=True,
        timeout=60, env={"PYTHONPATH": str(built), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == guide("resistance")

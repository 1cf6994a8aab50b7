"""The player guides (``cli/guides/<game>.md``, written for players from the rulebooks): the
text the help key shows, read as package data with ``importlib.resources``."""

from __future__ import annotations

from importlib import resources


def guide(game: str) -> str | None:
    """The guide of ``game`` (its registry name), or None when it has none yet."""
    try:
        path = resources.files("spycraft.cli").joinpath("guides", f"{game}.md")
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, OSError, UnicodeDecodeError):
        return None

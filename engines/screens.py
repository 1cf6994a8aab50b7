"""Words the games' view models share (``engines.viewmodel``): seats, and a result from a side.

Theory of operation: each game's ``screen.py`` builds its own picture; what every game says the
same way lives here, so "seats 0, 2 and 4" and "You won" read alike at every table. Nothing here
knows a game: a game passes in its sides' names and the side the viewer played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spycraft.engines.table import ABANDONED, DESERTED, FRAUD, NOT_JUDGED
from spycraft.engines.table import Result as TableResult
from spycraft.engines.viewmodel import Event, Grid, Result

FORFEIT_WORDS = {
    FRAUD: "caught cheating: the signed records prove it",
    ABANDONED: "stopped playing and was declared absent by the others",
    DESERTED: "walked away after seeing a secret",
}


def sentence(text: str) -> str:
    """A history line as a sentence: its first letter capitalised."""
    return text[:1].upper() + text[1:]


def signed(value: int) -> str:
    """A score as people write it: ``+2``, ``0``, ``-1``."""
    return f"{value:+d}" if value else "0"


def seat_list(seats: Sequence[int]) -> str:
    """``seat 3`` or ``seats 0, 2 and 4`` (``nobody`` for none)."""
    names = [str(s) for s in seats]
    if not names:
        return "nobody"
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def outcome(
    result: TableResult,
    viewer_side: str | None,
    side_title: Callable[[str], str],
    why: Sequence[str] = (),
    reveal: Sequence[Grid] = (),
) -> Result:
    """The end from the viewer's side: "You won" / "You lost" for a seat whose side is known,
    "<Side> won" for everyone else, "Draw", "No winner" or "Abandoned"; a shared win is "You
    share the win" for a seat that shares it, "You lost" for one that does not, "<A> and <B>
    share the win" for everyone else. ``why`` are the game's own lines (the deciding mission,
    the scores); forfeits are told after them, then what a forfeit left unjudged."""
    detail = list(why)
    if result.forfeits:
        words = FORFEIT_WORDS.get(result.reason, "forfeits")
        detail.append(f"{seat_list(result.forfeits).capitalize()} forfeited: {words}")
    if result.unjudged:
        detail.append(sentence(NOT_JUDGED) + ": " + "; ".join(result.unjudged))
    if result.shared:
        if viewer_side is not None:
            won = viewer_side in result.shared
            return Result("You share the win" if won else "You lost", tuple(detail),
                          tuple(reveal), "good" if won else "bad")
        first, *rest = (side_title(side) for side in result.shared)
        rest = [name[:1].lower() + name[1:] for name in rest]
        names = ", ".join([first, *rest[:-1]]) + f" and {rest[-1]}"
        return Result(f"{names} share the win", tuple(detail), tuple(reveal), "")
    if result.winner is None:
        headline = {"draw": "Draw", ABANDONED: "Abandoned"}.get(result.reason, "No winner")
        return Result(headline, tuple(detail), tuple(reveal), "")
    if viewer_side is not None:
        won = viewer_side == result.winner
        return Result("You won" if won else "You lost", tuple(detail), tuple(reveal),
                      "good" if won else "bad")
    return Result(f"{side_title(result.winner)} won", tuple(detail), tuple(reveal),
                  f"side:{result.winner}")


def narration(story: Callable[[Any, Any, Any], Event | None]) -> Callable[[Any, Any, Any], str]:
    """The line mode's narration told from a game's story, so the two never say different
    things: the event's line, then why a score moved, "" for a step told later."""

    def narrate(before: Any, record: Any, after: Any) -> str:
        event = story(before, record, after)
        if event is None:
            return ""
        return f"{event.text} - {event.why}" if event.why else event.text

    return narrate

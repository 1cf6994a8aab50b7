"""Words the games' view models share (``engines.viewmodel``): seats, and a result from a side.

Theory of operation: each game's ``screen.py`` builds its own picture; what every game says the
same way lives here, so "seats 0, 2 and 4" and "You won" read alike at every table. Nothing here
knows a game: a game passes in its sides' names and the side the viewer played.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from spycraft.crypto.errors import RecordError
from spycraft.crypto.records import Record, SignedRecord, parse_record
from spycraft.engines.table import ABANDONED, CLAIMED, DESERTED, FRAUD, NOT_JUDGED
from spycraft.engines.table import Result as TableResult
from spycraft.engines.viewmodel import Grid, Result

FORFEIT_WORDS = {
    FRAUD: "was caught cheating (the signed records prove it)",
    ABANDONED: "ran out of time",
    DESERTED: "walked away after seeing a secret",
}
_FORFEIT = re.compile(r"seat (\d+) at record (\d+): ([^;]*)")


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


def forfeit_story(kind: str, writer: str, gone: str, many: bool = False) -> str:
    """A fraud or abandon record in the history, as a person says it: "seat 0 proves that seat
    1 cheated: it forfeits", "seat 1 ran out of time and is declared absent by a majority: it
    forfeits" (``gone``: who forfeits, "seats 1 and 3" with ``many``)."""
    they, verb = ("they", "forfeit") if many else ("it", "forfeits")
    if kind == "fraud":
        return f"{writer} proves that {gone} cheated: {they} {verb}"
    return (f"{gone} ran out of time and {'are' if many else 'is'} declared absent by a "
            f"majority: {they} {verb}")


def forfeiters(record: Record | SignedRecord, gone: Iterable[int]) -> list[int]:
    """The seats a fraud or abandon ``record`` makes forfeit: ``gone``, the seats new among the
    game's forfeiters, or else, for a fraud against a seat that had forfeited otherwise (declared
    absent, and then proven to have signed two records for one place), the seat of that pair."""
    seats = sorted(set(gone))
    rec = record.record if isinstance(record, SignedRecord) else record
    if seats or rec.kind != "fraud":
        return seats
    evidence = rec.body.get("evidence") if isinstance(rec.body, dict) else None
    if not isinstance(evidence, tuple) or len(evidence) != 2:
        return []
    try:
        return [parse_record(evidence[0]).seat]
    except (RecordError, TypeError):
        return []


def claimants(result: TableResult) -> tuple[int, ...]:
    """The seats that claim an abandon nobody wins (one party's word: the other seat at two
    seats, the accused's public opponents in SpyNet at four), or () for any other result."""
    if result.winners or result.reason != ABANDONED:
        return ()
    found = re.match(rf"{CLAIMED}s? (\d+(?:, \d+)*)", result.detail)
    return tuple(int(seat) for seat in found.group(1).split(", ")) if found else ()


def shared_names(result: TableResult, side_title: Callable[[str], str]) -> str:
    """The sides that share a win, as a person names them: "Red, white and blue"."""
    first, *rest = (side_title(side) for side in result.shared)
    rest = [name[:1].lower() + name[1:] for name in rest]
    return ", ".join([first, *rest[:-1]]) + f" and {rest[-1]}"


def forfeit_words(result: TableResult) -> str:
    """Who forfeited and why, as a person says it: "seat 1 ran out of time", "seats 0 and 2
    were caught cheating (the signed records prove it)", "seat 3 walked away after seeing its
    role" ("" for no forfeit). Each seat's cause is read from the result's detail (the
    engine's own ``Forfeit.describe``), else from its reason."""
    why: dict[int, str] = {}
    for seat, _, what in _FORFEIT.findall(result.detail):
        if what.startswith("deserted after seeing "):
            why.setdefault(int(seat), f"walked away after seeing {what.split('seeing ', 1)[1]}")
        elif what.startswith(("abandoned", "absent")):
            why.setdefault(int(seat), FORFEIT_WORDS[ABANDONED])
        else:
            why.setdefault(int(seat), FORFEIT_WORDS[FRAUD])
    groups: dict[str, list[int]] = {}
    for seat in result.forfeits:
        groups.setdefault(why.get(seat, FORFEIT_WORDS.get(result.reason, "forfeited")),
                          []).append(seat)
    parts = []
    for words, group in groups.items():
        if len(group) > 1:
            words = words.replace("was caught", "were caught")
        parts.append(f"{seat_list(group)} {words}")
    return "; ".join(parts)


def plain_result(result: TableResult, side_title: Callable[[str], str]) -> str:
    """A result that forfeits decided, in words: "seat 1 ran out of time; seat 0 claims the
    game: no winner", "seat 2 walked away after seeing its role: the Spies won". A result of
    play is the caller's to say (its reason is the game's)."""
    words = forfeit_words(result)
    claim = claimants(result)
    if claim:
        verb = "claims" if len(claim) == 1 else "claim"
        return f"{words}; {seat_list(claim)} {verb} the game: no winner"
    if result.shared:
        return f"{words}: {shared_names(result, side_title)} share the win"
    if result.winner is None:
        return f"{words}: no winner"
    return f"{words}: {side_title(result.winner)} won"


def outcome(
    result: TableResult,
    viewer_side: str | None,
    side_title: Callable[[str], str],
    why: Sequence[str] = (),
    reveal: Sequence[Grid] = (),
) -> Result:
    """The end from the viewer's side: "You won" / "You lost" for a seat whose side is known,
    "<Side> won" for everyone else, "Draw" or "No winner"; a shared win is "You share the win"
    for a seat that shares it, "You lost" for one that does not, "<A> and <B> share the win" for
    everyone else. ``why`` are the game's own lines (the deciding mission, the scores);
    forfeits are told after them, plainly, then what a forfeit left unjudged."""
    detail = list(why)
    if result.forfeits:
        detail.append(sentence(plain_result(result, side_title)))
    if result.unjudged:
        detail.append(sentence(NOT_JUDGED) + ": " + "; ".join(result.unjudged))
    if result.shared:
        if viewer_side is not None:
            won = viewer_side in result.shared
            return Result("You share the win" if won else "You lost", tuple(detail),
                          tuple(reveal), "good" if won else "bad")
        return Result(f"{shared_names(result, side_title)} share the win", tuple(detail),
                      tuple(reveal), "")
    if result.winner is None:
        headline = "Draw" if result.reason == "draw" else "No winner"
        return Result(headline, tuple(detail), tuple(reveal), "")
    if viewer_side is not None:
        won = viewer_side == result.winner
        return Result("You won" if won else "You lost", tuple(detail), tuple(reveal),
                      "good" if won else "bad")
    return Result(f"{side_title(result.winner)} won", tuple(detail), tuple(reveal),
                  f"side:{result.winner}")


"""The terminal player: a line prompt that understands what a person types.

Theory of operation: ``TerminalAgent.decide`` shows the board and the question, then reads lines
until one names a legal option (the options come from the rules engine, so nothing illegal can be
entered). ``choose`` reads a line as a person means it: a whole label, a unique prefix of one,
``#N`` for the N-th, a word of a label (``1`` or ``spy`` names the guess ``1 Spy`` even though
``10 Marshal`` also starts with 1), or, when the options are teams, the seats in any order and
with any separators (``0 2``, ``2,0``, ``0-2``). A line that names nothing gets a one-line reason
(``Hint``) and the prompt again. In a terminal prompt-toolkit reads the line and Tab completes the
whole line (``LabelCompleter``, so ``3-`` completes at ``deploy>``); piped, a plain read.

End of input raises ``PlayerLeft`` and Ctrl-C ``KeyboardInterrupt``; the commands turn both into
one line (``cli.lan``, ``cli.local_play``), never a traceback.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from spycraft.cli import app
from spycraft.cli.lines import wrapped
from spycraft.engines.agent import Decision

Printer = Callable[[str], None]


PlayerLeft = app.PlayerLeft  # declared where cli.main catches it without prompt-toolkit


class Hint(Exception):
    """Why a typed line names no legal option, in one line for the person."""


def _teams(decision: Decision) -> list[tuple[int, ...]] | None:
    """The team of each option when every option is a team (a ``team`` of seats), else None."""
    teams = [getattr(option, "team", None) for option in decision.options]
    if not teams or any(not isinstance(t, tuple) for t in teams):
        return None
    return [tuple(t) for t in teams if t is not None]


def _seats_typed(text: str, seats: int) -> list[int] | None:
    """The seat numbers in a line such as ``0 2``, ``2,0``, ``0-2`` or ``02`` (single digits run
    together only at tables of ten seats or fewer); None when the line is not a list of seats."""
    text = re.sub(r"\band\b", " ", text)
    if not re.fullmatch(r"[\d\s,;/+&-]+", text):
        return None
    parts = [p for p in re.split(r"[\s,;/+&-]+", text) if p]
    if len(parts) == 1 and len(parts[0]) > 1 and seats <= 10:
        parts = list(parts[0])
    return [int(p) for p in parts] if parts else None


def _choose_team(decision: Decision, teams: list[tuple[int, ...]], text: str) -> int | None:
    seats = max((s for t in teams for s in t), default=-1) + 1
    typed = _seats_typed(text, seats)
    if typed is None:
        return None
    wanted = tuple(sorted(typed))
    for i, team in enumerate(teams):
        if tuple(sorted(team)) == wanted:
            return i
    sizes = sorted({len(t) for t in teams})
    unknown = [s for s in typed if not any(s in t for t in teams)]
    if unknown:
        raise Hint(f"no seat {unknown[0]} here: seats are 0 to {seats - 1}")
    if len(set(typed)) != len(typed):
        raise Hint("each seat goes on the team once")
    if len(typed) not in sizes:
        raise Hint(f"this team has {' or '.join(map(str, sizes))} seats; you named {len(typed)}")
    raise Hint(f"{' '.join(map(str, typed))} is not a team you may propose now")


def choose(decision: Decision, text: str) -> int | None:
    """The option a typed line names, or None when it names none (or several).

    Raises ``Hint`` when the line is recognisably meant as an option but is not a legal one
    (a team of the wrong size, an unknown seat)."""
    text = text.strip()
    if not text:
        return None
    labels = [label.lower() for label in decision.labels]
    lowered = " ".join(text.lower().split())
    if lowered.startswith("#") and lowered[1:].isdigit():
        index = int(lowered[1:]) - 1
        return index if 0 <= index < len(labels) else None
    if lowered in labels:
        return labels.index(lowered)
    teams = _teams(decision)
    if teams is not None:
        picked = _choose_team(decision, teams, lowered)
        if picked is not None:
            return picked
    words = [i for i, label in enumerate(labels) if lowered in re.split(r"[\s:,()]+", label)]
    if len(words) == 1:
        return words[0]
    starts = [i for i, label in enumerate(labels) if label.startswith(lowered)]
    if len(starts) == 1:
        return starts[0]
    if lowered.isdigit() and len(labels) <= 20 and not words and not starts:
        index = int(lowered) - 1
        return index if 0 <= index < len(labels) else None
    return None


class LabelCompleter(Completer):
    """Completes the whole line against the labels: those starting with what is typed first,
    then those containing it (so a dash or a space inside a label is no word boundary)."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        key = typed.strip().lower()
        starts = [label for label in self.labels if label.lower().startswith(key)]
        inside = [label for label in self.labels
                  if key and key in label.lower() and label not in starts]
        for label in starts + inside:
            yield Completion(label, start_position=-len(typed))


class TerminalAgent:
    def __init__(self, board: Callable[[], str], out: Printer = print) -> None:
        self.board = board
        self.out = out
        self._session: object | None = None

    def _read(self, decision: Decision) -> str:
        if sys.stdin.isatty() and sys.stdout.isatty():
            from prompt_toolkit import PromptSession

            if self._session is None:
                self._session = PromptSession()
            session: PromptSession[str] = self._session  # type: ignore[assignment]
            try:
                return session.prompt(f"{decision.kind}> ",
                                      completer=LabelCompleter(decision.labels))
            except EOFError:
                raise PlayerLeft from None
        self.out(f"{decision.kind}> ")
        line = sys.stdin.readline()
        if not line:
            raise PlayerLeft
        return line

    def decide(self, decision: Decision) -> int:
        self.out(self.board())
        self.out("\n" + wrapped(decision.prompt))
        self._list(decision, short=True)
        while True:
            text = self._read(decision)
            if text.strip() in ("?", "help"):
                self._list(decision, short=False)
                continue
            try:
                index = choose(decision, text)
            except Hint as hint:
                self.out(wrapped(f"{hint} (type ? for the list, Tab to complete)"))
                continue
            if index is not None:
                return index
            self.out(wrapped(f"not a legal choice: {text.strip()!r} (type ? for the list, Tab "
                             "to complete)"))

    def _list(self, decision: Decision, short: bool) -> None:
        labels = decision.labels
        if short and len(labels) > 12:
            shown = ", ".join(labels[:10])
            self.out(wrapped(f"{len(labels)} options, e.g. {shown}, ... (? lists all, Tab "
                             "completes)", "  "))
            return
        for i, label in enumerate(labels, start=1):
            self.out(wrapped(label, f"  #{i:<3} ", hang=0))

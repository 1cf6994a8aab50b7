"""The terminal player: a prompt-toolkit prompt that completes the legal actions.

``TerminalAgent.decide`` shows the board and the question, then reads a line with completion
of every legal option's label. The player may type a label, a unique prefix of one, or its
number from the list (``?`` lists them). Nothing illegal can be entered: the options come from
the rules engine. Without a terminal (piped input) it falls back to plain ``input``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from spycraft.engines.agent import Decision

Printer = Callable[[str], None]


def choose(decision: Decision, text: str) -> int | None:
    """The option a typed line names, or None when it names none (or several)."""
    text = text.strip()
    if not text:
        return None
    labels = [label.lower() for label in decision.labels]
    if text.startswith("#") and text[1:].isdigit():
        index = int(text[1:]) - 1
        return index if 0 <= index < len(labels) else None
    lowered = text.lower()
    if lowered in labels:
        return labels.index(lowered)
    starts = [i for i, label in enumerate(labels) if label.startswith(lowered)]
    if len(starts) == 1:
        return starts[0]
    if (
        text.isdigit()
        and len(labels) <= 20
        and not any(lowered == lab.split()[0] for lab in labels)
    ):
        index = int(text) - 1
        return index if 0 <= index < len(labels) else None
    return None


class TerminalAgent:
    def __init__(self, board: Callable[[], str], out: Printer = print) -> None:
        self.board = board
        self.out = out
        self._session: object | None = None

    def _read(self, decision: Decision) -> str:
        if sys.stdin.isatty() and sys.stdout.isatty():
            from prompt_toolkit import PromptSession
            from prompt_toolkit.completion import FuzzyWordCompleter

            if self._session is None:
                self._session = PromptSession()
            session: PromptSession[str] = self._session  # type: ignore[assignment]
            completer = FuzzyWordCompleter(list(decision.labels))
            return session.prompt(f"{decision.kind}> ", completer=completer)
        self.out(f"{decision.kind}> ")
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    def decide(self, decision: Decision) -> int:
        self.out(self.board())
        self.out(f"\n{decision.prompt}")
        self._list(decision, short=True)
        while True:
            try:
                text = self._read(decision)
            except KeyboardInterrupt:
                raise SystemExit("game left: interrupted") from None
            if text.strip() in ("?", "help"):
                self._list(decision, short=False)
                continue
            index = choose(decision, text)
            if index is not None:
                return index
            self.out(f"not a legal choice: {text.strip()!r} (type ? for the list, Tab to complete)")

    def _list(self, decision: Decision, short: bool) -> None:
        labels = decision.labels
        if short and len(labels) > 12:
            shown = ", ".join(labels[:10])
            self.out(f"  {len(labels)} options, e.g. {shown}, ... (? lists all, Tab completes)")
            return
        for i, label in enumerate(labels, start=1):
            self.out(f"  #{i:<3} {label}")

"""The decision panel's model: the legal options, what the person typed, the highlighted one.

Theory of operation: the options come from the rules engine (nothing illegal can be chosen).
Typing filters them: the option the line names as the line mode reads it (``cli.tui.choose``:
``0 2`` for a team, ``1`` or ``spy`` for a guess, ``#3``) comes first, then every option whose
label contains the typed text. Arrows move the highlight among those shown; Enter takes the
highlighted one (the first by default). A line meant as an option that is not a legal one says
why (``cli.tui.Hint``).
"""

from __future__ import annotations

from spycraft.cli.tui import Hint, choose
from spycraft.engines.agent import Decision


class Choices:
    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.text = ""
        self.cursor = 0  # index into ``matches()``
        self._cache: tuple[str, list[int], str] | None = None

    def type(self, text: str) -> None:
        """The filter line is now ``text`` (the highlight goes back to the first match)."""
        if text != self.text:
            self.text = text
            self.cursor = 0

    def _compute(self) -> tuple[list[int], str]:
        if self._cache is not None and self._cache[0] == self.text:
            return self._cache[1], self._cache[2]
        labels = self.decision.labels
        key = " ".join(self.text.lower().split())
        hint = ""
        if not key:
            found = list(range(len(labels)))
        else:
            found = []
            try:
                named = choose(self.decision, self.text)
            except Hint as exc:
                named, hint = None, str(exc)
            if named is not None:
                found.append(named)
            found += [i for i, label in enumerate(labels)
                      if key in " ".join(label.lower().split()) and i != named]
            if not found and not hint:
                hint = f"no option matches {self.text.strip()!r}"
        self._cache = (self.text, found, hint)
        return found, hint

    def matches(self) -> list[int]:
        """The option indices shown, in order."""
        return self._compute()[0]

    def hint(self) -> str:
        """Why the typed line names no option, or ""."""
        return self._compute()[1]

    def move(self, delta: int) -> None:
        count = len(self.matches())
        if count:
            self.cursor = max(0, min(count - 1, self.cursor + delta))

    def highlighted(self) -> int | None:
        """The option Enter takes now, or None when nothing matches."""
        found = self.matches()
        if not found:
            return None
        return found[min(self.cursor, len(found) - 1)]

    def label(self) -> str | None:
        index = self.highlighted()
        return self.decision.labels[index] if index is not None else None

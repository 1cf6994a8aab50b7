"""The errors a game's rules raise, shared by every game.

Theory of operation: a game's model is pure rulebook code over public state; it sees choices
and cards, never records, so it cannot name who broke a rule. It raises one of these
``Unattributed`` errors, and the kit (``engines.game.Rules.apply``) attributes it to the
record's seat and seq in one line, as the ``RecordError`` named by ``record_error``:

* ``Illegal``: a choice the rules never allow (``IllegalAction``): the record is rejected;
* ``Violation``: an opened secret that proves a hidden move illegal (``RuleViolation``),
  cheating shown at a reveal.

A bad value from a peer that is not even of the right form is ``crypto.errors.MalformedValue``;
a body that does not fit its schema never reaches the rules (``engines.schema``).
"""

from __future__ import annotations

from spycraft.crypto.errors import IllegalAction, RuleViolation, Unattributed


class Illegal(Unattributed):
    """A choice the rules never allow: the record is rejected."""

    record_error = IllegalAction


class Violation(Unattributed):
    """A hidden move that an opening proves illegal."""

    record_error = RuleViolation

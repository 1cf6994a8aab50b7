"""SpyNet's rule errors: raised by pure rule functions that do not know who broke the rule.

Theory of operation
-------------------
The data and rule math of this package see card ids, counts and choices, never records, so they
cannot name a seat or a seq. Each error here is an ``Unattributed`` whose ``attribute(seat,
seq)`` gives the ``RecordError`` the table reports, as in the other games (a choice the rules
never allow is the kit's ``engines.errors.Illegal``, as in every game):

* ``UnknownCard``: an id that is no card of §2.3 (``MalformedRecord``);
* ``UnknownSituation``: a ``situation`` option that is not ``off``, ``random`` or ``S01`` …
  ``S08``. It is also a ``ValueError``, which is how the table and the command line are told
  that a genesis option or a command-line option is wrong.
"""

from __future__ import annotations

from spycraft.crypto.errors import MalformedValue


class UnknownCard(MalformedValue):
    """An id that names no card of §2.3."""

    def __init__(self, card_id: object) -> None:
        self.card_id = card_id
        super().__init__(f"no SpyNet card has the id {card_id!r}")


class UnknownSituation(MalformedValue, ValueError):
    """A ``situation`` option other than ``off``, ``random`` and ``S01`` … ``S08``."""

    def __init__(self, option: object) -> None:
        self.option = option
        super().__init__(f"situation must be off, random or one of S01 … S08, not {option!r}")

"""``spycraft`` as another release would run it: the same program speaking another protocol
version (``CHAOS_PROTOCOL_VERSION``), for the version tests and the version faults of
``benchmarks/chaos.py``: ``python tests/chaos/other_version.py ARGS`` is ``spycraft ARGS``.

Every module reads ``spycraft.PROTOCOL_VERSION`` when it is imported, so setting it before the
first import of the command line gives a whole program of that version: its ads, hellos, frames
and genesis say so, and it checks theirs against it.
"""

from __future__ import annotations

import os
import sys

import spycraft

spycraft.PROTOCOL_VERSION = int(os.environ["CHAOS_PROTOCOL_VERSION"])

from spycraft.cli.main import main  # after the version is set

if __name__ == "__main__":
    sys.exit(main())

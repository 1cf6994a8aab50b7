"""What a command has to say before the game is said inside the full-screen table, where the
person sees it, not printed underneath just before the screen covers it (issue 19.7)."""

from __future__ import annotations

import re

import pytest

from spycraft.p2p.discovery import DiscoveryError, default_interface
from tests.cli.person import Person

pytestmark = pytest.mark.network  # a real process at a real pseudo-terminal

ALT_SCREEN_ON, ALT_SCREEN_OFF = "\x1b[?1049h", "\x1b[?1049l"


def _no_lan() -> bool:
    try:
        return default_interface().warning
    except DiscoveryError:
        return False


@pytest.mark.skipif(not _no_lan(), reason="this machine has a LAN interface: nothing to warn")
def test_the_no_lan_interface_notice_is_shown_inside_the_table(tmp_path):
    person = Person(["watch", "--wait", "2"], tmp_path / "me", terminal=True, term="xterm")
    try:
        assert person.finish(30) == 1
    finally:
        person.kill()
    raw = person.output()
    start, end = raw.find(ALT_SCREEN_ON), raw.rfind(ALT_SCREEN_OFF)
    assert 0 <= start < end, raw[-2000:]
    notice = "no LAN interface is up"
    assert notice not in raw[:start]  # not printed before the screen covers it
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw[start:end])
    assert notice in drawn  # drawn in the table's history
    after = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw[end:])
    assert "no table in play found" in after and "Traceback" not in raw

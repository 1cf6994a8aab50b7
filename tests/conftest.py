"""Suite-wide collection rules.

Tests that open real tables (marker ``network``) or lab hosts (``netns``) run one after another
on a single worker when the suite runs in parallel (``-n``, ``--dist loadgroup``): two of them
at once would see each other's tables over mDNS, and the lab's namespace names would clash.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("network") or item.get_closest_marker("netns"):
            item.add_marker(pytest.mark.xdist_group("lan"))

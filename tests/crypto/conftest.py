"""Shared fixtures for the hidden-information toolkit tests: a small table of seats with keys."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from toolkit_table import Table, ctx, make_table

from spycraft.crypto.entropy import SeededEntropy


@pytest.fixture
def table3() -> Table:
    return make_table(3)


@pytest.fixture
def table5() -> Table:
    return make_table(5)


@pytest.fixture
def entropy() -> SeededEntropy:
    return SeededEntropy(b"tests/crypto")


@pytest.fixture
def context() -> Callable[..., bytes]:
    """``context(seat, seq, what="")``: the proof context of a record."""
    return ctx

"""Secrets for real play come from the operating system's CSPRNG, and only from there."""

from __future__ import annotations

import os


class SystemEntropy:
    """``Entropy`` backed by ``os.urandom``. Labels only keep the interface; every byte is fresh."""

    def take(self, n: int) -> bytes:
        return os.urandom(n)

    def child(self, label: str) -> SystemEntropy:
        return self

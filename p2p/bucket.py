"""A token bucket: how much a peer may still send of something (resends, table talk).

``burst`` tokens at most, refilled at ``rate`` a second of the clock the caller passes in (the
protocol is sans-IO: time is an argument). ``take`` spends ``amount`` if the bucket holds it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Bucket:
    burst: float
    rate: float
    tokens: float
    at: float

    @classmethod
    def full(cls, burst: float, rate: float, now: float) -> Bucket:
        return cls(burst, rate, burst, now)

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)
        self.at = now

    def take(self, now: float, amount: float = 1.0) -> bool:
        """Spend ``amount`` tokens if the bucket holds them (after refilling to ``now``)."""
        self.refill(now)
        if self.tokens < amount:
            return False
        self.tokens -= amount
        return True

"""Slack's per-channel posting pace: about one message a second, short bursts allowed.

Over it Slack answers 429 and the post waits for `Retry-After` anyway; pacing first keeps a
burst of answers (a busy channel, a restart catching up) from being refused at all. A token
bucket per channel: `burst` posts at once, then one every 1/`per_second` s. Callers reserve
their slot before sleeping, so concurrent answers to one channel queue in order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

# Slack allows bursts a little over this; a burst one post smaller leaves room for network jitter
PER_SECOND, BURST = 1.0, 2


@dataclass
class _Bucket:
    tokens: float
    at: float


class Pacer:
    def __init__(
        self,
        per_second: float = PER_SECOND,
        burst: int = BURST,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.per_second, self.burst, self.clock, self.sleep = per_second, burst, clock, sleep
        self._buckets: dict[str, _Bucket] = {}

    def reserve(self, channel: str) -> float:
        """Take the channel's next slot; the seconds to wait before using it."""
        now = self.clock()
        bucket = self._buckets.setdefault(channel, _Bucket(float(self.burst), now))
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
        bucket.at = now
        bucket.tokens -= 1
        return 0.0 if bucket.tokens >= 0 else -bucket.tokens / self.per_second

    async def wait(self, channel: str) -> float:
        """Sleep until `channel` may take one more post; the seconds slept."""
        delay = self.reserve(channel)
        if delay > 0:
            await self.sleep(delay)
        return delay

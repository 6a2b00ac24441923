"""Re-rendering one of errfix's answers after a vote: coalesced, paced, retried, never an error.

A vote is stored (and the click acknowledged) before anything here runs, so what happens to the
`chat.update` must never reach the user: a failure is logged and retried with a growing delay,
and given up at once when the message is gone (`message_not_found` and the like). Renders of one
answer are coalesced: while one runs, later requests only mark the answer dirty, and the runner
renders again (reading the counts when it starts, so the latest state wins and no vote is lost),
at most once per `interval` seconds per answer. Clock and sleep are injected for tests.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable

import aiohttp
from slack_sdk.errors import SlackApiError

GONE = frozenset({"message_not_found", "cant_update_message", "edit_window_closed", "channel_not_found"})
Render = Callable[[], Awaitable[object]]


class Updates:
    """One runner per answer key; see the module docstring."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        interval: float = 1.0,
        retry_delay: float = 1.0,
        attempts: int = 4,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.logger, self.interval, self.retry_delay, self.attempts = logger, interval, retry_delay, attempts
        self.clock, self.sleep = clock, sleep
        self._running: set[str] = set()
        self._dirty: set[str] = set()
        self._last: dict[str, float] = {}  # answer key -> when its last update was sent

    async def refresh(self, key: str, render: Render) -> None:
        """Bring the answer `key` up to date with `render()`; returns at once if another call is
        already doing it (that one renders again for this request)."""
        self._dirty.add(key)
        if key in self._running:
            return
        self._running.add(key)
        try:
            while key in self._dirty:
                wait = self._last.get(key, -math.inf) + self.interval - self.clock()
                if wait > 0:
                    await self.sleep(wait)
                self._dirty.discard(key)  # requests made while waiting are in this render
                await self._send(key, render)
                self._last[key] = self.clock()
        finally:
            self._running.discard(key)
            self._forget_old()

    async def _send(self, key: str, render: Render) -> None:
        for attempt in range(1, self.attempts + 1):
            try:
                await render()
                return
            except SlackApiError as e:
                code = str(e.response.get("error") if e.response is not None else "") or "unknown"
                if code in GONE:
                    self.logger.info("errfix: answer %s can't be updated (%s); leaving it", key, code)
                    return
                failure = code
            except (aiohttp.ClientError, TimeoutError) as e:
                failure = type(e).__name__
            if attempt == self.attempts:
                self.logger.error("errfix: updating answer %s failed %d times (%s); giving up", key, attempt, failure)
                return
            delay = self.retry_delay * 2 ** (attempt - 1)
            self.logger.warning("errfix: updating answer %s failed (%s); retrying in %.0fs", key, failure, delay)
            await self.sleep(delay)

    def _forget_old(self) -> None:
        horizon = self.clock() - self.interval
        for key in [k for k, at in self._last.items() if at <= horizon and k not in self._running]:
            del self._last[key]

"""The fake Slack on its own event loop in a daemon thread, for synchronous code (slack-sdk's
`WebClient`, benchmarks, click commands): every call hops onto the fake's loop and waits."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from bot.fakeslack.web_api import JSON, Call, FakeSlack

T = TypeVar("T")


class FakeSlackThread:
    """FakeSlack on its own event loop in a daemon thread, for synchronous code:
    `with FakeSlackThread() as slack:` then `slack.base_url`, `slack.fake.calls()`."""

    def __init__(self, fake: FakeSlack | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.fake = fake or FakeSlack()
        self._address = (host, port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FakeSlackThread:
        self._thread.start()
        self.run(self.fake.start(*self._address))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.run(self.fake.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    @property
    def base_url(self) -> str:
        return self.fake.base_url

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 10) -> T:
        """Run a coroutine on the fake's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def wait_for(self, method: str, predicate: Callable[[Call], bool] | None = None, timeout: float = 5) -> Call:
        return self.run(self.fake.wait_for(method, predicate, timeout), timeout + 1)

    def push(self, envelope_type: str, payload: JSON, **options: Any) -> str:
        return self.run(self.fake.push(envelope_type, payload, **options))

    def wait_ack(self, envelope_id: str, timeout: float = 5) -> JSON:
        return self.run(self.fake.wait_ack(envelope_id, timeout), timeout + 1)

    def wait_connected(self, count: int = 1, timeout: float = 5) -> None:
        self.run(self.fake.wait_connected(count, timeout), timeout + 1)

    def drop_connections(self, *, graceful: bool = False) -> int:
        return self.run(self.fake.drop_connections(graceful=graceful))

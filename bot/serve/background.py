"""One loop of `errfix serve` running beside the app (sync, retention purge, weekly digests).

`in_background` starts the loop when the block is entered and cancels it when the block ends. A bug
that ends a loop is logged at once, not when the server stops, and that loop stays stopped until
errfix restarts; the others go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine
from functools import partial
from typing import Any


@contextlib.asynccontextmanager
async def in_background(loop: Coroutine[Any, Any, None], *, name: str, log: logging.Logger) -> AsyncIterator[None]:
    """Run `loop` as task `name` inside the block; a crash is logged on `log`."""
    task = asyncio.create_task(loop, name=name)
    task.add_done_callback(partial(_report_crash, log))
    try:
        yield
    finally:
        task.cancel()
        await asyncio.wait([task])


def _report_crash(log: logging.Logger, task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("%s stopped by an unexpected error; restart errfix", task.get_name(), exc_info=error)

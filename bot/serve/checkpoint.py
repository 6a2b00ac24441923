"""The write-ahead log's checkpoints, taken off the writes' path while `errfix serve` runs.

SQLite copies its write-ahead log into the database when a commit takes it past 1,000 pages, and
that commit waits for the copy (about 5 ms; remembering a paste writes some ten pages, so one paste
in a hundred paid it: the p99). `checkpoint_forever` turns that off for the server's store and
copies the log every `interval` seconds instead, on the store's thread, where it queues with the
writes like any other. A copy the database refuses is logged and tried again next time; a bug ends
the loop with a logged error (restart errfix: until then the log only grows).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable

from bot.serve.background import in_background
from bot.service.async_errfix import AsyncErrfix

CHECKPOINT_INTERVAL = 5.0  # seconds between copies: the log holds a few seconds of writes
log = logging.getLogger("errfix.checkpoint")

Sleep = Callable[[float], Awaitable[None]]


async def checkpoint_forever(
    errfix: AsyncErrfix, *, interval: float = CHECKPOINT_INTERVAL, sleep: Sleep = asyncio.sleep
) -> None:
    """Defer the store's checkpoints, then copy the log every `interval` seconds, until cancelled."""
    pages = await errfix.defer_checkpoints()
    log.info(
        "the write-ahead log is copied every %.0fs, off the writes' path (commits copy at %d pages)", interval, pages
    )
    while True:
        await sleep(interval)
        try:
            frames, copied = await errfix.checkpoint()
        except sqlite3.OperationalError as e:
            log.warning("checkpoint failed (next try in %.0fs): %s", interval, e)
            continue
        log.debug("checkpoint: %d of %d log frames copied", copied, frames)


@contextlib.asynccontextmanager
async def checkpointing(errfix: AsyncErrfix) -> AsyncIterator[None]:
    """Run `checkpoint_forever` in the background inside the block."""
    async with in_background(checkpoint_forever(errfix), name="errfix-checkpoint", log=log):
        yield

"""The retention purge, hourly while `errfix serve` runs (ERRFIX_RETENTION_DAYS; 0 turns it off).

`purge_step` is one purge at the time its clock says, on the store's thread (one transaction that
queues with the answers like any write). `purge_forever` runs a step at start, then one every
`interval` seconds; its clock and its sleep are parameters, so tests drive it without waiting. A
step the database refuses (locked for longer than the busy timeout) is logged and tried again at
the next hour; a bug ends the loop with a logged error, as the resync loop does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime

from bot.serve.background import in_background
from bot.service.async_errfix import AsyncErrfix
from bot.service.errfix import Erased

PURGE_INTERVAL = 3600.0  # seconds between purges: rows live at most an hour past their retention
log = logging.getLogger("errfix.retention")

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]


def utc_now() -> datetime:
    return datetime.now(UTC)


async def purge_step(errfix: AsyncErrfix, days: int, clock: Clock = utc_now, memory_days: int = 0) -> Erased | None:
    """One purge of what is older than `days` (remembered errors: `memory_days`) at `clock()`;
    None (and a warning) if the store refused."""
    try:
        erased = await errfix.purge_expired(clock(), days, memory_days)
    except sqlite3.OperationalError as e:
        log.warning("retention purge failed (rolled back; next try in an hour): %s", e)
        return None
    if erased.total:
        log.info("retention purge (%d days): %s", days, ", ".join(f"{t} {n}" for t, n in erased.counts.items()))
    return erased


async def purge_forever(
    errfix: AsyncErrfix,
    days: int,
    *,
    interval: float = PURGE_INTERVAL,
    clock: Clock = utc_now,
    sleep: Sleep = asyncio.sleep,
    memory_days: int = 0,
) -> None:
    """Purge now, then every `interval` seconds, until cancelled."""
    while True:
        await purge_step(errfix, days, clock, memory_days)
        await sleep(interval)


@contextlib.asynccontextmanager
async def purging(errfix: AsyncErrfix, days: int, memory_days: int = 0) -> AsyncIterator[None]:
    """Run `purge_forever` in the background inside the block (nothing when both are 0)."""
    if days == 0 and memory_days == 0:
        log.info("retention off (ERRFIX_RETENTION_DAYS=0): pastes and rejections are kept until erased")
        yield
        return
    purge = purge_forever(errfix, days, memory_days=memory_days)
    async with in_background(purge, name="errfix-retention", log=log):
        yield

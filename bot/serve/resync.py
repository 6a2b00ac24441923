"""Re-sync ERRFIX_SYNC_URL every ERRFIX_SYNC_INTERVAL seconds while `errfix serve` runs.

The fetch is async and validation runs on a thread, so answers go on meanwhile; only the final
write (one transaction, on the store's worker) queues with them, and the new index is built in
the background. A failed sync is logged and counted, the store is left as it was, and the
next one is tried at the next interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator

from bot.errors import InvalidRecords
from bot.ops.sync import SyncError, SyncReport, display_url, sync_once
from bot.serve.background import in_background
from bot.service.async_errfix import AsyncErrfix
from bot.telemetry.metrics import Metrics

log = logging.getLogger("errfix.sync")


async def sync_and_report(errfix: AsyncErrfix, url: str, timeout: float, metrics: Metrics) -> SyncReport | None:
    """One sync; logs and counts the outcome. None when it failed (nothing was written)."""
    try:
        report = await sync_once(url, errfix, timeout=timeout)
    except InvalidRecords as e:
        metrics.sync("invalid")
        shown = "; ".join(e.problems[:5]) + (f"; … {len(e.problems) - 5} more" if len(e.problems) > 5 else "")
        log.warning("sync refused: %s (%s)", e, shown, extra={"url": display_url(url)})
        return None
    except SyncError as e:
        metrics.sync("failed")
        log.warning("sync failed: %s", e, extra={"url": display_url(url)})
        return None
    except sqlite3.OperationalError as e:  # e.g. locked by another writer for longer than the busy timeout
        metrics.sync("failed")
        log.error("sync failed writing the store (rolled back): %s", e, extra={"url": display_url(url)})
        return None
    metrics.sync(report.status, time.time())
    for warning in report.warnings[:20]:
        log.info("sync: %s", warning)
    log.info("sync: %s", report.line())
    return report


async def resync_forever(errfix: AsyncErrfix, url: str, interval: float, timeout: float, metrics: Metrics) -> None:
    """Sync now, then every `interval` seconds, until cancelled."""
    while True:
        await sync_and_report(errfix, url, timeout, metrics)
        await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def resyncing(
    errfix: AsyncErrfix, url: str | None, interval: float, timeout: float, metrics: Metrics
) -> AsyncIterator[None]:
    """Run `resync_forever` in the background inside the block (nothing when `url` is None)."""
    if not url:
        yield
        return
    async with in_background(resync_forever(errfix, url, interval, timeout, metrics), name="errfix-resync", log=log):
        yield

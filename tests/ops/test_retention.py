"""The retention timer `errfix serve` runs (bot/serve/retention.py), driven by an injected clock and
sleep: a purge at start and then one an hour apart, each cutting at the clock's time; 0 days runs
no timer at all."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio

from bot.serve.retention import purge_forever, purge_step, purging
from bot.service.async_errfix import AsyncErrfix
from bot.store.store import Store
from tests.ops.conftest import wait_until

PASTED = datetime(2020, 11, 1, 9, 0, 0, tzinfo=UTC)  # the paste's created_at
DAYS = 30


class Stop(Exception):
    """Ends the timer loop from the fake sleep, after the steps a test wants."""


@pytest_asyncio.fixture
async def errfix(tmp_path: Path) -> AsyncIterator[AsyncErrfix]:
    db = tmp_path / "retention.db"
    store = Store(db)
    store.db.execute(
        "INSERT INTO pastes (channel, ts, line, created_at, user_id) VALUES ('C1', '1.1', 'ValueError: x', ?, 'U1')",
        [PASTED.strftime("%Y-%m-%dT%H:%M:%SZ")],
    )
    store.db.conn.commit()
    store.close()
    svc = AsyncErrfix(str(db), seed=False)
    yield svc
    svc.close()


def _pastes(errfix: AsyncErrfix, db: Path) -> int:
    store = Store(db)
    try:
        return int(store.db.execute("SELECT count(*) FROM pastes").fetchone()[0])
    finally:
        store.close()


async def test_the_timer_purges_at_start_then_every_hour_at_the_clocks_time(
    errfix: AsyncErrfix, tmp_path: Path
) -> None:
    now = [PASTED + timedelta(days=DAYS)]  # exactly 30 days old: kept
    slept: list[float] = []
    counts: list[int] = []

    async def sleep(seconds: float) -> None:
        counts.append(_pastes(errfix, tmp_path / "retention.db"))
        slept.append(seconds)
        if len(slept) == 3:
            raise Stop
        now[0] += timedelta(seconds=seconds)

    with pytest.raises(Stop):
        await purge_forever(errfix, DAYS, clock=lambda: now[0], sleep=sleep)
    assert slept == [3600, 3600, 3600]
    assert counts == [1, 0, 0]  # kept at 30 days, gone an hour later
    entries = await errfix.audit()
    assert [(e.action, e.detail["pastes"]) for e in entries] == [("retention-purge", 1)]


async def test_one_step_cuts_at_the_time_it_is_given(errfix: AsyncErrfix) -> None:
    kept = await purge_step(errfix, DAYS, lambda: PASTED + timedelta(days=DAYS, seconds=-1))
    assert kept is not None and kept.total == 0
    gone = await purge_step(errfix, DAYS, lambda: PASTED + timedelta(days=DAYS, seconds=1))
    assert gone is not None and gone.counts["pastes"] == 1


async def test_serve_runs_the_timer_only_when_retention_is_on(errfix: AsyncErrfix) -> None:
    def timers() -> list[asyncio.Task[object]]:
        return [t for t in asyncio.all_tasks() if t.get_name() == "errfix-retention"]

    async with purging(errfix, 0):
        assert timers() == []
    async with purging(errfix, DAYS):
        assert len(timers()) == 1

        async def purged() -> bool:  # the real clock: the 2020 paste is long past 30 days
            return bool(await errfix.audit())

        await wait_until(purged, "the purge at start")
    assert timers() == []  # stopped with the block

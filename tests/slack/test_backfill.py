"""`errfix remember` (#36): a channel's history into team memory, resumable, counted once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from slack_sdk.errors import SlackApiError

from bot.fakeslack.web_api import FakeSlack
from bot.slack.backfill import Backfill
from tests.slack.conftest import ALICE, BOB, CHANNEL, Bot, slack_escape

NOW = 1_700_000_000.0 + 86_400  # a day after the fake workspace's first message

ERRORS = [f"Traceback (most recent call last):\nQuarryLockError: shard 'orders{k}' held by pid 4" for k in range(2)]
ERRORS.append("W0309 21:19:18.193471    4766 quarry.go:726] shard 'orders2' lock held too long")  # a logged warning


def history(fake: FakeSlack) -> str:
    """Three errors (the second solved in its thread by a reply marked ✅) and chat; the solving thread's root ts."""
    solved = ""
    for k, text in enumerate(ERRORS):
        paste = fake.add_message(CHANNEL, slack_escape(text), ALICE)
        fake.add_message(CHANNEL, "lunch?", BOB)
        if k == 1:
            fix = fake.add_message(CHANNEL, "kill the stale quarry daemon, then rerun", BOB, thread_ts=paste["ts"])
            fake.react(CHANNEL, fix["ts"], "white_check_mark", ALICE)
            solved = paste["ts"]
    return solved


def rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


async def test_history_is_remembered_once_and_an_interrupted_run_goes_on_where_it_stopped(
    bot: Bot, fake: FakeSlack, db_file: Path
) -> None:
    solved = history(fake)
    lines: list[str] = []
    backfill = Backfill(bot.errfix, bot.app.client, pace=0, page=2, clock=lambda: NOW, progress=lines.append)
    first = await backfill.run(CHANNEL, 90)
    assert (first.messages, first.remembered, first.threads, first.solved) == (6, 3, 1, 1)
    assert len(lines) == 3 and lines[-1] == f"{CHANNEL}: 6 messages read, 3 errors remembered, 1 threads read, 1 solved"
    assert rows(db_file, "SELECT thread_ts, kind, excerpt FROM memory_resolutions") == [
        (solved, "check", "kill the stale quarry daemon, then rerun")
    ]
    again = await backfill.run(CHANNEL, 90)
    assert again.remembered == 0 and rows(db_file, "SELECT count(*), sum(replies) FROM memory") == [(3, 1)]


async def test_a_run_stopped_by_slack_resumes_from_its_last_page(bot: Bot, fake: FakeSlack, db_file: Path) -> None:
    history(fake)
    pages: list[str] = []

    def after_a_page(line: str) -> None:  # Slack refuses the call after the first page
        pages.append(line)
        if len(pages) == 1:
            fake.error_next("conversations.history", "invalid_auth")

    stopped = Backfill(bot.errfix, bot.app.client, pace=0, page=2, clock=lambda: NOW, progress=after_a_page)
    with pytest.raises(SlackApiError, match="invalid_auth"):
        await stopped.run(CHANNEL, 90)
    assert (await bot.errfix.backfill_state(CHANNEL))["cursor"].startswith("next_ts:")
    resumed = await Backfill(
        bot.errfix, bot.app.client, pace=0, page=2, clock=lambda: NOW, progress=lambda _: None
    ).run(CHANNEL, 90)
    assert resumed.messages == 4  # the first page is not read again
    assert rows(db_file, "SELECT count(*) FROM memory") == [(3,)] and await bot.errfix.backfill_state(CHANNEL) == {}

"""`kill -9` at the weekly digest's minute (#38): a real `errfix serve --http` whose digest reached
Slack but whose answer never came back; after the restart the channel still has exactly one digest.
The schedule is set to the current minute (ERRFIX_DIGEST_AT), the channel asked an hour before."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest_asyncio

from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User
from bot.store import open_store
from bot.store.channels import Channels
from tests.ops.conftest import wait_healthy, wait_until
from tests.procs import clean_env, errfix_command, free_port
from tests.slack.conftest import ALICE, SECRET

CHANNEL = "C_DIGEST"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(channels=(CHANNEL,), users=[User(ALICE, "alice")])
    await slack.start()
    yield slack
    slack.release()
    await slack.stop()


async def start(tmp_path: Path, fake: FakeSlack, n: int, at: str) -> asyncio.subprocess.Process:
    port = free_port()
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(tmp_path / "errfix.db"),
        ERRFIX_DIGEST_AT=at,
    )
    log = tmp_path / f"serve{n}.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *errfix_command(), "serve", "--http", "--host", "127.0.0.1", "--port", str(port),
            cwd=tmp_path, env=env, stdout=out, stderr=out,
        )  # fmt: skip
    await wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, log)
    return proc


def digests(fake: FakeSlack) -> list[str]:
    return [m["ts"] for m in fake.messages(CHANNEL) if (m.get("metadata") or {}).get("event_type") == "errfix_digest"]


def posted_ts(db: Path) -> list[str | None]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT ts FROM digests WHERE channel = ?", [CHANNEL])]


async def test_the_weekly_digest_is_posted_once_across_a_kill_9_at_its_minute(tmp_path: Path, fake: FakeSlack) -> None:
    now = datetime.now(UTC)
    at = now.strftime("%a %H:%M")  # this minute is the slot
    store = open_store(str(tmp_path / "errfix.db"))
    try:
        Channels(store).set_weekly(CHANNEL, True, actor=ALICE, now=now - timedelta(hours=1))
    finally:
        store.close()
    fake.hold("chat.postMessage", carry_out=True)  # the digest reaches Slack; errfix never hears back
    first = await start(tmp_path, fake, 1, at)

    async def in_slack() -> bool:
        return len(digests(fake)) == 1

    await wait_until(in_slack, "the first process to post the digest")
    first.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.wait(), 30) == -signal.SIGKILL
    fake.release()
    assert posted_ts(tmp_path / "errfix.db") == [None]  # claimed, never heard back

    second = await start(tmp_path, fake, 2, at)
    try:

        async def settled() -> bool:
            return posted_ts(tmp_path / "errfix.db") == digests(fake)

        await wait_until(settled, "the second process to find the digest in the channel")
        assert len(digests(fake)) == 1
    finally:
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), 60)

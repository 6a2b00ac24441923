"""`kill -9` with pastes in flight: every acknowledged paste is answered exactly once after the
restart (#14.1). A real `errfix serve --http` process against the fake Slack, whose
chat.postMessage stalls: the first pastes' answers are in Slack but errfix never heard back,
the later ones never reached Slack. Then SIGKILL, and a second process on the same database."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest_asyncio

from bot.fakeslack.events import event_body, sign, slack_escape
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User
from bot.store.store import Store
from tests.ops.conftest import wait_healthy, wait_until
from tests.procs import clean_env, errfix_command, free_port
from tests.slack.conftest import ALICE, PASTE, SECRET, message_event

CHANNELS = ("C_K1", "C_K2", "C_K3")
STORED, LOST = 3, 6  # answers in Slack but unheard-of, answers never made: both owed at the kill


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(channels=CHANNELS, users=[User(ALICE, "alice")])
    await slack.start()
    yield slack
    slack.release()
    await slack.stop()


async def start(tmp_path: Path, fake: FakeSlack, n: int) -> tuple[asyncio.subprocess.Process, int]:
    port = free_port()
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(tmp_path / "errfix.db"),
        ERRFIX_MAX_REPLIES_PER_MINUTE="30",
    )
    log = tmp_path / f"serve{n}.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *errfix_command(), "serve", "--http", "--host", "127.0.0.1", "--port", str(port),
            cwd=tmp_path, env=env, stdout=out, stderr=out,
        )  # fmt: skip
    await wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, log)
    return proc, port


async def paste(fake: FakeSlack, port: int, channel: str, n: int) -> dict[str, Any]:
    message = fake.add_message(channel, slack_escape(PASTE.replace("1000", str(1000 + n))), ALICE)
    body = json.dumps(event_body(message_event(message), f"Ev_KILL_{n}"))
    headers = {"Content-Type": "application/json", **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers) as resp,
    ):
        assert resp.status == 200  # acknowledged
    return message


def owed(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "errfix.db-events") as conn:
        return int(conn.execute("SELECT count(*) FROM jobs").fetchone()[0])


async def test_every_acknowledged_paste_is_answered_once_after_kill_9(tmp_path: Path, fake: FakeSlack) -> None:
    first, port = await start(tmp_path, fake, 1)
    pastes: list[dict[str, Any]] = []
    fake.hold("chat.postMessage", carry_out=True)
    for n in range(STORED):
        pastes.append(await paste(fake, port, CHANNELS[n % len(CHANNELS)], n))
    await wait_until(lambda: _at_least(fake, STORED), "the first answers stalled in Slack")
    fake.hold("chat.postMessage", carry_out=False)
    for n in range(STORED, STORED + LOST):
        pastes.append(await paste(fake, port, CHANNELS[n % len(CHANNELS)], n))
    await wait_until(lambda: _at_least(fake, STORED + LOST), "the later answers stalled before Slack")
    assert owed(tmp_path) == STORED + LOST

    first.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(first.wait(), 30) == -signal.SIGKILL
    fake.release()  # the stalled calls end; those never carried out are not (their caller is gone)
    assert sum(len(_answers(fake, m)) for m in pastes) == STORED

    second, _ = await start(tmp_path, fake, 2)
    try:

        async def all_done() -> bool:
            return owed(tmp_path) == 0

        await wait_until(all_done, "the second process to finish what the first owed")
        assert [len(_answers(fake, m)) for m in pastes] == [1] * (STORED + LOST)
        store = Store(tmp_path / "errfix.db")
        try:  # every answer is remembered, so votes on it count, the first ones included
            assert all(store.reply(m["channel"], _answers(fake, m)[0]["ts"]) is not None for m in pastes)
        finally:
            store.close()
    finally:
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), 60)


async def _at_least(fake: FakeSlack, n: int) -> bool:
    return fake.held >= n


def _answers(fake: FakeSlack, message: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in fake.messages(message["channel"], message["ts"]) if m.get("bot_id")]

"""`errfix serve` as an operator runs it: a real process on 127.0.0.1 against the fake Slack, with
GET /metrics, JSON logs, re-sync from an upstream, and SIGTERM that lets in-flight events finish."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest_asyncio

from bot.config import Settings
from bot.fakeslack.events import sign
from bot.fakeslack.web_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from bot.serve.resync import resyncing
from bot.serve.run import serve_errfix
from bot.service.async_errfix import AsyncErrfix
from bot.store.store import Store
from bot.telemetry.metrics import Metrics
from tests.ops.conftest import (
    ALICE,
    Upstream,
    get_text,
    metric,
    upstream_records,
    wait_healthy,
    wait_until,
)
from tests.procs import clean_env, errfix_command, free_port
from tests.slack.conftest import CHANNEL, PASTE, RECORD, SECRET, event_body, message_event, slack_escape


class Served:
    """One `errfix serve` process and how to talk to it."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def paste(self, fake: FakeSlack, text: str = PASTE) -> dict[str, Any]:
        message = fake.add_message(CHANNEL, slack_escape(text), ALICE)
        body = json.dumps(event_body(message_event(message)))
        headers = {"Content-Type": "application/json", **sign(SECRET, body)}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url("/slack/events"), data=body, headers=headers) as resp,
        ):
            assert resp.status == 200
        return message

    async def metrics(self) -> str:
        status, text = await get_text(self.url("/metrics"))
        assert status == 200
        return text

    async def stop(self) -> int:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.proc.wait(), 60)


@pytest_asyncio.fixture
async def serve(tmp_path: Path, fake: FakeSlack) -> AsyncIterator[Any]:
    started: list[Served] = []

    async def start(*args: str, **env: str) -> Served:
        port = free_port()
        log = tmp_path / f"serve{len(started)}.log"
        environ = clean_env(
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            ERRFIX_SLACK_API_URL=fake.base_url,
            **{"ERRFIX_DB": str(tmp_path / "errfix.db"), **env},
        )
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                *errfix_command(),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *args,
                cwd=tmp_path,
                env=environ,
                stdout=out,
                stderr=out,
            )
        served = Served(proc, port, log)
        started.append(served)
        await wait_healthy(served.url("/healthz"), proc, log)
        return served

    yield start
    for served in started:
        await served.stop()


async def test_metrics_json_logs_and_resync_of_a_running_server(
    serve: Any, fake: FakeSlack, upstream: Upstream, tmp_path: Path
) -> None:
    upstream.serve_records(upstream_records())
    served = await serve("--http", ERRFIX_SYNC_URL=upstream.url(), ERRFIX_SYNC_INTERVAL="1", ERRFIX_LOG_FORMAT="json")

    async def synced() -> bool:
        return metric(await served.metrics(), 'errfix_sync_runs_total{result="updated"}') >= 1

    await wait_until(synced, "the first sync")
    store = Store(tmp_path / "errfix.db")
    assert store.has("up/one")
    store.close()
    await wait_until(lambda: _is_conditional(upstream), "a conditional re-sync")

    message = await served.paste(fake)
    await fake.wait_for("chat.postMessage", lambda c: c.ok and c.params.get("thread_ts") == message["ts"], timeout=30)

    async def counted() -> str | None:
        text = await served.metrics()
        return text if metric(text, "errfix_replies_posted_total") >= 1 else None

    text = await wait_until(counted, "the reply in /metrics")
    assert metric(text, 'errfix_messages_seen_total{kind="message"}') == 1
    assert metric(text, "errfix_errors_detected_total") == 1
    assert metric(text, "errfix_match_seconds_count") == 1
    assert metric(text, 'errfix_slack_api_calls_total{method="auth.test"}') >= 1
    assert metric(text, "errfix_store_records") > 100
    assert metric(text, 'errfix_sync_runs_total{result="not_modified"}') >= 1

    assert await served.stop() == 0
    lines = [json.loads(line) for line in served.log.read_text().splitlines()]
    answered = next(ln for ln in lines if ln["msg"] == "answered")
    assert answered["channel"] == CHANNEL and answered["event_id"].startswith("Ev") and answered["record"] == RECORD
    assert any("3 added" in ln["msg"] for ln in lines)
    assert any(ln["msg"].endswith("off the writes' path (commits copy at 0 pages)") for ln in lines)
    raw = served.log.read_text()
    assert BOT_TOKEN not in raw and SECRET not in raw and "Loss is NaN" not in raw


async def _is_conditional(upstream: Upstream) -> bool:
    return any("If-None-Match" in r for r in upstream.requests)


async def test_sigterm_lets_an_event_in_flight_finish(serve: Any, fake: FakeSlack) -> None:
    served = await serve("--http")
    fake.fail_next("chat.postMessage", 429, retry_after=2)  # the answer is still being sent when SIGTERM comes
    message = await served.paste(fake)
    await fake.wait_for("chat.postMessage", lambda c: c.status == 429, timeout=30)
    served.proc.send_signal(signal.SIGTERM)
    call = await fake.wait_for("chat.postMessage", lambda c: c.ok, timeout=30)
    assert call.params["thread_ts"] == message["ts"]
    assert await asyncio.wait_for(served.proc.wait(), 60) == 0
    assert "Traceback" not in served.log.read_text()


async def test_sigterm_waits_no_longer_than_the_shutdown_timeout(serve: Any, fake: FakeSlack) -> None:
    served = await serve("--http", ERRFIX_SHUTDOWN_TIMEOUT="1")
    fake.fail_next("chat.postMessage", 429, retry_after=120)
    await served.paste(fake)
    await fake.wait_for("chat.postMessage", lambda c: c.status == 429, timeout=30)
    assert await served.stop() == 0  # well before the retry would have been sent
    assert fake.attempts("chat.postMessage") == 1
    assert "still being handled after 1s" in served.log.read_text()


async def test_socket_mode_serves_health_and_metrics_on_the_given_port(serve: Any, fake: FakeSlack) -> None:
    served = await serve(SLACK_APP_TOKEN=APP_TOKEN)
    await fake.wait_connected(1, timeout=30)
    assert "errfix_messages_seen" in await served.metrics()
    status, _ = await get_text(served.url("/slack/events"))
    assert status == 404  # no Events API in Socket Mode


async def test_answers_go_on_while_a_sync_waits_for_upstream(upstream: Upstream, db: Path) -> None:
    metrics = Metrics(db)
    errfix = serve_errfix(Settings(bot_token=BOT_TOKEN, signing_secret=SECRET, db_path=str(db)), metrics)
    upstream.serve_records(upstream_records())
    upstream.hold = asyncio.Event()  # the upstream takes its time
    try:
        async with resyncing(errfix, upstream.url(), 3600, 30, metrics):
            await wait_until(lambda: _asked(upstream), "the sync to reach upstream")
            diagnosis = await errfix.diagnose(PASTE)  # answered while the fetch is pending
            assert diagnosis.reply and diagnosis.matches[0].id == RECORD
            assert await errfix.view("up/one") is None
            upstream.hold.set()
            await wait_until(lambda: _has(errfix, "up/one"), "the sync to be written")

            async def indexed() -> bool:  # the new index is built in the background
                found = await errfix.diagnose("UpOneError: the first upstream error")
                return bool(found.matches) and found.matches[0].id == "up/one"

            await wait_until(indexed, "the synced record to be matched")
    finally:
        errfix.close()


async def _has(errfix: AsyncErrfix, record_id: str) -> bool:
    return await errfix.view(record_id) is not None


async def _asked(upstream: Upstream) -> bool:
    return bool(upstream.requests)


async def test_serve_finds_the_database_in_dotenv_and_a_flag_wins(serve: Any, tmp_path: Path) -> None:
    """ERRFIX_DB from .env in the working directory, when the environment has none; --db over both."""
    (tmp_path / ".env").write_text(f"ERRFIX_DB={tmp_path / 'dotenv.db'}\n", encoding="utf-8")
    served = await serve(ERRFIX_DB="")  # empty counts as unset
    assert (tmp_path / "dotenv.db").exists() and not (tmp_path / "errfix.db").exists()
    assert await served.stop() == 0
    await serve("--db", str(tmp_path / "flag.db"))
    assert (tmp_path / "flag.db").exists() and not (tmp_path / "errfix.db").exists()

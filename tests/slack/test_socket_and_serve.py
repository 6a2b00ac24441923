"""Socket Mode through bolt's socket-mode handler (the fake's websocket), and `errfix serve` for real."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.fakeslack.events import sign
from bot.fakeslack.web_api import APP_TOKEN, BOT_TOKEN, TEAM_ID, FakeSlack
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import build_app, socket_handler
from bot.slack.deps import Activity
from tests.procs import clean_env, errfix_command, free_port
from tests.slack.conftest import (
    ALICE,
    CHANNEL,
    PASTE,
    RECORD,
    SECRET,
    event_body,
    message_event,
    settings_for,
    slack_escape,
)


@pytest_asyncio.fixture
async def socket_bot(fake: FakeSlack, db_file: Path) -> AsyncIterator[tuple[Any, Activity]]:
    settings = settings_for(fake, db_file, app_token=APP_TOKEN, signing_secret="")
    errfix = AsyncErrfix(settings.db_path)
    activity = Activity()
    handler = socket_handler(build_app(settings, errfix, activity=activity), settings, ping_interval=0.2)
    await handler.connect_async()
    yield handler, activity
    await handler.close_async()
    await activity.idle()
    errfix.close()


@pytest.mark.parametrize("graceful", [False, True], ids=["dropped", "refresh-requested"])
async def test_socket_mode_uses_the_same_listeners_and_reconnects(
    fake: FakeSlack, socket_bot: tuple[Any, Activity], graceful: bool
) -> None:
    _, activity = socket_bot
    await fake.wait_connected(1)
    assert fake.calls("apps.connections.open")[0].headers["Authorization"] == f"Bearer {APP_TOKEN}"

    message = fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    body = event_body(message_event(message), "EvS1")
    envelope = await fake.push("events_api", body)
    assert (await fake.wait_ack(envelope))["envelope_id"] == envelope
    call = await fake.wait_for("chat.postMessage")
    assert call.params["thread_ts"] == message["ts"]

    retried = await fake.push("events_api", body, retry_attempt=1, retry_reason="timeout")
    await fake.wait_ack(retried)  # a retry is acked, not answered again

    command = {
        "command": "/errfix",
        "text": RECORD,
        "user_id": ALICE,
        "channel_id": CHANNEL,
        "team_id": TEAM_ID,
        "response_url": fake.response_url_for("s1", channel=CHANNEL, user=ALICE),
        "trigger_id": "t",
    }
    await fake.wait_ack(await fake.push("slash_commands", command))
    await fake.wait_for("response_url")

    await fake.drop_connections(graceful=graceful)  # the connection dies (or Slack asks for a new one)
    await fake.wait_connected(2, timeout=20)
    again = fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    await fake.wait_ack(await fake.push("events_api", event_body(message_event(again))))
    await fake.wait_for("chat.postMessage", lambda c: c.params.get("thread_ts") == again["ts"])
    await activity.idle()
    assert len(fake.calls("chat.postMessage")) == 2
    assert fake.ephemerals and RECORD in json.dumps(fake.ephemerals[-1])


# ---- `errfix serve` as a real process ---------------------------------------------------------


async def wait_healthy(url: str, proc: asyncio.subprocess.Process, log: Path) -> None:
    deadline = time.monotonic() + 60
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if proc.returncode is not None:
                pytest.fail(f"errfix serve exited with {proc.returncode}:\n{log.read_text()}")
            try:
                async with session.get(url) as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.1)
    pytest.fail(f"errfix serve did not become healthy:\n{log.read_text()}")


async def test_errfix_serve_http_answers_a_signed_message_in_its_thread(fake: FakeSlack, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(tmp_path / "errfix.db"),
    )
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *errfix_command(),
            "serve",
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=out,
        )
    try:
        await wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, log)
        message = fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
        body = json.dumps(event_body(message_event(message)))
        headers = {"Content-Type": "application/json", **sign(SECRET, body)}
        url = f"http://127.0.0.1:{port}/slack/events"
        async with aiohttp.ClientSession() as session, session.post(url, data=body, headers=headers) as resp:
            assert resp.status == 200
        call = await fake.wait_for("chat.postMessage", timeout=30)
        assert call.ok and call.params["thread_ts"] == message["ts"] and call.params["channel"] == CHANNEL
        assert RECORD in json.dumps(call.params)
    finally:
        if proc.returncode is None:
            proc.terminate()
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, log.read_text()  # SIGTERM is a clean shutdown
    assert "Traceback" not in log.read_text()


async def test_errfix_serve_with_a_missing_setting_says_which_in_one_line(tmp_path: Path) -> None:
    env = clean_env(SLACK_SIGNING_SECRET=SECRET)
    proc = await asyncio.create_subprocess_exec(
        *errfix_command(),
        "serve",
        "--http",
        "--port",
        str(free_port()),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "SLACK_BOT_TOKEN" in lines[0] and "Traceback" not in err.decode()


async def test_errfix_serve_uses_socket_mode_when_the_app_token_is_set(fake: FakeSlack, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN=APP_TOKEN,
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(tmp_path / "errfix.db"),
    )
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *errfix_command(), "serve", cwd=tmp_path, env=env, stdout=out, stderr=out
        )
    try:
        await fake.wait_connected(1, timeout=60)
        message = fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
        await fake.wait_ack(await fake.push("events_api", event_body(message_event(message))), timeout=30)
        call = await fake.wait_for("chat.postMessage", timeout=30)
        assert call.params["thread_ts"] == message["ts"]
    finally:
        if proc.returncode is None:
            proc.terminate()
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, log.read_text()
    assert "Traceback" not in log.read_text()


async def test_errfix_serve_says_so_when_slack_refuses_the_app_token(fake: FakeSlack, tmp_path: Path) -> None:
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN="xapp-wrong",
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(tmp_path / "errfix.db"),
    )
    proc = await asyncio.create_subprocess_exec(
        *errfix_command(),
        "serve",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert "SLACK_APP_TOKEN" in err.decode().strip().splitlines()[-1] and "Traceback" not in err.decode()

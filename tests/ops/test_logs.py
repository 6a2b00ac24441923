"""Structured logs: JSON lines or readable text with channel and event id; never a token, the signing
secret or the pasted text (unless ERRFIX_LOG_PASTES=1). The app runs for real over HTTP on 127.0.0.1
against the strict fake Slack; the log is captured from the handler `errfix serve` installs."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest_asyncio
from aiohttp.test_utils import TestServer

from bot.config import Settings
from bot.fakeslack.events import sign
from bot.fakeslack.web_api import FakeSlack, User
from bot.serve.http import web_app
from bot.serve.run import serve_errfix
from bot.slack.app import build_app
from bot.slack.deps import Activity
from bot.telemetry import logs
from bot.telemetry.metrics import Metrics
from tests.ops.conftest import ALICE, metric
from tests.slack.conftest import CHANNEL, PASTE, RECORD, event_body, message_event, slack_escape

TOKEN = "xoxb-1111-2222-NotForLogs0123456789"
SECRET = "signing-secret-not-for-logs-42"
ERROR_LINE = "RuntimeError: Loss is NaN or Inf at step 1000"


class App:
    """errfix as `errfix serve --http` builds it, in this process, with its log captured."""

    def __init__(self, fake: FakeSlack, db: Path, stream: io.StringIO, **settings: Any) -> None:
        self.fake, self.stream = fake, stream
        self.settings = Settings(
            bot_token=TOKEN, signing_secret=SECRET, db_path=str(db), slack_api_url=fake.base_url, **settings
        )
        logs.configure(
            fmt=self.settings.log_format,
            secrets=self.settings.secrets,
            log_pastes=self.settings.log_pastes,
            stream=stream,
        )
        self.metrics = Metrics(db)
        self.errfix = serve_errfix(self.settings, self.metrics)
        self.activity = Activity()
        app = build_app(self.settings, self.errfix, activity=self.activity, metrics=self.metrics)
        self.server = TestServer(
            web_app(app, self.errfix, signing_secret=SECRET, metrics=self.metrics), host="127.0.0.1"
        )

    async def paste(self, text: str = PASTE, event_id: str = "EvPaste1") -> dict[str, Any]:
        message = self.fake.add_message(CHANNEL, slack_escape(text), ALICE)
        body = json.dumps(event_body(message_event(message), event_id))
        headers = {"Content-Type": "application/json", **sign(SECRET, body)}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url("/slack/events"), data=body, headers=headers) as resp,
        ):
            assert resp.status == 200
        await self.fake.wait_for("chat.postMessage", lambda c: c.params.get("thread_ts") == message["ts"])
        await self.activity.idle()
        return message

    def url(self, path: str) -> str:
        return str(self.server.make_url(path))

    async def metrics_text(self) -> str:
        async with aiohttp.ClientSession() as session, session.get(self.url("/metrics")) as resp:
            assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/plain")
            return await resp.text()


@pytest_asyncio.fixture
async def make_app(fake_with_token: FakeSlack, db: Path, log_stream: io.StringIO) -> AsyncIterator[Callable[..., Any]]:
    apps: list[App] = []

    async def make(**settings: Any) -> App:
        app = App(fake_with_token, db, log_stream, **settings)
        await app.server.start_server()
        apps.append(app)
        return app

    yield make
    for app in apps:
        await app.activity.idle()
        await app.server.close()
        app.errfix.close()


@pytest_asyncio.fixture
async def fake_with_token() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(token=TOKEN, users=[User(ALICE, "alice")])
    await slack.start()
    yield slack
    await slack.stop()


async def _answer_and_fail_once(app: App) -> str:
    """A paste answered, then one whose answer Slack refuses (the error handler logs a traceback)."""
    await app.paste()
    app.fake.error_next("chat.postMessage", "invalid_blocks")
    await app.paste(PASTE.replace("1000", "2000"), "EvPaste2")
    return app.stream.getvalue()


async def test_json_logs_carry_channel_and_event_and_no_secret_or_paste(make_app: Callable[..., Any]) -> None:
    app = await make_app(log_format="json")
    out = await _answer_and_fail_once(app)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(lines) == len([ln for ln in out.splitlines() if ln.strip()]), out  # one JSON object per line
    decisions = [ln for ln in lines if ln["msg"] == "answered"]
    assert decisions and decisions[0]["channel"] == CHANNEL and decisions[0]["event_id"] == "EvPaste1"
    assert decisions[0]["record"] == RECORD and 0 < decisions[0]["score"] <= 1
    failure = next(ln for ln in lines if ln["level"] == "error")
    assert failure["event_id"] == "EvPaste2" and "SlackApiError" in failure["exc"]
    for secret in (TOKEN, SECRET, ERROR_LINE, "Loss is NaN or Inf at step 2000"):
        assert secret not in out


async def test_text_logs_are_readable_and_pastes_appear_only_when_asked(make_app: Callable[..., Any]) -> None:
    app = await make_app(log_format="text")
    await app.paste()
    out = app.stream.getvalue()
    assert f"INFO errfix.serve [{CHANNEL} EvPaste1] answered record={RECORD}" in out
    assert ERROR_LINE not in out and TOKEN not in out

    shown = await make_app(log_format="text", log_pastes=True)
    await shown.paste(PASTE.replace("1000", "3000"), "EvPaste3")
    assert "Loss is NaN or Inf at step 3000" in shown.stream.getvalue()
    assert TOKEN not in shown.stream.getvalue()


async def test_metrics_count_messages_errors_replies_and_slack_errors(make_app: Callable[..., Any]) -> None:
    app = await make_app()
    await _answer_and_fail_once(app)
    text = await app.metrics_text()
    assert metric(text, 'errfix_messages_seen_total{kind="message"}') == 2
    assert metric(text, "errfix_errors_detected_total") == 2
    assert metric(text, "errfix_replies_posted_total") == 1
    assert metric(text, 'errfix_slack_api_errors_total{code="invalid_blocks",method="chat.postMessage"}') == 1
    assert metric(text, "errfix_match_seconds_count") == 2
    assert metric(text, "errfix_store_records") > 100 and metric(text, "errfix_store_bytes") > 0
    assert metric(text, "errfix_events_in_flight") == 0


def test_the_redactor_removes_tokens_secrets_and_pastes() -> None:
    redact = logs.Redactor([TOKEN, SECRET])
    line = f"auth {TOKEN} with {SECRET}, app token xapp-1-A0-123-abc, user xoxp-9-9"
    assert redact(line) == "auth [redacted] with [redacted], app token xapp-[redacted], user xoxp-[redacted]"
    paste = 'Traceback (most recent call last):\n  File "x.py"\nValueError: something private broke'
    assert "private" not in redact(f"got {json.dumps(paste)} and {paste!r}", paste)
    assert "private" in logs.Redactor([], log_pastes=True)(paste, paste)


def test_configure_replaces_the_root_handlers(log_stream: io.StringIO) -> None:
    logs.configure(fmt="json", stream=log_stream)
    logs.configure(fmt="json", stream=log_stream)
    logging.getLogger("errfix.test").info("once", extra={"n": 1})
    [line] = log_stream.getvalue().splitlines()
    assert json.loads(line)["n"] == 1


def test_lines_outside_a_request_have_no_event_fields(log_stream: io.StringIO) -> None:
    logs.configure(fmt="json", stream=log_stream)
    logging.getLogger("errfix.test").warning("plain")
    line = json.loads(log_stream.getvalue())
    assert line["msg"] == "plain" and "channel" not in line and "event_id" not in line


# ---- secrets the paste detector finds (#18): in every line, even when pastes are logged ------------------

KEY_ID = "AKIA" + "R7QX2M4P9T3W8Z5N"  # shaped like an AWS access key id, built here, not a real one
PG_PASSWORD = "Wq8z" + "Lp3vRt6n"


def test_a_likely_secret_is_redacted_in_any_line_even_when_pastes_are_logged() -> None:
    shown = logs.Redactor([], log_pastes=True)
    paste = f"psycopg2.OperationalError: could not connect to postgres://app:{PG_PASSWORD}@db/pay (key {KEY_ID})"
    line = shown(f"message text={paste}", paste)
    assert KEY_ID not in line and PG_PASSWORD not in line
    assert "postgres://app:[redacted:url-password]@db/pay" in line and "[redacted:aws-access-key]" in line
    # a secret outside the paste context (a snippet's content, an exception's message) goes too
    assert KEY_ID not in logs.Redactor([])(f"ValueError: bad key {KEY_ID}")


def test_json_lines_redact_quoted_secrets_before_escaping_them(log_stream: io.StringIO) -> None:
    logs.configure(fmt="json", log_pastes=True, stream=log_stream)
    logging.getLogger("errfix.test").info("message", extra={"text": f'connect(password="{PG_PASSWORD}")'})
    line = json.loads(log_stream.getvalue())
    assert PG_PASSWORD not in log_stream.getvalue()
    assert line["text"] == 'connect(password="[redacted:password]")'


def test_a_paste_with_a_secret_is_still_kept_out_of_json_lines_whole(log_stream: io.StringIO) -> None:
    logs.configure(fmt="json", stream=log_stream)
    paste = f"RuntimeError: upload failed for key {KEY_ID} in eu-west-1 while saving the checkpoint"
    logs.bind_event("C1", "Ev1", paste)
    try:
        logging.getLogger("errfix.test").error("failed on %s", paste)
    finally:
        logs.bind_event()
    out = log_stream.getvalue()
    assert json.loads(out)["msg"] == f"failed on {logs.PASTE_REDACTED}"
    assert "checkpoint" not in out and KEY_ID not in out


async def test_a_logged_paste_is_redacted_before_any_handler_sees_it(make_app: Callable[..., Any]) -> None:
    app = await make_app(log_format="text", log_pastes=True)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("errfix.slack").addHandler(handler)  # another handler: no errfix formatter on it
    try:
        await app.paste(PASTE + f"\nwhile uploading with key {KEY_ID}", "EvPaste4")
    finally:
        logging.getLogger("errfix.slack").removeHandler(handler)
    [seen] = [r for r in records if r.getMessage() == "message"]
    text = vars(seen)["text"]
    assert "Loss is NaN" in text and KEY_ID not in text and "[redacted:aws-access-key]" in text
    assert KEY_ID not in app.stream.getvalue()

"""Garbage and forged requests (#14.4, #14.5), over HTTP against the real bolt app: 401 when not
signed by Slack, 400 when signed but not the shape Slack sends; one short WARNING line each,
never a traceback, never the body (a forged request's pasted text included)."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time

import pytest

from bot.fakeslack.events import sign
from tests.slack.conftest import SECRET, Bot

PASTED = "RuntimeError: private-paste-7731 leaked"
JSON, FORM = "application/json", "application/x-www-form-urlencoded"
GARBAGE = [("[1]", JSON), ("{", JSON), ("null", JSON), ("payload=%7Bx", FORM)]


def problems(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def assert_quiet(caplog: pytest.LogCaptureFixture, requests: int, *bodies: str) -> None:
    """One WARNING per request, nothing worse, no traceback, no body in any record."""
    found = problems(caplog)
    assert [r.levelno for r in found] == [logging.WARNING] * requests, [r.getMessage() for r in found]
    assert all(r.exc_info is None for r in caplog.records)
    everything = "\n".join(r.getMessage() for r in caplog.records)
    for body in bodies:
        assert body not in everything
    assert all(len(r.getMessage()) < 200 for r in found)


@pytest.mark.parametrize(("body", "content_type"), GARBAGE, ids=["list", "brace", "null", "bad-payload"])
async def test_unsigned_garbage_gets_401(
    bot: Bot, caplog: pytest.LogCaptureFixture, body: str, content_type: str
) -> None:
    caplog.set_level(logging.DEBUG)
    status, _ = await bot.post_raw(body, content_type)
    assert status == 401
    assert_quiet(caplog, 1, body)


@pytest.mark.parametrize(("body", "content_type"), GARBAGE, ids=["list", "brace", "null", "bad-payload"])
async def test_signed_garbage_gets_400(
    bot: Bot, caplog: pytest.LogCaptureFixture, body: str, content_type: str
) -> None:
    caplog.set_level(logging.DEBUG)
    status, _ = await bot.post_signed(body, content_type)
    assert status == 400
    assert_quiet(caplog, 1, body)


@pytest.mark.parametrize("stamp", ["abc", "", "１２３", "an-hour-ago"], ids=["letters", "empty", "fullwidth", "stale"])
async def test_a_bad_timestamp_gets_401(bot: Bot, caplog: pytest.LogCaptureFixture, stamp: str) -> None:
    """The stale stamp is computed here, not at collection: xdist workers must collect the same ids."""
    caplog.set_level(logging.DEBUG)
    if stamp == "an-hour-ago":
        stamp = str(int(time.time()) - 3600)
    body = json.dumps({"type": "event_callback", "event": {"type": "message", "text": PASTED}})
    headers = {**sign(SECRET, body), "X-Slack-Request-Timestamp": stamp}
    status, _ = await bot.post_raw(body, JSON, headers)
    assert status == 401
    assert_quiet(caplog, 1, PASTED)


async def test_a_forged_paste_is_refused_and_never_logged(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    body = json.dumps({"type": "event_callback", "event": {"type": "message", "text": PASTED}})
    for headers in (sign("not-the-secret", body), {}, sign(SECRET, body.replace("7731", "7732"))):
        status, _ = await bot.post_raw(body, JSON, headers)
        assert status == 401
    assert_quiet(caplog, 3, PASTED, "private-paste")
    assert bot.fake.calls("chat.postMessage") == []


async def test_two_thousand_garbage_requests_cost_two_thousand_short_lines(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for k in range(500):
        for body, content_type in GARBAGE:
            status, _ = await bot.post_raw(body, content_type)
            assert status == 401, k
    found = problems(caplog)
    assert len(found) == 2000
    assert sum(len(r.getMessage()) for r in found) < 2000 * 80  # 3.5 MB of tracebacks before


async def test_a_signed_good_request_still_gets_through(bot: Bot) -> None:
    body = json.dumps({"type": "url_verification", "challenge": "c-123", "token": "t"})
    status, text = await bot.post_signed(body, JSON)
    assert status == 200 and "c-123" in text


def sign_bytes(body: bytes) -> dict[str, str]:
    """Slack's signature over raw bytes (the fake's helper signs text)."""
    stamp = str(int(time.time()))
    mac = hmac.new(SECRET.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={mac}"}


async def test_binary_bodies_get_401_unsigned_and_400_signed(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    binary = bytes(range(256)) * 8  # not UTF-8
    assert bot.session is not None
    for headers, expected in (({}, 401), (sign_bytes(binary), 400)):
        hdrs = {"Content-Type": JSON, **headers}
        async with bot.session.post(bot.url, data=binary, headers=hdrs) as resp:
            assert resp.status == expected
    assert_quiet(caplog, 2)


async def test_an_oversized_body_gets_413(bot: Bot) -> None:
    body = json.dumps({"type": "event_callback", "blob": "x" * 3_000_000})
    status, _ = await bot.post_signed(body, JSON)
    assert status == 413

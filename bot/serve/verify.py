"""Slack's request signature, checked on the raw bytes before anything parses the body.

bolt parses a request's body before its own signature check runs, so an unsigned `[1]`, `{` or
`payload=%7Bx` used to end in a 500 with a traceback, and a forged request was logged whole (the
pasted text included) by bolt's RequestVerification. This aiohttp middleware sits in front of
POST /slack/events: a missing, stale or wrong signature gets 401, a signed body that is not the
shape Slack sends gets 400, each with one short WARNING line that never contains the body. Only
what passes reaches bolt (whose own check then always agrees).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import parse_qs

from aiohttp import web

MAX_AGE = 60 * 5  # seconds: Slack's replay window for X-Slack-Request-Timestamp
log = logging.getLogger("errfix.serve")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def refusal(body: bytes, headers: Mapping[str, str], secret: str, now: float) -> str | None:
    """Why a request is not from Slack (401), or None when its signature and timestamp hold."""
    stamp = headers.get("X-Slack-Request-Timestamp", "")
    signature = headers.get("X-Slack-Signature", "")
    if not stamp or not signature:
        return "unsigned"
    if not stamp.isascii() or not stamp.isdigit():
        return "timestamp is not a number"
    if abs(now - int(stamp)) > MAX_AGE:
        return "stale timestamp"
    # over the raw bytes (slack-sdk's verifier decodes them first, and raises on non-UTF-8)
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "wrong signature"
    return None


def malformed(body: bytes, content_type: str) -> str | None:
    """Why a signed body is not the shape Slack sends (400), or None.

    Slack sends a JSON object (events), or a form (commands), whose `payload`, when there is one
    (interactions), is a JSON object.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "body is not UTF-8"
    if content_type == "application/json":
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return "body is not JSON"
        return None if isinstance(value, dict) else "body is not a JSON object"
    if content_type != "application/x-www-form-urlencoded":
        return "unexpected content type"
    form = parse_qs(text, keep_blank_values=True)
    if "payload" in form:
        try:
            payload = json.loads(form["payload"][0])
        except (ValueError, RecursionError):
            return "payload is not JSON"
        if not isinstance(payload, dict):
            return "payload is not a JSON object"
    elif not form:
        return "empty form"
    return None


def verify_slack(
    path: str, secret: str, clock: Callable[[], float] = time.time
) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware for POST `path`; every other route passes through untouched."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.path != path:
            return await handler(request)
        body = await request.read()  # cached by aiohttp: bolt's adapter reads the same bytes
        why = refusal(body, request.headers, secret, clock())
        if why is not None:
            log.warning("refused a request to %s: %s (%d bytes)", path, why, len(body))
            return web.Response(status=401, text="unauthorized")
        bad = malformed(body, request.content_type)
        if bad is not None:
            log.warning("refused a signed request to %s: %s (%d bytes)", path, bad, len(body))
            return web.Response(status=400, text="bad request")
        return await handler(request)

    return middleware

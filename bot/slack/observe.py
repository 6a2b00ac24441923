"""What the Slack adapter tells the operator: metrics and log context, added by `build_app`.

* `MeteredWebClient`: every Web API call counted by method, failures by method and Slack's error
  code (or `connection` / `timeout`); a successful chat.postMessage is a reply posted.
* `AppRateLimited` middleware: Slack's unasked `app_rate_limited` notice is answered 200 (no
  listener takes it; bolt would answer 404), logged as a warning and counted.
* `ObserveEvents` middleware: sets the log context (channel, event id, and the paste so the log
  redactor can keep it out), counts the messages errfix handles, and the unprompted answers the
  per-channel limit holds back. It runs after dedupe, so a retried event is counted once.

bolt gives each request a fresh plain `AsyncWebClient` (a copy of `app.client`'s settings), so
the middleware swaps it for a metered copy; bolt runs listeners after the whole middleware chain,
in the request's own task, which is also why the log context is set there and not reset.
"""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.core.redact import redact_text
from bot.slack.answers import paste_text
from bot.slack.middleware import MESSAGE_EVENTS, Next, RateLimiter, event_of
from bot.telemetry.logs import bind_event
from bot.telemetry.metrics import Metrics

log = logging.getLogger("errfix.slack")


class MeteredWebClient(AsyncWebClient):
    """AsyncWebClient that reports each call's outcome to `metrics` (retries are inside one call)."""

    def __init__(self, *, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metrics = metrics

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:
        try:
            response = await super().api_call(api_method, **kwargs)
        except SlackApiError as e:
            code = e.response.get("error") if e.response is not None else None
            self.metrics.slack_call(api_method, str(code or f"http_{getattr(e.response, 'status_code', '?')}"))
            raise
        except TimeoutError:
            self.metrics.slack_call(api_method, "timeout")
            raise
        except aiohttp.ClientError:
            self.metrics.slack_call(api_method, "connection")
            raise
        self.metrics.slack_call(api_method, None)
        return response

    @classmethod
    def copy_of(cls, client: AsyncWebClient, metrics: Metrics) -> MeteredWebClient:
        """The same client (token, URL, session, retry handlers, team), metered."""
        return cls(
            metrics=metrics,
            token=client.token,
            base_url=client.base_url,
            timeout=client.timeout,
            ssl=client.ssl,
            proxy=client.proxy,
            session=client.session,
            trust_env_in_session=client.trust_env_in_session,
            headers=dict(client.headers),
            team_id=client.default_params.get("team_id"),
            logger=client.logger,
            retry_handlers=list(client.retry_handlers),
        )


def _where(body: dict[str, Any]) -> tuple[str, str]:
    """(channel, event id) of any Slack request: event, slash command or interaction."""
    event = event_of(body)
    item = event.get("item")
    item = item if isinstance(item, dict) else {}
    channel = event.get("channel") or item.get("channel") or body.get("channel_id")
    if not channel and isinstance(body.get("channel"), dict):
        channel = body["channel"].get("id")
    event_id = body.get("event_id") or body.get("trigger_id") or ""
    return str(channel or ""), str(event_id)


class AppRateLimited(AsyncMiddleware):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        if req.body.get("type") != "app_rate_limited":
            await next()
            return resp
        self.metrics.events_dropped_by_slack()
        minute = req.body.get("minute_rate_limited")
        log.warning("Slack is dropping errfix's events (app_rate_limited, minute %s): over 30,000 an hour", minute)
        return BoltResponse(status=200, body="")


class ObserveEvents(AsyncMiddleware):
    def __init__(self, metrics: Metrics, limiter: RateLimiter, *, log_pastes: bool = False) -> None:
        self.metrics, self.limiter, self.log_pastes = metrics, limiter, log_pastes

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        body = req.body
        event = event_of(body)
        channel, event_id = _where(body)
        is_message = event.get("type") in MESSAGE_EVENTS
        paste = paste_text(event)[0] if is_message else str(body.get("text") or "")
        bind_event(channel, event_id, paste)
        client = req.context.client
        if client is not None and not isinstance(client, MeteredWebClient):
            req.context["client"] = MeteredWebClient.copy_of(client, self.metrics)
        if is_message:
            self._count(event, channel, paste)
        await next()
        return resp

    def _count(self, event: dict[str, Any], channel: str, paste: str) -> None:
        direct = event.get("channel_type") in ("im", "mpim")  # group DMs are answered like DMs
        kind = "mention" if event.get("type") == "app_mention" else "dm" if direct else "message"
        self.metrics.message_seen(kind)
        extra: dict[str, Any] = {"kind": kind, "chars": len(paste)}
        if self.log_pastes:
            extra["text"] = redact_text(paste)  # asked for, but never its secrets (#18)
        log.info("message", extra=extra)
        if kind == "message" and self.limiter.full(channel):
            self.metrics.rate_limited()
            log.info("kept quiet: this channel's unprompted answers per minute are used up")

"""The bolt app: one `AsyncApp` with errfix's middleware and listeners, served over HTTP or Socket Mode.

    errfix = AsyncErrfix(settings.db_path)
    app = build_app(settings, errfix)
    socket_handler(app, settings)   # AsyncSocketModeHandler (xapp- token)

Serving it over HTTP with the operator's routes is `bot.serve.http.web_app`: the adapter does not
import the process that runs it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import aiohttp
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import ConfigError, Settings
from bot.service.async_errfix import AsyncErrfix
from bot.slack import listeners
from bot.slack.deps import Activity, Deps, Jobs, Outbox, Users
from bot.slack.middleware import Dedupe, IgnoreNoise, RateLimiter, UnpromptedLimit
from bot.slack.observe import AppRateLimited, MeteredWebClient, ObserveEvents
from bot.slack.pacing import Pacer
from bot.slack.respond import RetryResponses
from bot.slack.snippets import FileReader
from bot.slack.updates import Updates
from bot.telemetry.metrics import Metrics

EVENTS_PATH = "/slack/events"
REFUSED_TOKEN = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type"}
)
log = logging.getLogger("errfix.slack")


class NotPosts(AsyncRetryHandler):
    """`inner`'s retries, except for chat.postMessage: after a dropped connection or a 5xx the
    message may be in Slack already, and a blind retry posts it twice. `Outbox.post` retries
    those itself, after looking for the post in the thread."""

    def __init__(self, inner: AsyncRetryHandler) -> None:
        super().__init__(inner.max_retry_count, inner.interval_calculator)
        self.inner = inner

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if request.url.rstrip("/").endswith("/chat.postMessage"):
            return False
        return await self.inner._can_retry_async(state=state, request=request, response=response, error=error)


def make_client(
    settings: Settings, metrics: Metrics | None = None, session: aiohttp.ClientSession | None = None
) -> AsyncWebClient:
    """A Web API client on `settings.slack_api_url` that retries 429 (Retry-After) and 5xx,
    and counts its calls and errors in `metrics` when given.

    With `session` every call (bolt's per-request clients share it) reuses its connections;
    without one, slack-sdk opens a new session, and connection, per call.
    """
    options: dict[str, Any] = dict(
        token=settings.bot_token,
        base_url=settings.slack_api_url,
        session=session,
        retry_handlers=[
            NotPosts(AsyncConnectionErrorRetryHandler(max_retry_count=2)),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            NotPosts(AsyncServerErrorRetryHandler(max_retry_count=2)),
        ],
    )
    return AsyncWebClient(**options) if metrics is None else MeteredWebClient(metrics=metrics, **options)


def build_app(
    settings: Settings,
    errfix: AsyncErrfix,
    client: AsyncWebClient | None = None,
    *,
    activity: Activity | None = None,
    clock: Callable[[], float] = time.monotonic,
    metrics: Metrics | None = None,
    pacer: Pacer | None = None,
    updates: Updates | None = None,
    jobs: Jobs | None = None,
    now: Callable[[], datetime] | None = None,
) -> AsyncApp:
    """The app with its middleware (noise, dedupe, observe, rate limit) and listeners.

    `activity` (optional) lets a caller wait until no listener is running (graceful shutdown);
    `clock` drives the per-channel rate limit and the users.info cache; `metrics` collects what
    GET /metrics shows; `pacer` paces posts per channel (Slack's ~1/s; its own clock and sleep);
    `updates` re-renders answers after votes (coalesced, paced, retried; its own clock and sleep);
    `jobs` finishes the work owed for acknowledged events (give the same one to a `Replayer`);
    `now` is the wall clock of `/errfix digest` (the week a digest covers).
    """
    metrics = metrics or Metrics()
    app = AsyncApp(
        client=client or make_client(settings, metrics),
        signing_secret=settings.signing_secret,
        logger=log,
        # bolt's own "ignore self events" stays on; ours drops other bots and subtypes
    )
    deps = Deps(
        settings=settings,
        errfix=errfix,
        logger=log,
        limiter=RateLimiter(settings.max_replies_per_minute, clock),
        outbox=Outbox(log, pacer or Pacer()),
        users=Users(log, clock=clock),
        files=FileReader(log),
        activity=activity or Activity(),
        updates=updates or Updates(log),
        jobs=jobs or Jobs(errfix),
    )
    if now is not None:
        deps.now = now
    metrics.track_in_flight(lambda: deps.activity.running)
    app.use(AppRateLimited(metrics))
    app.use(RetryResponses(app.client.retry_handlers))
    app.use(IgnoreNoise())
    app.use(Dedupe(errfix))
    app.use(ObserveEvents(metrics, deps.limiter, log_pastes=settings.log_pastes))
    app.use(UnpromptedLimit(deps.limiter, deps.jobs.finish))
    listeners.register(app, deps)

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        """The one place listener errors end up: logged with what Slack sent, never re-raised."""
        kind = body.get("type") or body.get("command") or "request"
        event = (body.get("event") or {}).get("type", "") if isinstance(body.get("event"), dict) else ""
        log.error("errfix: %s while handling %s %s", type(error).__name__, kind, event, exc_info=error)

    return app


async def check_tokens(app: AsyncApp, settings: Settings, *, socket_mode: bool) -> None:
    """Fail at start-up, in one line, when Slack refuses a token or cannot be reached.

    slack-sdk's Socket Mode client would otherwise retry a refused app token forever.
    """
    name = "SLACK_BOT_TOKEN"
    try:
        await app.client.auth_test()
        if socket_mode and settings.app_token:
            name = "SLACK_APP_TOKEN"
            await app.client.apps_connections_open(app_token=settings.app_token)
    except SlackApiError as e:
        code = e.response.get("error")
        if code in REFUSED_TOKEN:
            raise ConfigError(f"Slack refused {name} ({code})") from None
        raise
    except aiohttp.ClientError as e:
        raise ConfigError(f"cannot reach Slack at ERRFIX_SLACK_API_URL={settings.slack_api_url} ({e})") from None


def socket_handler(app: AsyncApp, settings: Settings, *, ping_interval: float = 10) -> AsyncSocketModeHandler:
    """Socket Mode over the app's client (so ERRFIX_SLACK_API_URL applies); reconnects on drops."""
    if not settings.app_token:
        raise ValueError("Socket Mode needs SLACK_APP_TOKEN")
    return AsyncSocketModeHandler(app, settings.app_token, ping_interval=ping_interval)

"""`errfix serve`: Socket Mode when SLACK_APP_TOKEN is set (and --http is not given), else HTTP.

The command and its options are bot/cli/serve.py; this is what it runs. Settings errors raise
`ConfigError` (an `ErrfixError`), which the CLI prints as one line with exit code 2.

Once serving, it finishes the work the last run acknowledged and did not do (`bot.slack.jobs`),
and posts the weekly digests of the channels that asked for one (`bot.slack.digest`).
On SIGTERM or SIGINT errfix stops taking events (closes the socket, or stops listening), lets the
events already taken finish for up to ERRFIX_SHUTDOWN_TIMEOUT seconds, then closes the store.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time

import aiohttp
from aiohttp import web
from slack_bolt.async_app import AsyncApp

from bot.config import Settings
from bot.ops.serving_lock import serving
from bot.serve.background import in_background
from bot.serve.checkpoint import checkpointing
from bot.serve.http import ops_app, web_app
from bot.serve.metrics_and_logs import MetricsAndLogs
from bot.serve.resync import resyncing
from bot.serve.retention import purging
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import build_app, check_tokens, make_client, socket_handler
from bot.slack.deps import Activity, Jobs, Outbox, Users
from bot.slack.digest import Digests, digests_forever
from bot.slack.jobs import Replayer, replaying
from bot.telemetry import logs
from bot.telemetry.metrics import Metrics

DEFAULT_HTTP_PORT = 3000
log = logging.getLogger("errfix.serve")


def run(settings: Settings, *, http: bool, host: str, port: int | None) -> None:
    """Serve with these settings until SIGINT or SIGTERM (`http`: the Events API even in Socket Mode)."""
    settings.require_slack(http=http)
    logs.configure(fmt=settings.log_format, secrets=settings.secrets, log_pastes=settings.log_pastes)
    with serving(settings.db_path):  # `errfix restore` refuses while this is held
        metrics = Metrics(settings.db_path)
        errfix = serve_errfix(settings, metrics)
        try:
            over_http = http or not settings.socket_mode
            port = port if port is not None or not over_http else DEFAULT_HTTP_PORT
            asyncio.run(serve(settings, errfix, metrics, http=over_http, host=host, port=port))
        finally:
            errfix.close()


def serve_errfix(settings: Settings, metrics: Metrics) -> AsyncErrfix:
    """The service as `errfix serve` runs it: counted and logged, re-indexing in the background
    (answers use the old index until the new one is built)."""
    observer = MetricsAndLogs(metrics, log_pastes=settings.log_pastes)
    return AsyncErrfix(settings.db_path, observer=observer, background_reindex=True, index_cache=True)


async def serve(
    settings: Settings, errfix: AsyncErrfix, metrics: Metrics, *, http: bool, host: str, port: int | None
) -> None:
    """Serve until SIGINT or SIGTERM, then drain (see the module docstring)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    activity, jobs = Activity(), Jobs(errfix)
    slack_session = aiohttp.ClientSession()  # kept-alive connections to Slack for every Web API call
    client = make_client(settings, metrics, slack_session)
    app = build_app(settings, errfix, client, activity=activity, metrics=metrics, jobs=jobs)
    replayer = Replayer(app, errfix, jobs, Outbox(log), log)  # before any event: what is owed now is left over
    try:
        await check_tokens(app, settings, socket_mode=not http)
        await _serve_app(app, settings, errfix, metrics, activity, stop, replayer, http=http, host=host, port=port)
    finally:
        await slack_session.close()


async def _serve_app(
    app: AsyncApp,
    settings: Settings,
    errfix: AsyncErrfix,
    metrics: Metrics,
    activity: Activity,
    stop: asyncio.Event,
    replayer: Replayer,
    *,
    http: bool,
    host: str,
    port: int | None,
) -> None:
    application = (
        web_app(app, errfix, signing_secret=settings.signing_secret, metrics=metrics)
        if http
        else ops_app(errfix, metrics)
    )
    runner = web.AppRunner(application, access_log=None, shutdown_timeout=settings.shutdown_timeout)
    await runner.setup()
    handler = None if http else socket_handler(app, settings)
    try:
        if port is not None:
            await web.TCPSite(runner, host, port).start()
        if handler is not None:
            await handler.connect_async()
        _log_started(settings, http=http, host=host, port=port)
        digests = Digests(errfix, Outbox(log), Users(log), app.client, settings.digest_schedule)
        async with (
            resyncing(errfix, settings.sync_url, settings.sync_interval, settings.sync_timeout, metrics),
            replaying(replayer),
            purging(errfix, settings.retention_days, settings.memory_days),
            checkpointing(errfix),
            in_background(digests_forever(digests), name="errfix-digests", log=log),
        ):
            await stop.wait()
        log.info("stopping: no new events; letting the ones in flight finish")
    finally:
        started = time.monotonic()
        if handler is not None:
            await handler.close_async()
        await runner.cleanup()  # stops listening, then waits for requests being answered
        left = max(0.0, settings.shutdown_timeout - (time.monotonic() - started))
        await drain(activity, left)


async def drain(activity: Activity, timeout: float) -> bool:
    """Wait up to `timeout` seconds for running listeners; False (and a warning) if some are left."""
    await asyncio.sleep(0)  # listeners scheduled by the last requests start and count themselves
    try:
        await asyncio.wait_for(activity.idle(), timeout)
    except TimeoutError:
        log.warning("stopped with %d event(s) still being handled after %.0fs", activity.running, timeout)
        return False
    return True


def _log_started(settings: Settings, *, http: bool, host: str, port: int | None) -> None:
    where = f"http://{host}:{port}" if port is not None else ""
    if http:
        log.info("Events API at %s/slack/events, /healthz, /metrics (db %s)", where, settings.db_path)
    else:
        extra = f"; /healthz and /metrics at {where}" if where else ""
        log.info("Socket Mode connected (db %s)%s", settings.db_path, extra)
    if settings.sync_url:
        log.info("re-syncing records every %ds", settings.sync_interval)

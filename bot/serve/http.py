"""The operator's HTTP routes: GET /healthz (for load balancers and Docker) and GET /metrics.

Over HTTP they sit beside POST /slack/events on the same server; in Socket Mode `ops_app()` serves
them alone when `errfix serve` is given a port.
"""

from __future__ import annotations

import logging
import sqlite3

from aiohttp import web
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncApp

from bot.errors import StoreError
from bot.serve.verify import verify_slack
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import EVENTS_PATH
from bot.telemetry.metrics import CONTENT_TYPE, Metrics

log = logging.getLogger("errfix.serve")


def add_routes(application: web.Application, errfix: AsyncErrfix, metrics: Metrics | None = None) -> None:
    """GET /healthz: 200 while the database answers a query, else 503; GET /metrics when `metrics`."""

    async def healthz(request: web.Request) -> web.Response:
        try:
            ok = await errfix.ping()
        except (sqlite3.Error, StoreError, RuntimeError) as e:
            log.warning("health check failed: %s", e)
            ok = False
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    async def scrape(request: web.Request) -> web.Response:
        assert metrics is not None
        try:
            stats = await errfix.stats()
        except (sqlite3.Error, StoreError, RuntimeError) as e:  # still serve the counters
            log.warning("metrics: store size unavailable: %s", e)
        else:
            metrics.refresh_store(records=stats.records, votes=stats.votes_up + stats.votes_down)
        return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE})

    application.router.add_get("/healthz", healthz)
    if metrics is not None:
        application.router.add_get("/metrics", scrape)


def ops_app(errfix: AsyncErrfix, metrics: Metrics | None = None) -> web.Application:
    application = web.Application()
    add_routes(application, errfix, metrics)
    return application


def web_app(
    app: AsyncApp, errfix: AsyncErrfix, *, signing_secret: str, metrics: Metrics | None = None
) -> web.Application:
    """aiohttp Application: every Slack request at POST /slack/events, GET /healthz, and
    GET /metrics when `metrics` is given (the one passed to `build_app`).

    Requests to /slack/events are checked against `signing_secret` before anything parses them
    (bot/serve/verify.py): bolt only ever sees requests that are Slack's and well formed.
    """
    server = AsyncSlackAppServer(port=0, path=EVENTS_PATH, app=app)
    server.web_app.middlewares.append(verify_slack(EVENTS_PATH, signing_secret))
    add_routes(server.web_app, errfix, metrics)
    return server.web_app

"""`errfix serve`: Socket Mode when SLACK_APP_TOKEN is set (and --http is not given), else HTTP.

Wire it into bot/cli.py's `build_parser` with `register(add)`. Settings errors raise
`ConfigError` (an `ErrfixError`), which the CLI prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from collections.abc import Callable

from aiohttp import web

from bot.config import Settings, load_settings
from bot.slack.app import build_app, check_tokens, socket_handler, web_app
from bot.worker import AsyncErrfix

Add = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
log = logging.getLogger("errfix.serve")


def register(add: Add) -> None:
    """Add the `serve` subcommand through bot.cli's `add(name, handler, help)`."""
    p = add("serve", cmd_serve, "run the Slack bot (Socket Mode if SLACK_APP_TOKEN is set, else HTTP)")
    p.add_argument("--http", action="store_true", help="serve the Events API over HTTP even if SLACK_APP_TOKEN is set")
    p.add_argument("--host", default="0.0.0.0", help="HTTP address to listen on (default: 0.0.0.0)")
    p.add_argument("--port", type=int, default=3000, help="HTTP port (default: 3000)")
    p.add_argument("--env-file", default=".env", help="settings file read under the environment (default: .env)")


def cmd_serve(args: argparse.Namespace) -> int:
    settings = load_settings(env_file=args.env_file, db=args.db, http=args.http)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    errfix = AsyncErrfix(settings.db_path)
    try:
        if args.http or not settings.socket_mode:
            serve_http(settings, errfix, args.host, args.port)
        else:
            asyncio.run(serve_socket(settings, errfix))
    finally:
        errfix.close()
    return 0


def serve_http(settings: Settings, errfix: AsyncErrfix, host: str, port: int) -> None:
    async def make() -> web.Application:
        app = build_app(settings, errfix)
        await check_tokens(app, settings, socket_mode=False)
        return web_app(app, errfix)

    log.info("errfix: Events API at http://%s:%d/slack/events (db %s)", host, port, settings.db_path)
    web.run_app(make(), host=host, port=port, print=None, access_log=None)


async def serve_socket(settings: Settings, errfix: AsyncErrfix) -> None:
    """Socket Mode until SIGINT or SIGTERM; the client reconnects by itself when a socket drops."""
    app = build_app(settings, errfix)
    await check_tokens(app, settings, socket_mode=True)
    handler = socket_handler(app, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await handler.connect_async()
    log.info("errfix: Socket Mode connected (db %s)", settings.db_path)
    try:
        await stop.wait()
    finally:
        await handler.close_async()

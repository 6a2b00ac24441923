"""`errfix demo [--port 3000] [--db PATH]`: the demo workspace until Ctrl-C (or SIGTERM).

Named like the bot.demo package because it is that package's command: the option and the wait for
a signal here, the server there. A port already in use is one line with exit code 2.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import signal

import click

from bot.cli.options import db_option, settings
from bot.demo.server import HOST, Demo
from bot.errors import InvalidInput


@click.command("demo")
@click.option("--port", type=int, default=3000, help="port on 127.0.0.1 (default: 3000; 0 picks a free one)")
@db_option()
def demo(port: int, db: str | None) -> None:
    """try errfix in a browser: a local Slack-like channel, no Slack needed"""
    db_path = settings(db).db_path
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(run(db_path, port))


async def run(db_path: str, port: int) -> None:
    """Serve the demo until SIGINT or SIGTERM."""
    server = Demo(db_path)
    try:
        url = await server.start(port)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        raise InvalidInput(f"cannot listen on {HOST}:{port}: it is in use; pass another --port") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    click.echo(
        f"errfix demo: open {url} in a browser (Ctrl-C stops it)\n"
        f"  database:             {db_path} (a new one gets the bundled records; votes stay in it)\n"
        f"  errfix's Events API:  {server.events_url}\n"
        f"  Slack stand-in:       {server.fake.base_url} (no tokens, nothing leaves this machine)"
    )
    try:
        await stop.wait()
    finally:
        await server.stop()


COMMANDS = (demo,)

"""`errfix demo [--port 3000] [--db PATH]`: the demo workspace until Ctrl-C (or SIGTERM).

Wire it into bot/cli.py's `build_parser` with `register(add)`. A port already in use is an
`OSError`, which the CLI prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import signal
from collections.abc import Callable

from bot.config import load_settings
from bot.demo.server import HOST, Demo
from bot.errors import InvalidInput

Handler = Callable[[argparse.Namespace], int]
Add = Callable[[str, Handler, str], argparse.ArgumentParser]


def register(add: Add) -> None:
    """Add the `demo` command through bot.cli.main's `add(name, handler, help)`."""
    p = add("demo", cmd_demo, "try errfix in a browser: a local Slack-like channel, no Slack needed")
    p.add_argument("--port", type=int, default=3000, help="port on 127.0.0.1 (default: 3000; 0 picks a free one)")


def cmd_demo(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return asyncio.run(run(load_settings(db=args.db).db_path, args.port))


async def run(db_path: str, port: int) -> int:
    """Serve the demo until SIGINT or SIGTERM."""
    demo = Demo(db_path)
    try:
        url = await demo.start(port)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        raise InvalidInput(f"cannot listen on {HOST}:{port}: it is in use; pass another --port") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(
        f"errfix demo: open {url} in a browser (Ctrl-C stops it)\n"
        f"  database:             {db_path} (a new one gets the bundled records; votes stay in it)\n"
        f"  errfix's Events API:  {demo.events_url}\n"
        f"  Slack stand-in:       {demo.fake.base_url} (no tokens, nothing leaves this machine)",
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await demo.stop()
    return 0

"""`errfix remember --channel C… [--days 90]`: team memory (#36) from channels' history.

The options and the progress lines; bot/slack/backfill.py reads Slack and remembers.
"""

from __future__ import annotations

import asyncio

import click

from bot.cli.options import db_option, settings
from bot.config import Settings
from bot.errors import InvalidInput
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import make_client
from bot.slack.backfill import Backfill, Backfilled


async def _remember(config: Settings, channels: tuple[str, ...], days: int, pace: float) -> list[Backfilled]:
    errfix = AsyncErrfix(config.db_path)
    try:
        backfill = Backfill(errfix, make_client(config), pace=pace, progress=lambda s: click.echo(s, err=True))
        done = []
        for channel in channels:
            try:
                done.append(await backfill.run(channel, days))
            except LookupError as e:
                raise InvalidInput(str(e)) from None
        return done
    finally:
        errfix.close()


@click.command("remember")
@click.option("--channel", "channels", multiple=True, required=True, help="a channel id (C…), once per channel")
@click.option("--days", type=click.IntRange(1, 3650), default=90, show_default=True, help="how far back to read")
@click.option("--pace", type=click.FloatRange(0, 60), default=1.3, show_default=True, help="seconds between calls")
@click.option("--env-file", default=".env", show_default=True, help="settings file read under the environment")
@db_option()
def remember(channels: tuple[str, ...], days: int, pace: float, env_file: str, db: str | None) -> None:
    """fill team memory from channels' history (resumable)"""
    config = settings(db, env_file=env_file)
    config.require_slack(http=False) if config.app_token else config.require_slack(http=True)
    for done in asyncio.run(_remember(config, channels, days, pace)):
        click.echo(done.line())


COMMANDS = (remember,)

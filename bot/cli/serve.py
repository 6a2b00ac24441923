"""`errfix serve`: the options; bot.serve.run is what runs.

Named like the bot.serve package because it is that package's command.
"""

from __future__ import annotations

import click

from bot.cli.options import db_option, settings
from bot.serve import run as serving


@click.command()
@click.option("--http", is_flag=True, help="serve the Events API over HTTP even if SLACK_APP_TOKEN is set")
@click.option("--host", default="0.0.0.0", show_default=True, help="HTTP address to listen on")
@click.option(
    "--port",
    type=int,
    default=None,
    help=f"HTTP port (default: {serving.DEFAULT_HTTP_PORT}); in Socket Mode, serve /healthz and /metrics on it",
)
@click.option("--env-file", default=".env", show_default=True, help="settings file read under the environment")
@db_option()
def serve(http: bool, host: str, port: int | None, env_file: str, db: str | None) -> None:
    """run the Slack bot (Socket Mode if SLACK_APP_TOKEN is set, else HTTP)"""
    serving.run(settings(db, env_file=env_file), http=http, host=host, port=port)


COMMANDS = (serve,)

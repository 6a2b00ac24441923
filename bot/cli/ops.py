"""The operator's commands: `errfix sync URL`, `backup FILE`, `restore FILE`, `doctor`.

Each one calls one library function (bot/ops/) and prints one summary line. A sync the upstream
fails, or a doctor check that fails, is exit code 1 (something to fix outside errfix); bad input
is exit code 2 like every other command (bot.cli.main).
"""

from __future__ import annotations

import asyncio

import click

from bot.cli.options import cli_actor, db_option, errfix, settings
from bot.ops import backup as backups
from bot.ops import doctor as doctors
from bot.ops.sync import Inline, SyncError, sync_once
from bot.store.files import DEFAULT_MAX_BYTES

EXIT_FAIL = 1
ENV_FILE_HELP = "settings file read under the environment"


@click.command()
@click.argument("url", metavar="URL")
@click.option("--timeout", type=float, default=60, show_default=True, help="seconds for the whole fetch")
@click.option("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, show_default=True, help="largest body accepted")
@click.option("--skip-invalid", is_flag=True, help="write the valid records, warn about the rest")
@db_option()
@click.pass_context
def sync(ctx: click.Context, url: str, timeout: float, max_bytes: int, skip_invalid: bool, db: str | None) -> None:
    """fetch records from an HTTP(S) URL (JSON or JSONL) and bring the store in step"""
    svc = errfix(db)
    try:  # the CLI's own thread owns the store: the service steps run inline
        report = asyncio.run(
            sync_once(url, Inline(svc), timeout=timeout, max_bytes=max_bytes, skip_invalid=skip_invalid)
        )
    except SyncError as e:
        click.echo(f"errfix: {e}; nothing was written", err=True)
        ctx.exit(EXIT_FAIL)
    finally:
        svc.close()
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"synced {report.line()}")


@click.command()
@click.argument("file", metavar="FILE")
@db_option()
def backup(file: str, db: str | None) -> None:
    """copy the database to FILE, consistent even while errfix serve runs"""
    db_path = settings(db).db_path
    info = backups.backup(db_path, file)
    click.echo(f"backed up {db_path} to {info.path}: {info.line()}")


@click.command()
@click.argument("file", metavar="FILE")
@db_option()
def restore(file: str, db: str | None) -> None:
    """replace the database with a backup FILE (stop errfix serve first)"""
    db_path = settings(db).db_path
    info, kept = backups.restore(file, db_path, actor=cli_actor())
    click.echo(f"restored {db_path} from {file}: {info.line()}")
    if kept is not None:
        click.echo(f"the database it replaced is kept as {kept}")


@click.command()
@click.option("--http", is_flag=True, help="check for HTTP mode even if SLACK_APP_TOKEN is set")
@click.option("--env-file", default=".env", show_default=True, help=ENV_FILE_HELP)
@db_option()
@click.pass_context
def doctor(ctx: click.Context, http: bool, env_file: str, db: str | None) -> None:
    """check settings, Slack token and scopes, database and sync; one line each

    A malformed setting is a failed check here, not an error: doctor is what finds it.
    """
    checks = asyncio.run(doctors.run(env_file=env_file, db=db, http=http))
    for check in checks:
        click.echo(check.line())
    failed = [c for c in checks if c.status == "fail"]
    click.echo(f"{len(failed)} check(s) failed" if failed else "all checks passed")
    if failed:
        ctx.exit(EXIT_FAIL)


COMMANDS = (sync, backup, restore, doctor)

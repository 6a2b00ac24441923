"""The operator's commands: `errfix sync URL`, `backup FILE`, `restore FILE`, `doctor`.

Wire them into bot/cli.py's `build_parser` with `register(add)`. Each one opens the database,
calls one library function (bot/ops/) and prints one summary line; library errors become one
line on stderr (exit code 2 for bad input, 1 for an upstream or check that failed).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable

from bot.config import load_settings
from bot.ops import backup as backups
from bot.ops import doctor
from bot.ops.sync import Inline, SyncError, sync_once
from bot.service.errfix import Errfix
from bot.store.files import DEFAULT_MAX_BYTES

Add = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
EXIT_OK, EXIT_FAIL = 0, 1


def register(add: Add) -> None:
    """Add sync, backup, restore and doctor through bot.cli.main's `add(name, handler, help)`."""
    p = add("sync", cmd_sync, "fetch records from an HTTP(S) URL (JSON or JSONL) and bring the store in step")
    p.add_argument("url", metavar="URL")
    p.add_argument("--timeout", type=float, default=60, help="seconds for the whole fetch (default: 60)")
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="largest body accepted")

    p = add("backup", cmd_backup, "copy the database to FILE, consistent even while errfix serve runs")
    p.add_argument("file", metavar="FILE")

    p = add("restore", cmd_restore, "replace the database with a backup FILE (stop errfix serve first)")
    p.add_argument("file", metavar="FILE")

    p = add("doctor", cmd_doctor, "check settings, Slack token and scopes, database and sync; one line each")
    p.add_argument("--http", action="store_true", help="check for HTTP mode even if SLACK_APP_TOKEN is set")
    p.add_argument("--env-file", default=".env", help="settings file read under the environment (default: .env)")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def cmd_sync(args: argparse.Namespace) -> int:
    svc = Errfix.open(load_settings(db=args.db).db_path)
    try:  # the CLI's own thread owns the store: the service steps run inline
        report = asyncio.run(sync_once(args.url, Inline(svc), timeout=args.timeout, max_bytes=args.max_bytes))
    except SyncError as e:
        sys.stderr.write(f"errfix: {e}; nothing was written\n")
        return EXIT_FAIL
    finally:
        svc.close()
    for warning in report.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    _out(f"synced {report.line()}")
    return EXIT_OK


def cmd_backup(args: argparse.Namespace) -> int:
    info = backups.backup(load_settings(db=args.db).db_path, args.file)
    _out(f"backed up {load_settings(db=args.db).db_path} to {info.path}: {info.line()}")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace) -> int:
    db = load_settings(db=args.db).db_path
    info, kept = backups.restore(args.file, db)
    _out(f"restored {db} from {args.file}: {info.line()}")
    if kept is not None:
        _out(f"the database it replaced is kept as {kept}")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = asyncio.run(doctor.run(env_file=args.env_file, db=args.db, http=args.http))
    for check in checks:
        _out(check.line())
    failed = [c for c in checks if c.status == "fail"]
    _out(f"{len(failed)} check(s) failed" if failed else "all checks passed")
    return EXIT_FAIL if failed else EXIT_OK

"""`errfix lint PATH…`: the command over the checks in bot.store.lint.

Named like bot.store.lint because it is that module's command: arguments and output here, the
checks there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from bot.config import load_settings
from bot.errors import InvalidInput
from bot.service.errfix import Errfix
from bot.store.files import DEFAULT_MAX_BYTES
from bot.store.lint import lint
from bot.store.store import Store

EXIT_OK, EXIT_PROBLEMS = 0, 2

Handler = Callable[[argparse.Namespace], int]
Add = Callable[[str, Handler, str], argparse.ArgumentParser]


def cmd_lint(args: argparse.Namespace) -> int:
    load_settings()  # every command stops on a malformed setting, even one it does not use
    if args.db is None:
        result = lint(args.paths, max_bytes=args.max_bytes)
    else:
        if not Path(args.db).is_file():  # Store() would create it: lint writes nothing
            raise InvalidInput(f"{args.db}: no such database")
        svc = Errfix(Store(args.db))
        try:
            result = svc.lint(args.paths, max_bytes=args.max_bytes)
        finally:
            svc.close()
    for line in result.problems:
        sys.stdout.write(line + "\n")
    if result.problems:
        sys.stderr.write(f"{result.records} records, {len(result.problems)} problem(s)\n")
        return EXIT_PROBLEMS
    sys.stdout.write(f"{result.records} records, no problems\n")
    return EXIT_OK


def register(add: Add) -> None:
    """Add the `lint` command with bot/cli.py's `add(name, handler, help)`."""
    p = add("lint", cmd_lint, "report quality problems in record files or folders (exit 2 if any)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="largest file read")
    for action in p._actions:  # `add` gave every command the same --db help; lint only reads it
        if action.dest == "db":
            action.help = "also accept transition-graph links to ids in this database (default: none)"

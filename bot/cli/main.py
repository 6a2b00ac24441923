"""The `errfix` command line: one click group, one module per group of commands.

Commands call the library and print; they raise `ErrfixError` for anything a person got wrong.
This module is the one place that turns those (and unusable paths, `OSError`) into one line on
stderr and exit code 2; nothing prints a traceback for bad input.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import IO, Any

import click

from bot.errors import ErrfixError, InvalidRecords

EXIT_BAD_INPUT, EXIT_INTERRUPTED = 2, 130


class Refused(click.ClickException):
    """What a command refused, as the lines to print: one, or a record problem per line and a summary."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines[-1])
        self.lines = lines

    def show(self, file: IO[Any] | None = None) -> None:
        for line in self.lines:
            click.echo(line, err=True)


# Each command's module, imported only when that command runs: `errfix match` should not pay
# for aiohttp, Slack Bolt and the demo server (about half a second of a pasted error's answer).
# `--help` imports them all. tests/cli/test_main.py checks this map against each module's COMMANDS.
COMMAND_MODULES = {
    "import": "database", "export": "database", "stats": "database",
    "match": "lookup", "search": "lookup", "show": "lookup",
    "lint": "lint",
    "learned": "learn", "unlearn": "learn",
    "forget-user": "privacy", "forget-channel": "privacy", "audit": "privacy",
    "serve": "serve", "remember": "remember",
    "draft": "team", "forget": "team",
    "sync": "ops", "backup": "ops", "restore": "ops", "doctor": "ops",
    "demo": "demo",
}  # fmt: skip


class ErrfixGroup(click.Group):
    """The group whose `invoke` maps errfix's errors to exit codes, for every command at once,
    and whose commands are loaded on first use (`COMMAND_MODULES`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            module = importlib.import_module(f"bot.cli.{COMMAND_MODULES[cmd_name]}")
            for command in module.COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InvalidRecords as e:
            raise Refused([*e.problems, f"errfix: {e}"]) from None
        except ErrfixError as e:
            raise Refused([f"errfix: {e}"]) from None
        except BrokenPipeError:  # `errfix export | head`: the reader has what it wanted
            raise click.exceptions.Exit(0) from None
        except OSError as e:  # an unreadable input or unwritable output path: bad input, not a crash
            raise Refused([f"errfix: {e}"]) from None
        except KeyboardInterrupt:
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None


@click.group(cls=ErrfixGroup, context_settings={"help_option_names": ["-h", "--help"], "terminal_width": 100})
def errfix() -> None:
    """Turn a pasted error into the fix that works."""


def command(name: str) -> click.Command:
    """The command `name`, loaded (for tests and tools that inspect a command's options)."""
    found = errfix.get_command(click.Context(errfix), name)
    if found is None:
        raise KeyError(name)
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """The `errfix` entry point: run one command, exit with its code."""
    errfix.main(args=list(argv) if argv is not None else None, prog_name="errfix")

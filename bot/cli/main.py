"""The `errfix` command line: one click group, one module per group of commands.

Commands call the library and print; they raise `ErrfixError` for anything a person got wrong.
This module is the one place that turns those (and unusable paths, `OSError`) into one line on
stderr and exit code 2; nothing prints a traceback for bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import click

from bot.cli import database, demo, learn, lint, lookup, ops, privacy, serve, team
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


class ErrfixGroup(click.Group):
    """The group whose `invoke` maps errfix's errors to exit codes, for every command at once."""

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


for module in (database, lookup, lint, learn, privacy, serve, team, ops, demo):
    for command in module.COMMANDS:
        errfix.add_command(command)


def main(argv: Sequence[str] | None = None) -> None:
    """The `errfix` entry point: run one command, exit with its code."""
    errfix.main(args=list(argv) if argv is not None else None, prog_name="errfix")

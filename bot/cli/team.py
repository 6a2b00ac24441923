"""`errfix draft` and `errfix forget`: the team records errfix is taught in Slack (#17), from the shell.

`draft` prints what the teach modal would be prefilled with for a paste on stdin, through the same
code the modal uses (`Errfix.draft`); `forget` removes one team record (its votes stay).
"""

from __future__ import annotations

import json

import click

from bot.cli.lookup import _read_stdin
from bot.cli.options import db_option, echo, errfix, json_option
from bot.errors import InvalidInput


@click.command()
@json_option
@click.option("--fix", default="", metavar="TEXT", help="the reply that fixed it (code blocks become `how`)")
@db_option()
def draft(as_json: bool, fix: str, db: str | None) -> None:
    """the team record errfix would draft for a paste on stdin"""
    svc = errfix(db)
    try:
        found = svc.draft(_read_stdin(), fix=fix)
    finally:
        svc.close()
    if found is None:
        raise InvalidInput("no error line in the paste: nothing to draft a record from")
    data = found.to_json()
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    echo("\n".join(f"{k + ':':<11}{v}" for k, v in data.items()))


@click.command()
@click.argument("record_id", metavar="ID")
@db_option()
def forget(record_id: str, db: str | None) -> None:
    """remove one team record (its votes are kept: export --votes)"""
    svc = errfix(db)
    try:
        svc.forget(record_id)
    finally:
        svc.close()
    click.echo(f"forgot {record_id}")


COMMANDS = (draft, forget)

"""`errfix learned` and `errfix unlearn`: what the team taught errfix in Slack, and undoing it.

Two kinds of lessons (`Errfix.learned`, over bot/store/learning.py): a *learned alias* ("This one": a pasted error line
that now matches a record) and a *rejection* ("Not this error": a record scored lower for pastes
like that one). `learned` lists both with who taught them and when, each with the `unlearn`
command that removes it; removing one bumps the store version, so the next match uses an index
without it.
"""

from __future__ import annotations

import json
import shlex

import click

from bot.cli.options import db_option, errfix
from bot.errors import InvalidInput, NotFound
from bot.service.errfix import Learned


def undo_command(item: Learned) -> str:
    """The shell command that removes `item` (as `errfix learned` prints it)."""
    cmd = ["errfix", "unlearn", item.kind, item.record_id, item.text]
    if item.kind == "rejection":
        cmd += ["--user", item.user_id]
    return shlex.join(cmd)


def learned_text(items: list[Learned]) -> str:
    out: list[str] = []
    for kind, title in (("alias", "learned aliases"), ("rejection", "rejections (Not this error)")):
        these = [i for i in items if i.kind == kind]
        out.append(f"{title}: {len(these)}")
        for i in these:
            out.append(f"  {i.record_id}  {json.dumps(i.text, ensure_ascii=False)}")
            out.append(f"      by {i.user_id or '?'} at {i.created_at}; undo: {undo_command(i)}")
    return "\n".join(out)


@click.command("learned")
@click.option("--record", metavar="ID", help="only this record's")
@click.option("--json", "as_json", is_flag=True, help='one JSON object: {"aliases": [...], "rejections": [...]}')
@db_option()
def learned_(record: str | None, as_json: bool, db: str | None) -> None:
    """list learned aliases and rejections (Not this error), with who and when"""
    svc = errfix(db)
    try:
        items = svc.learned(record)
    finally:
        svc.close()
    if as_json:
        data = {
            "aliases": [i.to_json() for i in items if i.kind == "alias"],
            "rejections": [i.to_json() for i in items if i.kind == "rejection"],
        }
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        click.echo(learned_text(items))


@click.command()
@click.argument("kind", type=click.Choice(("alias", "rejection")))
@click.argument("record_id", metavar="RECORD_ID")
@click.argument("text", metavar="TEXT")
@click.option("--user", help="rejection only: remove just this user's (default: every user's)")
@db_option()
def unlearn(kind: str, record_id: str, text: str, user: str | None, db: str | None) -> None:
    """remove a learned alias or a rejection (as `errfix learned` lists them)

    TEXT is the alias, or the rejected error line (as listed or as pasted).
    """
    svc = errfix(db)
    try:
        if kind == "alias":
            if user is not None:
                raise InvalidInput("--user is for rejections; an alias is removed for everyone")
            n = svc.unlearn_alias(record_id, text)
        else:
            n = svc.unlearn_rejection(record_id, text, user)
    finally:
        svc.close()
    if n == 0:
        who = f" by {user}" if user is not None else ""
        raise NotFound(f"no learned {kind} {text!r}{who} for {record_id!r} (see errfix learned)")
    click.echo(f"forgot {n} {kind}{'s' if n > 1 else ''} of {record_id}")


COMMANDS = (learned_, unlearn)

"""`errfix forget-user`, `forget-channel` and `audit`: erasure on request, and who changed what.

Named like bot.store.privacy because it is that module's command line. The forget commands erase
in one transaction there and print, per table, how many
rows went; votes stay counted with their identity detached. `audit` lists the audit trail
(bot/store/audit.py), newest first, which retention never purges.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from bot.cli.options import db_option, errfix, json_option
from bot.errors import InvalidInput
from bot.service.errfix import Erased


def _print(erased: Erased, what: str) -> None:
    click.echo(f"forgot {what} {erased.target} (one transaction, audited):")
    for line in erased.lines():
        click.echo(line)


def _forget(db: str | None, kind: str, target: str) -> Erased:
    if not target.strip():
        raise InvalidInput(f"give the Slack {kind} id to forget")
    svc = errfix(db)
    try:
        return svc.forget_user(target) if kind == "user" else svc.forget_channel(target)
    finally:
        svc.close()


@click.command("forget-user")
@click.argument("user_id", metavar="USER_ID")
@db_option()
def forget_user(user_id: str, db: str | None) -> None:
    """erase a person: their pastes, rejections, learned aliases; detach their votes (still counted)"""
    _print(_forget(db, "user", user_id), "user")


@click.command("forget-channel")
@click.argument("channel_id", metavar="CHANNEL_ID")
@db_option()
def forget_channel(channel_id: str, db: str | None) -> None:
    """erase a channel: its pastes, replies, rejections made there; detach votes on its answers"""
    _print(_forget(db, "channel", channel_id), "channel")


def since_iso(raw: str) -> str:
    """`--since` as the audit's time text: a date (YYYY-MM-DD, from its midnight UTC) or an ISO time."""
    try:
        moment = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"--since: {raw!r} is not a date (YYYY-MM-DD) or an ISO time") from None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@click.command("audit")
@click.option("--since", metavar="DATE", help="only entries at or after DATE (YYYY-MM-DD or an ISO time, UTC)")
@json_option
@db_option()
def audit_(since: str | None, as_json: bool, db: str | None) -> None:
    """list the audit trail (who changed the team's knowledge or data), newest first"""
    cut = since_iso(since) if since is not None else None
    svc = errfix(db)
    try:
        entries = svc.audit(cut)
    finally:
        svc.close()
    if as_json:
        click.echo(json.dumps({"entries": [e.to_json() for e in entries]}, ensure_ascii=False))
        return
    for e in entries:
        detail = json.dumps(e.detail, ensure_ascii=False, sort_keys=True)
        click.echo(f"{e.at}  {e.actor}  {e.action}  {e.target or '-'}  {detail}")
    click.echo(f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}" + (f" since {cut}" if cut else ""))


COMMANDS = (forget_user, forget_channel, audit_)

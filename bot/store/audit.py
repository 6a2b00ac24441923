"""The audit trail: who changed the team's knowledge or data, when, and what (#18).

`write` is called by each change inside the transaction that makes it, so an entry exists exactly
when the change does (a rollback takes both). Entries are kept beyond retention: the purge never
touches the table. `detail` is a small JSON object (counts, ids, the alias text); every string in
it, and the target, is redacted first (bot/core/redact.py), so no secret reaches the trail.

The actor is a Slack user id for what someone did in Slack, `cli:<login>` for a command, and
`errfix` for what the server does by itself (the hourly purge, a timed sync, the seed import).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from bot.core.redact import redact_text

SYSTEM = "errfix"  # the actor of what the server does on its own
FORGOTTEN = "forgotten"  # the actor of a forgotten person's older entries


@dataclass(frozen=True)
class Entry:
    """One audit entry, as `errfix audit` lists it."""

    id: int
    at: str
    actor: str
    action: str
    target: str
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at,
            "actor": self.actor,
            "action": self.action,
            "target": self.target,
            "detail": self.detail,
        }


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {str(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def write(db: Database, *, actor: str, action: str, target: str = "", detail: dict[str, Any] | None = None) -> None:
    """Add one entry; call inside the transaction of the change it describes."""
    db.execute(
        "INSERT INTO audit (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
        [
            datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            actor,
            action,
            redact_text(target),
            json.dumps(_redacted(detail or {}), ensure_ascii=False, sort_keys=True),
        ],
    )


def entries(db: Database, since: str | None = None) -> list[Entry]:
    """Every entry, newest first; only those at or after `since` (an ISO time) when given."""
    where, params = ("WHERE at >= ?", [since]) if since else ("", [])
    rows = db.execute(
        f"SELECT id, at, actor, action, target, detail FROM audit {where} ORDER BY at DESC, id DESC", params
    ).fetchall()
    return [
        Entry(int(i), str(at), str(who), str(what), str(target), json.loads(d)) for i, at, who, what, target, d in rows
    ]

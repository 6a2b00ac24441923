"""Which acknowledged events errfix owes work for, and the body it keeps to redo that work.

`Dedupe` writes `owed_job(body, keys)` with the event's dedupe keys (bot/slack/jobs.py runs what
is left); the kept body has its texts redacted (#18) and no rich-text copies.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.core.redact import redact_text


def event_of(body: dict[str, Any]) -> dict[str, Any]:
    event = body.get("event") if body.get("type") == "event_callback" else None
    return event if isinstance(event, dict) else {}


OWED_EVENTS = frozenset({"message", "app_mention", "reaction_added", "reaction_removed"})
JOB_KEY = "errfix_job"  # in the bolt context: the job the request's listener finishes
REPLAY = "errfix_replay"  # in the bolt context: a replay, past the dedupe check
TEXT_FIELDS = ("text", "previous_text")
DROPPED_FIELDS = ("blocks", "attachments")  # rich-text copies of `text`: never read, never kept


def owed_job(body: dict[str, Any], keys: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(job key, the body to keep) for an event whose work errfix owes; None for the rest."""
    event = event_of(body)
    if event.get("type") not in OWED_EVENTS or not keys:
        return None
    return keys[0], kept_body(body)


def kept_body(body: dict[str, Any]) -> dict[str, Any]:
    """The body as the jobs table keeps it: texts redacted (#18), rich-text copies dropped."""
    kept = copy.deepcopy(body)
    _redact_message(kept.get("event") or {})
    return kept


def _redact_message(message: dict[str, Any]) -> None:
    for name in DROPPED_FIELDS:
        message.pop(name, None)
    for name in TEXT_FIELDS:
        if isinstance(message.get(name), str):
            message[name] = redact_text(message[name])
    for f in message.get("files") or []:
        if isinstance(f, dict):
            for name in ("preview", "plain_text", "preview_highlight"):
                if isinstance(f.get(name), str):
                    f[name] = redact_text(f[name])
    for nested in ("message", "previous_message"):
        if isinstance(message.get(nested), dict):
            _redact_message(message[nested])

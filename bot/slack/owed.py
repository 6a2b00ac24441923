"""Which acknowledged events errfix owes work for, and the body it keeps to redo that work.

`Dedupe` writes `owed_job(body, keys)` with the event's dedupe keys (bot/slack/jobs.py runs what
is left); the kept body has its texts redacted (#18) and no rich-text copies.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.core.blocks import NOT_THIS, THIS_ONE, VOTE_DOWN, VOTE_UP
from bot.core.redact import redact_text


def event_of(body: dict[str, Any]) -> dict[str, Any]:
    event = body.get("event") if body.get("type") == "event_callback" else None
    return event if isinstance(event, dict) else {}


OWED_EVENTS = frozenset({"message", "app_mention", "reaction_added", "reaction_removed"})
OWED_ACTIONS = (f"{VOTE_UP}:", f"{VOTE_DOWN}:", NOT_THIS, f"{THIS_ONE}:")  # Share is redone by a new click
JOB_KEY = "errfix_job"  # in the bolt context: the job the request's listener finishes
REPLAY = "errfix_replay"  # in the bolt context: a replay, past the dedupe check
TEXT_FIELDS = ("text", "previous_text")
DROPPED_FIELDS = ("blocks", "attachments")  # rich-text copies of `text`: never read, never kept


def owed_job(body: dict[str, Any], keys: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(job key, the body to keep) for an event or a click whose work errfix owes; None for the
    rest (App Home opens, unknown events, Share: the person sees at once whether it happened)."""
    if click_key(body) is not None and keys:
        return keys[0], kept_click(body)
    event = event_of(body)
    if event.get("type") not in OWED_EVENTS or not keys:
        return None
    return keys[0], kept_body(body)


def click_key(body: dict[str, Any]) -> str | None:
    """A vote, "Not this error" or "This one" click: who, which button, when (Slack's action_ts
    is the click's own time); None for anything else."""
    actions = body.get("actions") if body.get("type") == "block_actions" else None
    if not isinstance(actions, list) or len(actions) != 1 or not isinstance(actions[0], dict):
        return None
    action, user = actions[0], (body.get("user") or {}).get("id")
    action_id = str(action.get("action_id") or "")
    if not action_id.startswith(OWED_ACTIONS) or not user or not action.get("action_ts"):
        return None
    return f"click:{user}:{action_id}:{action['action_ts']}"


def kept_click(body: dict[str, Any]) -> dict[str, Any]:
    """A click as kept: without the copy of the message it was made on (errfix's own answer), its
    buttons' values redacted (#18: "This one" carries a pasted line, and an older errfix's button
    may hold it as pasted)."""
    kept = {k: copy.deepcopy(v) for k, v in body.items() if k not in ("message", "state", "view")}
    for action in kept.get("actions") or []:
        if isinstance(action, dict) and isinstance(action.get("value"), str):
            action["value"] = redact_text(action["value"])
    return kept


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

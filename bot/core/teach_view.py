"""Block Kit of "Teach errfix" (#17): the modal a shortcut opens and the reply a save posts (pure).

The modal holds the draft (bot/core/draft.py) in plain-text inputs the person may edit; the
record's id is derived from the error line when it is saved, never typed. Each input's block_id
is the name of the `TeachForm` field it fills, so per-field errors (`response_action: errors`)
land under the right box.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.core import blocks as kit
from bot.core.views import MatchView

TEACH_SHORTCUT = "errfix_teach"  # the message shortcut's callback_id (deploy/slack-manifest.yml)
TEACH_SUBMIT = "errfix_teach_submit"  # the modal's callback_id
TEACH_OPEN = "errfix_teach_open"  # the nudge's button: opens the same modal
NUDGE_TEXT = "Solved? Save this thread as an errfix record and I'll answer this error from now on."
VALUE = "value"  # every input's action_id
MAX_INPUT = 3_000  # Slack's plain_text_input limit
TITLE = "Save as errfix record"

# (block_id = TeachForm field, label, multiline, optional, hint)
FIELDS: tuple[tuple[str, str, bool, bool, str], ...] = (
    ("error_line", "Error line", True, False, "The error as it is printed: what the next paste will contain."),
    ("regex", "Regex", True, False, "Recognises the error with other numbers, paths and names (RE2 and Python)."),
    ("root_cause", "Root cause", True, True, "Why it happens, in plain words."),
    ("fix", "Fix that worked", True, False, "What to do, in one or two sentences."),
    ("how", "How (command or code)", True, True, "The command or code that does it."),
)


@dataclass(frozen=True)
class TeachMeta:
    """Where the modal came from, kept in the view's private_metadata until it is submitted."""

    channel: str
    thread_ts: str  # the paste's thread (its root's ts)
    message_ts: str  # the message the shortcut was used on
    domain: str
    record_id: str = ""  # set when editing an existing team record

    def dump(self) -> str:
        return json.dumps(
            {"c": self.channel, "t": self.thread_ts, "m": self.message_ts, "d": self.domain, "r": self.record_id}
        )

    @classmethod
    def load(cls, text: str) -> TeachMeta:
        data = json.loads(text or "{}")
        return cls(str(data["c"]), str(data["t"]), str(data["m"]), str(data.get("d") or "general"), str(data["r"]))


def _input(block_id: str, label: str, multiline: bool, optional: bool, hint: str, value: str) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "plain_text_input",
        "action_id": VALUE,
        "multiline": multiline,
        "max_length": MAX_INPUT,
    }
    if value:
        element["initial_value"] = value[:MAX_INPUT]
    return {
        "type": "input",
        "block_id": block_id,
        "label": {"type": "plain_text", "text": label},
        "hint": {"type": "plain_text", "text": hint},
        "optional": optional,
        "element": element,
    }


def teach_modal(values: dict[str, str], meta: TeachMeta, *, record_id: str) -> dict[str, Any]:
    """The modal, prefilled with `values` (field → text; missing ones empty)."""
    blocks: list[dict[str, Any]] = []
    if not values.get("error_line"):
        blocks.append(kit.section("I found no error line in that message: paste the error below."))
    blocks += [_input(*spec, value=values.get(spec[0], "")) for spec in FIELDS]
    note = "Saved as" if not meta.record_id else "Updates"
    blocks.append(kit.context(f"{note} `{kit.escape(record_id)}` (from the error line) · domain {meta.domain}"))
    return {
        "type": "modal",
        "callback_id": TEACH_SUBMIT,
        "title": {"type": "plain_text", "text": TITLE},
        "submit": {"type": "plain_text", "text": "Save"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "private_metadata": meta.dump(),
        "blocks": blocks,
    }


def submitted_values(view: dict[str, Any]) -> dict[str, str]:
    """Field → text of a submitted modal's inputs ('' for an empty one)."""
    state = (view.get("state") or {}).get("values") or {}
    return {name: str(((state.get(name) or {}).get(VALUE) or {}).get("value") or "") for name, *_ in FIELDS}


def saved_text(record_id: str) -> str:
    return f"Saved as `{kit.escape(record_id)}` — I'll answer this error from now on."


def saved_blocks(view: MatchView, *, locale: str = "en") -> list[dict[str, Any]]:
    """The thread reply after a save: what was saved, then the record as errfix will answer it
    (with its vote buttons, so the first votes come from the thread that taught it)."""
    return [kit.section(saved_text(view.id)), *kit.answer_blocks(view, sure=True, locale=locale)][: kit.MAX_BLOCKS]


def nudge_blocks(channel: str, thread_ts: str, reply_ts: str) -> list[dict[str, Any]]:
    """The private offer after ✅ on a reply: save the thread, with the fix from that reply."""
    value = {"c": channel, "t": thread_ts, "m": reply_ts}
    return [
        kit.section(NUDGE_TEXT),
        kit.actions("teach", kit.button("Save as errfix record", TEACH_OPEN, value, "primary")),
        kit.context("`/errfix teach off` stops these offers in this channel."),
    ]


def team_home_blocks(newest: list[MatchView], helpful: list[MatchView]) -> list[dict[str, Any]]:
    """The App Home's part about team records: the newest saved and the most helpful (by votes)."""
    if not newest:
        return []

    def line(v: MatchView) -> str:
        up = sum(w.votes_up for w in v.workarounds)
        return f"• `{kit.escape(v.id)}` {kit.escape(kit.cut(v.record.signature, 120))} · 👍 {up}"

    out = [kit.header("Taught by your team"), kit.section("*Newest:*\n" + "\n".join(line(v) for v in newest))]
    if helpful:
        out.append(kit.section("*Most helpful:*\n" + "\n".join(line(v) for v in helpful)))
    out.append(kit.context("Save a solved thread with *Save as errfix record* in a message's ⋯ menu."))
    return out

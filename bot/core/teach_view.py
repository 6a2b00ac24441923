"""Block Kit of "Teach errfix" (#17): the modal a shortcut opens and the reply a save posts (pure).

The modal holds the draft (bot/core/draft.py) in plain-text inputs the person may edit; the
record's id is derived from the error line when it is saved, never typed. Each input's block_id
is the name of the `TeachForm` field it fills, so per-field errors (`response_action: errors`)
land under the right box. Every word comes from the catalogue (bot/core/messages.py) in the
language of the person who reads it: the modal's opener, the nudge's addressee, the saver.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.core import blocks as kit
from bot.core.messages import lang_of, t
from bot.core.views import MatchView

TEACH_SHORTCUT = "errfix_teach"  # the message shortcut's callback_id (deploy/slack-manifest.yml)
TEACH_SUBMIT = "errfix_teach_submit"  # the modal's callback_id
TEACH_OPEN = "errfix_teach_open"  # the nudge's button: opens the same modal
VALUE = "value"  # every input's action_id
MAX_INPUT = 3_000  # Slack's plain_text_input limit

# (block_id = TeachForm field, multiline, optional); its label and hint are the catalogue's
# `teach_label_<field>` and `teach_hint_<field>`
FIELDS: tuple[tuple[str, bool, bool], ...] = (
    ("error_line", True, False),
    ("regex", True, False),
    ("root_cause", True, True),
    ("fix", True, False),
    ("how", True, True),
)


def nudge_text(lang: str | None = "en") -> str:
    """The nudge's words (also its notification text)."""
    return t("teach_nudge", lang)


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


def teach_modal(values: dict[str, str], meta: TeachMeta, *, record_id: str, lang: str | None = "en") -> dict[str, Any]:
    """The modal in `lang` (its opener's), prefilled with `values` (field → text; missing ones empty)."""
    blocks: list[dict[str, Any]] = []
    if not values.get("error_line"):
        blocks.append(kit.section(t("teach_no_error_line", lang)))
    for name, multiline, optional in FIELDS:
        label, hint = t(f"teach_label_{name}", lang), t(f"teach_hint_{name}", lang)
        blocks.append(_input(name, label, multiline, optional, hint, values.get(name, "")))
    note = "teach_saved_as_id" if not meta.record_id else "teach_updates_id"
    blocks.append(kit.context(t(note, lang, id=kit.escape(record_id), domain=meta.domain)))
    return {
        "type": "modal",
        "callback_id": TEACH_SUBMIT,
        "title": {"type": "plain_text", "text": t("teach_title", lang)},
        "submit": {"type": "plain_text", "text": t("teach_save", lang)},
        "close": {"type": "plain_text", "text": t("teach_cancel", lang)},
        "private_metadata": meta.dump(),
        "blocks": blocks,
    }


def submitted_values(view: dict[str, Any]) -> dict[str, str]:
    """Field → text of a submitted modal's inputs ('' for an empty one)."""
    state = (view.get("state") or {}).get("values") or {}
    return {name: str(((state.get(name) or {}).get(VALUE) or {}).get("value") or "") for name, *_ in FIELDS}


def not_saved_text(problems: dict[str, str], lang: str | None = "en") -> str:
    """The private note when a checked form still could not be stored (another save of the same
    error came first): its problems, named by field in English (as `errfix` prints them) and by
    the box's label in Chinese."""
    if lang_of(lang) == "zh":
        why = "；".join(f"{t(f'teach_label_{name}', lang)}：{text}" for name, text in problems.items())
    else:
        why = "; ".join(f"{name}: {text}" for name, text in problems.items())
    return t("teach_not_saved", lang, why=why)


def saved_text(record_id: str, lang: str | None = "en") -> str:
    return t("teach_saved", lang, id=kit.escape(record_id))


def saved_blocks(view: MatchView, *, locale: str = "en") -> list[dict[str, Any]]:
    """The thread reply after a save: what was saved, then the record as errfix will answer it
    (with its vote buttons, so the first votes come from the thread that taught it)."""
    said = kit.section(saved_text(view.id, locale))
    return [said, *kit.answer_blocks(view, sure=True, locale=locale)][: kit.MAX_BLOCKS]


def nudge_blocks(channel: str, thread_ts: str, reply_ts: str, lang: str | None = "en") -> list[dict[str, Any]]:
    """The private offer after ✅ on a reply: save the thread, with the fix from that reply."""
    value = {"c": channel, "t": thread_ts, "m": reply_ts}
    return [
        kit.section(nudge_text(lang)),
        kit.actions("teach", kit.button(t("teach_title", lang), TEACH_OPEN, value, "primary")),
        kit.context(t("teach_nudge_off", lang)),
    ]


def team_home_blocks(
    newest: list[MatchView], helpful: list[MatchView], lang: str | None = "en"
) -> list[dict[str, Any]]:
    """The App Home's part about team records: the newest saved and the most helpful (by votes)."""
    if not newest:
        return []

    def line(v: MatchView) -> str:
        up = sum(w.votes_up for w in v.workarounds)
        return f"• `{kit.escape(v.id)}` {kit.escape(kit.cut(kit.signature_of(v, lang or 'en'), 120))} · 👍 {up}"

    lines = "\n".join(line(v) for v in newest)
    out = [kit.header(t("teach_home_header", lang)), kit.section(t("teach_home_newest", lang) + "\n" + lines)]
    if helpful:
        out.append(kit.section(t("teach_home_helpful", lang) + "\n" + "\n".join(line(v) for v in helpful)))
    out.append(kit.context(t("teach_home_how", lang)))
    return out

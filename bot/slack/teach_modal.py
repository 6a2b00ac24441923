""" "Save as errfix record" (#17): the message shortcut, its modal, and the save.

The shortcut works on a paste, on a reply in its thread (the reply is the fix) or on errfix's own
answer: the paste is the thread's root, or the message itself. It is acknowledged at once, then
the modal is opened with the draft (`AsyncErrfix.draft`, the code `errfix draft` runs) before the
trigger's 3 seconds are up. A submission is checked per field (`response_action: errors` keeps
the modal open with the reasons); a valid one is acknowledged, stored and indexed (the service
rebuilds the index before it returns), then errfix says so in the thread with the record's
answer and vote buttons, and remembers that reply so votes on it count.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.draft import TeachForm
from bot.core.extract import unescape_slack
from bot.core.teach_view import (
    TEACH_SHORTCUT,
    TEACH_SUBMIT,
    TeachMeta,
    saved_blocks,
    saved_text,
    submitted_values,
    teach_modal,
)
from bot.errors import InvalidInput
from bot.service.errfix import Reply
from bot.slack.answers import paste_text
from bot.slack.deps import Deps, Listener


async def _paste_and_fix(deps: Deps, client: AsyncWebClient, channel: str, message: dict[str, Any]) -> tuple[str, str]:
    """(the paste, the fix) for the message a shortcut was used on: a reply's thread root is the
    paste and the reply the fix; errfix's own answer gives no fix; a root is its own paste."""
    ts = str(message.get("ts") or "")
    root = str(message.get("thread_ts") or ts)
    own = bool(message.get("bot_id"))
    if root == ts:
        return paste_text(message)[0], ""
    thread = await deps.outbox.thread(client, channel=channel, ts=root)
    first = next((m for m in thread if m.get("ts") == root), None)
    paste = paste_text(first)[0] if first else ""
    return paste, "" if own else unescape_slack(str(message.get("text") or ""))


def on_teach_shortcut(deps: Deps) -> Listener:
    async def handle_teach(ack: AsyncAck, shortcut: dict[str, Any], client: AsyncWebClient) -> None:
        """Open the teach modal, prefilled from the thread."""
        await ack()
        channel = str((shortcut.get("channel") or {}).get("id") or "")
        message = shortcut.get("message") or {}
        paste, fix = await _paste_and_fix(deps, client, channel, message)
        found = await deps.errfix.draft(paste, fix=fix)
        values = found.to_json() if found else {"fix": fix}
        if found:
            values["error_line"] = found.signature
        domain = found.domain if found else "general"
        ts = str(message.get("ts") or "")
        meta = TeachMeta(channel, str(message.get("thread_ts") or ts), ts, domain)
        rid = found.id if found else f"team/{domain}/…"
        await client.views_open(trigger_id=str(shortcut["trigger_id"]), view=teach_modal(values, meta, record_id=rid))

    return handle_teach


def on_teach_submit(deps: Deps) -> Listener:
    async def handle_submit(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        """Check the form (errors keep the modal open), then store it and say so in the thread."""
        meta = TeachMeta.load(str(view.get("private_metadata") or ""))
        values = submitted_values(view)
        form = TeachForm(
            values["error_line"], values["regex"], values["fix"], values["root_cause"], values["how"], meta.domain
        )
        problems = await deps.errfix.teach_problems(form, meta.record_id or None)
        if problems:
            await ack(response_action="errors", errors=problems)
            return
        await ack()
        user = str((body.get("user") or {}).get("id") or "")
        try:
            link = await client.chat_getPermalink(channel=meta.channel, message_ts=meta.thread_ts)
            permalink = str(link.get("permalink") or "")
        except SlackApiError:
            permalink = ""  # the record is still worth saving without its source
        try:
            rec = await deps.errfix.teach(form, submitter=user, permalink=permalink, record_id=meta.record_id or None)
        except InvalidInput as e:  # changed since the check (another save of the same error)
            await client.chat_postEphemeral(channel=meta.channel, user=user, text=f"Not saved: {e}")
            return
        shown = await deps.errfix.view(rec.id)
        if shown is None:
            return
        locale = (await deps.users.get(client, user)).locale
        reply_ts = await deps.outbox.post(
            client,
            channel=meta.channel,
            thread_ts=meta.thread_ts,
            reply_broadcast=False,
            text=saved_text(rec.id),
            blocks=saved_blocks(shown, locale=locale),
        )
        if reply_ts:
            reply = Reply(meta.channel, reply_ts, meta.thread_ts, meta.thread_ts, rec.id, 1.0, locale, sure=True)
            await deps.errfix.record_reply(reply)

    return handle_submit


def register(app: AsyncApp, deps: Deps) -> None:
    """The shortcut and the modal's submission, tracked like every listener."""
    app.shortcut(TEACH_SHORTCUT)(deps.activity.track(on_teach_shortcut(deps)))
    app.view(TEACH_SUBMIT)(deps.activity.track(on_teach_submit(deps)))

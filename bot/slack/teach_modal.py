""" "Save as errfix record" (#17): the message shortcut, its modal, and the save.

The shortcut works on a paste, on a reply in its thread (the reply is the fix) or on errfix's own
answer: the paste is the thread's root, or the message itself. It is acknowledged at once, then
the modal is opened with the draft (`AsyncErrfix.draft`, the code `errfix draft` runs) before the
trigger's 3 seconds are up. A submission is checked per field (`response_action: errors` keeps
the modal open with the reasons); a valid one is acknowledged, stored and indexed (the service
rebuilds the index before it returns), then errfix says so in the thread with the record's
answer and vote buttons, and remembers that reply so votes on it count. The modal, its problems and
the edit replies are in the language of the person using them (their Slack locale, `language`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.draft import TEAM_TIER, TeachForm
from bot.core.extract import unescape_slack
from bot.core.messages import language, t
from bot.core.records import Record
from bot.core.teach_view import (
    TEACH_OPEN,
    TEACH_SHORTCUT,
    TEACH_SUBMIT,
    TeachMeta,
    not_saved_text,
    nudge_blocks,
    nudge_text,
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


async def open_modal(
    deps: Deps, client: AsyncWebClient, *, trigger_id: str, channel: str, user: str, message: dict[str, Any]
) -> None:
    """Open the teach modal for `message` (a paste, a reply in its thread, or errfix's answer),
    prefilled from its thread, in `user`'s language, before `trigger_id`'s 3 seconds are up."""
    paste, fix = await _paste_and_fix(deps, client, channel, message)
    lang = language((await deps.users.get(client, user)).locale)
    found = await deps.errfix.draft(paste, fix=fix)
    values = found.to_json() if found else {"fix": fix}
    if found:
        values["error_line"] = found.signature
    domain = found.domain if found else "general"
    ts = str(message.get("ts") or "")
    meta = TeachMeta(channel, str(message.get("thread_ts") or ts), ts, domain)
    rid = found.id if found else f"team/{domain}/…"
    await client.views_open(trigger_id=trigger_id, view=teach_modal(values, meta, record_id=rid, lang=lang))


def on_teach_shortcut(deps: Deps) -> Listener:
    async def handle_teach(ack: AsyncAck, shortcut: dict[str, Any], client: AsyncWebClient) -> None:
        """Open the teach modal, prefilled from the thread."""
        await ack()
        channel = str((shortcut.get("channel") or {}).get("id") or "")
        message = shortcut.get("message") or {}
        user = str((shortcut.get("user") or {}).get("id") or "")
        trigger = str(shortcut["trigger_id"])
        await open_modal(deps, client, trigger_id=trigger, channel=channel, user=user, message=message)

    return handle_teach


def on_teach_button(deps: Deps) -> Listener:
    async def handle_teach_button(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        """The nudge's "Save as errfix record" button: the same modal, for the reply it names."""
        await ack()
        try:
            data = json.loads(str(action.get("value") or "{}"))
        except json.JSONDecodeError:
            return
        channel, ts = str(data.get("c") or ""), str(data.get("m") or "")
        thread = await deps.outbox.thread(client, channel=channel, ts=ts)
        message = next((m for m in thread if m.get("ts") == ts), None)
        if message is not None:
            user = str((body.get("user") or {}).get("id") or "")
            trigger = str(body["trigger_id"])
            await open_modal(deps, client, trigger_id=trigger, channel=channel, user=user, message=message)

    return handle_teach_button


async def nudge(deps: Deps, client: AsyncWebClient, *, channel: str, ts: str, user: str) -> bool:
    """After ✅ on a reply: offer the paste's author, privately, to save the thread as a record.

    Only when the reaction is the paste's author's, on a reply (not the paste) in a thread errfix
    did not answer, whose first message holds an error; at most once per thread, and never in a
    channel that said `/errfix teach off` or `/errfix here mention|off`. True when the offer was made.
    """
    if await deps.errfix.teach_off(channel) or await deps.errfix.channel_mode(channel) != "auto":
        return False  # `/errfix teach off`, or a channel where errfix speaks only when asked (#38)
    thread = await deps.outbox.thread(client, channel=channel, ts=ts)
    root = thread[0] if thread else {}
    root_ts = str(root.get("ts") or "")
    if not root_ts or root_ts == ts or root.get("user") != user or any(m.get("bot_id") for m in thread):
        return False
    if await deps.errfix.draft(paste_text(root)[0]) is None:
        return False
    if not await deps.errfix.first_seen([f"teach-nudge:{channel}:{root_ts}"]):
        return False
    lang = language((await deps.users.get(client, user)).locale)
    blocks = nudge_blocks(channel, root_ts, ts, lang)
    await client.chat_postEphemeral(channel=channel, user=user, thread_ts=root_ts, text=nudge_text(lang), blocks=blocks)
    return True


def record_values(rec: Record) -> dict[str, str]:
    """The teach form's fields of a stored team record (what `/errfix edit ID` reopens)."""
    fix = rec.workarounds[0] if rec.workarounds else None
    return {
        "error_line": rec.signature,
        "regex": rec.regex,
        "root_cause": rec.root_cause,
        "fix": fix.action if fix else "",
        "how": fix.how if fix else "",
    }


def team_info(rec: Record) -> dict[str, str]:
    """Who taught a team record and where (its `errfix_team` mark)."""
    mark = (rec.model_extra or {}).get("errfix_team")
    return {str(k): str(v) for k, v in mark.items()} if isinstance(mark, dict) else {}


async def open_edit(
    deps: Deps, client: AsyncWebClient, *, trigger_id: str, channel: str, user: str, record_id: str
) -> str | None:
    """`/errfix edit ID`: reopen the modal on a team record for its author or a workspace admin;
    the reason it cannot be (in their language), or None when the modal is open."""
    lang = language((await deps.users.get(client, user)).locale)
    shown = await deps.errfix.view(record_id)
    if shown is None or shown.record.verification_tier != TEAM_TIER:
        return t("teach_not_team", lang, id=record_id)
    author = team_info(shown.record).get("submitted_by", "")
    if user != author:
        info = await client.users_info(user=user)
        if not (info.get("user") or {}).get("is_admin"):
            return t("teach_not_yours", lang, author=author, id=record_id)
    meta = TeachMeta(channel, "", "", shown.record.domain or "general", record_id=record_id)
    view = teach_modal(record_values(shown.record), meta, record_id=record_id, lang=lang)
    await client.views_open(trigger_id=trigger_id, view=view)
    return None


def on_teach_submit(deps: Deps) -> Listener:
    async def handle_submit(ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient) -> None:
        """Check the form (errors keep the modal open), then store it and say so in the thread."""
        meta = TeachMeta.load(str(view.get("private_metadata") or ""))
        values = submitted_values(view)
        form = TeachForm(
            values["error_line"], values["regex"], values["fix"], values["root_cause"], values["how"], meta.domain
        )
        user = str((body.get("user") or {}).get("id") or "")
        locale = (await deps.users.get(client, user)).locale  # asked when the modal opened: cached
        lang = language(locale)
        problems = await deps.errfix.teach_problems(form, meta.record_id or None, lang)
        if problems:
            await ack(response_action="errors", errors=problems)
            return
        await ack()
        if meta.record_id:  # an edit: who taught it and where stay as they were
            await _save_edit(deps, client, form, meta, user, lang)
            return
        try:
            link = await client.chat_getPermalink(channel=meta.channel, message_ts=meta.thread_ts)
            permalink = str(link.get("permalink") or "")
        except SlackApiError:
            permalink = ""  # the record is still worth saving without its source
        try:
            rec = await deps.errfix.teach(form, submitter=user, permalink=permalink, record_id=meta.record_id or None)
        except InvalidInput as e:  # changed since the check (another save of the same error)
            text = await _not_saved(deps, form, meta, lang, e)
            await client.chat_postEphemeral(channel=meta.channel, user=user, text=text)
            return
        shown = await deps.errfix.view(rec.id)
        if shown is None:
            return
        fix = f"{form.fix}: {form.how}" if form.how else form.fix  # the thread is solved, by this (#36)
        excerpt = f"{fix} ({rec.id})"
        await deps.errfix.resolve(
            channel=meta.channel, thread_ts=meta.thread_ts, kind="saved", ts="", user_id=user, excerpt=excerpt
        )
        reply_ts = await deps.outbox.post(
            client,
            channel=meta.channel,
            thread_ts=meta.thread_ts,
            reply_broadcast=False,
            text=saved_text(rec.id, locale),
            blocks=saved_blocks(shown, locale=locale),
        )
        if reply_ts:
            reply = Reply(meta.channel, reply_ts, meta.thread_ts, meta.thread_ts, rec.id, 1.0, locale, sure=True)
            await deps.errfix.record_reply(reply)

    return handle_submit


async def _save_edit(
    deps: Deps, client: AsyncWebClient, form: TeachForm, meta: TeachMeta, user: str, lang: str
) -> None:
    before = await deps.errfix.view(meta.record_id)
    mark = team_info(before.record) if before else {}
    try:
        rec = await deps.errfix.teach(
            form,
            submitter=mark.get("submitted_by", user),
            permalink=mark.get("permalink", ""),
            record_id=meta.record_id,
            editor=user,
        )
    except InvalidInput as e:
        await client.chat_postEphemeral(
            channel=meta.channel, user=user, text=await _not_saved(deps, form, meta, lang, e)
        )
        return
    text = t("teach_updated", lang, id=rec.id)
    await client.chat_postEphemeral(channel=meta.channel, user=user, text=text)


async def _not_saved(deps: Deps, form: TeachForm, meta: TeachMeta, lang: str, error: InvalidInput) -> str:
    """Why a checked form was not stored, in `lang`: the service's error lists the problems in
    English, so they are asked again in the person's language (the service's own words when they
    have gone again since)."""
    problems = await deps.errfix.teach_problems(form, meta.record_id or None, lang)
    return not_saved_text(problems, lang) if problems else t("teach_not_saved", lang, why=error)


def register(app: AsyncApp, deps: Deps) -> None:
    """The shortcut, the nudge's button and the modal's submission, tracked like every listener."""
    app.shortcut(TEACH_SHORTCUT)(deps.activity.track(on_teach_shortcut(deps)))
    app.action(re.compile(rf"^{TEACH_OPEN}(?::m?\d+)?$"))(  # the digest's and Home's buttons carry :n
        deps.activity.track(on_teach_button(deps))
    )
    app.view(TEACH_SUBMIT)(deps.activity.track(on_teach_submit(deps)))

"""Posting an answer in a thread and keeping it up to date (shared by the listeners)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core import blocks as kit
from bot.core.messages import Note, language, notes_text
from bot.core.redact import redact_text
from bot.core.team_memory import Seen
from bot.core.views import Diagnosis
from bot.service.errfix import Reply
from bot.slack.deps import Deps, answer_key
from bot.slack.seen_before import seen_context
from bot.slack.snippets import PREVIEW_NOTE


def reply_key(channel: str, reply_ts: str) -> str:
    return f"{channel}:{reply_ts}"


def paste_text(event: dict[str, Any]) -> tuple[str, str]:
    """The text of a message as its event shows it (message plus file previews) and a note when
    only a preview was there; the listeners read whole files with `FileReader.paste`.
    """
    parts = [str(event.get("text") or "")]
    note = ""
    for f in event.get("files") or []:
        if not isinstance(f, dict):
            continue
        body = f.get("plain_text") or f.get("preview") or ""
        if body:
            parts.append(str(body))
        if not f.get("plain_text") and f.get("preview_is_truncated"):
            note = PREVIEW_NOTE
    return "\n".join(p for p in parts if p), note


async def claim_answer(deps: Deps, channel: str, ts: str) -> bool:
    """True once per message: the first to claim it answers it (a paste, a mention, an edit of
    either), so an edited message that was answered is not answered again."""
    return await deps.errfix.first_seen([f"answered:{channel}:{ts}"])


async def post_answer(
    deps: Deps,
    client: AsyncWebClient,
    *,
    event: dict[str, Any],
    diagnosis: Diagnosis,
    sure: bool,
    notes: Sequence[Note] = (),
    seen: Seen | None = None,
) -> str | None:
    """Answer in the message's thread and remember the reply (votes find the record through it)."""
    channel, ts = str(event["channel"]), str(event["ts"])
    thread_ts = str(event.get("thread_ts") or ts)
    key = answer_key(channel, ts)  # in the post's metadata: a replay finds it (bot/slack/jobs.py)
    user_locale = (await deps.users.get(client, str(event.get("user") or ""))).locale
    locale = language(user_locale, diagnosis.extracted.text)  # a Chinese paste is answered in Chinese
    note = notes_text(notes, locale)
    # "Seen before in #channel on Dec 3 · solved · thread" (#36), kept with the reply
    said = await seen_context(client, seen, locale) if seen is not None else ""
    if not diagnosis.matches:
        return await deps.outbox.post(
            client,
            channel=channel,
            thread_ts=thread_ts,
            key=key,
            text=kit.no_match_fallback(locale),
            blocks=kit.no_match_blocks(locale),
        )
    top, others = diagnosis.matches[0], ([] if sure else diagnosis.matches[1:])
    lines = diagnosis.extracted.lines
    line = redact_text(lines[0].raw) if lines else ""  # what errfix shows of a paste holds no secret
    shown = tuple((o.id, o.score) for o in others)
    reply_ts = await deps.outbox.post(
        client,
        channel=channel,
        thread_ts=thread_ts,
        key=key,
        payload={
            "record": top.id,
            "score": top.score,
            "sure": sure,
            "locale": locale,
            "others": [{"id": i, "score": s} for i, s in shown],
            "note": note,
            "kind_only": top.kind_only,
            "seen": said,
        },
        reply_broadcast=False,
        text=kit.answer_fallback(top, sure=sure, locale=locale),
        blocks=kit.answer_blocks(top, sure=sure, locale=locale, others=others, note=note, line=line, seen=said),
    )
    if reply_ts:
        await deps.errfix.record_reply(
            Reply(
                channel,
                reply_ts,
                ts,
                thread_ts,
                top.id,
                top.score,
                locale,
                sure=sure,
                others=shown,
                note=note,
                kind_only=top.kind_only,
                seen=said,
            )
        )
    return reply_ts


async def refresh_reply(deps: Deps, client: AsyncWebClient, channel: str, reply_ts: str) -> None:
    """Re-render one of our replies in place with the current counts (or its rejection).

    `deps.updates` runs the renders of one reply one at a time, at most one per second, each
    reading the votes when it starts, so the last update shows every vote written before it;
    a failed update is retried and logged, never raised.
    """

    async def render() -> None:
        reply = await deps.errfix.reply(channel, reply_ts)
        view = await deps.errfix.view(reply.record_id) if reply else None
        if reply is None or view is None:
            return
        view = dataclasses.replace(view, score=reply.score, knows=False if reply.kind_only else None)
        if reply.rejected_by:
            text = kit.rejected_fallback(view, reply.locale)
            blocks = kit.rejected_blocks(view, reply.rejected_by, reply.locale)
        else:  # the same answer as posted (sure or not, others shown, note), with today's counts
            sure = reply.sure if reply.sure is not None else view.score >= deps.errfix.reply_threshold
            others = []
            for rid, score in reply.others:
                other = await deps.errfix.view(rid)
                if other is not None:
                    others.append(dataclasses.replace(other, score=score))
            text = kit.answer_fallback(view, sure=sure, locale=reply.locale)
            blocks = kit.answer_blocks(
                view, sure=sure, locale=reply.locale, others=others, note=reply.note, line=reply.line, seen=reply.seen
            )
        await deps.outbox.update(client, channel=channel, ts=reply_ts, text=text, blocks=blocks)

    await deps.updates.refresh(reply_key(channel, reply_ts), render)

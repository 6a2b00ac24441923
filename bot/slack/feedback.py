"""Feedback on errfix's replies: vote buttons, reactions, "Not this error" and "This one".

A click is acknowledged at once: `Dedupe` has written it to the events file as owed work before the
listener runs (so a crash loses none: the next start applies it, once, `bot.slack.jobs`). The vote
is then written (one SQLite transaction, idempotent per click) and the reply updated in place with
the new counts. Reactions on a reply vote on its top workaround.
"""

from __future__ import annotations

import json
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.core import blocks as kit
from bot.core.messages import language, t
from bot.core.redact import redact_text
from bot.errors import NotFound
from bot.slack import teach_modal
from bot.slack.answers import refresh_reply, reply_key
from bot.slack.deps import Deps, Listener
from bot.slack.owed import JOB_KEY
from bot.slack.seen_before import resolve_by_reaction, resolve_by_vote

TEACH_NUDGE_REACTIONS = frozenset({"white_check_mark", "heavy_check_mark"})  # "this fixed it", on a reply
REACTIONS = {"+1": 1, "thumbsup": 1, "white_check_mark": 1, "heavy_check_mark": 1, "-1": -1, "thumbsdown": -1, "x": -1}


def value_of(action: dict[str, Any]) -> dict[str, str]:
    """A button's JSON value as a dict of strings ({} if it is not one of ours)."""
    try:
        data = json.loads(str(action.get("value") or ""))
    except json.JSONDecodeError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def where(body: dict[str, Any]) -> tuple[str, str]:
    """(channel, message ts) of the message whose button was pressed."""
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id") or ""
    return str(channel), str(container.get("message_ts") or "")


def on_vote_button(deps: Deps) -> Listener:
    async def handle_vote(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient, context: AsyncBoltContext
    ) -> None:
        """Worked / Didn't work: a second click on the same button withdraws, the other one changes."""
        await ack()  # the click is already kept as owed work (Dedupe): acknowledged means done
        channel, ts = where(body)
        wkey = value_of(action).get("w", "")
        value = 1 if str(action.get("action_id", "")).startswith(kit.VOTE_UP) else -1
        changed = False
        try:
            reply = await deps.errfix.reply(channel, ts)
            if reply is not None and not reply.rejected_by and wkey:
                user = str(body["user"]["id"])
                click = context.get(JOB_KEY)
                held = await deps.errfix.click_vote(reply_key(channel, ts), reply.record_id, wkey, user, value, click)
                changed = True
                if held == 1:  # a fix that worked solves the thread the paste is in (#36)
                    await resolve_by_vote(deps, reply, wkey, user)
        except NotFound:
            deps.logger.info("errfix: vote on a workaround that is no longer in the record (%s)", wkey)
        if changed:
            await refresh_reply(deps, client, channel, ts)

    return handle_vote


def on_reaction(deps: Deps) -> Listener:
    async def handle_reaction(event: dict[str, Any], client: AsyncWebClient, context: AsyncBoltContext) -> None:
        """+1 / white_check_mark: the top workaround worked; -1 / x: it didn't; removed: withdrawn."""
        name = str(event.get("reaction", "")).split("::")[0]
        value = REACTIONS.get(name)
        item = event.get("item") or {}
        user = str(event.get("user") or "")
        if item.get("type") != "message" or not user or user == context.bot_user_id:
            return
        channel, ts = str(item.get("channel", "")), str(item.get("ts", ""))
        added = event.get("type") == "reaction_added"
        if added:  # a reply marked ✅, or reacted to by the paster, solves its thread (#36)
            await resolve_by_reaction(deps, client, channel=channel, ts=ts, user=user, reaction=name)
        if value is None:
            return
        reply = await deps.errfix.reply(channel, ts)
        if reply is None and added and str(event.get("reaction", "")).split("::")[0] in TEACH_NUDGE_REACTIONS:
            await teach_modal.nudge(deps, client, channel=channel, ts=ts, user=user)  # ✅ on a fix in a thread (#17)
            return
        if reply is None or reply.rejected_by or (await deps.users.get(client, user)).is_bot:
            return
        if await deps.errfix.reaction_vote(reply_key(channel, ts), reply.record_id, user, value, added):
            await refresh_reply(deps, client, channel, ts)

    return handle_reaction


def on_not_this(deps: Deps) -> Listener:
    async def handle_not_this(
        ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond, context: AsyncBoltContext
    ) -> None:
        """Store the rejection, strike the reply through, offer the clicker other candidates."""
        await ack()  # kept as owed work before this ran (Dedupe); a replay rejects once (idempotent)
        channel, ts = where(body)
        user = str(body["user"]["id"])
        line = None
        reply = await deps.errfix.reply(channel, ts)
        if reply is not None and not reply.rejected_by:
            line = await deps.errfix.reject(
                channel=channel, message_ts=reply.message_ts, record_id=reply.record_id, user_id=user
            )
        if reply is None or line is None:
            return
        await refresh_reply(deps, client, channel, ts)
        others = [m for m in await deps.errfix.search(line) if m.id != reply.record_id]
        locale = reply.locale  # the answer's language (the asker's, or the paste's)
        weak = deps.errfix.search_threshold
        await respond(
            response_type="ephemeral",
            replace_original=False,
            text=t("not_this_thanks", locale),
            blocks=kit.search_blocks(line, others, learn_line=line, share=False, locale=locale, weak_below=weak),
        )

    return handle_not_this


def on_this_one(deps: Deps) -> Listener:
    async def handle_this_one(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
        context: AsyncBoltContext,
    ) -> None:
        """The user picked the right record for a paste: its error line becomes an alias of it."""
        await ack()  # kept as owed work before this ran (Dedupe); learning an alias twice is once
        data = value_of(action)
        record_id, line = data.get("r", ""), data.get("l", "")
        added = bool(record_id and line) and await deps.errfix.learn_alias(record_id, line, str(body["user"]["id"]))
        locale = language((await deps.users.get(client, str(body["user"]["id"]))).locale, line)
        shown = kit.escape(kit.cut(redact_text(line), 200))  # the line as learned: redacted (#18)
        await respond(
            response_type="ephemeral",
            replace_original=False,
            text=t("learned" if added else "already_known", locale, line=shown, id=f"`{kit.escape(record_id)}`"),
        )

    return handle_this_one

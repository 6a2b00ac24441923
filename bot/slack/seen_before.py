"""Team memory in Slack (#36): "seen before" on answers, the team's own answer, and how threads
get solved (a reply marked ✅ or reacted to by the paster; bot/store/memory.py keeps it).

Links go only where the asker's channel may look: the store returns earlier threads of this
channel or of public channels, never a DM's, group DM's or another private channel's.
"""

from __future__ import annotations

import json
from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.extract import unescape_slack
from bot.core.team_memory import Seen, seen_line, team_answer_blocks, team_answer_text
from bot.service.errfix import Reply
from bot.slack.deps import Deps, Listener, answer_key

SOLVED_REACTIONS = frozenset({"white_check_mark", "heavy_check_mark", "ballot_box_with_check"})


async def permalink(client: AsyncWebClient, channel: str, ts: str) -> str | None:
    """The earlier paste's permalink; None when Slack will not give one (it is then not linked)."""
    try:
        resp = await client.chat_getPermalink(channel=channel, message_ts=ts)
    except SlackApiError:
        return None
    link = resp.get("permalink")
    return str(link) if link else None


async def seen_context(client: AsyncWebClient, seen: Seen, lang: str) -> str:
    """The one context line a record's answer gets: where and when, solved or not, the thread."""
    return seen_line(seen, await permalink(client, seen.channel, seen.thread_ts), lang)


async def post_team_answer(deps: Deps, client: AsyncWebClient, event: dict[str, Any], seen: Seen, lang: str) -> None:
    """Answer in the paste's thread with the earlier thread and what solved it."""
    channel, ts = str(event["channel"]), str(event["ts"])
    link = await permalink(client, seen.channel, seen.thread_ts)
    await deps.outbox.post(
        client,
        channel=channel,
        thread_ts=str(event.get("thread_ts") or ts),
        key=answer_key(channel, ts),  # found again by a replay: posted once (bot/slack/jobs.py)
        payload={"memory": seen.memory_id},
        text=team_answer_text(seen, lang),
        blocks=team_answer_blocks(seen, link, lang),
    )


def on_memory_vote(deps: Deps) -> Listener:
    async def handle_memory_vote(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        """Worked / Didn't work on a team answer: stored, then the answer shows the new counts."""
        await ack()
        try:
            data = json.loads(str(action.get("value") or "{}"))
            memory_id = int(data["m"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            return  # not a value errfix made
        user = str((body.get("user") or {}).get("id") or "")
        if not user:
            return
        value = 1 if str(action.get("action_id")) == "errfix_memory_up" else -1
        seen = await deps.errfix.memory_vote(memory_id, user, value)
        channel = str((body.get("channel") or {}).get("id") or "")
        ts = str((body.get("message") or {}).get("ts") or (body.get("container") or {}).get("message_ts") or "")
        if seen is None or not channel or not ts:
            return
        lang = str(data.get("lang") or "en")
        link = await permalink(client, seen.channel, seen.thread_ts)
        await deps.outbox.update(
            client,
            channel=channel,
            ts=ts,
            text=team_answer_text(seen, lang),
            blocks=team_answer_blocks(seen, link, lang),
        )

    return handle_memory_vote


async def resolve_by_reaction(
    deps: Deps, client: AsyncWebClient, *, channel: str, ts: str, user: str, reaction: str
) -> bool:
    """A reply marked ✅ (by anyone) or reacted to by the paster solves its remembered thread."""
    if reaction not in SOLVED_REACTIONS and not await deps.errfix.pasted_in(channel, user):
        return False  # neither a ✅ nor someone who pasted here: not worth reading the thread
    thread = await deps.outbox.thread(client, channel=channel, ts=ts)
    root = str(thread[0].get("ts") or "") if thread else ""
    reply = next((m for m in thread if m.get("ts") == ts), None)
    if not root or root == ts or reply is None or reply.get("bot_id"):
        return False
    paster = await deps.errfix.thread_author(channel, root)
    if paster is None or (reaction not in SOLVED_REACTIONS and user != paster):
        return False
    words = unescape_slack(str(reply.get("text") or ""))
    return await deps.errfix.resolve(
        channel=channel, thread_ts=root, kind="check", ts=ts, user_id=str(reply.get("user") or ""), excerpt=words
    )


async def resolve_by_vote(deps: Deps, reply: Reply, wkey: str, user: str) -> bool:
    """*Worked* on a fix in errfix's answer solves the paste's thread, with that fix as its words."""
    view = await deps.errfix.view(reply.record_id)
    fix = next((w for w in view.workarounds if w.wkey == wkey), None) if view is not None else None
    if fix is None:
        return False
    words = f"{fix.action}: {fix.how}" if fix.how else fix.action
    return await deps.errfix.resolve(
        channel=reply.channel, thread_ts=reply.thread_ts, kind="worked", ts=reply.reply_ts, user_id=user, excerpt=words
    )

"""Event listeners (messages, mentions, App Home) and the registration of every listener.

Listeners are built by small factories over `Deps`; bolt hands them what they name (`event`,
`client`, `context`…). Middleware has already dropped noise, duplicates and rate-limited
channels by the time they run.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core import blocks as kit
from bot.core.digest_view import ChannelView, home_channels_blocks
from bot.core.messages import language, t
from bot.core.teach_view import team_home_blocks
from bot.core.team_memory import MEMORY_DOWN, MEMORY_UP, Seen, memorable
from bot.core.team_memory import home_blocks as memory_home_blocks
from bot.core.views import Diagnosis
from bot.slack import commands, feedback, teach_modal
from bot.slack.answers import claim_answer, paste_text, post_answer
from bot.slack.deps import Deps, Listener
from bot.slack.middleware import edited_message
from bot.slack.secret_notice import warn_of_secrets
from bot.slack.seen_before import on_memory_vote, permalink, post_team_answer
from bot.slack.words import answer_words

_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
DIRECT = frozenset({"im", "mpim"})


def on_message(deps: Deps) -> Listener:
    async def handle_message(event: dict[str, Any], client: AsyncWebClient, context: AsyncBoltContext) -> None:
        """A channel message (or DM), or a person's edit of one."""
        edit = edited_message(event)
        if edit is not None:
            await answer_edit(deps, client, edit, f"<@{context.bot_user_id}>")
        else:
            await answer_message(deps, client, event)

    return handle_message


async def answer_message(deps: Deps, client: AsyncWebClient, event: dict[str, Any], *, usage: bool = True) -> None:
    """Answer in the message's thread when the matcher is sure (in a DM or group DM: always);
    a DM that is no error gets the usage text (with `usage`: not again for its edits)."""
    channel, ts = str(event["channel"]), str(event["ts"])
    kind = event.get("channel_type")
    direct = kind in DIRECT  # a group DM's errors are answered like a DM's
    mode = "auto" if direct else await deps.errfix.channel_mode(channel)  # `/errfix here` (#38)
    if mode == "off":
        return  # errfix says nothing there and keeps nothing of it
    paste = await deps.files.paste(client, event)
    await warn_of_secrets(deps, client, event, paste.text)
    diagnosis = await deps.errfix.diagnose(paste.text)
    chatter = not diagnosis.is_error and not diagnosis.matches
    if kind == "im" and not diagnosis.is_error:  # words, not a paste: the search /errfix runs, once per message
        claim = partial(claim_answer, deps, channel, ts)
        if await answer_words(deps, client, event, paste.text, diagnosis, paste.notes, claim=claim):
            author = str(event.get("user") or "")  # kept with the paste so `errfix forget-user` finds it
            await deps.errfix.log_paste(channel, ts, diagnosis, replied=True, channel_type="im", user_id=author)
            return
    if chatter and kind == "im" and usage:
        locale = language((await deps.users.get(client, str(event.get("user") or ""))).locale, paste.text)
        await deps.outbox.post(
            client, channel=channel, text=t("dm_usage_fallback", locale), blocks=kit.usage_blocks(locale)
        )
        return
    if chatter and kind in DIRECT:  # in a group DM people talk to each other, not to errfix
        return
    author = str(event.get("user") or "")  # kept with the paste so `errfix forget-user` finds it
    earlier = await _remember(deps, event, diagnosis) if not direct else []
    # in a `mention` channel pastes are counted (the digest, the App Home) but answered only when asked
    answer = mode == "auto" and (diagnosis.reply or direct) and (direct or deps.limiter.take(channel))
    answer = answer and await claim_answer(deps, channel, ts)
    # no record knows it, but the team solved it before: its own answer, like any unprompted one
    solved = next((s for s in earlier if s.solved), None)
    team = not answer and solved is not None and mode == "auto" and not diagnosis.reply
    team = team and deps.limiter.take(channel) and await claim_answer(deps, channel, ts)
    await deps.errfix.log_paste(
        channel, ts, diagnosis, replied=bool(answer or team), channel_type=str(kind or ""), user_id=author
    )
    if answer:
        seen = earlier[0] if earlier else None
        await post_answer(
            deps, client, event=event, diagnosis=diagnosis, sure=diagnosis.reply, notes=paste.notes, seen=seen
        )
    elif team and solved is not None:
        await post_team_answer(deps, client, event, solved, await _lang(deps, client, event, paste.text))


async def _remember(deps: Deps, event: dict[str, Any], diagnosis: Diagnosis) -> list[Seen]:
    """Team memory (#36): a thread reply is counted in its thread; a paste's error is remembered,
    and the earlier pastes of the same error this channel may see are returned."""
    channel, ts = str(event["channel"]), str(event["ts"])
    thread_ts, user = str(event.get("thread_ts") or ts), str(event.get("user") or "")
    if thread_ts != ts:
        await deps.errfix.note_reply(channel, thread_ts, user)
    if not (diagnosis.is_error or memorable(diagnosis.extracted)):
        return []
    kind = str(event.get("channel_type") or "")
    return await deps.errfix.remember(
        diagnosis.extracted, channel=channel, channel_type=kind, ts=ts, thread_ts=thread_ts, user_id=user
    )


async def _lang(deps: Deps, client: AsyncWebClient, event: dict[str, Any], text: str) -> str:
    return language((await deps.users.get(client, str(event.get("user") or ""))).locale, text)


def on_mention(deps: Deps) -> Listener:
    async def handle_mention(event: dict[str, Any], client: AsyncWebClient, context: AsyncBoltContext) -> None:
        """@errfix always answers: the best candidates, labelled unsure when they are."""
        await answer_mention(deps, client, event)

    return handle_mention


async def answer_mention(deps: Deps, client: AsyncWebClient, event: dict[str, Any]) -> None:
    """The answer to a mention: the message's error, else the thread's (`@errfix ?` under a paste)."""
    if not await claim_answer(deps, str(event["channel"]), str(event["ts"])):
        return
    if event.get("channel_type") not in DIRECT and await deps.errfix.channel_mode(str(event["channel"])) == "off":
        await _say_off(deps, client, event)
        return
    paste = await deps.files.paste(client, event)
    await warn_of_secrets(deps, client, event, paste.text)
    diagnosis = await deps.errfix.diagnose(_MENTION.sub(" ", paste.text))
    if not diagnosis.is_error and event.get("thread_ts"):
        in_thread = await deps.errfix.diagnose(await _thread_text(deps, client, event))
        diagnosis = in_thread if in_thread.matches else diagnosis
    # app_mention events carry no channel_type: logged as unknown, which shared views treat as private
    kind = str(event.get("channel_type") or "")
    author = str(event.get("user") or "")
    await deps.errfix.log_paste(
        str(event["channel"]), str(event["ts"]), diagnosis, replied=True, channel_type=kind, user_id=author
    )
    words = _MENTION.sub(" ", paste.text)
    if not diagnosis.is_error and await answer_words(deps, client, event, words, diagnosis, paste.notes):
        return  # words, not a paste: the search /errfix runs, "not sure" when it is
    earlier = await _remember(deps, event, diagnosis) if kind not in DIRECT else []
    if earlier and not diagnosis.reply:  # asked: the team's earlier thread, solved or discussed (#36)
        await post_team_answer(deps, client, event, earlier[0], await _lang(deps, client, event, paste.text))
        return
    seen = earlier[0] if earlier else None
    await post_answer(
        deps, client, event=event, diagnosis=diagnosis, sure=diagnosis.reply, notes=paste.notes, seen=seen
    )


async def _say_off(deps: Deps, client: AsyncWebClient, event: dict[str, Any]) -> None:
    """A mention in an `off` channel: one line, to the person only, saying how to turn errfix on."""
    user = str(event.get("user") or "")
    locale = language((await deps.users.get(client, user)).locale, str(event.get("text") or ""))
    await client.chat_postEphemeral(channel=str(event["channel"]), user=user, text=t("here_off_mention", locale))


async def answer_edit(deps: Deps, client: AsyncWebClient, edit: dict[str, Any], mention: str) -> None:
    """An edited message is answered as if it were new, but never twice: an edit that adds
    @errfix is a mention; one that adds an error is a paste; an answered message is left be."""
    if mention in str(edit.get("text") or "") and mention not in str(edit.get("previous_text") or ""):
        await answer_mention(deps, client, edit)
    elif mention not in str(edit.get("text") or "") or edit.get("channel_type") == "im":
        await answer_message(deps, client, edit, usage=False)


async def _thread_text(deps: Deps, client: AsyncWebClient, event: dict[str, Any]) -> str:
    """The people's messages of the thread a mention was made in (the paste is usually there)."""
    messages = await deps.outbox.thread(client, channel=str(event["channel"]), ts=str(event["thread_ts"]))
    texts = [paste_text(m)[0] for m in messages if not m.get("bot_id") and m.get("ts") != event.get("ts")]
    return "\n".join(texts)


def on_home(deps: Deps) -> Listener:
    async def handle_home(event: dict[str, Any], client: AsyncWebClient) -> None:
        """The Home tab: this week's frequent errors, fixes that worked, unmatched pastes."""
        if event.get("tab", "home") != "home":
            return
        week = await deps.errfix.home()
        summary = kit.HomeSummary(week.top_errors, week.top_fixes, week.unmatched)
        user = str(event["user"])
        locale = (await deps.users.get(client, user)).locale
        view = kit.home_view(summary, locale)
        newest, helpful = await deps.errfix.team_home()
        with_team = view["blocks"] + team_home_blocks(newest, helpful, locale)  # team records (#17), when they fit
        if kit.fits(with_team, kit.MAX_HOME_BLOCKS):
            view["blocks"] = with_team
        solved, worth = await deps.errfix.memory_home()  # team memory (#36): public channels only
        links = {(c, th): url for _, _, c, th in solved if (url := await permalink(client, c, th))}
        remembered = memory_home_blocks(solved, worth, links, locale)
        if kit.fits(view["blocks"] + remembered, kit.MAX_HOME_BLOCKS):
            view["blocks"] = view["blocks"] + remembered
        schedule = deps.settings.digest_schedule.label()
        mine = home_channels_blocks(await _channels_of(deps, client, user), schedule, locale)  # (#38)
        if kit.fits(view["blocks"] + mine, kit.MAX_HOME_BLOCKS):
            view["blocks"] = view["blocks"] + mine
        await client.views_publish(user_id=user, view=view)

    return handle_home


CHANNEL_TYPES = "public_channel,private_channel"


async def _conversations(client: AsyncWebClient, user: str | None) -> set[str]:
    """The channels `user` (errfix itself when None) is in, as far as errfix may see them."""
    found: set[str] = set()
    cursor = ""
    for _ in range(10):  # at most 2,000 channels: a Home tab shows 40
        options: dict[str, Any] = {"types": CHANNEL_TYPES, "limit": 200, "exclude_archived": True}
        if user:
            options["user"] = user
        if cursor:
            options["cursor"] = cursor
        resp = await client.users_conversations(**options)
        found |= {str(c.get("id")) for c in resp.get("channels") or []}
        cursor = str((resp.get("response_metadata") or {}).get("next_cursor") or "")
        if not cursor:
            break
    return found


async def _channels_of(deps: Deps, client: AsyncWebClient, user: str) -> list[ChannelView]:
    """The channels errfix is in that `user` is in too, with their settings; none (and a log
    line) when Slack refuses, e.g. an install from before channels:read and groups:read."""
    try:
        both = await _conversations(client, user) & await _conversations(client, None)
    except SlackApiError as e:
        deps.logger.warning("errfix: cannot list channels for the Home tab: %s", e.response.get("error"))
        return []
    return [await deps.errfix.channel(c) for c in sorted(both)]


async def ignore_event() -> None:
    """An event type errfix does not handle (Slack retries, then disables, what gets a 404)."""


def register(app: AsyncApp, deps: Deps) -> None:
    """Every listener, each wrapped so `deps.activity` knows when work is in flight; those of
    events whose work is owed (`bot.slack.owed`) also finish their job when they return."""
    track, owed = deps.activity.track, deps.jobs.completing
    teach_modal.register(app, deps)  # "Save as errfix record" (#17)
    app.command("/errfix")(track(commands.on_errfix(deps)))
    app.action(re.compile(rf"^(?:{kit.VOTE_UP}|{kit.VOTE_DOWN}):"))(track(owed(feedback.on_vote_button(deps))))
    app.action(kit.NOT_THIS)(track(owed(feedback.on_not_this(deps))))
    app.action(re.compile(rf"^{kit.THIS_ONE}:"))(track(owed(feedback.on_this_one(deps))))
    app.action(kit.SHARE)(track(commands.on_share(deps)))
    app.action(re.compile(rf"^(?:{MEMORY_UP}|{MEMORY_DOWN})$"))(track(on_memory_vote(deps)))  # team answers (#36)
    app.event("reaction_added")(track(owed(feedback.on_reaction(deps))))
    app.event("reaction_removed")(track(owed(feedback.on_reaction(deps))))
    app.event("app_home_opened")(track(on_home(deps)))
    app.event("app_mention")(track(owed(on_mention(deps))))
    app.event("message")(track(owed(on_message(deps))))  # the catch-all for messages: keep it last
    app.event(re.compile(".+"))(ignore_event)  # and for every other event type: 200, not bolt's 404

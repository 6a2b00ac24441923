"""`/errfix` and its "Share in channel" button. Acked first, answered through response_url."""

from __future__ import annotations

from typing import Any

from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.core import blocks as kit
from bot.core.digest_view import MODES, here_text, mode_note
from bot.core.extract import extract
from bot.core.messages import language, t
from bot.core.redact import redact_text
from bot.slack import teach_modal
from bot.slack.deps import Deps, Listener
from bot.slack.digest import post_digest
from bot.slack.feedback import value_of

HELP_WORDS = frozenset({"", "help", "-h", "--help", "?", "usage"})


async def _learn_line(deps: Deps, text: str, user: str) -> str | None:
    """The error line a "This one" button should teach: the query's own, else the user's last rejected paste."""
    ex = extract(text)
    if ex.is_error and ex.lines:
        return redact_text(ex.lines[0].raw)  # it goes into the button and the answer's text (#18)
    return await deps.errfix.last_rejected_line(user)


TEACH_SWITCH = frozenset({"teach off", "teach on"})


def on_errfix(deps: Deps) -> Listener:
    async def handle_errfix(
        ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient
    ) -> None:
        """`/errfix [help | stats | ID | words…]`, answered ephemerally."""
        await ack()
        text = str(command.get("text") or "").strip()
        user = str(command.get("user_id") or "")
        word = text.lower()
        locale = language((await deps.users.get(client, user)).locale, text)
        if word in HELP_WORDS:
            usage = kit.usage(locale)
            await respond(response_type="ephemeral", text=kit.escape(usage), blocks=kit.usage_blocks(locale))
            return
        if word.startswith("edit ") and len(text.split()) == 2:  # reopen a team record's modal (#17)
            why = await teach_modal.open_edit(
                deps,
                client,
                trigger_id=str(command.get("trigger_id") or ""),
                channel=str(command.get("channel_id") or ""),
                user=user,
                record_id=text.split()[1],
            )
            if why:
                await respond(response_type="ephemeral", text=why)
            return
        if word in TEACH_SWITCH:  # "save this?" offers after ✅ in this channel (#17)
            channel = str(command.get("channel_id") or "")
            await deps.errfix.set_teach_off(channel, word == "teach off", user)
            said = t("teach_off" if word == "teach off" else "teach_on", locale)
            await respond(response_type="ephemeral", text=said)
            return
        if word.split()[0:1] in (["here"], ["digest"]):  # a channel's settings and digest (#38)
            await channel_command(deps, client, respond, command, word.split(), locale)
            return
        if word == "stats":
            stats, week = await deps.errfix.stats(), await deps.errfix.week()
            counts = {
                **stats.to_json(),
                "pastes_week": week.pastes,
                "answered_week": week.answered,
                "unmatched_week": week.unmatched,
            }
            await respond(
                response_type="ephemeral", text=kit.stats_fallback(locale), blocks=kit.stats_blocks(counts, locale)
            )
            return
        view = await deps.errfix.view(text) if len(text.split()) == 1 else None
        if view is not None:
            await respond(
                response_type="ephemeral",
                text=kit.record_fallback(view, locale),
                blocks=kit.record_blocks(view, locale=locale),
            )
            return
        results = await deps.errfix.search(text)
        learn = await _learn_line(deps, text, user) if results else None
        weak = deps.errfix.search_threshold
        shown = redact_text(text)  # the query is echoed, and kept in "Share in channel" (#18)
        await respond(
            response_type="ephemeral",
            text=kit.search_fallback(shown, results, locale, weak),
            blocks=kit.search_blocks(shown, results, learn_line=learn, locale=locale, weak_below=weak),
        )

    return handle_errfix


def _in_a_channel(command: dict[str, Any]) -> bool:
    """Slash commands from a DM or group DM say so in channel_name; their ids start with D."""
    name = str(command.get("channel_name") or "")
    return not (
        str(command.get("channel_id") or "").startswith("D") or name == "directmessage" or name.startswith("mpdm-")
    )


async def channel_command(
    deps: Deps, client: AsyncWebClient, respond: AsyncRespond, command: dict[str, Any], words: list[str], locale: str
) -> None:
    """`/errfix here [auto|mention|off]` and `/errfix digest weekly|off|now` in a channel."""
    channel, user = str(command.get("channel_id") or ""), str(command.get("user_id") or "")
    if not _in_a_channel(command):
        await respond(response_type="ephemeral", text=t("here_not_channel", locale))
        return
    schedule = deps.settings.digest_schedule.label()
    verb, arg = words[0], (words[1] if len(words) > 1 else "")
    if verb == "here" and arg in MODES:
        if await deps.errfix.set_channel_mode(channel, arg, user):
            note = mode_note(arg, user, locale)
            await deps.outbox.post(client, channel=channel, text=note)  # the channel sees who changed it
        said = t("here_set", locale, mode=t(f"mode_{arg}", locale))
        hint = "\n" + t("here_erase_hint", locale) if arg == "off" else ""
        await respond(response_type="ephemeral", text=said + hint)
    elif verb == "digest" and arg in ("weekly", "off"):
        await deps.errfix.set_weekly_digest(channel, arg == "weekly", user, deps.now())
        said = t("digest_set_weekly", locale, when=schedule) if arg == "weekly" else t("digest_set_off", locale)
        await respond(response_type="ephemeral", text=said)
    elif verb == "digest" and arg == "now":
        ts = await post_digest(
            deps.errfix, deps.outbox, deps.users, client, deps.settings.digest_schedule, channel=channel, now=deps.now()
        )
        if ts is None:
            await respond(response_type="ephemeral", text=t("digest_not_in_channel", locale))
    else:  # `/errfix here` alone, or a word it does not know: the channel's settings and how to change them
        view = await deps.errfix.channel(channel)
        await respond(response_type="ephemeral", text=here_text(view, schedule, locale))


def on_share(deps: Deps) -> Listener:
    async def handle_share(ack: AsyncAck, action: dict[str, Any], body: dict[str, Any], respond: AsyncRespond) -> None:
        """Post the ephemeral answer for everyone in the channel (without its buttons)."""
        await ack()
        data = value_of(action)
        user = str((body.get("user") or {}).get("id") or "")
        locale = data.get("lang", "en")  # the language of the message the button was on
        if "id" in data:
            view = await deps.errfix.view(data["id"])
            if view is None:
                return
            text, blocks = kit.record_fallback(view, locale), kit.record_blocks(view, locale=locale, share=False)
        elif "q" in data:
            query = redact_text(data["q"])  # posted for the whole channel: never a secret, whatever the button held
            weak = deps.errfix.search_threshold
            results = await deps.errfix.search(query)
            text = kit.search_fallback(query, results, locale, weak)
            blocks = kit.search_blocks(query, results, share=False, locale=locale, weak_below=weak)
        else:
            return
        blocks = [*blocks[: kit.MAX_BLOCKS - 1], kit.context(t("shared_by", locale, user=f"<@{user}>"))]
        channel = str((body.get("channel") or {}).get("id") or "")
        await deps.outbox.pacer.wait(channel)  # a post in the channel like any other
        await respond(response_type="in_channel", replace_original=False, text=text, blocks=blocks)

    return handle_share

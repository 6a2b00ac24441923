"""End to end: signed requests to the real bolt app over HTTP, a real SQLite file, the strict fake Slack."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.fakeslack.events import sign
from bot.fakeslack.web_api import BOT_ID, BOT_USER_ID
from bot.store.store import Store
from tests.slack.conftest import (
    ALICE,
    CHANNEL,
    OTHER_CHANNEL,
    PASTE,
    RECORD,
    ROBOT,
    SECRET,
    ZHANG,
    Bot,
    all_text,
    buttons,
    event_body,
    message_event,
    slack_escape,
)

CHITCHAT = "anyone up for lunch? the NaN cafe is open"


async def test_a_traceback_is_answered_once_in_its_thread(bot: Bot, read_store: Callable[[], Store]) -> None:
    message = await bot.paste()
    answer = await bot.answer_to(message)
    call = bot.fake.calls("chat.postMessage")[0]
    assert call.params["thread_ts"] == message["ts"] and call.params["channel"] == CHANNEL
    assert call.params["unfurl_links"] is False and call.params["reply_broadcast"] is False
    seen = all_text(answer)
    assert "RuntimeError: Loss is NaN or Inf at step 1000" in seen and RECORD in seen and "% match" in seen
    assert "gradient clipping" in seen and "Don't bother" in seen  # workarounds and dead ends
    assert "Also possible" not in seen  # a sure answer lists no other candidates
    assert answer["text"]  # the fallback is always there
    assert [b["text"]["text"] for b in buttons(answer)].count("Worked") == 3
    assert buttons(answer, "errfix_not_this")
    assert not bot.fake.warnings
    reply = read_store().reply(CHANNEL, answer["ts"])
    assert reply is not None and reply.record_id == RECORD and reply.message_ts == message["ts"]
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


async def test_a_paste_inside_a_thread_is_answered_in_that_thread(bot: Bot) -> None:
    root = bot.fake.add_message(CHANNEL, "training keeps dying", ALICE)
    message = await bot.paste(thread_ts=root["ts"])
    answer = await bot.answer_to(message)
    assert answer["thread_ts"] == root["ts"]
    assert bot.fake.calls("chat.postMessage")[0].params["thread_ts"] == root["ts"]


async def test_a_file_share_snippet_is_read_from_its_preview(bot: Bot) -> None:
    message = bot.fake.add_message(CHANNEL, "this again", ALICE)
    snippet = {"id": "F1", "filetype": "text", "preview": slack_escape(PASTE), "preview_is_truncated": True}
    await bot.event(message_event(message, subtype="file_share", files=[snippet]))
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer) and "preview" in all_text(answer)


async def test_thread_broadcasts_are_answered(bot: Bot) -> None:
    root = bot.fake.add_message(CHANNEL, "hmm", ALICE)
    message = await bot.paste(thread_ts=root["ts"], subtype="thread_broadcast")
    assert (await bot.answer_to(message))["thread_ts"] == root["ts"]


async def test_nothing_for_chitchat_bots_edits_deletes_and_joins(bot: Bot) -> None:
    chat = await bot.paste(CHITCHAT)
    other_bot = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ROBOT, bot_id="B_OTHER")
    await bot.event(message_event(other_bot, bot_id="B_OTHER", subtype="bot_message"))
    await bot.event(message_event(other_bot, bot_id="B_OTHER"))
    ours = bot.fake.add_message(CHANNEL, slack_escape(PASTE), "U_BOT", bot_id=BOT_ID)
    await bot.event(message_event(ours, bot_id=BOT_ID))
    edited = bot.fake.add_message(CHANNEL, "typo", ALICE)
    # (an edit that adds an error is answered: tests/slack/test_edits_e2e.py)
    await bot.event(message_event(edited, text=slack_escape(PASTE), edited={"user": ALICE, "ts": "1.2"}))
    await bot.event({**message_event(edited), "subtype": "message_deleted", "hidden": True})
    await bot.event({**message_event(chat), "subtype": "channel_join", "text": "<@U_ALICE> has joined"})
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []
    # the same app still answers a real paste
    await bot.answer_to(await bot.paste())


async def test_a_retried_or_repeated_event_is_answered_once_even_after_a_restart(
    make_bot: Callable[..., Any],
) -> None:
    bot: Bot = await make_bot()
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    event = message_event(message)
    assert await bot.event(event, event_id="Ev1") == 200
    await bot.answer_to(message)
    assert await bot.event(event, event_id="Ev1", retry=1) == 200  # Slack's retry: same event id
    assert await bot.event(event, event_id="Ev2") == 200  # the same message again, new event id
    await bot.idle()
    await bot.close()
    restarted: Bot = await make_bot()  # a new app on the same database
    assert await restarted.event(event, event_id="Ev1", retry=2) == 200
    assert await restarted.event(event, event_id="Ev3") == 200
    await restarted.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


async def test_forged_or_stale_requests_get_401_and_do_nothing(bot: Bot) -> None:
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    body = json.dumps(event_body(message_event(message)))
    forged = sign("not-the-secret", body)
    assert (await bot.post_raw(body, "application/json", forged))[0] == 401
    stale = int(time.time()) - 6 * 60
    assert (await bot.post_signed(body, "application/json", timestamp=stale))[0] == 401
    assert (await bot.post_raw(body, "application/json"))[0] == 401  # unsigned
    tampered = sign(SECRET, body)
    assert (await bot.post_raw(body.replace("NaN", "NaM"), "application/json", tampered))[0] == 401
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []


async def test_healthz_answers_while_the_database_does(bot: Bot) -> None:
    assert bot.session is not None
    url = str(bot.server.make_url("/healthz"))
    async with bot.session.get(url) as resp:
        assert resp.status == 200 and (await resp.json())["ok"] is True
    bot.errfix.close()
    async with bot.session.get(url) as resp:
        assert resp.status == 503


async def test_an_unsure_paste_is_not_answered_but_a_mention_is(bot: Bot) -> None:
    vague = "RuntimeError: loss went NaN somewhere"
    message = await bot.paste(vague)
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []
    text = f"<@U_BOT> what is this? {vague}"
    mention = bot.fake.add_message(CHANNEL, text, ALICE)
    # Slack sends both an app_mention and a message event for the same message
    await bot.event(message_event(mention))
    await bot.event({**message_event(mention), "type": "app_mention"})
    answer = await bot.answer_to(mention)
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1
    assert "unsure" in all_text(answer) and RECORD in all_text(answer)
    assert message["ts"] != mention["ts"]


async def test_a_mention_in_a_thread_reads_the_paste_above_it(bot: Bot) -> None:
    root = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    mention = bot.fake.add_message(CHANNEL, "<@U_BOT> help?", ALICE, thread_ts=root["ts"])
    await bot.event({**message_event(mention), "type": "app_mention"})
    answer = await bot.answer_to(mention)
    assert RECORD in all_text(answer) and answer["thread_ts"] == root["ts"]


async def test_a_mention_in_a_thread_reads_the_peoples_messages_not_errfixs_own(bot: Bot) -> None:
    """errfix's own message in the thread quotes an error (as its answers do): a mention reads
    what people wrote there, so with nothing of theirs but chatter errfix does not know the error
    (it would otherwise answer its own words)."""
    root = bot.fake.add_message(CHANNEL, "nightly run", ALICE)
    bot.fake.add_message(CHANNEL, slack_escape(PASTE), BOT_USER_ID, thread_ts=root["ts"], bot_id=BOT_ID)
    mention = bot.fake.add_message(CHANNEL, "<@U_BOT> what is this?", ALICE, thread_ts=root["ts"])
    await bot.event({**message_event(mention), "type": "app_mention"})
    answer = await bot.answer_to(mention)
    assert "don't know" in all_text(answer) and RECORD not in all_text(answer)


async def test_a_mention_without_a_known_error_gets_a_polite_no(bot: Bot) -> None:
    mention = bot.fake.add_message(CHANNEL, "<@U_BOT> hello there", ALICE)
    await bot.event({**message_event(mention), "type": "app_mention"})
    answer = await bot.answer_to(mention)
    assert "don't know" in all_text(answer)


async def test_unprompted_answers_are_limited_per_channel(make_bot: Callable[..., Any]) -> None:
    bot: Bot = await make_bot(max_replies_per_minute=1)
    first = await bot.paste()
    await bot.answer_to(first)
    await bot.paste()  # a second paste in the same minute: over the limit
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1
    mention = bot.fake.add_message(CHANNEL, "<@U_BOT> " + slack_escape(PASTE), ALICE)
    await bot.event({**message_event(mention), "type": "app_mention"})
    await bot.answer_to(mention)  # mentions are not limited


async def test_chinese_locale_gets_the_zh_fields(bot: Bot) -> None:
    answer = await bot.answer_to(await bot.paste(user=ZHANG))
    assert "损失函数" in all_text(answer)
    info = bot.fake.calls("users.info")
    assert info and str(info[0].params["include_locale"]).lower() in ("1", "true")
    await bot.answer_to(await bot.paste(user=ZHANG))
    assert len(bot.fake.calls("users.info")) == 1  # cached


async def test_rate_limited_post_is_retried_after_retry_after(bot: Bot) -> None:
    bot.fake.fail_next("chat.postMessage", status=429, retry_after=1)
    message = await bot.paste()
    await bot.answer_to(message)
    statuses = [c.status for c in bot.fake.calls("chat.postMessage")]
    assert statuses == [429, 200]


async def test_server_errors_are_retried(bot: Bot) -> None:
    bot.fake.fail_next("chat.postMessage", status=503)
    await bot.answer_to(await bot.paste())
    assert [c.status for c in bot.fake.calls("chat.postMessage")] == [503, 200]


async def test_not_in_channel_is_logged_once_and_skipped(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for _ in range(2):
        await bot.paste(channel=OTHER_CHANNEL)
    await bot.idle()
    calls = bot.fake.calls("chat.postMessage")
    assert [c.response["error"] for c in calls] == ["not_in_channel", "not_in_channel"]
    warnings = [r for r in caplog.records if "not_in_channel" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_unexpected_slack_error_is_logged_by_the_error_handler(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    bot.fake.error_next("chat.postMessage", "invalid_blocks")
    await bot.paste()
    await bot.idle()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "SlackApiError" in errors[0].getMessage()
    await bot.answer_to(await bot.paste())  # and the app carries on


async def test_app_home_lists_this_weeks_errors_and_unmatched_pastes(bot: Bot) -> None:
    await bot.answer_to(await bot.paste())
    await bot.paste("Error: frobnicator exploded while reticulating splines (code 0x1f2e3d4c)")
    await bot.idle()
    await bot.event({"type": "app_home_opened", "user": ALICE, "channel": "D_ALICE", "tab": "home"})
    await bot.fake.wait_for("views.publish")
    home = all_text(bot.fake.home_views[ALICE])
    assert RECORD in home and "frobnicator exploded" in home


async def test_slash_command_is_acked_and_answered_through_response_url(bot: Bot) -> None:
    status = await bot.command("loss nan")
    assert status == 200  # the ack
    await bot.idle()
    call = await bot.fake.wait_for("response_url")
    assert call.ok and call.params["response_type"] == "ephemeral"
    results = bot.fake.ephemerals[-1]
    assert results["user"] == ALICE and RECORD in all_text(results)
    share = buttons(results, "errfix_share")
    assert share
    await bot.click({**results, "channel": CHANNEL}, share[0], ephemeral=True)
    await bot.idle()
    shared = [m for m in bot.fake.messages(CHANNEL) if m.get("bot_id")]
    assert len(shared) == 1 and RECORD in all_text(shared[0]) and "Shared by <@U_ALICE>" in all_text(shared[0])
    assert not buttons(shared[0])  # the shared copy has no buttons


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "/errfix loss nan"),
        ("help", "/errfix loss nan"),
        ("stats", "Known errors:"),
        (RECORD, "Fixes, best first"),
        ("zzqx &lt;&gt; ;;;", "Nothing found"),
        ("   ", "/errfix loss nan"),
    ],
)
async def test_slash_command_help_stats_record_and_nonsense(bot: Bot, text: str, expected: str) -> None:
    assert await bot.command(text) == 200
    await bot.idle()
    answer = bot.fake.ephemerals[-1]
    assert expected in all_text(answer)
    assert [c.status for c in bot.fake.calls("response_url")] == [200]
    assert not bot.fake.warnings


async def test_a_record_in_full_keeps_the_how_within_slacks_limits(bot: Bot) -> None:
    await bot.command(RECORD, user=ZHANG)
    await bot.idle()
    answer = bot.fake.ephemerals[-1]
    assert "损失函数" in all_text(answer)  # zh locale for the person who asked
    assert buttons(answer, "errfix_share")

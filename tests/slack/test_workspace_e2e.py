"""What a real workspace sends that the happy path never does: group DMs, Slack's own
notices, event types nobody handles, and rate-limited response_urls."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.slack.conftest import ALICE, BOB, CHANNEL, GROUP_DM, PASTE, RECORD, Bot, all_text

CHITCHAT = "lunch at noon?"


async def test_a_group_dm_paste_is_answered_like_a_dm_without_the_channel_budget(
    make_bot: Callable[..., Any],
) -> None:
    bot: Bot = await make_bot(max_replies_per_minute=1)
    assert bot.link is not None
    first, sent = await bot.link.message(GROUP_DM, ALICE, PASTE)
    assert sent[0].ok and (await bot.answer_to(first))["thread_ts"] == first["ts"]
    second, _ = await bot.link.message(GROUP_DM, BOB, PASTE)
    assert RECORD in all_text(await bot.answer_to(second))  # a channel would be over its 1 a minute
    await bot.link.message(GROUP_DM, BOB, CHITCHAT)
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 2  # people chatting in a group DM get no usage text


async def test_a_mention_in_a_group_dm_thread_reads_the_thread(bot: Bot) -> None:
    assert bot.link is not None
    root, _ = await bot.link.message(GROUP_DM, ALICE, PASTE)
    await bot.answer_to(root)
    ask, sent = await bot.link.message(GROUP_DM, BOB, "@errfix ?", thread_ts=root["ts"])
    assert [d.status for d in sent] == [200, 200]  # app_mention, then its message twin
    await bot.idle()
    [replies] = [c for c in bot.fake.calls("conversations.replies")]
    assert replies.ok and replies.params["channel"] == GROUP_DM  # mpim:history is in the token
    posts = [c for c in bot.fake.calls("chat.postMessage") if c.ok]
    assert len(posts) == 2 and RECORD in json.dumps(posts[1].params["blocks"])


async def test_app_rate_limited_gets_a_200_a_warning_and_a_metric(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    notice = {
        "token": "legacy",
        "type": "app_rate_limited",
        "team_id": "T_FAKE",
        "minute_rate_limited": 1518467820,
        "api_app_id": "A_FAKE",
    }
    status, _ = await bot.post_signed(json.dumps(notice), "application/json")
    assert status == 200
    assert [r.getMessage() for r in caplog.records if "app_rate_limited" in r.getMessage()] == [
        "Slack is dropping errfix's events (app_rate_limited, minute 1518467820): over 30,000 an hour"
    ]
    assert "errfix_app_rate_limited_total 1.0" in bot.metrics.render().decode()


@pytest.mark.parametrize("kind", ["channel_created", "member_joined_channel", "pin_added"])
async def test_an_event_type_nothing_handles_gets_a_200(bot: Bot, kind: str) -> None:
    assert await bot.event({"type": kind, "channel": CHANNEL, "user": ALICE, "event_ts": "1.000001"}) == 200
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []


async def test_a_rate_limited_response_url_is_retried_after_retry_after(bot: Bot) -> None:
    bot.fake.fail_next("response_url", status=429, retry_after=0)
    assert await bot.command("help") == 200
    await bot.idle()
    assert [c.status for c in bot.fake.calls("response_url")] == [429, 200]
    assert "finds the fix" in bot.fake.ephemerals[0]["text"]


async def test_a_rate_limited_views_publish_is_retried(bot: Bot) -> None:
    bot.fake.fail_next("views.publish", status=429, retry_after=0)
    assert await bot.event({"type": "app_home_opened", "user": ALICE, "channel": "D_ALICE", "tab": "home"}) == 200
    await bot.idle()
    assert [c.status for c in bot.fake.calls("views.publish")] == [429, 200]
    assert bot.fake.home_views[ALICE]["type"] == "home"

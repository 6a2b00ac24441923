"""A paste holding a likely secret: its author is told once, privately; nobody else sees it (#18.3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.fakeslack.web_api import FakeSlack
from tests.slack.conftest import ALICE, CHANNEL, DM, PASTE, Bot, message_event

KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"  # shaped like an AWS access key id, not a real one
LEAKY = PASTE + f"\nwhile uploading with aws_access_key_id {KEY_ID}"


def public_posts(fake: FakeSlack) -> str:
    """Everything errfix posted or updated where others can see it."""
    calls = fake.calls("chat.postMessage") + fake.calls("chat.update")
    return "\n".join(json.dumps(c.params) for c in calls)


async def test_the_author_alone_is_told_once_what_kind_of_secret_a_paste_holds(bot: Bot, fake: FakeSlack) -> None:
    message = await bot.paste(LEAKY, channel_type="channel")
    await bot.answer_to(message)  # the paste is still answered
    await bot.idle()
    notices = fake.calls("chat.postEphemeral")
    assert len(notices) == 1
    sent = notices[0].params
    assert (sent["channel"], sent["user"]) == (CHANNEL, ALICE)
    assert "aws-access-key" in sent["text"] and "rotate" in sent["text"] and "delete" in sent["text"]
    assert KEY_ID not in sent["text"]
    assert KEY_ID not in public_posts(fake)
    # Slack re-sends the message as an edit: the author is not told again
    edit = {**message_event(message), "subtype": "message_changed"}
    edit["message"] = {**message, "text": LEAKY + "\n(edited)", "edited": {"user": ALICE, "ts": fake.next_ts()}}
    edit["previous_message"] = message
    assert await bot.event(edit) == 200
    await bot.idle()
    assert len(fake.calls("chat.postEphemeral")) == 1


async def test_a_dm_with_a_secret_gets_the_notice_too(bot: Bot, fake: FakeSlack) -> None:
    await bot.paste(
        "psycopg2.OperationalError: could not connect to postgres://app:hunter2x@db/pay", channel=DM, channel_type="im"
    )
    await bot.idle()
    notices = fake.calls("chat.postEphemeral")
    assert [(n.params["channel"], n.params["user"]) for n in notices] == [(DM, ALICE)]
    assert "url-password" in notices[0].params["text"]
    assert "hunter2x" not in public_posts(fake)


async def test_a_paste_without_a_secret_gets_no_notice(bot: Bot, fake: FakeSlack) -> None:
    message = await bot.paste(PASTE, channel_type="channel")
    await bot.answer_to(message)
    await bot.idle()
    assert fake.calls("chat.postEphemeral") == []


async def test_with_the_notice_turned_off_nobody_is_told(make_bot: Callable[..., Any], fake: FakeSlack) -> None:
    bot: Bot = await make_bot(secret_notice=False)
    message = await bot.paste(LEAKY, channel_type="channel")
    await bot.answer_to(message)
    await bot.idle()
    assert fake.calls("chat.postEphemeral") == []
    assert KEY_ID not in public_posts(fake)

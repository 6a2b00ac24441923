"""Team memory (#36) over signed HTTP against the strict fake Slack: an error solved in one thread
is answered with that thread when it is pasted again; a private channel's thread is never linked
elsewhere; a record's answer says where the error was seen before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from bot.fakeslack.web_api import FakeSlack, User
from tests.slack.conftest import ALICE, BOB, CHANNEL, PASTE, Bot, all_text, buttons

OTHER, PRIVATE = "C_OTHER", "G_PRIVATE"
FIRST = (
    'Traceback (most recent call last):\n  File "/srv/jobs/etl.py", line 88, in <module>\n'
    "QuarryLockError: shard 'orders' held by pid 4242"
)
AGAIN = (
    'Traceback (most recent call last):\n  File "/home/bob/etl/run.py", line 12, in <module>\n'
    "QuarryLockError: shard 'orders' held by pid 977"
)
FIX = "restart the quarry daemon with --steal-locks, then rerun"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(channels=(CHANNEL, OTHER, PRIVATE), users=[User(ALICE, "alice"), User(BOB, "bob")])
    await slack.start()
    yield slack
    await slack.stop()


async def solve(bot: Bot, channel: str, kind: str, text: str = FIRST) -> dict[str, Any]:
    """ALICE pastes `text`, BOB replies with the fix, ALICE marks the reply ✅."""
    assert bot.link is not None
    paste = await bot.paste(text, channel=channel, channel_type=kind)
    reply = await bot.paste(FIX, user=BOB, channel=channel, thread_ts=paste["ts"], channel_type=kind)
    await bot.idle()
    await bot.link.react(channel, ALICE, reply["ts"], "white_check_mark")
    await bot.idle()
    return paste


async def test_a_solved_error_pasted_again_elsewhere_gets_the_teams_answer_and_its_votes(
    bot: Bot, fake: FakeSlack
) -> None:
    first = await solve(bot, CHANNEL, "channel")
    assert bot.replies(first) == []  # no record knows it: errfix said nothing then
    again = await bot.paste(AGAIN, user=BOB, channel=OTHER, channel_type="channel")
    answer = await bot.answer_to(again)
    text = all_text(answer)
    assert "<@U_BOB>: restart the quarry daemon with --steal-locks, then rerun" in text
    assert f"Seen before in <#{CHANNEL}> on " in text and " · solved · <https://fake.slack.com/archives/" in text
    assert f"/archives/{CHANNEL}/p{first['ts'].replace('.', '')}|thread>" in text
    worked = buttons(answer, "errfix_memory_up")[0]
    assert await bot.click(answer, worked, user=ALICE) == 200
    await bot.idle()
    updated = fake.message(OTHER, answer["ts"])
    assert ":+1: 1 · :-1: 0" in all_text(updated)


async def test_a_private_channels_thread_is_never_linked_elsewhere_but_is_in_its_own(bot: Bot, fake: FakeSlack) -> None:
    await solve(bot, PRIVATE, "group")
    elsewhere = await bot.paste(AGAIN, user=BOB, channel=CHANNEL, channel_type="channel")
    same = await bot.paste(AGAIN, user=BOB, channel=PRIVATE, channel_type="group")
    answer = await bot.answer_to(same)
    assert f"Seen before in <#{PRIVATE}>" in all_text(answer)
    await bot.idle()
    assert bot.replies(elsewhere) == []


async def test_an_answer_from_a_record_says_where_the_error_was_seen_before(bot: Bot) -> None:
    first = await bot.paste(PASTE, channel=CHANNEL, channel_type="channel")
    await bot.answer_to(first)
    again = await bot.paste(PASTE.replace("1000", "2000"), user=BOB, channel=OTHER, channel_type="channel")
    text = all_text(await bot.answer_to(again))
    assert "pytorch/loss-nan-step" in text
    assert f"Seen before in <#{CHANNEL}> on " in text and "· discussed, not solved ·" in text

"""Team memory (#36) over signed HTTP against the strict fake Slack: an error solved in one thread
is answered with that thread when it is pasted again; a private channel's thread is never linked
elsewhere; a record's answer says where the error was seen before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from bot.fakeslack.web_api import BOT_USER_ID, FakeSlack, User
from tests.slack.conftest import ALICE, BOB, CHANNEL, PASTE, Bot, all_text, buttons, message_event

OTHER, PRIVATE = "C_OTHER", "G_PRIVATE"
FIRST = (
    'Traceback (most recent call last):\n  File "/srv/jobs/etl.py", line 88, in <module>\n'
    "QuarryLockError: shard 'orders' held by pid 4242"
)
AGAIN = (
    'Traceback (most recent call last):\n  File "/home/bob/etl/run.py", line 12, in <module>\n'
    "QuarryLockError: shard 'orders' held by pid 977"
)
# a program's logged warning, no error words: remembered like an error (another pid, time and line)
LOGGED = "W1203 10:00:01.000001    4242 quarry.go:88] shard 'orders' lock held by a stale daemon"
LOGGED_AGAIN = "W1204 09:12:44.917000     977 quarry.go:91] shard 'orders' lock held by a stale daemon"
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
    await solve(bot, PRIVATE, "group", LOGGED)
    elsewhere = await bot.paste(LOGGED_AGAIN, user=BOB, channel=CHANNEL, channel_type="channel")
    same = await bot.paste(LOGGED_AGAIN, user=BOB, channel=PRIVATE, channel_type="group")
    answer = await bot.answer_to(same)
    assert f"Seen before in <#{PRIVATE}>" in all_text(answer)
    await bot.idle()
    assert bot.replies(elsewhere) == []


async def test_an_answer_from_a_record_says_where_the_error_was_seen_before(bot: Bot) -> None:
    first = await bot.paste(PASTE, channel=CHANNEL, channel_type="channel")
    await bot.answer_to(first)
    await bot.paste("lowering the lr helped a bit", user=BOB, channel=CHANNEL, thread_ts=first["ts"])
    again = await bot.paste(PASTE.replace("1000", "2000"), user=BOB, channel=OTHER, channel_type="channel")
    text = all_text(await bot.answer_to(again))
    assert "pytorch/loss-nan-step" in text
    assert f"Seen before in <#{CHANNEL}> on " in text and "· discussed, not solved ·" in text


async def test_a_thread_discussed_but_not_solved_is_linked_only_when_asked(bot: Bot, fake: FakeSlack) -> None:
    first = await bot.paste(FIRST, channel=CHANNEL, channel_type="channel")
    await bot.paste("same here, no idea yet", user=BOB, channel=CHANNEL, thread_ts=first["ts"], channel_type="channel")
    unprompted = await bot.paste(AGAIN, user=BOB, channel=OTHER, channel_type="channel")
    await bot.idle()
    assert bot.replies(unprompted) == []
    asked = fake.add_message(OTHER, f"<@{BOT_USER_ID}> {AGAIN}", BOB)
    event = {**message_event(asked), "type": "app_mention"}
    event.pop("channel_type", None)  # app_mention events carry none
    assert await bot.event(event) == 200
    text = all_text(await bot.answer_to(asked))
    assert text.startswith("Your team has seen this error before (") and "· discussed, not solved ·" in text
    # the discussed thread; the unprompted paste in C_OTHER had no reply: nothing to link
    assert f"/archives/{CHANNEL}/p{first['ts'].replace('.', '')}|thread>" in text
    assert buttons(fake.message(OTHER, bot.replies(asked)[0]["ts"]), "errfix_memory_up") == []


async def test_the_home_tab_shows_what_the_team_solved_and_what_is_worth_saving(bot: Bot, fake: FakeSlack) -> None:
    first = await solve(bot, CHANNEL, "channel")
    await solve(bot, PRIVATE, "group")  # never on the Home tab, which everyone sees
    assert await bot.event({"type": "app_home_opened", "user": BOB, "tab": "home", "channel": "D_BOB"}) == 200
    await bot.idle()
    view = fake.calls("views.publish")[-1].params["view"]
    text = all_text({"blocks": view["blocks"]})
    assert "Errors your team solved most" in text
    assert (
        "*1×* `QuarryLockError: shard 'orders' held by pid 4242` <https://fake.slack.com/archives/C_GENERAL/p" in text
    )
    (save,) = buttons({"blocks": view["blocks"]}, "errfix_teach_open")
    fix = next(m for m in fake.messages(CHANNEL, first["ts"]) if m["ts"] != first["ts"])
    assert save["value"] == f'{{"c":"{CHANNEL}","t":"{first["ts"]}","m":"{fix["ts"]}"}}'

"""Each channel chooses how errfix speaks (#38), over signed HTTP against the strict fake Slack:
`/errfix here auto|mention|off`, `/errfix digest now`, and the App Home's list of channels."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio

from bot.fakeslack.web_api import FakeSlack, User
from tests.slack.conftest import ALICE, BOB, CHANNEL, DM, PASTE, ZHANG, Bot, all_text, buttons, message_event

MENTION, OFF, PRIVATE = "C_QUIET", "C_OFF", "G_PRIVATE"
UNKNOWN = "FrobnicatorError: widget 42 failed to frobnicate"  # an error no record knows


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    users = [User(ALICE, "alice"), User(BOB, "bob"), User(ZHANG, "zhang", locale="zh-CN")]
    members = {CHANNEL: {ALICE, BOB, ZHANG}, MENTION: {ALICE}, OFF: {ALICE}, PRIVATE: {ALICE}, DM: {ALICE}}
    slack = FakeSlack(channels=(CHANNEL, MENTION, OFF, PRIVATE, DM), users=users, members=members)
    await slack.start()
    yield slack
    await slack.stop()


def posts_in(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return [c.params for c in fake.calls("chat.postMessage") if c.ok and c.params.get("channel") == channel]


def pastes_of(db: Path, channel: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM pastes WHERE channel = ?", [channel]).fetchone()[0])


async def mention(bot: Bot, channel: str, text: str) -> dict[str, Any]:
    message = bot.fake.add_message(channel, f"<@U_ERRFIX> {text}", ALICE)
    event = {**message_event(message), "type": "app_mention"}
    event.pop("channel_type", None)  # app_mention events carry none
    assert await bot.event(event) == 200
    await bot.idle()
    return message


async def test_a_mention_channel_counts_a_sure_paste_without_answering_and_answers_a_mention(
    bot: Bot, fake: FakeSlack, db_file: Path
) -> None:
    assert await bot.command("here mention", channel=MENTION) == 200
    await bot.idle()
    note = posts_in(fake, MENTION)
    assert len(note) == 1 and "<@U_ALICE> set errfix here to *mention*" in note[0]["text"]
    await bot.paste(PASTE, channel=MENTION, channel_type="channel")
    await bot.idle()
    assert len(posts_in(fake, MENTION)) == 1  # still only the note: the sure paste got no answer
    assert pastes_of(db_file, MENTION) == 1  # but it is counted (digest, App Home)
    await mention(bot, MENTION, PASTE)
    answers = [p for p in posts_in(fake, MENTION) if p.get("thread_ts")]
    assert len(answers) == 1 and "Loss is NaN" in all_text(answers[0])


async def test_an_off_channel_answers_and_keeps_nothing_and_says_so_to_a_mention_alone(
    bot: Bot, fake: FakeSlack, db_file: Path
) -> None:
    assert await bot.command("here off", channel=OFF) == 200
    await bot.idle()
    assert len(posts_in(fake, OFF)) == 1  # the note that it was turned off
    await bot.paste(PASTE, channel=OFF, channel_type="channel")
    await bot.idle()
    await mention(bot, OFF, PASTE)
    assert len(posts_in(fake, OFF)) == 1 and pastes_of(db_file, OFF) == 0
    said = [e for e in fake.ephemerals if e.get("channel") == OFF and e.get("user") == ALICE]
    assert [e["text"] for e in said][-1].startswith("errfix is off in this channel")
    assert "`/errfix here auto`" in said[-1]["text"]


async def test_here_alone_shows_the_setting_and_each_change_is_audited(
    bot: Bot, fake: FakeSlack, db_file: Path
) -> None:
    assert await bot.command("here mention", channel=MENTION) == 200
    assert await bot.command("here mention", channel=MENTION, user=BOB) == 200  # no change: no second note
    assert await bot.command("here", channel=MENTION) == 200
    await bot.idle()
    assert len(posts_in(fake, MENTION)) == 1
    shown = [e["text"] for e in fake.ephemerals if e.get("channel") == MENTION][-1]
    assert shown.startswith("errfix here: *mention*") and "Last changed by <@U_ALICE>" in shown
    with sqlite3.connect(db_file) as conn:
        rows = conn.execute("SELECT actor, target FROM audit WHERE action = 'channel-mode' ORDER BY id").fetchall()
    assert rows == [(ALICE, MENTION)]


async def test_digest_now_counts_the_weeks_pastes_and_shows_no_private_line_in_a_public_channel(
    bot: Bot, fake: FakeSlack
) -> None:
    for _ in range(3):
        await bot.answer_to(await bot.paste(PASTE, channel_type="channel"))  # known: answered
    for _ in range(2):
        await bot.paste(UNKNOWN, channel_type="channel")  # pasted twice, no record answers it
    await bot.paste("PrivateLeakError: the private roadmap failed", channel=PRIVATE, channel_type="group")
    await bot.paste("DirectLeakError: only between us", channel=DM, channel_type="im")
    await bot.idle()
    assert await bot.command("digest now") == 200
    await bot.idle()
    digests = [p for p in posts_in(fake, CHANNEL) if "errfix digest" in p["text"]]
    assert len(digests) == 1
    text = all_text(digests[0])
    assert "*5* errors pasted · *3* answered" in text
    assert "*3×* `pytorch/loss-nan-step`" in text and "https://fake.slack.com/archives/C_GENERAL/p" in text
    assert "*2×* `FrobnicatorError: widget 42 failed to frobnicate`" in text
    assert "PrivateLeak" not in text and "DirectLeak" not in text
    save = buttons(digests[0], "errfix_teach_open")
    assert len(save) == 1 and save[0]["text"]["text"] == "Save as errfix record"


async def test_digest_now_in_the_private_channel_shows_its_own_pastes(bot: Bot, fake: FakeSlack) -> None:
    for _ in range(2):
        await bot.paste("PrivateLeakError: the private roadmap failed", channel=PRIVATE, channel_type="group")
    await bot.paste("DirectLeakError: only between us", channel=DM, channel_type="im")
    await bot.idle()
    assert await bot.command("digest now", channel=PRIVATE) == 200
    await bot.idle()
    text = all_text(posts_in(fake, PRIVATE)[-1])
    assert "*2* errors pasted · *0* answered" in text and "PrivateLeakError" in text and "DirectLeak" not in text


async def test_the_home_tab_lists_the_channels_of_the_person_looking(
    make_bot: Callable[..., Any], fake: FakeSlack
) -> None:
    bot: Bot = await make_bot()
    assert await bot.command("here mention", channel=MENTION) == 200
    assert await bot.command("digest weekly", channel=MENTION) == 200
    await bot.idle()
    for user in (ALICE, BOB):
        assert await bot.event({"type": "app_home_opened", "user": user, "tab": "home", "channel": DM}) == 200
    await bot.idle()
    published = {
        c.params["user_id"]: all_text({"blocks": c.params["view"]["blocks"]}) for c in fake.calls("views.publish")
    }
    alice, bob = published[ALICE], published[BOB]
    assert f"<#{MENTION}>: *mention* (I answer only @errfix and /errfix) · weekly, Mon 09:00 UTC" in alice
    assert f"<#{CHANNEL}>: *auto*" in alice and f"<#{PRIVATE}>" in alice
    assert f"<#{CHANNEL}>: *auto*" in bob and MENTION not in bob and PRIVATE not in bob

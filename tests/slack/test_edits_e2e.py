"""An edit that adds an error (or @errfix) is answered once; an answered paste's edit is not."""

from __future__ import annotations

from tests.slack.conftest import ALICE, CHANNEL, DM, PASTE, RECORD, Bot, all_text

BEFORE = "training dies at step 1000, log below"


async def test_an_edit_that_adds_an_error_is_answered_once(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.message(CHANNEL, ALICE, BEFORE)
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []
    assert (await bot.link.edit(CHANNEL, message["ts"], BEFORE + "\n" + PASTE)).ok
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer) and answer["thread_ts"] == message["ts"]
    await bot.link.edit(CHANNEL, message["ts"], BEFORE + "\n" + PASTE + "\n(with the full log)")
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


async def test_an_edit_of_an_answered_paste_is_not_answered_again(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.message(CHANNEL, ALICE, PASTE)
    await bot.answer_to(message)
    await bot.link.edit(CHANNEL, message["ts"], PASTE + "\nsorry, forgot this line")
    await bot.link.edit(CHANNEL, message["ts"], "@errfix " + PASTE)
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1


async def test_an_edit_that_adds_a_mention_is_answered_like_a_mention(bot: Bot) -> None:
    assert bot.link is not None
    root, _ = await bot.link.message(CHANNEL, ALICE, PASTE.replace("RuntimeError", "Hmm"))  # not sure: quiet
    await bot.idle()
    quiet = len(bot.fake.calls("chat.postMessage"))
    question, _ = await bot.link.message(CHANNEL, ALICE, "what is this?", thread_ts=root["ts"])
    await bot.idle()
    await bot.link.edit(CHANNEL, question["ts"], "@errfix what is this?")
    await bot.idle()
    posts = bot.fake.calls("chat.postMessage")[quiet:]
    assert len(posts) == 1 and posts[0].params["thread_ts"] == root["ts"]


async def test_unfurls_and_bot_edits_are_not_edits_to_answer(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.message(CHANNEL, ALICE, BEFORE)
    await bot.idle()
    same = bot.fake.message(CHANNEL, message["ts"])
    unfurl = {
        "type": "message",
        "subtype": "message_changed",
        "channel": CHANNEL,
        "ts": "1700000099.000100",
        "message": {**same, "attachments": [{"title": "a link"}], "text": same["text"]},
        "previous_message": same,
    }
    assert await bot.event(unfurl) == 200
    own = {**unfurl, "ts": "1700000099.000200", "message": {**same, "bot_id": "B_BOT", "text": PASTE}}
    assert await bot.event(own) == 200
    await bot.idle()
    assert bot.fake.calls("chat.postMessage") == []


async def test_in_a_dm_the_usage_text_comes_once_and_an_edit_adding_an_error_is_answered(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.message(DM, ALICE, "hi there")
    await bot.idle()
    [usage] = bot.fake.calls("chat.postMessage")
    assert "Paste an error" in usage.params["text"]
    await bot.link.edit(DM, message["ts"], "hi there!")
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1
    await bot.link.edit(DM, message["ts"], PASTE)
    assert RECORD in all_text(await bot.answer_to(message))

"""The asker's language end to end, and honest confidence for words (#13.2, #13.3).

A zh-locale person, or anyone who writes in Chinese, gets the whole message in Chinese: the
answer's labels and buttons, `/errfix` results and help, the App Home, the secret notice, what
"Not this error" says. Words with no paste (`@errfix …`, a DM) get the search `/errfix` runs, and
a weak result is "not sure", never the answer.
"""

from __future__ import annotations

import json

from tests.slack.conftest import ALICE, CHANNEL, DM, PASTE, RECORD, ZHANG, Bot, all_text, buttons, message_event

ENGLISH_LABELS = ("Why:", "Fixes, best first", "match", "Worked", "Didn't work", "Not this error")
SURE_WORDS = "DataFrame object has no attribute append"  # the error's own words: the search is sure
WEAK_WORDS = "the training loss becomes nan"  # a description: the right record, but not sure
KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"  # shaped like an AWS access key id, not a real one


def labels(message: dict[str, object]) -> list[str]:
    return [b["text"]["text"] for b in buttons(message)]


async def test_a_zh_locale_person_gets_the_answer_in_chinese_and_it_stays_chinese_after_a_vote(bot: Bot) -> None:
    answer = await bot.answer_to(await bot.paste(user=ZHANG))
    text = all_text(answer)
    assert "原因：" in text and "修复方法（按效果排序）" in text and "匹配度" in text and "有效 ·" in text
    assert not [label for label in ENGLISH_LABELS if label in text]
    assert labels(answer)[:2] == ["有效", "无效"] and labels(answer)[-1] == "不是这个错误"
    await bot.click({**answer, "channel": CHANNEL}, buttons(answer, "errfix_vote_up")[0], user=ZHANG)
    update = await bot.fake.wait_for("chat.update")
    assert "有效" in json.dumps(update.params["blocks"], ensure_ascii=False)
    assert "Worked" not in json.dumps(update.params["blocks"])


async def test_an_english_locale_person_who_pastes_in_chinese_is_answered_in_chinese(bot: Bot) -> None:
    answer = await bot.answer_to(await bot.paste("训练到一半报错了：\n" + PASTE, user=ALICE))
    assert "原因：" in all_text(answer) and labels(answer)[-1] == "不是这个错误"


async def test_english_answers_are_unchanged(bot: Bot) -> None:
    answer = await bot.answer_to(await bot.paste(user=ALICE))
    text = all_text(answer)
    assert "*Why:*" in text and "*Fixes, best first:*" in text and "% match" in text
    assert labels(answer)[:2] == ["Worked", "Didn't work"] and labels(answer)[-1] == "Not this error"


async def test_errfix_help_stats_and_search_follow_the_asker(bot: Bot) -> None:
    await bot.command("help", user=ZHANG)
    await bot.idle()
    assert "搜索已知的错误" in all_text(bot.fake.ephemerals[-1])
    await bot.command("stats", user=ZHANG)
    await bot.idle()
    assert "已知错误：" in all_text(bot.fake.ephemerals[-1])
    await bot.command("训练时损失变成 nan", user=ALICE)  # Chinese words from an English-locale person
    await bot.idle()
    results = bot.fake.ephemerals[-1]
    assert "搜索结果" in all_text(results) and "不确定" in all_text(results)
    assert RECORD in all_text(results) and "Results for" not in all_text(results)
    [share] = buttons(results, "errfix_share")
    assert share["text"]["text"] == "分享到频道"
    await bot.click({**results, "channel": CHANNEL}, share, ephemeral=True)
    await bot.idle()
    [shared] = [m for m in bot.fake.messages(CHANNEL) if m.get("bot_id")]
    assert "通过 `/errfix` 分享" in all_text(shared)  # shared in the language it was shown in


async def test_errfix_labels_weak_results_and_says_it_is_not_sure(bot: Bot) -> None:
    await bot.command(WEAK_WORDS)
    await bot.idle()
    weak = all_text(bot.fake.ephemerals[-1])
    assert "not sure any of them is it" in weak and "weak match" in weak and RECORD in weak
    await bot.command(SURE_WORDS)
    await bot.idle()
    results = bot.fake.ephemerals[-1]
    assert "Results for" in all_text(results) and "not sure" not in all_text(results)
    first = results["blocks"][1]["text"]["text"]
    assert first.startswith("`pandas/dataframe-append-removed`") and "weak match" not in first


async def test_the_app_home_is_in_the_openers_language(bot: Bot) -> None:
    await bot.event({"type": "app_home_opened", "user": ZHANG, "channel": "D_ZHANG", "tab": "home"})
    await bot.idle()
    home = all_text(bot.fake.home_views[ZHANG])
    assert "本周最常见的错误" in home and "Most frequent" not in home
    await bot.event({"type": "app_home_opened", "user": ALICE, "channel": DM, "tab": "home"})
    await bot.idle()
    assert "Most frequent errors this week" in all_text(bot.fake.home_views[ALICE])


async def test_the_secret_notice_is_in_the_authors_language(bot: Bot) -> None:
    await bot.paste(PASTE + f"\nwhile uploading with aws_access_key_id {KEY_ID}", user=ZHANG, channel_type="channel")
    await bot.idle()
    [notice] = bot.fake.calls("chat.postEphemeral")
    assert "这条提示只有你能看到" in notice.params["text"] and "aws-access-key" in notice.params["text"]
    assert KEY_ID not in notice.params["text"]


async def test_not_this_error_thanks_in_the_answers_language(bot: Bot) -> None:
    answer = await bot.answer_to(await bot.paste(user=ZHANG))
    await bot.click({**answer, "channel": CHANNEL}, buttons(answer, "errfix_not_this")[0], user=ZHANG)
    await bot.idle()
    offer = bot.fake.ephemerals[-1]
    assert offer["text"] == "谢谢，已记下。是下面其中一个吗？"
    update = bot.fake.calls("chat.update")[-1]
    assert "不是这个错误" in json.dumps(update.params["blocks"], ensure_ascii=False)


# ---- words, not a paste ---------------------------------------------------------------------


async def mention(bot: Bot, words: str, user: str = ALICE) -> dict[str, object]:
    message = bot.fake.add_message(CHANNEL, f"<@U_BOT> {words}", user)
    await bot.event({**message_event(message), "type": "app_mention"})
    return await bot.answer_to(message)


async def test_a_mention_with_words_the_search_is_sure_of_gets_the_answer(bot: Bot) -> None:
    answer = await mention(bot, SURE_WORDS)
    assert "pandas/dataframe-append-removed" in all_text(answer)
    assert labels(answer)[:2] == ["Worked", "Didn't work"]  # a real answer: it can be voted on
    reply = await bot.errfix.reply(CHANNEL, str(answer["ts"]))
    assert reply is not None and reply.record_id == "pandas/dataframe-append-removed" and reply.sure


async def test_a_mention_with_words_the_search_is_not_sure_of_says_so(bot: Bot) -> None:
    answer = await mention(bot, WEAK_WORDS)
    text = all_text(answer)
    assert "Not sure which error you mean" in text and RECORD in text and "weak match" in text
    assert buttons(answer) == []  # nothing presented as the answer, nothing to vote on
    assert await bot.errfix.reply(CHANNEL, str(answer["ts"])) is None


async def test_a_mention_with_chinese_words_says_not_sure_in_chinese(bot: Bot) -> None:
    answer = await mention(bot, "训练时损失变成 nan")
    assert "不确定你说的是哪个错误" in all_text(answer) and RECORD in all_text(answer)


async def test_a_dm_with_words_gets_the_same_search(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.message(DM, ALICE, WEAK_WORDS)
    answer = await bot.answer_to(message)
    assert "Not sure which error you mean" in all_text(answer) and buttons(answer) == []
    await bot.link.edit(DM, message["ts"], WEAK_WORDS + "!")  # an edit is not answered again
    await bot.idle()
    assert len(bot.fake.calls("chat.postMessage")) == 1
    sure, _ = await bot.link.message(DM, ALICE, SURE_WORDS)
    assert labels(await bot.answer_to(sure))[:2] == ["Worked", "Didn't work"]

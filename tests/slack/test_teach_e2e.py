""" "Save as errfix record" end to end (#17): the real app over signed HTTP, the strict fake Slack.

An unanswered paste, a colleague's reply with the fix, the message shortcut on that reply, the
modal prefilled from the thread, a refused submission (per-field errors keep it open), a valid
one, errfix's "Saved as" in the thread, and then a new paste of the same error with other numbers
and paths answered from the new team record; votes on the saved record count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.fakeslack.web_api import FakeSlack, User
from tests.slack.conftest import ALICE, BOB, CHANNEL, ZHANG, Bot, all_text, buttons

pytestmark = pytest.mark.asyncio

PASTE = (
    "nightly import died again:\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/etl/run.py", line 88, in <module>\n'
    "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412\n"
)
FIX = "Kill the stale importer, then:\n```quarry unlock --force /data/quarry```"
AGAIN = (
    "Traceback (most recent call last):\n"
    '  File "/home/bo/jobs/nightly.py", line 3, in main\n'
    "QuarryLockError: shard 2 of /mnt/q/march.qdb is held by pid 77\n"
)


def inputs(view: dict[str, Any]) -> dict[str, str]:
    return {b["block_id"]: b["element"].get("initial_value", "") for b in view["blocks"] if b.get("type") == "input"}


async def open_modal(bot: Bot, fake: FakeSlack, message_ts: str, user: str = ALICE) -> dict[str, Any]:
    assert bot.link is not None
    before = len(fake.calls("views.open"))
    delivery = await bot.link.shortcut(CHANNEL, user, message_ts, "errfix_teach")
    assert delivery.ok and delivery.body == ""
    await bot.idle()
    opened = fake.calls("views.open")[before:]
    assert [c.ok for c in opened] == [True], [c.response for c in opened]
    view: dict[str, Any] = opened[0].response["view"]
    return view


async def test_a_solved_thread_becomes_a_record_that_answers_the_next_paste(
    bot: Bot, fake: FakeSlack, read_store: Callable[[], Any]
) -> None:
    assert bot.link is not None
    paste = await bot.paste(PASTE)
    await bot.idle()
    assert bot.replies(paste) == []  # nothing knows this error: errfix stays quiet
    reply = await bot.paste(FIX, user=BOB, thread_ts=paste["ts"])
    await bot.idle()

    view = await open_modal(bot, fake, reply["ts"])
    assert view["callback_id"] == "errfix_teach_submit"
    prefilled = inputs(view)
    assert prefilled["error_line"] == "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412"
    assert prefilled["fix"] == "Kill the stale importer, then"
    assert prefilled["how"] == "quarry unlock --force /data/quarry"
    assert prefilled["regex"] and prefilled["root_cause"] == ""
    labels = [b["label"]["text"] for b in view["blocks"] if b.get("type") == "input"]
    assert labels == ["Error line", "Regex", "Root cause", "Fix that worked", "How (command or code)"]

    refused = await bot.link.submit(view["id"], ALICE, {"regex": "(unclosed", "fix": ""})
    assert refused.errors is not None and set(refused.errors) == {"regex", "fix"}
    assert "RE2" in refused.errors["regex"] and view["id"] in fake.views  # still open
    assert not fake.calls("chat.postMessage") or all("Saved as" not in all_text(m) for m in bot.replies(paste))

    saved = await bot.link.submit(view["id"], ALICE, {"root_cause": "A crashed importer leaves its lock behind."})
    assert saved.errors is None and view["id"] not in fake.views  # closed
    await bot.idle()
    said = [m for m in bot.replies(paste) if "Saved as" in m["text"]]
    assert len(said) == 1
    rid = said[0]["text"].split("`")[1]
    assert rid.startswith("team/") and "I'll answer this error from now on" in said[0]["text"]

    store = read_store()
    rec = store.get(rid)
    assert rec.verification_tier == "team" and rec.evidence_count == 1
    assert rec.root_cause == "A crashed importer leaves its lock behind."
    assert rec.workarounds[0].sources and rec.workarounds[0].sources[0].startswith("https://fake.slack.com/archives/")
    assert (rec.model_extra or {})["errfix_team"]["submitted_by"] == ALICE

    again = await bot.paste(AGAIN, user=BOB)
    answer = await bot.answer_to(again)
    assert f"`{rid}`" in all_text(answer)

    worked = buttons(said[0], "errfix_vote_up")
    assert len(worked) == 1  # the one fix, with its Worked button
    assert await bot.click(said[0], worked[0], user=BOB) == 200
    await bot.idle()
    assert [(t.up, t.down) for t in read_store().tallies(rid).values()] == [(1, 0)]


async def test_the_shortcut_on_the_paste_itself_drafts_without_a_fix(bot: Bot, fake: FakeSlack) -> None:
    paste = await bot.paste(PASTE)
    await bot.idle()
    view = await open_modal(bot, fake, paste["ts"])
    assert inputs(view)["error_line"].startswith("QuarryLockError: shard 17")
    assert inputs(view)["fix"] == ""
    assert bot.link is not None
    refused = await bot.link.submit(view["id"], ALICE)
    assert refused.errors == {"fix": "Fix that worked is required."}


async def test_the_shortcut_on_a_message_without_an_error_opens_an_empty_form(bot: Bot, fake: FakeSlack) -> None:
    chat = await bot.paste("lunch at noon?")
    await bot.idle()
    view = await open_modal(bot, fake, chat["ts"])
    assert inputs(view)["error_line"] == "" and "no error line" in all_text({"blocks": view["blocks"]})


def nudges(fake: FakeSlack, user: str = ALICE) -> list[dict[str, Any]]:
    return [e for e in fake.ephemerals if e["user"] == user and "Save this thread" in e.get("text", "")]


async def test_a_check_mark_on_the_fix_offers_its_author_once_to_save_it(bot: Bot, fake: FakeSlack) -> None:
    assert bot.link is not None
    paste = await bot.paste(PASTE)
    reply = await bot.paste(FIX, user=BOB, thread_ts=paste["ts"])
    other = await bot.paste("or just reboot the box", user=BOB, thread_ts=paste["ts"])
    await bot.idle()
    await bot.link.react(CHANNEL, BOB, reply["ts"], "white_check_mark")  # not the paste's author
    await bot.link.react(CHANNEL, ALICE, paste["ts"], "white_check_mark")  # the paste, not a reply
    await bot.idle()
    assert nudges(fake, BOB) == [] and nudges(fake) == []

    await bot.link.react(CHANNEL, ALICE, reply["ts"], "white_check_mark")
    await bot.link.react(CHANNEL, ALICE, other["ts"], "heavy_check_mark")  # once per thread
    await bot.idle()
    offered = nudges(fake)
    assert len(offered) == 1 and offered[0]["thread_ts"] == paste["ts"]

    button = buttons(offered[0], "errfix_teach_open")[0]
    pressed = await bot.link.click(CHANNEL, ALICE, button, message_ts=offered[0]["ts"], ephemeral=True)
    assert pressed.ok
    await bot.idle()
    opened = [c for c in fake.calls("views.open") if c.ok]
    assert len(opened) == 1
    assert inputs(opened[0].response["view"])["how"] == "quarry unlock --force /data/quarry"


async def test_no_offer_in_a_channel_that_said_teach_off_or_in_an_answered_thread(bot: Bot, fake: FakeSlack) -> None:
    assert bot.link is not None
    assert await bot.command("teach off") == 200
    paste = await bot.paste(PASTE)
    reply = await bot.paste(FIX, user=BOB, thread_ts=paste["ts"])
    await bot.idle()
    await bot.link.react(CHANNEL, ALICE, reply["ts"], "white_check_mark")
    await bot.idle()
    assert nudges(fake) == []
    assert await bot.command("teach on") == 200
    known = await bot.paste()  # the loss-NaN paste: errfix answers it
    await bot.answer_to(known)
    fix = await bot.paste("lowered the lr, fine now", user=BOB, thread_ts=known["ts"])
    await bot.idle()
    await bot.link.react(CHANNEL, ALICE, fix["ts"], "white_check_mark")
    await bot.idle()
    assert nudges(fake) == []


async def save(bot: Bot, fake: FakeSlack) -> str:
    """Teach errfix the quarry error (paste, fix, shortcut, save); the new record's id."""
    assert bot.link is not None
    paste = await bot.paste(PASTE)
    reply = await bot.paste(FIX, user=BOB, thread_ts=paste["ts"])
    await bot.idle()
    view = await open_modal(bot, fake, reply["ts"])
    assert (await bot.link.submit(view["id"], ALICE)).errors is None
    await bot.idle()
    said = next(m for m in bot.replies(paste) if "Saved as" in m["text"])
    rid: str = said["text"].split("`")[1]
    return rid


async def test_errfix_edit_reopens_a_team_record_for_its_author_only(
    bot: Bot, fake: FakeSlack, read_store: Callable[[], Any]
) -> None:
    assert bot.link is not None
    rid = await save(bot, fake)
    opened = len(fake.calls("views.open"))
    assert (await bot.link.command(CHANNEL, BOB, "/errfix", f"edit {rid}")).ok
    await bot.idle()
    assert len(fake.calls("views.open")) == opened  # Bob did not save it and is no admin
    refusal = fake.calls("response_url")[-1].params
    assert "Only <@U_ALICE>" in refusal["text"]
    fake.users["U_ADMIN"] = User("U_ADMIN", "admin", is_admin=True)
    assert (await bot.link.command(CHANNEL, "U_ADMIN", "/errfix", f"edit {rid}")).ok
    await bot.idle()
    assert len(fake.calls("views.open")) == opened + 1  # a workspace admin may
    assert (await bot.link.command(CHANNEL, ALICE, "/errfix", "edit pytorch/loss-nan-step")).ok
    await bot.idle()
    assert "not a team record" in fake.calls("response_url")[-1].params["text"]
    assert (await bot.link.command(CHANNEL, ALICE, "/errfix", "edit distance too large")).ok
    await bot.idle()  # words that begin with "edit": a search, not a record to edit
    said = fake.calls("response_url")[-1].params["text"]
    assert "not a team record" not in said and "Results for" in said and len(fake.calls("views.open")) == opened + 1

    assert (await bot.link.command(CHANNEL, ALICE, "/errfix", f"edit {rid}")).ok
    await bot.idle()
    view = fake.calls("views.open")[-1].response["view"]
    assert inputs(view)["fix"] == "Kill the stale importer, then"
    edited = await bot.link.submit(view["id"], ALICE, {"root_cause": "The importer crashed holding its lock."})
    assert edited.errors is None
    await bot.idle()
    rec = read_store().get(rid)
    assert rec.root_cause == "The importer crashed holding its lock."
    assert (rec.model_extra or {})["errfix_team"]["submitted_by"] == ALICE
    assert any("Updated" in e.get("text", "") for e in fake.ephemerals if e["user"] == ALICE)


async def test_the_home_tab_lists_the_newest_and_most_helpful_team_records(bot: Bot, fake: FakeSlack) -> None:
    rid = await save(bot, fake)
    said = next(m for m in fake.messages(CHANNEL) if "Saved as" in m.get("text", ""))
    assert await bot.click(said, buttons(said, "errfix_vote_up")[0], user=BOB) == 200
    await bot.idle()
    assert await bot.event({"type": "app_home_opened", "user": ALICE, "channel": "D_ALICE", "tab": "home"}) == 200
    await bot.idle()
    home = all_text(fake.home_views[ALICE])
    assert "Taught by your team" in home
    newest, helpful = home.split("*Newest:*")[1].split("*Most helpful:*")
    assert f"`{rid}`" in newest and f"`{rid}`" in helpful and "👍 1" in helpful


async def test_a_zh_locale_person_teaches_errfix_in_chinese(bot: Bot, fake: FakeSlack) -> None:
    """Zhang (Slack locale zh-CN) pastes, ✅s Bob's fix, gets the offer, opens the modal and saves:
    every word errfix says on the way is Chinese, errfix's own English appears nowhere."""
    assert bot.link is not None
    paste = await bot.paste(PASTE, user=ZHANG)
    reply = await bot.paste(FIX, user=BOB, thread_ts=paste["ts"])
    await bot.idle()
    await bot.link.react(CHANNEL, ZHANG, reply["ts"], "white_check_mark")
    await bot.idle()
    offered = [e for e in fake.ephemerals if e["user"] == ZHANG]
    assert len(offered) == 1
    assert offered[0]["text"] == "解决了吗？把这个讨论保存为 errfix 记录，以后我就会回答这个错误。"
    assert "`/errfix teach off` 可以在本频道停止这类提议。" in all_text(offered[0])
    button = buttons(offered[0], "errfix_teach_open")[0]
    assert button["text"]["text"] == "保存为 errfix 记录"

    pressed = await bot.link.click(CHANNEL, ZHANG, button, message_ts=offered[0]["ts"], ephemeral=True)
    assert pressed.ok
    await bot.idle()
    opened = [c for c in fake.calls("views.open") if c.ok]
    assert len(opened) == 1
    view: dict[str, Any] = opened[0].response["view"]
    assert (view["title"]["text"], view["submit"]["text"], view["close"]["text"]) == (
        "保存为 errfix 记录",
        "保存",
        "取消",
    )
    fields = [b for b in view["blocks"] if b.get("type") == "input"]
    labels = [b["label"]["text"] for b in fields]
    assert labels == ["错误行", "正则表达式", "根本原因", "有效的修复方法", "怎么做（命令或代码）"]
    assert fields[0]["hint"]["text"] == "错误打印出来的原样：下一次粘贴里会出现的内容。"
    context = view["blocks"][-1]["elements"][0]["text"]
    assert context.startswith("将保存为 `team/") and "（由错误行生成）· 领域 " in context
    assert inputs(view)["how"] == "quarry unlock --force /data/quarry"  # the prefill is the thread's, not translated

    refused = await bot.link.submit(view["id"], ZHANG, {"regex": "(unclosed", "fix": ""})
    assert refused.errors is not None
    assert refused.errors["fix"] == "请填写有效的修复方法。"
    assert refused.errors["regex"].startswith("RE2 无法编译它：")

    saved = await bot.link.submit(view["id"], ZHANG)
    assert saved.errors is None
    await bot.idle()
    said = [m for m in bot.replies(paste) if m["text"].startswith("已保存为 `team/")]
    assert len(said) == 1 and said[0]["text"].endswith("`，以后我会回答这个错误。")
    assert "Saved as" not in all_text(said[0])
    assert [b["text"]["text"] for b in buttons(said[0], "errfix_vote")] == ["有效", "无效"]

    rid = said[0]["text"].split("`")[1]
    assert (await bot.link.command(CHANNEL, ZHANG, "/errfix", "edit pytorch/loss-nan-step")).ok
    await bot.idle()
    refusal = fake.calls("response_url")[-1].params["text"]
    assert refusal == "`pytorch/loss-nan-step` 不是团队记录：这里只能编辑从 Slack 保存的记录。"
    assert await bot.event({"type": "app_home_opened", "user": ZHANG, "channel": "D_ZHANG", "tab": "home"}) == 200
    await bot.idle()
    home = all_text(fake.home_views[ZHANG])
    assert "你的团队教给我的" in home and f"*最新：*\n• `{rid}`" in home
    assert "Taught by your team" not in home and "Newest" not in home

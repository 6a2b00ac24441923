"""Acknowledged means done, over HTTP against the strict fake: the work an acknowledged event
owes is finished once, whatever Slack or a crash does in between (#14.1, #14.6).

A crash is played by writing the job as `Dedupe` writes it before the ack and never running its
listener; the next start's `Replayer` must finish it, and never post an answer twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from slack_bolt.context.async_context import AsyncBoltContext

from bot.fakeslack.events import event_body
from bot.fakeslack.web_api import BOT_ID, BOT_USER_ID
from bot.slack.deps import Outbox
from bot.slack.jobs import Replayer
from bot.slack.middleware import dedupe_keys
from bot.slack.owed import click_key, owed_job
from tests.slack.conftest import ALICE, BOB, CHANNEL, PASTE, RECORD, Bot, buttons, message_event, slack_escape

KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"  # shaped like an AWS access key id, not a real one
log = logging.getLogger("errfix.test")


def replayer(bot: Bot, *, stale_after: float = 300.0) -> Replayer:
    return Replayer(bot.app, bot.errfix, bot.jobs, Outbox(log), log, stale_after=stale_after)


async def acked_then_killed(bot: Bot, event: dict[str, Any], event_id: str) -> str:
    """What `Dedupe` writes before acking `event`; its listener never runs (errfix was killed)."""
    body = event_body(event, event_id)
    keys = dedupe_keys(body)
    assert await bot.errfix.accept(keys, owed_job(body, keys))
    return keys[0]


def posts(bot: Bot) -> list[Any]:
    return [c for c in bot.fake.calls("chat.postMessage") if c.ok]


async def test_an_answered_paste_owes_nothing(make_bot: Any) -> None:
    bot = await make_bot()
    await bot.answer_to(await bot.paste())
    assert await bot.errfix.pending_jobs() == []


async def test_a_post_whose_answer_was_cut_off_is_not_posted_again(make_bot: Any) -> None:
    bot = await make_bot()
    bot.fake.drop_next("chat.postMessage")  # stored in Slack, the connection cut before the answer
    message = await bot.paste()
    await bot.idle()
    [answer] = bot.replies(message)
    assert bot.fake.attempts("chat.postMessage") == 1
    assert answer["metadata"]["event_payload"]["message"] == f"{CHANNEL}:{message['ts']}"
    reply = await bot.errfix.reply(CHANNEL, answer["ts"])  # votes find it: the reply is remembered
    assert reply is not None and reply.record_id == RECORD
    assert await bot.errfix.pending_jobs() == []


async def test_a_post_that_failed_with_a_5xx_and_is_not_in_the_thread_is_posted_once_more(make_bot: Any) -> None:
    bot = await make_bot()
    bot.fake.fail_next("chat.postMessage", 500)
    message = await bot.paste()
    await bot.idle()
    assert len(bot.replies(message)) == 1
    assert bot.fake.attempts("chat.postMessage") == 2
    [looked] = bot.fake.calls("conversations.replies")  # looked in the thread once, with metadata
    assert (looked.params["ts"], looked.params["include_all_metadata"]) == (message["ts"], "1")


async def test_three_uncertain_failures_give_up_and_leave_the_job_owed(make_bot: Any) -> None:
    bot = await make_bot()
    bot.fake.fail_next("chat.postMessage", 503, times=3)
    message = await bot.paste()
    await bot.idle()
    assert bot.replies(message) == []
    assert bot.fake.attempts("chat.postMessage") == 3
    [job] = await bot.errfix.pending_jobs()  # left for the sweep
    assert job.body["event"]["ts"] == message["ts"]


async def test_a_paste_acknowledged_before_a_crash_is_answered_once_at_the_next_start(make_bot: Any) -> None:
    bot = await make_bot()
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    await acked_then_killed(bot, message_event(message), "Ev_CRASH")
    assert bot.replies(message) == []
    again = replayer(bot)
    assert await again.run_owed(left_over=True) == 1
    await bot.idle()
    [answer] = bot.replies(message)
    assert "Loss is NaN" in json.dumps(answer)
    assert await bot.errfix.pending_jobs() == []
    assert await again.run_owed(left_over=True) == 0  # done means done
    # Slack's retry of the same event (it got our ack, but retries happen) is still a duplicate
    assert await bot.event(message_event(message), event_id="Ev_CRASH", retry=1) == 200
    await bot.idle()
    assert len(bot.replies(message)) == 1


async def test_a_replayed_paste_already_answered_is_not_answered_again(make_bot: Any) -> None:
    """Killed after the post, before the job was finished (and before the reply was recorded)."""
    bot = await make_bot()
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    await acked_then_killed(bot, message_event(message), "Ev_POSTED")
    assert await bot.errfix.first_seen([f"answered:{CHANNEL}:{message['ts']}"])  # the claim was taken
    payload = {"message": f"{CHANNEL}:{message['ts']}", "record": RECORD, "score": 0.93, "sure": True, "locale": "en"}
    posted = bot.fake.add_message(
        CHANNEL,
        "the answer",
        BOT_USER_ID,
        thread_ts=message["ts"],
        bot_id=BOT_ID,
        metadata={"event_type": "errfix_answer", "event_payload": payload},
    )
    assert await replayer(bot).run_owed(left_over=True) == 0
    await bot.idle()
    assert posts(bot) == []
    assert await bot.errfix.pending_jobs() == []
    reply = await bot.errfix.reply(CHANNEL, posted["ts"])
    assert reply is not None and (reply.record_id, reply.score, reply.sure) == (RECORD, 0.93, True)


async def test_a_claimed_paste_with_no_answer_in_the_thread_is_answered(make_bot: Any) -> None:
    """Killed after claiming the message, before the post."""
    bot = await make_bot()
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    await acked_then_killed(bot, message_event(message), "Ev_CLAIMED")
    assert await bot.errfix.first_seen([f"answered:{CHANNEL}:{message['ts']}"])
    bot.fake.add_message(CHANNEL, "someone else's reply", BOB, thread_ts=message["ts"])
    assert await replayer(bot).run_owed(left_over=True) == 1
    await bot.idle()
    assert len(bot.replies(message)) == 1


async def test_a_job_that_keeps_failing_is_tried_five_times_then_given_up(
    make_bot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await make_bot()
    bot.fake.error_next("chat.postMessage", "fatal_error", times=10)
    message = await bot.paste()
    await bot.idle()
    assert len(await bot.errfix.pending_jobs()) == 1
    sweep = replayer(bot, stale_after=0.0)
    for tries in range(1, 6):
        assert await sweep.run_owed() == 1, tries
        await bot.idle()
        assert [j.attempts for j in await bot.errfix.pending_jobs()] == [tries]
    with caplog.at_level(logging.WARNING, logger="errfix.test"):
        assert await sweep.run_owed() == 0
    assert await bot.errfix.pending_jobs() == []
    assert "gave up on event:" in caplog.text and "after 5 attempts" in caplog.text
    assert bot.replies(message) == []
    assert bot.fake.attempts("chat.postMessage") == 6  # the first try and five replays


async def test_the_sweep_leaves_fresh_and_running_jobs_alone(make_bot: Any) -> None:
    bot = await make_bot()
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    key = await acked_then_killed(bot, message_event(message), "Ev_FRESH")
    assert await replayer(bot, stale_after=3600.0).run_owed() == 0  # accepted just now: not stale
    bot.jobs.running.add(key)
    assert await replayer(bot, stale_after=0.0).run_owed() == 0  # a listener here is on it
    bot.jobs.running.discard(key)
    assert await replayer(bot, stale_after=0.0).run_owed() == 1


async def test_a_reaction_vote_acknowledged_before_a_crash_is_counted_once(make_bot: Any) -> None:
    bot = await make_bot()
    answer = await bot.answer_to(await bot.paste())
    reaction = {
        "type": "reaction_added",
        "user": BOB,
        "reaction": "+1",
        "item": {"type": "message", "channel": CHANNEL, "ts": answer["ts"]},
        "item_user": BOT_USER_ID,
        "event_ts": "1700000999.000100",
    }
    await acked_then_killed(bot, reaction, "Ev_VOTE")
    before = await bot.errfix.view(RECORD)
    assert await replayer(bot).run_owed(left_over=True) == 1
    await bot.idle()
    after = await bot.errfix.view(RECORD)
    assert before is not None and after is not None
    assert after.workarounds[0].votes_up == before.workarounds[0].votes_up + 1
    assert await replayer(bot).run_owed(left_over=True) == 0


async def test_a_channel_over_its_budget_owes_nothing(make_bot: Any) -> None:
    bot = await make_bot(max_replies_per_minute=1)
    await bot.answer_to(await bot.paste())
    second = await bot.paste()
    await bot.idle()
    assert bot.replies(second) == []
    assert await bot.errfix.pending_jobs() == []


async def test_the_kept_job_holds_no_secret(make_bot: Any, db_file: Path) -> None:
    bot = await make_bot()
    bot.fake.hold("chat.postMessage", carry_out=False)
    await bot.paste(f"{PASTE}\nboto3 config: aws_access_key_id={KEY_ID}")
    for _ in range(500):
        if bot.fake.held:
            break
        await bot.fake.wait_change(bot.fake.version, 0.01)
    [job] = await bot.errfix.pending_jobs()
    assert KEY_ID not in json.dumps(job.body) and "[redacted:" in job.body["event"]["text"]
    assert "blocks" not in job.body["event"]
    kept = b"".join(p.read_bytes() for p in db_file.parent.glob("errfix.db-events*"))
    assert KEY_ID.encode() not in kept
    bot.fake.release()
    await bot.idle()


async def test_a_listener_that_cannot_see_its_job_is_refused_at_registration(make_bot: Any) -> None:
    bot = await make_bot()

    async def no_context(event: dict[str, Any]) -> None:
        return None

    async def with_context(event: dict[str, Any], context: AsyncBoltContext) -> None:
        return None

    with pytest.raises(TypeError, match="must take `context`"):
        bot.jobs.completing(no_context)
    assert bot.jobs.completing(with_context).__wrapped__ is with_context  # type: ignore[attr-defined]


def top_vote_button(answer: dict[str, Any]) -> dict[str, Any]:
    return buttons(answer, "errfix_vote_up")[0]


async def test_a_click_acknowledged_before_a_crash_is_applied_once(make_bot: Any) -> None:
    bot = await make_bot()
    answer = await bot.answer_to(await bot.paste())
    payload = bot.click_payload(answer, top_vote_button(answer), user=BOB)
    keys = [click_key(payload)]
    assert keys[0] is not None and keys[0].startswith(f"click:{BOB}:errfix_vote_up:")
    assert await bot.errfix.accept(keys, owed_job(payload, keys))  # acked; errfix killed before the vote
    assert "message" not in (await bot.errfix.pending_jobs())[0].body  # errfix's own answer is not kept
    before = await bot.errfix.view(RECORD)
    assert await replayer(bot).run_owed(left_over=True) == 1
    after = await bot.errfix.view(RECORD)
    assert before is not None and after is not None
    assert after.workarounds[0].votes_up == before.workarounds[0].votes_up + 1
    # killed again after the vote, before the job was finished: the replay does not withdraw it
    await bot.errfix.accept(["again"], (str(keys[0]), owed_job(payload, keys)[1]))  # type: ignore[index]
    assert await replayer(bot).run_owed(left_over=True) == 1
    again = await bot.errfix.view(RECORD)
    assert again is not None and again.workarounds[0].votes_up == after.workarounds[0].votes_up
    assert await bot.errfix.pending_jobs() == []


async def test_a_click_is_acknowledged_while_the_store_is_busy(make_bot: Any) -> None:
    """The ack waits on the events file only: with the store's thread held, the click still gets
    its 200 (the vote is applied when the store is free)."""
    bot = await make_bot()
    answer = await bot.answer_to(await bot.paste())
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    def hold(_: Any) -> None:
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result()

    busy = asyncio.ensure_future(bot.errfix._run(hold))  # the store's one thread, taken
    assert await bot.click(answer, top_vote_button(answer), user=BOB) == 200
    assert (await bot.errfix.pending_jobs())[0].key.startswith(f"click:{BOB}:")
    release.set()
    await busy
    await bot.idle()
    view = await bot.errfix.view(RECORD)
    assert view is not None and view.workarounds[0].votes_up == 1
    assert await bot.errfix.pending_jobs() == []

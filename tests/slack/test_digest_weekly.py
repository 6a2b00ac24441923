"""The weekly digest (#38) on a fake clock: due at the slot, once per channel and slot, never for a
slot before the channel asked, and exactly once when errfix died between claiming and hearing back."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core.schedule import Schedule
from bot.fakeslack.web_api import FakeSlack
from bot.slack.deps import Outbox, Users
from bot.slack.digest import Digests
from tests.slack.conftest import ALICE, CHANNEL, PASTE, Bot

WED = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)  # a Wednesday
MON_0859 = datetime(2026, 12, 7, 8, 59, tzinfo=UTC)
MON_0900 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def digests_in(fake: FakeSlack) -> list[str]:
    return [m["ts"] for m in fake.messages(CHANNEL) if (m.get("metadata") or {}).get("event_type") == "errfix_digest"]


def runner(bot: Bot, clock: Clock) -> Digests:
    log = logging.getLogger("test")
    return Digests(bot.errfix, Outbox(log), Users(log), bot.app.client, Schedule(0, 9, 0, "UTC"), clock=clock)


async def test_posted_at_the_slot_once_and_not_for_a_slot_before_it_was_asked(
    bot: Bot, fake: FakeSlack, db_file: Path
) -> None:
    await bot.answer_to(await bot.paste(PASTE, channel_type="channel"))
    with sqlite3.connect(db_file) as conn:  # pasted on Sunday Dec 6, noon: in the 7 days before Dec 7 09:00 only
        conn.execute("UPDATE pastes SET created_at = '2026-12-06T12:00:00Z'")
    await bot.errfix.set_weekly_digest(CHANNEL, True, ALICE, WED)
    clock = Clock(WED + timedelta(hours=1))
    digests = runner(bot, clock)
    assert await digests.run_due() == 0  # Monday Nov 30's slot came before Wednesday's ask
    clock.now = MON_0859
    assert await digests.run_due() == 0
    clock.now = MON_0900
    assert await digests.run_due() == 1
    clock.now = MON_0900 + timedelta(minutes=1)
    assert await digests.run_due() == 0
    assert len(digests_in(fake)) == 1
    clock.now = MON_0900 + timedelta(days=7)
    assert await digests.run_due() == 1 and len(digests_in(fake)) == 2
    said = [fake.message(CHANNEL, ts)["text"] for ts in digests_in(fake)]
    assert said == ["errfix digest: 1 errors pasted, 1 answered", "errfix digest: 0 errors pasted, 0 answered"]


async def test_a_channel_turned_off_gets_no_digest(bot: Bot, fake: FakeSlack) -> None:
    await bot.errfix.set_weekly_digest(CHANNEL, True, ALICE, WED)
    await bot.errfix.set_channel_mode(CHANNEL, "off", ALICE)
    assert await runner(bot, Clock(MON_0900)).run_due() == 0 and digests_in(fake) == []


async def test_a_digest_in_slack_whose_answer_was_lost_is_not_posted_again(bot: Bot, fake: FakeSlack) -> None:
    await bot.answer_to(await bot.paste(PASTE, channel_type="channel"))
    await bot.errfix.set_weekly_digest(CHANNEL, True, ALICE, WED)
    fake.drop_next("chat.postMessage")  # the digest reaches Slack; the connection is cut before the answer
    assert await runner(bot, Clock(MON_0900)).run_due() == 0
    assert len(digests_in(fake)) == 1
    assert await runner(bot, Clock(MON_0900 + timedelta(minutes=2))).run_due() == 0
    assert len(digests_in(fake)) == 1
    assert await bot.errfix.unposted_digests() == []


async def test_a_claimed_digest_that_never_reached_slack_is_posted_once(bot: Bot, fake: FakeSlack) -> None:
    await bot.errfix.set_weekly_digest(CHANNEL, True, ALICE, WED)
    assert await bot.errfix.claim_digest(CHANNEL, "2026-12-07")  # errfix died after claiming it
    assert await runner(bot, Clock(MON_0900 + timedelta(minutes=5))).run_due() == 1
    assert len(digests_in(fake)) == 1

"""Posts are paced per channel like Slack's limit, and failed users.info lookups are cached."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest_asyncio
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User
from bot.slack.deps import Users
from bot.slack.pacing import Pacer
from tests.slack.conftest import CHANNEL, PASTE, Bot


class Clock:
    """Time that moves only when the pacer sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now, self.slept = 100.0, list[float]()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


async def test_a_burst_of_three_then_one_a_second_per_channel() -> None:
    clock = Clock()
    pacer = Pacer(per_second=1, burst=3, clock=clock, sleep=clock.sleep)
    waits = [await pacer.wait("C1") for _ in range(5)]  # five answers at the same instant
    assert waits == [0, 0, 0, 1, 2] and clock.slept == [1, 2]
    assert await pacer.wait("C2") == 0  # another channel has its own pace
    clock.now += 10  # a quiet spell refills the burst, no further
    assert [await pacer.wait("C1") for _ in range(4)] == [0, 0, 0, 1]


def test_the_default_pace_is_two_at_once_then_one_a_second() -> None:
    """Production's pace, in the test's own numbers: one post under the fake's (and Slack's) burst of
    3 for network jitter, then 1/s. A burst of 3 here was seen to draw 429s."""
    pacer = Pacer(clock=lambda: 0.0)
    assert [pacer.reserve("C") for _ in range(4)] == [0, 0, 1, 2]


def test_a_slower_pace_spaces_the_slots() -> None:
    pacer = Pacer(per_second=0.5, burst=1, clock=lambda: 0.0)
    assert [pacer.reserve("C") for _ in range(3)] == [0, 2, 4]


async def test_a_burst_of_answers_in_one_channel_never_hits_slacks_limit(bot: Bot) -> None:
    # the strict fake refuses a fourth post within a second in one channel (a burst of 3)
    pastes = [await bot.paste(PASTE + f"\n(run {n})") for n in range(4)]
    await bot.idle()
    posts = bot.fake.calls("chat.postMessage")
    assert [c.status for c in posts] == [200] * 4
    assert sorted(c.params["thread_ts"] for c in posts) == sorted(p["ts"] for p in pastes)
    assert {c.params["channel"] for c in posts} == {CHANNEL}


@pytest_asyncio.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(users=[User("U_ANN", "ann", locale="zh-CN")])
    await slack.start()
    yield slack
    await slack.stop()


async def test_a_failed_users_info_is_not_asked_again_for_ten_minutes(slack: FakeSlack) -> None:
    fake = slack
    clock = Clock()
    users = Users(logging.getLogger("test"), clock=clock)
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    assert (await users.get(client, "U_GONE")).locale == "en"
    clock.now += 599
    await users.get(client, "U_GONE")
    assert fake.attempts("users.info") == 1
    clock.now += 1  # 600 s after the failure: asked again
    await users.get(client, "U_GONE")
    assert fake.attempts("users.info") == 2
    assert (await users.get(client, "U_ANN")).locale == "zh-CN"
    await users.get(client, "U_ANN")
    assert fake.attempts("users.info") == 3  # a found user stays cached

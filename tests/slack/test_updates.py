"""`Updates`: an answer's re-renders after votes are coalesced (latest state wins, none lost),
paced to one per second per answer, retried on failure and given up when the message is gone;
a clock and a sleep of our own, so nothing here waits for real."""

from __future__ import annotations

import asyncio
import logging

import pytest
from slack_sdk.errors import SlackApiError

from bot.slack.updates import Updates


class Time:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def slack_error(code: str) -> SlackApiError:
    return SlackApiError(message=f"failed: {code}", response={"ok": False, "error": code})


@pytest.fixture
def time_() -> Time:
    return Time()


def updates(time_: Time, **options: float) -> Updates:
    return Updates(logging.getLogger("test.updates"), clock=time_.clock, sleep=time_.sleep, **options)  # type: ignore[arg-type]


async def test_requests_during_a_render_coalesce_into_one_more_a_second_later(time_: Time) -> None:
    ups = updates(time_, interval=1.0)
    state = {"votes": 1}
    seen: list[int] = []
    gate = asyncio.Event()

    async def render() -> None:
        seen.append(state["votes"])
        if len(seen) == 1:
            await gate.wait()

    first = asyncio.create_task(ups.refresh("C1:2.0", render))
    await asyncio.sleep(0)
    for votes in range(2, 7):  # five more clicks while the first update is on its way
        state["votes"] = votes
        await asyncio.wait_for(ups.refresh("C1:2.0", render), 60)  # returns at once: the runner has it
    gate.set()
    await asyncio.wait_for(first, 60)
    assert seen == [1, 6]  # two updates, the second with the latest counts
    assert time_.slept == [1.0]  # and a second after the first


async def test_answers_are_paced_one_by_one_not_together(time_: Time) -> None:
    ups = updates(time_, interval=1.0)
    sent: list[str] = []

    async def render_for(key: str) -> None:
        sent.append(key)

    await ups.refresh("C1:1.0", lambda: render_for("C1:1.0"))
    await ups.refresh("C1:2.0", lambda: render_for("C1:2.0"))  # another answer: no wait
    assert time_.slept == []
    await ups.refresh("C1:1.0", lambda: render_for("C1:1.0"))  # the same answer again: a second apart
    assert sent == ["C1:1.0", "C1:2.0", "C1:1.0"] and time_.slept == [1.0]
    time_.now += 5
    await ups.refresh("C1:1.0", lambda: render_for("C1:1.0"))  # long after: at once
    assert time_.slept == [1.0]


async def test_a_failed_update_is_retried_with_growing_delays(time_: Time, caplog: pytest.LogCaptureFixture) -> None:
    ups = updates(time_, retry_delay=2.0, attempts=4)
    calls: list[int] = []

    async def render() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise slack_error("ratelimited" if len(calls) == 1 else "internal_error")

    await ups.refresh("C1:2.0", render)
    assert len(calls) == 3 and time_.slept == [2.0, 4.0]
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING"]


async def test_a_gone_message_is_given_up_at_once(time_: Time, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    ups = updates(time_)
    calls: list[int] = []

    async def render() -> None:
        calls.append(1)
        raise slack_error("message_not_found")

    await ups.refresh("C1:2.0", render)
    assert calls == [1] and time_.slept == []
    assert "message_not_found" in caplog.text


async def test_an_update_that_keeps_failing_stops_after_its_attempts(
    time_: Time, caplog: pytest.LogCaptureFixture
) -> None:
    ups = updates(time_, retry_delay=1.0, attempts=3)
    calls: list[int] = []

    async def render() -> None:
        calls.append(1)
        raise slack_error("invalid_blocks")

    await ups.refresh("C1:2.0", render)  # never raises
    assert len(calls) == 3 and time_.slept == [1.0, 2.0]
    assert caplog.records[-1].levelname == "ERROR" and "giving up" in caplog.text

"""The fake's message metadata (as Slack validates and returns it) and its two stalls: a call
carried out whose answer never arrives (`drop_next`), and calls that hang (`hold`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.web_api import FakeSlack

CHANNEL = "C_GENERAL"
META = {"event_type": "errfix_answer", "event_payload": {"message": "C_GENERAL:1.0", "score": 0.9}}


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack()
    await slack.start()
    yield slack
    await slack.stop()


@pytest.fixture
def client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=fake.base_url, retry_handlers=[])  # none: see each fault


async def test_metadata_is_kept_and_shown_only_when_asked(fake: FakeSlack, client: AsyncWebClient) -> None:
    root = fake.add_message(CHANNEL, "hi", "U1")
    await client.chat_postMessage(channel=CHANNEL, text="answer", thread_ts=root["ts"], metadata=META)
    plain = await client.conversations_replies(channel=CHANNEL, ts=root["ts"])
    assert [m.get("metadata") for m in plain["messages"]] == [None, None]
    full = await client.conversations_replies(channel=CHANNEL, ts=root["ts"], include_all_metadata=True)
    assert [m.get("metadata") for m in full["messages"]] == [None, META]
    history = await client.conversations_history(channel=CHANNEL, include_all_metadata=True)
    assert [m.get("metadata") for m in history["messages"]] == [None]  # the reply is not top level


@pytest.mark.parametrize(
    "metadata",
    [
        {"event_type": "has space", "event_payload": {}},
        {"event_type": "", "event_payload": {}},
        {"event_type": "ok"},
        {"event_type": "ok", "event_payload": "not an object"},
        {"event_type": 5, "event_payload": {}},
        {"event_type": "ok", "event_payload": {}, "extra": 1},
    ],
)
async def test_malformed_metadata_is_refused(fake: FakeSlack, client: AsyncWebClient, metadata: object) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel=CHANNEL, text="x", metadata=metadata)  # type: ignore[arg-type]
    assert raised.value.response["error"] == "invalid_metadata_format"
    assert fake.messages(CHANNEL) == []


async def test_drop_next_carries_the_call_out_and_cuts_the_connection(fake: FakeSlack, client: AsyncWebClient) -> None:
    fake.drop_next("chat.postMessage")
    with pytest.raises(aiohttp.ClientError):
        await client.chat_postMessage(channel=CHANNEL, text="first")
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["first"]
    await client.chat_postMessage(channel=CHANNEL, text="second")  # only the next one was dropped
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["first", "second"]


@pytest.mark.parametrize(("carry_out", "stored_while_held"), [(True, ["held"]), (False, [])])
async def test_held_calls_hang_until_released(
    fake: FakeSlack, client: AsyncWebClient, carry_out: bool, stored_while_held: list[str]
) -> None:
    fake.hold("chat.postMessage", carry_out=carry_out)
    post = asyncio.ensure_future(client.chat_postMessage(channel=CHANNEL, text="held"))
    for _ in range(500):
        if fake.held:
            break
        await asyncio.sleep(0.01)
    assert fake.held == 1 and not post.done()
    assert [m["text"] for m in fake.messages(CHANNEL)] == stored_while_held
    fake.release()
    assert (await post)["ok"] is True
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["held"]

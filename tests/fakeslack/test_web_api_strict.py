"""The fake refuses what Slack refuses: scopes, the posting rate, response_url expiry, files."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, PostRate, User

CHANNEL, PRIVATE, GROUP_DM, DM = "C_GENERAL", "G_PRIVATE", "G_TRIO", "D_ANN"


class Timer:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def make_fake() -> AsyncIterator[Callable[..., Any]]:
    started: list[FakeSlack] = []

    async def make(**options: Any) -> FakeSlack:
        options.setdefault("channels", (CHANNEL, PRIVATE, DM))
        fake = FakeSlack(mpims=(GROUP_DM,), users=[User("U_ANN", "ann")], **options)
        await fake.start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        await fake.stop()


async def error_of(call: Any) -> dict[str, Any]:
    with pytest.raises(SlackApiError) as raised:
        await call
    return dict(raised.value.response.data)


@pytest.mark.asyncio
async def test_the_token_holds_the_manifests_bot_scopes(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake()
    assert {"chat:write", "users:read", "files:read", "channels:history"} <= set(fake.scopes)
    assert "reactions:write" not in fake.scopes and "chat:write.public" not in fake.scopes
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    response = await client.auth_test()
    assert response.headers["x-oauth-scopes"] == ",".join(fake.scopes)


@pytest.mark.asyncio
async def test_a_call_outside_the_tokens_scopes_is_missing_scope(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake(scopes=("chat:write", "channels:history"))
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    await client.chat_postMessage(channel=CHANNEL, text="allowed")
    refused = await error_of(client.users_info(user="U_ANN"))
    assert refused == {
        "ok": False,
        "error": "missing_scope",
        "needed": "users:read",
        "provided": "chat:write,channels:history",
    }
    assert (await error_of(client.reactions_add(channel=CHANNEL, timestamp="1", name="x")))["needed"] == (
        "reactions:write"
    )
    assert (await error_of(client.files_info(file="F1")))["needed"] == "files:read"
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["allowed"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("channel", "scope"),
    [(CHANNEL, "channels:history"), (PRIVATE, "groups:history"), (GROUP_DM, "mpim:history"), (DM, "im:history")],
)
async def test_reading_a_thread_needs_the_history_scope_of_its_channel_type(
    make_fake: Callable[..., Any], channel: str, scope: str
) -> None:
    every = ("channels:history", "groups:history", "mpim:history", "im:history")
    without = await make_fake(scopes=tuple(s for s in every if s != scope))
    root = without.add_message(channel, "root", "U_ANN")
    client = AsyncWebClient(token=BOT_TOKEN, base_url=without.base_url)
    refused = await error_of(client.conversations_replies(channel=channel, ts=root["ts"]))
    assert refused["error"] == "missing_scope" and refused["needed"] == scope
    with_it = await make_fake(scopes=(scope,))
    root = with_it.add_message(channel, "root", "U_ANN")
    replies = await AsyncWebClient(token=BOT_TOKEN, base_url=with_it.base_url).conversations_replies(
        channel=channel, ts=root["ts"]
    )
    assert [m["text"] for m in replies["messages"]] == ["root"]


@pytest.mark.asyncio
async def test_posts_are_limited_per_channel_with_a_short_burst(make_fake: Callable[..., Any]) -> None:
    timer = Timer()
    fake = await make_fake(timer=timer, post_rate=PostRate(per_second=1, burst=3))
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    for n in range(3):  # a burst of 3 in the same instant
        await client.chat_postMessage(channel=CHANNEL, text=f"burst {n}")
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel=CHANNEL, text="fourth")
    assert raised.value.response.status_code == 429 and raised.value.response.headers["Retry-After"] == "1"
    assert raised.value.response["error"] == "ratelimited"
    await client.chat_postMessage(channel=PRIVATE, text="another channel has its own bucket")
    timer.now += 0.9
    assert (await error_of(client.chat_postMessage(channel=CHANNEL, text="too soon")))["error"] == "ratelimited"
    timer.now += 0.1  # one second after the burst: one more
    await client.chat_postMessage(channel=CHANNEL, text="after a second")
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["burst 0", "burst 1", "burst 2", "after a second"]
    assert [c.status for c in fake.calls("chat.postMessage")].count(429) == 2


@pytest.mark.asyncio
async def test_a_long_pause_refills_the_burst_but_not_beyond_it(make_fake: Callable[..., Any]) -> None:
    timer = Timer()
    fake = await make_fake(timer=timer, post_rate=PostRate(per_second=1, burst=3))
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    await client.chat_postMessage(channel=CHANNEL, text="first")
    timer.now += 60
    for n in range(3):
        await client.chat_postMessage(channel=CHANNEL, text=f"again {n}")
    assert (await error_of(client.chat_postMessage(channel=CHANNEL, text="x")))["error"] == "ratelimited"


@pytest.mark.asyncio
async def test_without_a_post_rate_posts_are_not_limited(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake(timer=Timer(), post_rate=None)
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    for n in range(10):
        await client.chat_postMessage(channel=CHANNEL, text=f"{n}")
    assert len(fake.messages(CHANNEL)) == 10


@pytest.mark.asyncio
async def test_a_response_url_expires_after_30_minutes(make_fake: Callable[..., Any]) -> None:
    timer = Timer()
    fake = await make_fake(timer=timer)
    fresh = fake.response_url_for("cmd-1", channel=CHANNEL, user="U_ANN")
    old = fake.response_url_for("cmd-2", channel=CHANNEL, user="U_ANN")
    async with aiohttp.ClientSession() as http:
        timer.now += 1800  # exactly 30 minutes: still good
        async with http.post(old, json={"text": "just in time"}) as res:
            assert res.status == 200
        timer.now += 0.5
        async with http.post(old, json={"text": "too late"}) as res:
            assert res.status == 404 and (await res.json())["error"] == "expired_url"
        fake.response_url_for("cmd-1", channel=CHANNEL, user="U_ANN")  # asking again does not renew it
        async with http.post(fresh, json={"text": "also too late"}) as res:
            assert res.status == 404
    assert [e["text"] for e in fake.ephemerals] == ["just in time"]


@pytest.mark.asyncio
async def test_blocks_slack_refuses_are_refused_on_every_surface(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake()
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    empty = [{"type": "section", "text": {"type": "mrkdwn", "text": ""}}]
    refused = await error_of(client.chat_postMessage(channel=CHANNEL, text="x", blocks=empty))
    assert refused["error"] == "invalid_blocks"
    assert refused["response_metadata"]["messages"] == [
        "[ERROR] must be more than 0 characters [json-pointer:/blocks/0/text/text]"
    ]
    view = {"type": "home", "blocks": [{"type": "context", "elements": []}]}
    assert (await error_of(client.views_publish(user_id="U_ANN", view=view)))["error"] == "invalid_blocks"
    url = fake.response_url_for("cmd-1", channel=CHANNEL, user="U_ANN")
    async with aiohttp.ClientSession() as http, http.post(url, json={"text": "x", "blocks": empty}) as res:
        assert res.status == 400 and (await res.json())["error"] == "invalid_blocks"
    assert fake.messages(CHANNEL) == [] and fake.ephemerals == [] and fake.home_views == {}


@pytest.mark.asyncio
async def test_files_info_and_the_download_need_the_bot_token(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake()
    text = "\n".join(f"line {n}" for n in range(1, 9))
    shared = fake.add_file("U_ANN", text, name="trace.log", title="trace")
    assert shared["preview"] == "line 1\nline 2\nline 3\nline 4\nline 5"
    assert shared["preview_is_truncated"] is True and shared["lines"] == 8 and shared["lines_more"] == 3
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    info = await client.files_info(file=shared["id"])
    assert info["content"] == text and info["is_truncated"] is False and info["file"]["name"] == "trace.log"

    url = shared["url_private_download"]
    async with aiohttp.ClientSession() as http:
        async with http.get(url, headers={"Authorization": f"Bearer {BOT_TOKEN}"}) as res:
            assert res.status == 200 and await res.text() == text
        tail = {"Authorization": f"Bearer {BOT_TOKEN}", "Range": "bytes=-6"}
        async with http.get(url, headers=tail) as res:
            assert res.status == 206 and await res.text() == "line 8"
        async with http.get(url) as res:  # like Slack: a sign-in page, not an error status
            assert res.status == 200 and res.content_type == "text/html"
        fake.delete_file(shared["id"])
        async with http.get(url, headers={"Authorization": f"Bearer {BOT_TOKEN}"}) as res:
            assert res.status == 404
    assert (await error_of(client.files_info(file=shared["id"])))["error"] == "file_not_found"
    assert [c.status for c in fake.calls("file_download")] == [200, 200, 200, 404]


@pytest.mark.asyncio
async def test_a_short_file_has_an_untruncated_preview_and_a_binary_none(make_fake: Callable[..., Any]) -> None:
    fake = await make_fake()
    short = fake.add_file("U_ANN", "one\ntwo\nthree\nfour\nfive")
    assert short["preview_is_truncated"] is False and short["lines_more"] == 0
    image = fake.add_file("U_ANN", b"\x89PNG\r\n", name="plot.png", filetype="png", mimetype="image/png")
    assert "preview" not in image and image["mode"] == "hosted"
    info = await AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url).files_info(file=image["id"])
    assert "content" not in info.data

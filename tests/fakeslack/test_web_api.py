"""The fake Slack must answer slack-sdk's real clients the way Slack does, and be strict."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.signature import SignatureVerifier
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.events import sign
from bot.fakeslack.thread import FakeSlackThread
from bot.fakeslack.web_api import BOT_USER_ID, Call, FakeSlack, User

CHANNEL, OTHER = "C_GENERAL", "C_RANDOM"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(users=[User("U_ZH", "li", locale="zh-CN"), User("U_EN", "ann"), User("U_APP", is_bot=True)])
    await slack.start()
    yield slack
    await slack.stop()


@pytest.fixture
def client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=fake.base_url)


async def api_error(call: Any) -> str:
    with pytest.raises(SlackApiError) as raised:
        await call
    return str(raised.value.response["error"])


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


@pytest.mark.asyncio
async def test_post_message_is_stored_with_increasing_ts(fake: FakeSlack, client: AsyncWebClient) -> None:
    first = await client.chat_postMessage(channel=CHANNEL, text="hello", blocks=[section("hello")])
    second = await client.chat_postMessage(channel=CHANNEL, text="reply", thread_ts=first["ts"])

    assert first["ts"] == "1700000000.000100" and float(second["ts"]) > float(first["ts"])
    assert first["message"]["bot_id"] == "B_BOT" and first["message"]["user"] == BOT_USER_ID
    stored = fake.messages(CHANNEL)
    assert [(m["text"], m.get("thread_ts")) for m in stored] == [("hello", None), ("reply", first["ts"])]
    assert stored[0]["blocks"] == [section("hello")]
    assert fake.messages(CHANNEL, thread_ts=first["ts"]) == stored
    call = fake.calls("chat.postMessage")[0]
    assert call.ok and call.params["channel"] == CHANNEL
    assert call.headers["Authorization"] == "Bearer xoxb-test"
    assert fake.warnings == []


@pytest.mark.asyncio
async def test_tokens_are_checked(fake: FakeSlack) -> None:
    wrong = AsyncWebClient(token="xoxb-wrong", base_url=fake.base_url)
    app_level = AsyncWebClient(token="xapp-test", base_url=fake.base_url)
    assert await api_error(wrong.chat_postMessage(channel=CHANNEL, text="x")) == "invalid_auth"
    assert await api_error(app_level.chat_postMessage(channel=CHANNEL, text="x")) == "not_allowed_token_type"
    bot = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    assert await api_error(bot.apps_connections_open(app_token="xoxb-test")) == "not_allowed_token_type"
    async with aiohttp.ClientSession() as http, http.post(fake.base_url + "auth.test") as res:
        assert await res.json() == {"ok": False, "error": "not_authed"}
    assert fake.messages(CHANNEL) == []
    assert (await bot.auth_test())["user_id"] == BOT_USER_ID


@pytest.mark.asyncio
async def test_unknown_method(client: AsyncWebClient) -> None:
    assert await api_error(client.api_call("chat.postMessages", json={"channel": CHANNEL})) == "unknown_method"


@pytest.mark.asyncio
async def test_channels_and_arguments_are_checked(client: AsyncWebClient) -> None:
    assert await api_error(client.api_call("chat.postMessage", json={"text": "x"})) == "channel_not_found"
    assert await api_error(client.chat_postMessage(channel="C_NOPE", text="x")) == "channel_not_found"
    assert await api_error(client.chat_postMessage(channel=OTHER, text="x")) == "not_in_channel"
    assert await api_error(client.api_call("chat.postMessage", json={"channel": CHANNEL})) == "no_text"
    bad_thread = client.chat_postMessage(channel=CHANNEL, text="x", thread_ts="1.000001")
    assert await api_error(bad_thread) == "thread_not_found"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("blocks", "error"),
    [
        ([section("x")] * 51, "invalid_blocks"),
        ([section("x" * 3001)], "invalid_blocks"),
        ([{"type": "context", "elements": [{"type": "mrkdwn", "text": "x" * 3001}]}], "invalid_blocks"),
        ([{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}], "invalid_blocks"),
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "x"}}], "invalid_blocks"),
        ([{"type": "section", "block_id": "b" * 256, "text": {"type": "mrkdwn", "text": "x"}}], "invalid_blocks"),
        (
            [{"type": "actions", "elements": [{"type": "button", "action_id": "a", "value": "v" * 2001}]}],
            "invalid_blocks",
        ),
        ([{"type": "actions", "elements": [{"type": "button", "action_id": "a" * 256}]}], "invalid_blocks"),
        ([section("x" * 2900)] * 5, "msg_blocks_too_long"),
        ("not json", "invalid_blocks_format"),
    ],
)
async def test_block_limits(fake: FakeSlack, client: AsyncWebClient, blocks: Any, error: str) -> None:
    call = client.api_call("chat.postMessage", json={"channel": CHANNEL, "text": "x", "blocks": blocks})
    assert await api_error(call) == error
    assert fake.messages(CHANNEL) == []


@pytest.mark.asyncio
async def test_text_limit_and_the_limits_themselves_pass(fake: FakeSlack, client: AsyncWebClient) -> None:
    assert await api_error(client.chat_postMessage(channel=CHANNEL, text="x" * 40_001)) == "msg_too_long"
    at_limits = [section("x" * 3000), {"type": "header", "text": {"type": "plain_text", "text": "h" * 150}}]
    await client.chat_postMessage(channel=CHANNEL, text="x" * 40_000, blocks=at_limits)
    await client.chat_postMessage(channel=CHANNEL, text="fifty", blocks=[section("x")] * 50)
    assert len(fake.messages(CHANNEL)) == 2


@pytest.mark.asyncio
async def test_blocks_without_text_fallback_are_accepted_with_a_warning(
    fake: FakeSlack, client: AsyncWebClient
) -> None:
    await client.api_call("chat.postMessage", json={"channel": CHANNEL, "blocks": [section("only blocks")]})
    assert len(fake.messages(CHANNEL)) == 1
    assert fake.warnings == ["chat.postMessage: blocks without a top-level text fallback"]


@pytest.mark.asyncio
async def test_form_and_query_parameters_are_read(fake: FakeSlack, client: AsyncWebClient) -> None:
    fake.scopes = (*fake.scopes, "reactions:write")  # errfix's own token does not hold it
    blocks = json.dumps([section("form")])
    await client.api_call("chat.postMessage", data={"channel": CHANNEL, "text": "form", "blocks": blocks})
    [message] = fake.messages(CHANNEL)
    assert message["blocks"] == [section("form")]
    await client.reactions_add(channel=CHANNEL, timestamp=message["ts"], name="eyes")  # query string
    got = await client.reactions_get(channel=CHANNEL, timestamp=message["ts"])
    assert got["message"]["reactions"] == [{"name": "eyes", "users": [BOT_USER_ID], "count": 1}]
    assert await api_error(client.reactions_add(channel=CHANNEL, timestamp=message["ts"], name="eyes")) == (
        "already_reacted"
    )
    await client.reactions_remove(channel=CHANNEL, timestamp=message["ts"], name="eyes")
    assert "reactions" not in fake.messages(CHANNEL)[0] or fake.messages(CHANNEL)[0]["reactions"] == []
    assert await api_error(client.reactions_remove(channel=CHANNEL, timestamp=message["ts"], name="eyes")) == (
        "no_reaction"
    )


@pytest.mark.asyncio
async def test_rate_limit_answers_429_with_retry_after(fake: FakeSlack, client: AsyncWebClient) -> None:
    fake.fail_next("chat.postMessage", status=429, retry_after=7)
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel=CHANNEL, text="x")
    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] == "7"
    assert raised.value.response["error"] == "ratelimited"


@pytest.mark.asyncio
async def test_client_with_rate_limit_handler_retries_after_429(fake: FakeSlack) -> None:
    fake.fail_next("chat.postMessage", status=429, retry_after=0)
    client = AsyncWebClient(
        token="xoxb-test", base_url=fake.base_url, retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=1)]
    )
    res = await client.chat_postMessage(channel=CHANNEL, text="after the limit")
    assert res["ok"] and fake.attempts("chat.postMessage") == 2
    assert [c.status for c in fake.calls("chat.postMessage")] == [429, 200]
    assert [m["text"] for m in fake.messages(CHANNEL)] == ["after the limit"]


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [500, 503])
async def test_client_with_server_error_handler_retries_after_5xx(fake: FakeSlack, status: int) -> None:
    fake.fail_next("chat.update", status=status)
    fake.fail_next("chat.postMessage", status=status)
    handler = AsyncServerErrorRetryHandler(interval_calculator=FixedValueRetryIntervalCalculator(0.01))
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url, retry_handlers=[handler])
    await client.chat_postMessage(channel=CHANNEL, text="x")
    assert fake.attempts("chat.postMessage") == 2
    plain = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    with pytest.raises(SlackApiError) as raised:
        await plain.chat_update(channel=CHANNEL, ts="1", text="x")
    assert raised.value.response.status_code == status and fake.attempts("chat.update") == 1


@pytest.mark.asyncio
async def test_error_next_returns_that_slack_error_once(fake: FakeSlack, client: AsyncWebClient) -> None:
    fake.scopes = (*fake.scopes, "reactions:write")
    fake.error_next("reactions.add", error="missing_scope")
    assert await api_error(client.reactions_add(channel=CHANNEL, timestamp="1", name="x")) == "missing_scope"
    assert await api_error(client.reactions_add(channel=CHANNEL, timestamp="1", name="x")) == "message_not_found"
    with pytest.raises(ValueError):
        fake.fail_next("chat.postMessage", status=404)


@pytest.mark.asyncio
async def test_update_and_delete_only_the_bots_own_messages(fake: FakeSlack, client: AsyncWebClient) -> None:
    human = fake.add_message(CHANNEL, "Traceback <module>", user="U_EN")
    own = await client.chat_postMessage(channel=CHANNEL, text="looking…", thread_ts=human["ts"])

    updated = await client.chat_update(channel=CHANNEL, ts=own["ts"], text="the fix", blocks=[section("fix")])
    assert updated["message"]["text"] == "the fix" and "edited" in updated["message"]
    assert fake.messages(CHANNEL, thread_ts=human["ts"])[1]["blocks"] == [section("fix")]
    assert await api_error(client.chat_update(channel=CHANNEL, ts=human["ts"], text="x")) == "cant_update_message"
    assert await api_error(client.chat_update(channel=CHANNEL, ts="1.2", text="x")) == "message_not_found"
    assert await api_error(client.api_call("chat.update", json={"channel": CHANNEL, "ts": own["ts"]})) == "no_text"

    assert await api_error(client.chat_delete(channel=CHANNEL, ts=human["ts"])) == "cant_delete_message"
    await client.chat_delete(channel=CHANNEL, ts=own["ts"])
    assert [m["ts"] for m in fake.messages(CHANNEL)] == [human["ts"]]


@pytest.mark.asyncio
async def test_replies_and_history_read_the_store(fake: FakeSlack, client: AsyncWebClient) -> None:
    root = fake.add_message(CHANNEL, "root", user="U_EN")
    reply = await client.chat_postMessage(channel=CHANNEL, text="reply", thread_ts=root["ts"])
    later = fake.add_message(CHANNEL, "later", user="U_ZH")

    replies = await client.conversations_replies(channel=CHANNEL, ts=root["ts"])
    assert [m["text"] for m in replies["messages"]] == ["root", "reply"]
    assert replies["messages"][0]["reply_count"] == 1 and replies["messages"][1]["thread_ts"] == root["ts"]
    from_reply = await client.conversations_replies(channel=CHANNEL, ts=reply["ts"])
    assert [m["text"] for m in from_reply["messages"]] == ["root", "reply"]
    history = await client.conversations_history(channel=CHANNEL)
    assert [m["ts"] for m in history["messages"]] == [later["ts"], root["ts"]]
    assert await api_error(client.conversations_replies(channel=CHANNEL, ts="9.9")) == "thread_not_found"


@pytest.mark.asyncio
async def test_ephemeral_messages_are_stored_per_user(fake: FakeSlack, client: AsyncWebClient) -> None:
    res = await client.chat_postEphemeral(channel=CHANNEL, user="U_ZH", text="only you")
    assert fake.ephemerals == [
        {"channel": CHANNEL, "user": "U_ZH", "ts": res["message_ts"], "thread_ts": None, "text": "only you"}
    ]
    assert await api_error(client.chat_postEphemeral(channel=CHANNEL, user="U_NOBODY", text="x")) == "user_not_found"
    assert fake.messages(CHANNEL) == []


@pytest.mark.asyncio
async def test_users_info_locale(client: AsyncWebClient) -> None:
    zh = await client.users_info(user="U_ZH", include_locale=True)
    assert zh["user"]["locale"] == "zh-CN" and zh["user"]["is_bot"] is False
    assert (await client.users_info(user="U_EN", include_locale=True))["user"]["locale"] == "en-US"
    assert "locale" not in (await client.users_info(user="U_ZH"))["user"]
    assert (await client.users_info(user="U_APP"))["user"]["is_bot"] is True
    assert await api_error(client.users_info(user="U_NOBODY")) == "user_not_found"


@pytest.mark.asyncio
async def test_views_publish_stores_the_home_tab(fake: FakeSlack, client: AsyncWebClient) -> None:
    res = await client.views_publish(user_id="U_EN", view={"type": "home", "blocks": [section("hi")]})
    assert res["view"]["type"] == "home" and fake.home_views["U_EN"]["blocks"] == [section("hi")]
    assert await api_error(client.views_publish(user_id="U_EN", view={"type": "modal", "blocks": []})) == (
        "invalid_arguments"
    )


@pytest.mark.asyncio
async def test_response_url_allows_five_uses(fake: FakeSlack) -> None:
    url = fake.response_url_for("cmd-1", channel=OTHER, user="U_EN")  # works where the bot is not a member
    async with aiohttp.ClientSession() as http:
        statuses = []
        for n in range(6):
            body = {"text": f"answer {n}", "response_type": "in_channel" if n == 0 else "ephemeral"}
            async with http.post(url, json=body) as res:
                statuses.append(res.status)
    assert statuses == [200] * 5 + [404]
    assert [m["text"] for m in fake.messages(OTHER)] == ["answer 0"]
    assert [e["text"] for e in fake.ephemerals] == [f"answer {n}" for n in range(1, 5)]
    assert [c.params.get("text") for c in fake.calls("response_url")] == [f"answer {n}" for n in range(5)] + [None]
    assert {c.target for c in fake.calls("response_url")} == {"cmd-1"}


@pytest.mark.asyncio
async def test_response_url_replaces_and_deletes_the_original(fake: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=fake.base_url)
    original = await client.chat_postMessage(channel=CHANNEL, text="pick one")
    url = fake.response_url_for("act-1", channel=CHANNEL, user="U_EN", message_ts=original["ts"])
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json={"replace_original": True, "text": "picked"}) as res:
            assert res.status == 200
        assert [m["text"] for m in fake.messages(CHANNEL)] == ["picked"]
        async with http.post(url, json={"response_type": "ephemeral"}) as res:
            assert res.status == 400 and (await res.json())["error"] == "no_text"
        async with http.post(url, json={"delete_original": True}) as res:
            assert res.status == 200
    assert fake.messages(CHANNEL) == []
    async with aiohttp.ClientSession() as http, http.post(fake.root_url + "response/unknown", json={}) as res:
        assert res.status == 404


@pytest.mark.asyncio
async def test_wait_for_and_reset(fake: FakeSlack, client: AsyncWebClient) -> None:
    task = asyncio.ensure_future(fake.wait_for("chat.postMessage", lambda c: c.params.get("text") == "b"))
    await client.chat_postMessage(channel=CHANNEL, text="a")
    await client.chat_postMessage(channel=CHANNEL, text="b")
    call: Call = await asyncio.wait_for(task, 60)
    assert call.params["text"] == "b"
    with pytest.raises(TimeoutError):
        await fake.wait_for("chat.delete", timeout=0.05)
    fake.reset()
    assert fake.calls() == [] and fake.messages(CHANNEL) == []


def test_sign_produces_headers_slack_sdk_accepts() -> None:
    body = "token=x&command=%2Ferrfix"
    headers = sign("secret", body)
    verifier = SignatureVerifier("secret")
    assert verifier.is_valid(body, headers["X-Slack-Request-Timestamp"], headers["X-Slack-Signature"])
    assert not SignatureVerifier("other").is_valid(
        body, headers["X-Slack-Request-Timestamp"], headers["X-Slack-Signature"]
    )
    assert sign("secret", body, timestamp=1)["X-Slack-Request-Timestamp"] == "1"


def test_thread_variant_serves_the_sync_client() -> None:
    with FakeSlackThread() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.base_url)
        res = client.chat_postMessage(channel=CHANNEL, text="from a sync client")
        assert slack.wait_for("chat.postMessage", timeout=60).ok
        assert slack.fake.messages(CHANNEL)[0]["ts"] == res["ts"]
        with pytest.raises(SlackApiError):
            WebClient(token="xoxb-bad", base_url=slack.base_url).auth_test()


async def acking_client(fake: FakeSlack, received: list[SocketModeRequest]) -> SocketModeClient:
    client = SocketModeClient(
        app_token="xapp-test", web_client=AsyncWebClient(base_url=fake.base_url), ping_interval=0.1
    )

    async def ack(sm_client: AsyncBaseSocketModeClient, request: SocketModeRequest) -> None:
        received.append(request)
        payload = {"text": "ok"} if request.type == "slash_commands" else None
        await sm_client.send_socket_mode_response(SocketModeResponse(request.envelope_id, payload))

    client.socket_mode_request_listeners.append(ack)
    await client.connect()
    await fake.wait_connected(1, timeout=60)
    return client


@pytest.mark.asyncio
@pytest.mark.parametrize("graceful", [False, True])
async def test_socket_mode_delivers_records_acks_and_survives_drops(fake: FakeSlack, graceful: bool) -> None:
    received: list[SocketModeRequest] = []
    client = await acking_client(fake, received)
    try:
        event = {"type": "event_callback", "event_id": "Ev1", "event": {"type": "app_mention", "text": "hi"}}
        envelope_id = await fake.push("events_api", event)
        assert await fake.wait_ack(envelope_id, timeout=60) == {"envelope_id": envelope_id}
        assert received[0].type == "events_api" and received[0].payload == event

        assert await fake.drop_connections(graceful=graceful) == 1
        await fake.wait_connected(2, timeout=60)
        assert fake.connections_opened == 2 and fake.attempts("apps.connections.open") == 2

        command_id = await fake.push("slash_commands", {"command": "/errfix", "text": "help"})
        assert (await fake.wait_ack(command_id, timeout=60))["payload"] == {"text": "ok"}
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_socket_push_needs_a_connection_and_a_known_type(fake: FakeSlack) -> None:
    with pytest.raises(RuntimeError):
        await fake.push("events_api", {})
    with pytest.raises(ValueError):
        await fake.push("event", {})
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await http.ws_connect(fake.root_url.replace("http", "ws") + "socket?ticket=forged")

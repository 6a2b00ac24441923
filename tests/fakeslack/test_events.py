"""The fake Slack's demo additions: `EventsLink` (what people do, sent to the app as Slack
sends it), people's reactions, `version` / `wait_change()`, real-time timestamps, a bounded
call log, and ephemeral answers placed in a thread.

The "app" here is a small recorder that checks every request's Slack signature, so these tests
pin the requests' shape; tests/demo/test_demo_server.py runs the real errfix app behind them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestServer
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.events import ACK_DEADLINE, EventsLink, SlowAck
from bot.fakeslack.web_api import BOT_USER_ID, FakeSlack, User, channel_type

SECRET = "link-secret"
CHANNEL, DM, GROUP_DM = "C_GENERAL", "D_BOT", "G_TRIO"
ANN = "U_ANN"


@dataclass
class HandClock:
    """A monotonic clock only the test moves: an ack's seconds without waiting for them."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Recorder:
    """A stand-in app at /slack/events: keeps what it got, answers `reply`."""

    received: list[tuple[str, Any]] = field(default_factory=list)  # (content type, parsed body)
    reply: str = ""
    delay: float = 0.0  # seconds the app takes to answer, on `clock` (a slow app, no real sleep)
    clock: HandClock | None = None

    async def handle(self, request: web.Request) -> web.Response:
        if self.clock is not None:
            self.clock.now += self.delay
        body = await request.text()
        if not SignatureVerifier(SECRET).is_valid_request(body, dict(request.headers)):
            return web.Response(status=401)
        if request.content_type == "application/json":
            self.received.append((request.content_type, json.loads(body)))
        else:
            form = {k: v[0] for k, v in parse_qs(body).items()}
            self.received.append((request.content_type, form))
        return web.Response(text=self.reply, content_type="application/json" if self.reply else "text/plain")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(channels=(CHANNEL, DM), mpims=(GROUP_DM,), users=[User(ANN, "ann")])
    await slack.start()
    yield slack
    await slack.stop()


@pytest_asyncio.fixture
async def recorder() -> AsyncIterator[tuple[Recorder, str]]:
    rec = Recorder()
    app = web.Application()
    app.router.add_post("/slack/events", rec.handle)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield rec, str(server.make_url("/slack/events"))
    await server.close()


@pytest_asyncio.fixture
async def link(fake: FakeSlack, recorder: tuple[Recorder, str]) -> AsyncIterator[EventsLink]:
    events = EventsLink(fake, recorder[1], SECRET)
    yield events
    await events.close()


def events(rec: Recorder) -> list[dict[str, Any]]:
    return [body["event"] for kind, body in rec.received if kind == "application/json"]


async def test_a_message_is_stored_escaped_then_sent_signed(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    message, sent = await link.message(CHANNEL, ANN, "x < y && <module>")

    assert [d.status for d in sent] == [200]
    assert message["text"] == "x &lt; y &amp;&amp; &lt;module&gt;"
    assert fake.messages(CHANNEL)[-1]["ts"] == message["ts"]
    (body,) = [b for _, b in recorder[0].received]
    assert body["type"] == "event_callback" and body["event_id"].startswith("Ev")
    assert body["event"] == {
        "type": "message",
        "channel": CHANNEL,
        "channel_type": "channel",
        "user": ANN,
        "text": message["text"],
        "ts": message["ts"],
        "team": body["team_id"],
        "event_ts": message["ts"],
        "client_msg_id": message["client_msg_id"],
        "blocks": message["blocks"],
    }
    [section] = body["event"]["blocks"][0]["elements"]
    assert body["event"]["blocks"][0]["type"] == "rich_text" and len(message["client_msg_id"]) == 36
    assert section == {"type": "rich_text_section", "elements": [{"type": "text", "text": "x < y && <module>"}]}


async def test_a_mention_in_a_channel_sends_app_mention_then_message(
    link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    message, sent = await link.message(CHANNEL, ANN, "@errfix what is this? cc @ann @nobody")

    assert message["text"] == f"<@{BOT_USER_ID}> what is this? cc <@{ANN}> @nobody"
    assert [e["type"] for e in events(recorder[0])] == ["app_mention", "message"] and len(sent) == 2
    assert "channel_type" not in events(recorder[0])[0]


async def test_a_dm_is_an_im_message_without_app_mention(link: EventsLink, recorder: tuple[Recorder, str]) -> None:
    await link.message(DM, ANN, "@errfix hello")
    assert [(e["type"], e["channel_type"]) for e in events(recorder[0])] == [("message", "im")]
    assert channel_type("G_PRIVATE") == "group"


async def test_a_thread_reply_carries_thread_ts(link: EventsLink, recorder: tuple[Recorder, str]) -> None:
    root, _ = await link.message(CHANNEL, ANN, "root")
    reply, _ = await link.message(CHANNEL, ANN, "reply", thread_ts=root["ts"])
    assert reply["thread_ts"] == root["ts"] and events(recorder[0])[-1]["thread_ts"] == root["ts"]


async def test_a_slash_command_is_a_signed_form_whose_response_url_answers_in_the_thread(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    root, _ = await link.message(CHANNEL, ANN, "root")
    delivery = await link.command(CHANNEL, ANN, "/errfix", "loss nan", thread_ts=root["ts"])

    assert delivery.ok
    kind, form = recorder[0].received[-1]
    assert kind == "application/x-www-form-urlencoded"
    assert (form["command"], form["text"], form["user_id"], form["channel_id"]) == ("/errfix", "loss nan", ANN, CHANNEL)
    answer = {"response_type": "ephemeral", "text": "found"}
    async with aiohttp.ClientSession() as session, session.post(form["response_url"], json=answer) as resp:
        assert resp.status == 200
    assert fake.ephemerals[-1] | {"ts": ""} == {
        "channel": CHANNEL,
        "user": ANN,
        "ts": "",
        "thread_ts": root["ts"],
        "text": "found",
    }


async def test_a_commands_acknowledgement_text_is_shown_to_its_user(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    recorder[0].reply = json.dumps({"text": "working on it"})
    version = fake.version
    assert (await link.command(CHANNEL, ANN, "/errfix", "")).ok
    assert fake.ephemerals[-1]["text"] == "working on it" and fake.ephemerals[-1]["user"] == ANN
    assert fake.version > version


async def test_a_button_press_is_a_signed_block_actions_payload(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
    root, _ = await link.message(CHANNEL, ANN, "root")
    posted = await client.chat_postMessage(channel=CHANNEL, thread_ts=root["ts"], text="answer")
    action = {"action_id": "errfix_vote_up:0", "block_id": "wk:0", "value": '{"w":"k"}'}

    assert (await link.click(CHANNEL, ANN, action, message_ts=posted["ts"], thread_ts=root["ts"])).ok
    payload = json.loads(recorder[0].received[-1][1]["payload"])
    assert payload["type"] == "block_actions" and payload["user"]["id"] == ANN
    assert payload["container"] == {
        "type": "message",
        "message_ts": posted["ts"],
        "channel_id": CHANNEL,
        "is_ephemeral": False,
    }
    assert payload["message"]["ts"] == posted["ts"] and payload["message"]["thread_ts"] == root["ts"]
    assert {k: payload["actions"][0][k] for k in action} == action

    await link.click(CHANNEL, ANN, action, message_ts="1.000001", ephemeral=True)
    payload = json.loads(recorder[0].received[-1][1]["payload"])
    assert payload["container"]["is_ephemeral"] is True and "message" not in payload


async def test_reactions_are_stored_per_person_and_sent_as_events(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    message, _ = await link.message(CHANNEL, ANN, "react to me")
    added = await link.react(CHANNEL, ANN, message["ts"], "+1")
    again = await link.react(CHANNEL, ANN, message["ts"], "+1")
    fake.react(CHANNEL, message["ts"], "+1", "U_OTHER")

    assert added is not None and added.ok and again is None
    assert fake.messages(CHANNEL)[-1]["reactions"] == [{"name": "+1", "users": [ANN, "U_OTHER"], "count": 2}]
    event = events(recorder[0])[-1]
    assert event["type"] == "reaction_added" and event["reaction"] == "+1" and event["item_user"] == ANN
    assert event["item"] == {"type": "message", "channel": CHANNEL, "ts": message["ts"]}

    removed = await link.react(CHANNEL, ANN, message["ts"], "+1", add=False)
    assert removed is not None and events(recorder[0])[-1]["type"] == "reaction_removed"
    assert fake.messages(CHANNEL)[-1]["reactions"] == [{"name": "+1", "users": ["U_OTHER"], "count": 1}]
    with pytest.raises(ValueError):
        fake.react(CHANNEL, "9.999999", "+1", ANN)


async def test_the_bots_own_reactions_still_follow_slacks_rules(fake: FakeSlack) -> None:
    fake.scopes = (*fake.scopes, "reactions:write")  # errfix's own token does not hold it
    client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
    posted = await client.chat_postMessage(channel=CHANNEL, text="hi")
    fake.react(CHANNEL, posted["ts"], "eyes", ANN)
    await client.reactions_add(channel=CHANNEL, timestamp=posted["ts"], name="eyes")
    with pytest.raises(Exception, match="already_reacted"):
        await client.reactions_add(channel=CHANNEL, timestamp=posted["ts"], name="eyes")
    await client.reactions_remove(channel=CHANNEL, timestamp=posted["ts"], name="eyes")
    assert fake.messages(CHANNEL)[-1]["reactions"] == [{"name": "eyes", "users": [ANN], "count": 1}]


async def test_version_changes_with_what_people_would_see(fake: FakeSlack, link: EventsLink) -> None:
    client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
    start = fake.version
    waiting = asyncio.ensure_future(fake.wait_change(start, timeout=10))
    await link.message(CHANNEL, ANN, "hello")
    assert await asyncio.wait_for(waiting, 10) > start

    after_message = fake.version
    await client.auth_test()
    await client.users_info(user=ANN)
    assert fake.version == after_message  # reads change nothing
    await client.chat_postMessage(channel=CHANNEL, text="answer")
    assert fake.version == after_message + 1
    assert await fake.wait_change(fake.version, timeout=0.05) == fake.version  # nothing new: returns as is


def test_timestamps_follow_the_clock_and_never_repeat() -> None:
    fake = FakeSlack(clock=lambda: 1_800_000_000.5)
    first = fake.add_message("C_GENERAL", "a", ANN)["ts"]
    second = fake.add_message("C_GENERAL", "b", ANN)["ts"]
    assert (first, second) == ("1800000000.500000", "1800000000.500100")
    assert FakeSlack().add_message("C_GENERAL", "a", ANN)["ts"] == "1700000000.000100"  # the default is unchanged


async def test_max_calls_keeps_the_newest_calls() -> None:
    fake = FakeSlack(max_calls=2)
    await fake.start()
    try:
        client = AsyncWebClient(token=fake.token, base_url=fake.base_url)
        for text in ("one", "two", "three"):
            await client.chat_postMessage(channel=CHANNEL, text=text)
        assert [c.params["text"] for c in fake.calls()] == ["two", "three"]
    finally:
        await fake.stop()


async def test_every_ack_is_timed_and_a_late_one_fails(fake: FakeSlack, recorder: tuple[Recorder, str]) -> None:
    rec, url = recorder
    rec.clock = clock = HandClock()
    patient = EventsLink(fake, url, SECRET, ack_deadline=None, clock=clock)
    strict = EventsLink(fake, url, SECRET, ack_deadline=3.0, clock=clock)
    try:
        rec.delay = 3.0  # exactly on Slack's deadline: still in time
        await strict.message(CHANNEL, ANN, "in time")
        assert strict.acks == [3.0]
        rec.delay = 3.25  # binary-exact, so the acks compare exactly
        with pytest.raises(SlowAck, match="after 3.25s, over Slack's 3.0s"):
            await strict.message(CHANNEL, ANN, "slow")
        await patient.message(CHANNEL, ANN, "slow, measured only")
        assert strict.acks == [3.0, 3.25] and patient.acks == [3.25]
    finally:
        await patient.close()
        await strict.close()


def test_slack_gives_three_seconds() -> None:
    assert ACK_DEADLINE == 3.0


async def test_a_group_dm_is_mpim_and_a_mention_there_is_an_app_mention(
    link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    await link.message(GROUP_DM, ANN, "@errfix look")
    sent = events(recorder[0])
    assert [e["type"] for e in sent] == ["app_mention", "message"] and sent[1]["channel_type"] == "mpim"


async def test_a_long_paste_is_a_snippet_with_a_truncated_preview(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    trace = "\n".join(
        ["Traceback (most recent call last):", *[f'  File "f{n}.py", line {n}' for n in range(9)], "E: x"]
    )
    message, sent = await link.share_file(CHANNEL, ANN, trace, comment="<b> fails", name="trace.txt")
    [event] = events(recorder[0])
    assert [d.status for d in sent] == [200] and event["subtype"] == "file_share"
    assert event["text"] == "&lt;b&gt; fails" and event["client_msg_id"] == message["client_msg_id"]
    [shared] = event["files"]
    assert shared["preview_is_truncated"] is True and shared["lines"] == 11 and shared["lines_more"] == 6
    assert "E: x" not in shared["preview"] and shared["preview"].startswith("Traceback")
    assert fake.files[shared["id"]]["_content"] == trace.encode()
    assert fake.messages(CHANNEL)[-1]["files"] == [shared]


async def test_a_slack_connect_file_is_only_an_id_to_look_up(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    _, _ = await link.share_file(CHANNEL, ANN, "ValueError: bad", connect=True, name="err.log")
    [event] = events(recorder[0])
    [only] = event["files"]
    assert set(only) == {"id", "file_access"} and only["file_access"] == "check_file_info"
    assert only["id"] in fake.files


async def test_an_edit_is_a_message_changed_event_with_both_versions(
    fake: FakeSlack, link: EventsLink, recorder: tuple[Recorder, str]
) -> None:
    message, _ = await link.message(CHANNEL, ANN, "first")
    assert (await link.edit(CHANNEL, message["ts"], "second <b>")).ok
    event = events(recorder[0])[-1]
    assert event["subtype"] == "message_changed" and event["hidden"] is True
    assert event["message"]["ts"] == message["ts"] and event["message"]["text"] == "second &lt;b&gt;"
    assert event["previous_message"]["text"] == "first" and event["ts"] == event["message"]["edited"]["ts"]
    assert fake.messages(CHANNEL)[-1]["text"] == "second &lt;b&gt;"
    assert event["message"]["blocks"][0]["elements"][0]["elements"] == [{"type": "text", "text": "second <b>"}]

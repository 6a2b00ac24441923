"""The demo server in-process: the page's API reaches errfix only through signed /slack/events.

A `Demo` runs on 127.0.0.1 (port 0) with a real seeded SQLite file; the tests talk to it like
the page does (JSON to /demo/api/*) and look at what the stand-in Slack received.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.demo.server import Demo
from bot.fakeslack.web_api import Call
from tests.conftest import run_module

PASTE = (
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    "RuntimeError: Loss is NaN or Inf at step 1000"
)
RECORD = "pytorch/loss-nan-step"


@pytest_asyncio.fixture
async def demo(tmp_path: Path) -> AsyncIterator[Demo]:
    running = Demo(str(tmp_path / "errfix.db"))
    await running.start(port=0)
    yield running
    await running.stop()


@pytest_asyncio.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def api(session: aiohttp.ClientSession, demo: Demo, name: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with session.post(f"{demo.url}demo/api/{name}", json=body) as resp:
        return resp.status, await resp.json()


async def state(session: aiohttp.ClientSession, demo: Demo, query: str = "") -> dict[str, Any]:
    async with session.get(f"{demo.url}demo/api/state{query}") as resp:
        assert resp.status == 200
        data: dict[str, Any] = await resp.json()
        return data


async def test_a_paste_from_the_page_is_answered_in_its_thread(demo: Demo, session: aiohttp.ClientSession) -> None:
    status, sent = await api(session, demo, "message", {"channel": "C_GENERAL", "text": PASTE})
    assert status == 200 and sent["ok"], sent

    call = await demo.fake.wait_for("chat.postMessage", timeout=30)
    assert call.ok and call.params["thread_ts"] == sent["ts"] and RECORD in json.dumps(call.params)
    shown = await state(session, demo)
    paste, answer = shown["messages"]
    assert paste["text"].endswith("in &lt;module&gt;\nRuntimeError: Loss is NaN or Inf at step 1000")
    assert answer["thread_ts"] == paste["ts"] and answer["bot_id"] and answer["blocks"]
    assert shown["users"][shown["me"]]["name"] == "you"


async def test_with_a_wrong_signature_errfix_refuses_and_the_page_is_told(
    demo: Demo, session: aiohttp.ClientSession
) -> None:
    assert demo.link is not None
    demo.link.signing_secret = "not-the-apps-secret"
    status, sent = await api(session, demo, "message", {"channel": "C_GENERAL", "text": PASTE})

    assert status == 200 and sent["ok"] is False and "HTTP 401" in sent["error"]
    assert demo.fake.calls("chat.postMessage") == []  # refused before any listener ran


async def test_errfix_slash_command_answers_ephemerally(demo: Demo, session: aiohttp.ClientSession) -> None:
    status, sent = await api(session, demo, "message", {"channel": "C_GENERAL", "text": "/errfix loss nan"})
    assert status == 200 and sent == {"ok": True}

    await demo.fake.wait_for("response_url", lambda c: c.ok, timeout=30)
    (ephemeral,) = (await state(session, demo))["ephemerals"]
    assert ephemeral["user"] == "U_DEMO" and RECORD in json.dumps(ephemeral["blocks"])

    status, sent = await api(session, demo, "message", {"channel": "C_GENERAL", "text": "/deploy"})
    assert status == 200 and sent["ok"] is False and "/deploy is not a command here" in sent["notice"]


async def test_worked_then_a_reaction_vote_and_update_the_answer(demo: Demo, session: aiohttp.ClientSession) -> None:
    await api(session, demo, "message", {"channel": "C_GENERAL", "text": PASTE})
    posted = await demo.fake.wait_for("chat.postMessage", timeout=30)
    answer = posted.response["message"]
    button = next(el for b in answer["blocks"] if b["type"] == "actions" for el in b["elements"])
    click = {
        "channel": "C_GENERAL",
        "message_ts": posted.response["ts"],
        "thread_ts": answer["thread_ts"],
        "action_id": button["action_id"],
        "block_id": "wk:0",
        "value": button["value"],
    }

    def updated(n: int) -> Any:
        return lambda c: c.ok and len(demo.fake.calls("chat.update")) >= n

    assert (await api(session, demo, "action", click))[1] == {"ok": True}
    first: Call = await demo.fake.wait_for("chat.update", updated(1), timeout=30)
    assert ":+1: 1" in json.dumps(first.params)

    react = {"channel": "C_GENERAL", "ts": posted.response["ts"], "name": "-1"}
    assert (await api(session, demo, "reaction", react))[1] == {"ok": True}
    await demo.fake.wait_for("chat.update", updated(2), timeout=30)
    message = next(m for m in (await state(session, demo))["messages"] if m["ts"] == posted.response["ts"])
    assert message["reactions"] == [{"name": "-1", "users": ["U_DEMO"], "count": 1}]
    assert ":-1: 1" in json.dumps(message["blocks"]) and ":+1: 1" not in json.dumps(message["blocks"])

    assert (await api(session, demo, "reaction", react))[1] == {"ok": True}  # again: the reaction is removed
    message = next(m for m in (await state(session, demo))["messages"] if m["ts"] == posted.response["ts"])
    assert "reactions" not in message or message["reactions"] == []


async def test_the_home_tab_is_published_on_app_home_opened(demo: Demo, session: aiohttp.ClientSession) -> None:
    assert (await api(session, demo, "home", {}))[1] == {"ok": True}
    await demo.fake.wait_for("views.publish", timeout=30)
    home = (await state(session, demo))["home"]
    assert home["type"] == "home" and home["blocks"][0]["type"] == "header"


async def test_a_long_poll_returns_when_something_changes(demo: Demo, session: aiohttp.ClientSession) -> None:
    before = (await state(session, demo))["version"]
    waiting = asyncio.ensure_future(state(session, demo, f"?since={before}&wait=1"))
    await api(session, demo, "message", {"channel": "C_GENERAL", "text": "hello"})
    after = await asyncio.wait_for(waiting, 30)
    assert after["version"] > before and after["messages"][-1]["text"] == "hello"


async def test_stop_does_not_wait_for_open_long_polls(tmp_path: Path) -> None:
    demo = Demo(str(tmp_path / "errfix.db"))
    await demo.start(port=0)
    async with aiohttp.ClientSession() as s:
        version = (await state(s, demo))["version"]
        waiting = asyncio.ensure_future(state(s, demo, f"?since={version}&wait=1"))
        deadline = time.monotonic() + 10
        while demo.long_polls == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert demo.long_polls == 1
        await asyncio.wait_for(demo.stop(), 10)  # the long poll would wait 20 s; stop() must not
        assert (await asyncio.wait_for(waiting, 10))["version"] == version


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"channel": "C_NOPE", "text": "hi"}, 400),
        ({"channel": "C_GENERAL", "text": ""}, 400),
        ({"channel": "C_GENERAL", "text": "  "}, 400),
        ({"channel": "C_GENERAL", "text": 5}, 400),
        ({"channel": "C_GENERAL", "text": "x" * 40_001}, 400),
    ],
)
async def test_bad_messages_are_refused(
    demo: Demo, session: aiohttp.ClientSession, body: dict[str, Any], status: int
) -> None:
    got, answer = await api(session, demo, "message", body)
    assert got == status and answer["ok"] is False and answer["error"]
    assert demo.fake.messages("C_GENERAL") == []


async def test_only_json_is_accepted_and_buttons_need_a_real_message(
    demo: Demo, session: aiohttp.ClientSession
) -> None:
    async with session.post(f"{demo.url}demo/api/message", data={"channel": "C_GENERAL", "text": "hi"}) as resp:
        assert resp.status == 415  # a form post from another site is refused
    click = {"channel": "C_GENERAL", "message_ts": "1.000001", "action_id": "errfix_not_this", "value": "{}"}
    assert (await api(session, demo, "action", click))[0] == 400
    assert (await api(session, demo, "reaction", {"channel": "C_GENERAL", "ts": "1.000001", "name": "+1"}))[0] == 400
    async with session.get(f"{demo.url}demo/api/state?since=x") as resp:
        assert resp.status == 400


async def test_the_page_and_the_app_share_one_port(demo: Demo, session: aiohttp.ClientSession) -> None:
    async with session.get(demo.url) as resp:
        html = await resp.text()
        assert resp.status == 200 and "__VERSION__" not in html and "/demo/static/demo.js?v=" in html
    async with session.get(f"{demo.url}healthz") as resp:
        assert resp.status == 200
    async with session.post(f"{demo.url}slack/events", data="{}") as resp:
        assert resp.status == 401  # the real app: unsigned requests are refused
    async with session.get(f"{demo.url}demo/api/examples") as resp:
        examples = (await resp.json())["examples"]
        assert examples[0]["id"] == RECORD and "Loss is NaN or Inf" in examples[0]["text"]


def test_errfix_demo_on_a_port_in_use_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_module("demo", "--port", str(port), "--db", tmp_path / "errfix.db")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"errfix: cannot listen on 127.0.0.1:{port}: it is in use; pass another --port"
    ]


async def test_ml_team_answers_only_when_asked_and_digest_now_works_there(
    demo: Demo, session: aiohttp.ClientSession
) -> None:
    status, sent = await api(session, demo, "message", {"channel": "C_ML_TEAM", "text": PASTE})
    assert status == 200 and sent["ok"]
    assert demo.errfix is not None
    for _ in range(600):  # the paste is counted once its listener has run
        if (await demo.errfix.week()).pastes:
            break
        await asyncio.sleep(0.05)
    status, sent = await api(session, demo, "message", {"channel": "C_ML_TEAM", "text": "/errfix digest now"})
    assert status == 200 and sent == {"ok": True}
    digest = await demo.fake.wait_for("chat.postMessage", lambda c: c.ok, timeout=30)
    assert digest.params["channel"] == "C_ML_TEAM" and "thread_ts" not in digest.params  # no answer came first
    assert "*1* errors pasted · *0* answered" in json.dumps(digest.params["blocks"], ensure_ascii=False)
    assert [c["name"] for c in (await state(session, demo))["channels"]] == ["general", "ml-team", "errfix"]

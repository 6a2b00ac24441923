"""The real bolt app over HTTP on 127.0.0.1, a real seeded SQLite file, and the strict fake Slack.

`Bot` sends correctly signed requests (events, slash commands, button clicks) the way Slack
does; assertions are on what the fake received. `bot.idle()` waits until no listener is running,
so "nothing was posted" is checked after the work is done, never after a sleep.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer

from bot.config import Settings
from bot.fakeslack import events
from bot.fakeslack.events import EventsLink, event_body, sign, slack_escape
from bot.fakeslack.web_api import APP_ID, BOT_TOKEN, TEAM_ID, FakeSlack, User
from bot.serve.http import web_app
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import build_app
from bot.slack.deps import Activity, Jobs
from bot.store.store import Store
from bot.telemetry.metrics import Metrics
from tests.conftest import SeededCopy

SECRET = "test-signing-secret"
CHANNEL, OTHER_CHANNEL, GROUP_DM, DM = "C_GENERAL", "C_RANDOM", "G_TRIO", "D_ALICE"
ALICE, BOB, ZHANG, ROBOT = "U_ALICE", "U_BOB", "U_ZHANG", "U_ROBOT"
RECORD = "pytorch/loss-nan-step"
PASTE = (
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    "RuntimeError: Loss is NaN or Inf at step 1000"
)


def message_event(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The `message` event Slack sends for a message the fake stored (so its ts is real)."""
    return {**events.message_event(message), **extra}


def settings_for(fake: FakeSlack, db: Path, **overrides: Any) -> Settings:
    fields: dict[str, Any] = dict(
        bot_token=BOT_TOKEN,
        signing_secret=SECRET,
        db_path=str(db),
        slack_api_url=fake.base_url,
        max_replies_per_minute=30,
    )
    return Settings(**{**fields, **overrides})


class Bot:
    """One running app (HTTP server on 127.0.0.1) plus helpers to talk to it like Slack."""

    def __init__(self, fake: FakeSlack, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.fake, self.settings = fake, settings
        self.errfix = AsyncErrfix(settings.db_path)
        self.activity = Activity()
        self.jobs = Jobs(self.errfix)
        self.metrics = Metrics()
        self.app = build_app(
            settings, self.errfix, activity=self.activity, metrics=self.metrics, clock=clock, jobs=self.jobs
        )
        self.server = TestServer(
            web_app(self.app, self.errfix, signing_secret=settings.signing_secret), host="127.0.0.1"
        )
        self.session: aiohttp.ClientSession | None = None
        self.link: EventsLink | None = None
        self._keys = 0
        self._clicks = 0

    async def start(self) -> Bot:
        await self.server.start_server()
        self.session = aiohttp.ClientSession()
        self.link = EventsLink(self.fake, self.url, SECRET)
        return self

    async def close(self) -> None:
        await self.idle()
        if self.session is not None:
            await self.session.close()
        if self.link is not None:
            await self.link.close()
        await self.server.close()
        self.errfix.close()

    async def idle(self) -> None:
        await self.activity.idle()

    @property
    def url(self) -> str:
        return str(self.server.make_url("/slack/events"))

    async def post_raw(self, body: str, content_type: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        """POST to the app as Slack does; the link fails the test if the answer takes over 3 s."""
        assert self.link is not None
        delivery = await self.link.post(body, content_type, headers)
        return delivery.status, delivery.body

    async def post_signed(
        self, body: str, content_type: str, *, timestamp: int | None = None, extra: dict[str, str] | None = None
    ) -> tuple[int, str]:
        return await self.post_raw(body, content_type, {**sign(SECRET, body, timestamp), **(extra or {})})

    async def event(self, event: dict[str, Any], *, event_id: str | None = None, retry: int = 0) -> int:
        body = json.dumps(event_body(event, event_id))
        extra = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else {}
        status, _ = await self.post_signed(body, "application/json", extra=extra)
        return status

    async def paste(
        self,
        text: str = PASTE,
        *,
        user: str = ALICE,
        channel: str = CHANNEL,
        thread_ts: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A person posts `text`; Slack sends the event. Returns the message."""
        message = self.fake.add_message(channel, slack_escape(text), user, thread_ts=thread_ts)
        assert await self.event(message_event(message, **extra)) == 200
        return message

    def response_url(self, channel: str, user: str, message_ts: str | None = None) -> str:
        self._keys += 1
        return self.fake.response_url_for(f"r{self._keys}", channel=channel, user=user, message_ts=message_ts)

    async def command(self, text: str, *, user: str = ALICE, channel: str = CHANNEL) -> int:
        form = {
            "token": "legacy",
            "team_id": TEAM_ID,
            "team_domain": "fake",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/errfix",
            "text": text,
            "api_app_id": APP_ID,
            "response_url": self.response_url(channel, user),
            "trigger_id": "trigger.1",
        }
        status, _ = await self.post_signed(urlencode(form), "application/x-www-form-urlencoded")
        return status

    async def click(
        self, message: dict[str, Any], button: dict[str, Any], *, user: str = ALICE, ephemeral: bool = False
    ) -> int:
        """Press `button` (a Block Kit element of `message`) as `user`, like Slack's block_actions."""
        payload = self.click_payload(message, button, user=user, ephemeral=ephemeral)
        status, _ = await self.post_signed(
            urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
        )
        return status

    def click_payload(
        self, message: dict[str, Any], button: dict[str, Any], *, user: str = ALICE, ephemeral: bool = False
    ) -> dict[str, Any]:
        """The block_actions payload Slack sends when `user` presses `button`."""
        channel = message["channel"]
        payload: dict[str, Any] = {
            "type": "block_actions",
            "user": {"id": user, "team_id": TEAM_ID},
            "api_app_id": APP_ID,
            "team": {"id": TEAM_ID},
            "channel": {"id": channel},
            "trigger_id": "trigger.2",
            "container": {
                "type": "message",
                "message_ts": message["ts"],
                "channel_id": channel,
                "is_ephemeral": ephemeral,
            },
            "response_url": self.response_url(channel, user, None if ephemeral else message["ts"]),
            "actions": [
                {
                    "type": "button",
                    "action_id": button["action_id"],
                    "block_id": button.get("block_id", "b"),
                    "value": button["value"],
                    "action_ts": self._action_ts(),
                }
            ],
        }
        if not ephemeral:
            payload["message"] = {"ts": message["ts"], "thread_ts": message.get("thread_ts"), "type": "message"}
        return payload

    def _action_ts(self) -> str:
        """Slack's action_ts: the click's own time, to the microsecond, so no two clicks share one."""
        self._clicks += 1
        return f"{int(time.time())}.{self._clicks:06d}"

    def replies(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """errfix's messages in the thread of `message`."""
        thread = message.get("thread_ts") or message["ts"]
        return [m for m in self.fake.messages(message["channel"], thread) if m.get("bot_id")]

    async def answer_to(self, message: dict[str, Any]) -> dict[str, Any]:
        """Wait for errfix's answer to `message` and return it as the fake stores it."""
        thread = message.get("thread_ts") or message["ts"]
        call = await self.fake.wait_for(
            "chat.postMessage", lambda c: c.ok and c.params.get("thread_ts") in (message["ts"], thread)
        )
        await self.idle()  # the reply is recorded in the database after Slack answered the post
        found = self.fake.messages(message["channel"], thread)
        return next(m for m in found if m["ts"] == call.response["ts"])


def buttons(message: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """The buttons of a message, with the block_id of their block, in order."""
    found = []
    for block in message.get("blocks", []):
        elements = block.get("elements", []) if block.get("type") == "actions" else [block.get("accessory") or {}]
        for el in elements:
            if el.get("type") == "button" and el["action_id"].startswith(prefix):
                found.append({**el, "block_id": block.get("block_id", "")})
    return found


def all_text(message: dict[str, Any]) -> str:
    """Every text in a message (fallback and blocks), for assertions on what people see."""
    parts = [message.get("text", "")]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                parts.append(node["text"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(message.get("blocks", []))
    return "\n".join(parts)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    users = [
        User(ALICE, "alice"),
        User(BOB, "bob"),
        User(ZHANG, "zhang", locale="zh-CN"),
        User(ROBOT, "robot", is_bot=True),
    ]
    slack = FakeSlack(channels=(CHANNEL, DM), users=users, mpims=(GROUP_DM,))
    await slack.start()
    yield slack
    await slack.stop()


@pytest.fixture
def db_file(seeded_copy: SeededCopy) -> Path:
    """The bot's database: new and seeded, as the bot's first start leaves one (a copy of the
    session's template: seeding each test's own would cost a third of a second)."""
    return seeded_copy("errfix.db")


@pytest_asyncio.fixture
async def make_bot(fake: FakeSlack, db_file: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await make_bot(**settings)`: a started Bot; all are closed at the end. `clock=` drives
    the per-channel rate limit (a fake clock instead of sleeps)."""
    bots: list[Bot] = []

    async def make(clock: Callable[[], float] = time.monotonic, **overrides: Any) -> Bot:
        bot = await Bot(fake, settings_for(fake, db_file, **overrides), clock).start()
        bots.append(bot)
        return bot

    yield make
    for bot in bots:
        if bot.session is not None and not bot.session.closed:
            await bot.close()


@pytest_asyncio.fixture
async def bot(make_bot: Callable[..., Any]) -> Bot:
    made: Bot = await make_bot()
    return made


@pytest.fixture
def read_store(db_file: Path) -> Iterator[Callable[[], Store]]:
    """Open the bot's database from the test (a second connection, as another process would)."""
    opened: list[Store] = []

    def open_() -> Store:
        opened.append(Store(db_file))
        return opened[-1]

    yield open_
    for s in opened:
        s.close()

"""`errfix demo`: the real app, a stand-in Slack and a Slack-like page, in one process.

    demo = Demo("errfix.db")
    url = await demo.start(port=3000)   # http://127.0.0.1:3000/
    ...
    await demo.stop()

What runs, all on 127.0.0.1:

* the errfix app exactly as `errfix serve --http` builds it (`build_app` + `web_app`: the same
  listeners, middleware, signature check and SQLite store), on `port`: POST /slack/events;
* the fake Slack (`bot.fakeslack.web_api.FakeSlack`) on its own port, as the app's Web API
  (ERRFIX_SLACK_API_URL) and response_url host; it stores the workspace's messages;
* the page (bot/demo/static/) and its small JSON API under /demo/api/, added to the app's
  aiohttp application. The page never calls errfix: a message, a slash command, a button or a
  reaction goes to `EventsLink`, which stores it in the fake and POSTs it, signed with this
  run's signing secret, to /slack/events like Slack does. The page then follows the fake's
  store (long-polling /demo/api/state) and draws what errfix posted from its Block Kit.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from bot.config import Settings
from bot.core.teach_view import TEACH_SHORTCUT
from bot.demo.examples import examples
from bot.fakeslack.events import Delivery, EventsLink
from bot.fakeslack.web_api import BOT_USER_ID, JSON, FakeSlack, User, channel_type
from bot.serve.http import web_app
from bot.service.async_errfix import AsyncErrfix
from bot.slack.app import EVENTS_PATH, build_app, check_tokens

STATIC_DIR = Path(__file__).resolve().parent / "static"
HOST = "127.0.0.1"
ME = User("U_DEMO", "you")
# channels errfix is in (#ml-team said `/errfix here mention`), and the DM with it
CHANNELS = {"C_GENERAL": "general", "C_ML_TEAM": "ml-team", "D_ERRFIX": "errfix"}
QUIET = "C_ML_TEAM"
COMMAND = "/errfix"
MAX_TEXT = 40_000  # Slack's hard limit for a message
MAX_SHOWN = 500  # messages per channel the page gets
LONG_POLL = 20.0  # seconds a /demo/api/state?wait=1 waits for a change
REPLIES_PER_MINUTE = 30  # production's default is 5; people try several examples in a row here
log = logging.getLogger("errfix.demo")


class BadRequest(ValueError):
    """A request from the page that is not what it should send."""


def _str(data: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise BadRequest(f"{key}: expected a string")
    return value


class Demo:
    """One demo workspace: start() it, open `url`, stop() it."""

    def __init__(self, db_path: str, *, replies_per_minute: int = REPLIES_PER_MINUTE) -> None:
        self.db_path, self.replies_per_minute = db_path, replies_per_minute
        self.fake = FakeSlack(channels=tuple(CHANNELS), other_channels=(), users=[ME], clock=time.time, max_calls=2_000)
        self.signing_secret = secrets.token_hex(16)  # new every run, known only to this process
        self.url = ""
        self.errfix: AsyncErrfix | None = None
        self.link: EventsLink | None = None
        self.modal_errors: dict[str, JSON] = {}  # view id → the errors its last submission got
        self._runner: web.AppRunner | None = None
        self._examples = [e.to_json() for e in examples()]
        self._static_version = _static_version()
        self._stopping = asyncio.Event()  # ends the page's long polls, so stop() need not wait for them
        self.long_polls = 0  # how many are waiting now

    async def start(self, port: int = 3000) -> str:
        """Start everything; returns the page's URL. Raises OSError if `port` is taken."""
        try:
            await self.fake.start(HOST)
            self.errfix = AsyncErrfix(self.db_path)  # a new database gets the bundled seeds
            settings = Settings(
                bot_token=self.fake.token,
                signing_secret=self.signing_secret,
                db_path=self.db_path,
                slack_api_url=self.fake.base_url,
                max_replies_per_minute=self.replies_per_minute,
            )
            app = build_app(settings, self.errfix)
            await self.errfix.set_channel_mode(QUIET, "mention", ME.id)  # what /errfix here mention did
            await check_tokens(app, settings, socket_mode=False)
            application = web_app(app, self.errfix, signing_secret=self.signing_secret)
            self._add_routes(application)
            self._runner = web.AppRunner(application, access_log=None)
            await self._runner.setup()
            await web.TCPSite(self._runner, HOST, port).start()
        except BaseException:
            await self.stop()
            raise
        bound = self._runner.addresses[0][1]
        self.url = f"http://{HOST}:{bound}/"
        # acks are timed but a slow one is not an error here: the demo shows, it does not test
        url = f"http://{HOST}:{bound}{EVENTS_PATH}"
        self.link = EventsLink(self.fake, url, self.signing_secret, ack_deadline=None)
        return self.url

    async def stop(self) -> None:
        """Stop serving, close the store and the fake (safe after a failed start)."""
        self._stopping.set()
        if self.link is not None:
            await self.link.close()
            self.link = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.errfix is not None:
            self.errfix.close()
            self.errfix = None
        await self.fake.stop()

    @property
    def events_url(self) -> str:
        return self.link.url if self.link else ""

    # ---- the page's API ---------------------------------------------------------------------

    def _add_routes(self, application: web.Application) -> None:
        application.router.add_get("/", self.index)
        application.router.add_static("/demo/static/", STATIC_DIR, append_version=False)
        application.router.add_get("/demo/api/examples", self.get_examples)
        application.router.add_get("/demo/api/state", self.get_state)
        for name, handler in (
            ("message", self.post_message),
            ("action", self.post_action),
            ("reaction", self.post_reaction),
            ("home", self.post_home),
            ("shortcut", self.post_shortcut),
            ("submit", self.post_submit),
            ("close", self.post_close),
        ):
            application.router.add_post(f"/demo/api/{name}", _json_api(handler))

    async def index(self, request: web.Request) -> web.Response:
        html = (STATIC_DIR / "index.html").read_text(encoding="utf-8").replace("__VERSION__", self._static_version)
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-cache"})

    async def get_examples(self, request: web.Request) -> web.Response:
        return web.json_response({"examples": self._examples})

    async def get_state(self, request: web.Request) -> web.Response:
        """The workspace as the page draws it; with `wait=1`, once it differs from `since`."""
        try:
            since = int(request.query.get("since", "-1"))
        except ValueError:
            raise web.HTTPBadRequest(text="since: expected a whole number") from None
        if request.query.get("wait") == "1" and since == self.fake.version:
            changed = asyncio.ensure_future(self.fake.wait_change(since, LONG_POLL))
            stopping = asyncio.ensure_future(self._stopping.wait())
            self.long_polls += 1
            try:
                _, pending = await asyncio.wait({changed, stopping}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self.long_polls -= 1
            for task in pending:
                task.cancel()
        return web.json_response(self.snapshot(), headers={"Cache-Control": "no-store"})

    def snapshot(self) -> dict[str, Any]:
        """Channels, their messages (threads included), my ephemeral messages and my Home tab."""
        messages = [m for channel in CHANNELS for m in self.fake.messages(channel)[-MAX_SHOWN:]]
        mine = [e for e in self.fake.ephemerals if e.get("user") == ME.id][-MAX_SHOWN:]
        users = {u.id: {"name": u.name or u.id, "bot": u.is_bot} for u in self.fake.users.values()}
        channels = [{"id": c, "name": name, "kind": channel_type(c)} for c, name in CHANNELS.items()]
        return {
            "version": self.fake.version,
            "me": ME.id,
            "bot": BOT_USER_ID,
            "users": users,
            "channels": channels,
            "messages": messages,
            "ephemerals": mine,
            "home": self.fake.home_views.get(ME.id),
            "modal": self._my_modal(),
        }

    def _my_modal(self) -> dict[str, Any] | None:
        """The modal open for me (the newest), with the errors of its last submission."""
        mine = [v for v in self.fake.views.values() if v.get("user") == ME.id]
        if not mine:
            return None
        view = {k: v for k, v in mine[-1].items() if k != "user"}
        return {**view, "errors": self.modal_errors.get(str(view["id"]), {})}

    def _link(self) -> EventsLink:
        if self.link is None:
            raise web.HTTPServiceUnavailable(text="the demo is not started")
        return self.link

    def _channel(self, data: dict[str, Any]) -> str:
        channel = _str(data, "channel")
        if channel not in CHANNELS:
            raise BadRequest(f"channel: no channel {channel}")
        return channel

    async def post_message(self, data: dict[str, Any]) -> dict[str, Any]:
        """What was typed in a composer: a message, or `/errfix …` run as the slash command."""
        channel, text = self._channel(data), _str(data, "text")
        thread_ts = _str(data, "thread_ts", required=False) or None
        if len(text) > MAX_TEXT:
            raise BadRequest(f"text: longer than Slack's {MAX_TEXT:,} characters")
        if text.startswith("/"):
            command, _, rest = text.strip().partition(" ")
            if command != COMMAND:
                return {"ok": False, "notice": f"{command} is not a command here: this workspace has {COMMAND}."}
            return _delivered(await self._link().command(channel, ME.id, COMMAND, rest.strip(), thread_ts=thread_ts))
        if not text.strip():
            raise BadRequest("text: empty")
        message, sent = await self._link().message(channel, ME.id, text, thread_ts=thread_ts)
        failed = [d for d in sent if not d.ok]
        return {**_delivered(failed[0] if failed else sent[-1]), "ts": message["ts"]}

    async def post_action(self, data: dict[str, Any]) -> dict[str, Any]:
        """A button of one of errfix's messages (or of an ephemeral one) was pressed."""
        channel, message_ts = self._channel(data), _str(data, "message_ts")
        action = {key: _str(data, key, required=key != "block_id") for key in ("action_id", "block_id", "value")}
        ephemeral = data.get("ephemeral") is True
        known = self.fake.ephemerals if ephemeral else self.fake.messages(channel)
        if not any(m.get("ts") == message_ts and m.get("channel") == channel for m in known):
            raise BadRequest(f"message_ts: no message {message_ts} in {channel}")
        thread_ts = _str(data, "thread_ts", required=False) or None
        delivery = await self._link().click(
            channel, ME.id, action, message_ts=message_ts, ephemeral=ephemeral, thread_ts=thread_ts
        )
        return _delivered(delivery)

    async def post_reaction(self, data: dict[str, Any]) -> dict[str, Any]:
        """Toggle my reaction `name` on a message (added if I had not, removed if I had)."""
        channel, ts, name = self._channel(data), _str(data, "ts"), _str(data, "name").strip(":")
        if not any(m["ts"] == ts for m in self.fake.messages(channel)):
            raise BadRequest(f"ts: no message {ts} in {channel}")
        link = self._link()
        delivery = await link.react(channel, ME.id, ts, name, add=True)
        if delivery is None:
            delivery = await link.react(channel, ME.id, ts, name, add=False)
        return _delivered(delivery) if delivery else {"ok": True}

    async def post_shortcut(self, data: dict[str, Any]) -> dict[str, Any]:
        """I chose "Save as errfix record" in a message's menu: Slack sends `message_action`."""
        channel, ts = self._channel(data), _str(data, "ts")
        if not any(m["ts"] == ts for m in self.fake.messages(channel)):
            raise BadRequest(f"ts: no message {ts} in {channel}")
        return _delivered(await self._link().shortcut(channel, ME.id, ts, TEACH_SHORTCUT))

    async def post_submit(self, data: dict[str, Any]) -> dict[str, Any]:
        """I pressed the modal's Save: Slack sends `view_submission` with what I typed."""
        view_id = _str(data, "view_id")
        values = data.get("values")
        if view_id not in self.fake.views or not isinstance(values, dict):
            raise BadRequest("view_id: no such open modal, or values missing")
        try:
            submitted = await self._link().submit(view_id, ME.id, {str(k): str(v) for k, v in values.items()})
        except ValueError as e:
            raise BadRequest(str(e)) from None
        self.modal_errors[view_id] = submitted.errors or {}
        self.fake.version += 1  # the page redraws the modal with its errors, or without it
        return {**_delivered(submitted.delivery), "errors": submitted.errors or {}}

    async def post_close(self, data: dict[str, Any]) -> dict[str, Any]:
        """I pressed Cancel: the modal closes (errfix is not told; it did not ask to be)."""
        self.fake.views.pop(_str(data, "view_id"), None)
        self.fake.version += 1
        return {"ok": True}

    async def post_home(self, data: dict[str, Any]) -> dict[str, Any]:
        """I opened errfix's Home tab: Slack sends `app_home_opened`."""
        event = {
            "type": "app_home_opened",
            "user": ME.id,
            "channel": "D_ERRFIX",
            "tab": "home",
            "event_ts": f"{time.time():.6f}",
        }
        return _delivered(await self._link().event(event))


def _delivered(delivery: Delivery) -> dict[str, Any]:
    """What the page is told about one request to the app (an error it shows when not acked)."""
    if delivery.ok:
        return {"ok": True}
    return {"ok": False, "error": f"errfix answered HTTP {delivery.status}: {delivery.body[:200]}"}


def _json_api(handler: Callable[[JSON], Awaitable[JSON]]) -> Callable[[web.Request], Awaitable[web.Response]]:
    """A POST handler taking and returning JSON. Only `application/json` is accepted, so another
    site open in the browser cannot post here without a CORS preflight (which is not answered)."""

    async def wrapped(request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return web.json_response({"ok": False, "error": "send application/json"}, status=415)
        try:
            data = json.loads(await request.text())
            if not isinstance(data, dict):
                raise BadRequest("expected a JSON object")
            return web.json_response(await handler(data))
        except (json.JSONDecodeError, BadRequest) as e:
            return web.json_response({"ok": False, "error": str(e)}, status=400)
        except aiohttp.ClientError as e:
            log.warning("errfix demo: the app did not answer: %s", e)
            return web.json_response({"ok": False, "error": f"errfix did not answer ({e})"}, status=502)

    return wrapped


def _static_version() -> str:
    """A short hash of the page's files, so a browser never runs an old script with a new page."""
    digest = hashlib.sha256()
    for path in sorted(STATIC_DIR.rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:10]

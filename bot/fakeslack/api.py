"""A strict fake of Slack (Web API, response_url, Socket Mode) on one aiohttp server.

Serves the tests and `errfix demo`. It checks tokens, arguments and Slack's limits,
records every request and can inject rate limits, 5xx and dropped sockets. Human
messages enter through `add_message()`, the bot's through the Web API.

`EventsLink` is Slack's other half: what a person does in the fake workspace (a message, a
slash command, a button, a reaction) is stored in the fake and sent to the app's request URL
as Slack sends it, a signed HTTP POST. `version` and `wait_change()` let a viewer (the demo
page) follow the workspace without polling the Web API.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

import aiohttp
from aiohttp import WSMsgType, web
from slack_sdk.signature import SignatureVerifier

JSON = dict[str, Any]
Reply = tuple[int, dict[str, str], JSON]
T = TypeVar("T")

BOT_TOKEN, APP_TOKEN = "xoxb-test", "xapp-test"
TEAM_ID, BOT_USER_ID, BOT_ID, APP_ID = "T_FAKE", "U_BOT", "B_BOT", "A_FAKE"
APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
# what auth.test and every bot-token call report in the x-oauth-scopes header, as Slack does
# (deploy/slack-manifest.yml's bot scopes); set `FakeSlack.scopes` to play a token missing some
BOT_SCOPES = (
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "im:history",
    "chat:write",
    "commands",
    "reactions:read",
    "users:read",
    "files:read",
)
KEPT_HEADERS = ("Authorization", "Content-Type", "User-Agent")
MAX_TEXT, MAX_BLOCKS, MAX_BLOCKS_JSON, MAX_HOME_BLOCKS = 40_000, 50, 13_000, 100
TEXT_LIMITS = {"section": 3_000, "context": 3_000, "header": 150}
MAX_ID, MAX_BUTTON_VALUE, MAX_RESPONSE_URL_USES = 255, 2_000, 5
ENVELOPE_TYPES = ("events_api", "slash_commands", "interactive")
# Web API methods that change what a person would see (they bump FakeSlack.version)
CHANGING_METHODS = frozenset(
    {
        "chat.postMessage",
        "chat.update",
        "chat.postEphemeral",
        "chat.delete",
        "reactions.add",
        "reactions.remove",
        "views.publish",
        "response_url",
    }
)


class SlackError(Exception):
    """An API error, answered like Slack: HTTP 200 `{"ok": false, "error": code}`."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code, self.detail = code, detail

    def body(self) -> JSON:
        body: JSON = {"ok": False, "error": self.code}
        if self.detail:
            body["response_metadata"] = {"messages": [f"[ERROR] {self.detail}"]}
        return body


@dataclass(frozen=True)
class Call:
    """One request received, whatever its outcome (faults, auth errors included)."""

    method: str  # a Web API method, or "response_url"
    params: JSON
    headers: dict[str, str]
    time: float
    status: int
    response: JSON
    target: str = ""  # the response_url key

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.response.get("ok") is True


@dataclass
class User:
    id: str
    name: str = ""
    locale: str = "en-US"
    is_bot: bool = False


@dataclass
class _Fault:
    status: int
    retry_after: int = 0
    error: str = ""

    def reply(self) -> Reply:
        if self.status == 429:
            headers = {"Retry-After": str(self.retry_after)}
            return 429, headers, SlackError("ratelimited").body()
        if self.status >= 500:
            return self.status, {}, SlackError("internal_error").body()
        return 200, {}, SlackError(self.error).body()


@dataclass
class _ResponseTarget:
    channel: str | None
    user: str | None
    message_ts: str | None
    uses: int = 0
    thread_ts: str | None = None  # where ephemeral answers show (a command typed in a thread)


def sign(secret: str, body: str | bytes, timestamp: int | None = None) -> dict[str, str]:
    """Slack's request-signing headers for `body` (HMAC-SHA256 of `v0:{ts}:{body}`)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    assert signature is not None
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}


def _walk(node: object) -> Iterator[JSON]:
    if isinstance(node, dict):
        yield node
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            yield from _walk(item)


def _invalid(detail: str, where: str) -> SlackError:
    return SlackError("invalid_blocks", f"{detail} [json-pointer:{where}]")


def _check_block(block: JSON, where: str) -> None:
    kind = block.get("type")
    text = block.get("text")
    if not isinstance(kind, str):
        raise _invalid("missing block type", where)
    if kind == "header" and not (isinstance(text, dict) and text.get("type") == "plain_text"):
        raise _invalid("a header needs a plain_text text", where)
    if kind == "section" and not (text or block.get("fields")):
        raise _invalid("a section needs text or fields", where)
    fields, elements = block.get("fields") or [], block.get("elements") or []
    if not isinstance(fields, list) or not isinstance(elements, list):
        raise _invalid("fields and elements must be arrays", where)
    limit = TEXT_LIMITS.get(kind, 0)
    texts = elements if kind == "context" else [text, *fields]
    for obj in texts if limit else []:
        if isinstance(obj, dict) and len(str(obj.get("text", ""))) > limit:
            raise _invalid(f"must be less than {limit + 1} characters", where)
    for node in _walk(block):
        for key in ("block_id", "action_id"):
            if len(str(node.get(key, ""))) > MAX_ID:
                raise _invalid(f"{key} longer than {MAX_ID} characters", where)
        if node.get("type") == "button" and len(str(node.get("value", ""))) > MAX_BUTTON_VALUE:
            raise _invalid(f"button value longer than {MAX_BUTTON_VALUE}", where)


def check_blocks(blocks: object, max_blocks: int = MAX_BLOCKS) -> None:
    """Raise the SlackError Slack gives for a `blocks` array it refuses."""
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise SlackError("invalid_blocks_format")
    if len(blocks) > max_blocks:
        raise _invalid(f"no more than {max_blocks} items allowed", "/blocks")
    for index, block in enumerate(blocks):
        _check_block(block, f"/blocks/{index}")
    if len(json.dumps(blocks)) > MAX_BLOCKS_JSON:
        raise SlackError("msg_blocks_too_long")


def _json_arg(params: JSON, name: str, error: str) -> Any:
    """A structured argument: as is in a JSON body, a JSON string in a form or query."""
    value = params.get(name)
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        raise SlackError(error) from None


def _truthy(value: object) -> bool:
    return value is True or str(value).lower() in ("1", "true")


def _broadcast(message: JSON) -> bool:
    return message.get("subtype") == "thread_broadcast"


def _public(message: JSON) -> JSON:
    return {k: copy.deepcopy(v) for k, v in message.items() if k != "channel"}


async def _read_params(request: web.Request) -> JSON:
    params: JSON = dict(request.query)
    if request.content_type == "application/json":
        try:
            body = json.loads(await request.text())
        except json.JSONDecodeError:
            raise SlackError("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackError("invalid_json")
        params.update(body)
    elif request.can_read_body:
        form = await request.post()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    return params


async def _poll(probe: Callable[[], T | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while (found := probe()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout}s")
        await asyncio.sleep(0.01)
    return found


class FakeSlack:
    """The fake. Run it with start()/stop(), or mount app() and set root_url.

    `clock` (e.g. `time.time`) makes message timestamps real times, unique across runs; without
    it they count up from 1700000000.000100. `max_calls` bounds the call log (a long-running demo).
    """

    def __init__(
        self,
        *,
        token: str = BOT_TOKEN,
        app_token: str = APP_TOKEN,
        channels: Iterable[str] = ("C_GENERAL",),
        other_channels: Iterable[str] = ("C_RANDOM",),
        users: Iterable[User] = (),
        strict_threads: bool = True,
        clock: Callable[[], float] | None = None,
        max_calls: int | None = None,
    ) -> None:
        self.token, self.app_token, self.strict_threads = token, app_token, strict_threads
        self.max_calls, self.version = max_calls, 0
        self._clock, self._last_micros = clock, 0
        self.member_channels, self.other_channels = set(channels), set(other_channels)
        self.users = {BOT_USER_ID: User(BOT_USER_ID, "errfix", is_bot=True)} | {user.id: user for user in users}
        self.root_url = ""  # "http://host:port/" plus any mount prefix; set by start()
        self.connections_opened = 0
        self._ts = itertools.count(1)
        self._app: web.Application | None = None
        self._runner: web.AppRunner | None = None
        self._tickets: set[str] = set()
        self._sockets: list[tuple[web.WebSocketResponse, web.Request]] = []
        self._methods: dict[str, Callable[[JSON], JSON]] = {
            "auth.test": self._auth_test,
            "apps.connections.open": self._connections_open,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.delete": self._delete,
            "reactions.add": lambda params: self._react(params, add=True),
            "reactions.remove": lambda params: self._react(params, add=False),
            "reactions.get": self._reactions_get,
            "users.info": self._users_info,
            "conversations.replies": self._replies,
            "conversations.history": self._history,
            "views.publish": self._views_publish,
        }
        self.reset()

    scopes: tuple[str, ...] = BOT_SCOPES

    def reset(self) -> None:
        """Forget calls, messages, views, faults, acks and warnings (not the sockets)."""
        self.warnings: list[str] = []
        self.ephemerals: list[JSON] = []
        self.home_views: dict[str, JSON] = {}
        self.acks: dict[str, JSON] = {}
        self._calls: deque[Call] = deque(maxlen=self.max_calls)
        self._messages: dict[tuple[str, str], JSON] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._targets: dict[str, _ResponseTarget] = {}
        self.version += 1

    def app(self) -> web.Application:
        if self._app is None:
            self._app = web.Application()
            self._app.router.add_route("*", "/api/{method}", self._api)
            self._app.router.add_post("/response/{key}", self._response_url)
            self._app.router.add_get("/socket", self._socket)
        return self._app

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self.root_url = f"http://{host}:{self._runner.addresses[0][1]}/"

    async def stop(self) -> None:
        await self.drop_connections()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        return self.root_url + "api/"

    def response_url_for(
        self,
        key: str,
        *,
        channel: str | None = None,
        user: str | None = None,
        message_ts: str | None = None,
        thread_ts: str | None = None,
    ) -> str:
        """A response_url good for 5 uses. in_channel answers go to `channel`,
        ephemeral ones to `user` (in the thread `thread_ts`, if given); replace/delete_original
        act on `message_ts`."""
        self._targets.setdefault(key, _ResponseTarget(channel, user, message_ts, thread_ts=thread_ts))
        return f"{self.root_url}response/{key}"

    def calls(self, method: str | None = None) -> list[Call]:
        return [c for c in list(self._calls) if method in (None, c.method)]

    def attempts(self, method: str) -> int:
        return len(self.calls(method))

    def messages(self, channel: str, thread_ts: str | None = None) -> list[JSON]:
        """A channel's messages in ts order; with thread_ts, that thread, root first."""
        items = list(self._messages.items())
        found = [m for (c, _), m in items if c == channel and thread_ts in (None, m["ts"], m.get("thread_ts"))]
        return copy.deepcopy(sorted(found, key=lambda m: float(m["ts"])))

    def add_message(self, channel: str, text: str, user: str, thread_ts: str | None = None, **extra: Any) -> JSON:
        """Store a message from a human (or another app); returns it with its new ts."""
        if channel not in self.member_channels | self.other_channels:
            raise ValueError(f"unknown channel {channel}")
        message = {"type": "message", "user": user, "text": text, "team": TEAM_ID}
        stored = copy.deepcopy(self._store(channel, {**message, **extra}, thread_ts))
        self.version += 1
        return stored

    def react(self, channel: str, ts: str, name: str, user: str, *, add: bool = True) -> bool:
        """A person adds (or removes) a reaction; False if that was already so."""
        message = self._messages.get((channel, ts))
        if message is None:
            raise ValueError(f"no message {channel}/{ts}")
        changed = self._set_reaction(message, name.strip(":"), user, add=add)
        self.version += changed
        return changed

    async def wait_change(self, since: int, timeout: float) -> int:
        """The current `version`, once it differs from `since` or `timeout` seconds have passed."""
        try:
            return await _poll(lambda: self.version if self.version != since else None, timeout, "no change")
        except TimeoutError:
            return self.version

    def fail_next(self, method: str, status: int = 429, retry_after: int = 1, times: int = 1) -> None:
        """The next `times` requests to `method` get HTTP 429 (with Retry-After) or 5xx."""
        if status != 429 and status < 500:
            raise ValueError("status must be 429 or 5xx; use error_next() for Slack errors")
        self._faults.setdefault(method, []).extend(_Fault(status, retry_after) for _ in range(times))

    def error_next(self, method: str, error: str = "not_in_channel", times: int = 1) -> None:
        """The next `times` requests to `method` get `{"ok": false, "error": error}`."""
        self._faults.setdefault(method, []).extend(_Fault(200, error=error) for _ in range(times))

    async def wait_for(self, method: str, predicate: Callable[[Call], bool] | None = None, timeout: float = 5) -> Call:
        """The first recorded call to `method` that matches, waiting for it if need be."""

        def probe() -> Call | None:
            matches = (c for c in self.calls(method) if predicate is None or predicate(c))
            return next(matches, None)

        return await _poll(probe, timeout, f"no matching {method} call")

    async def push(self, envelope_type: str, payload: JSON, *, retry_attempt: int = 0, retry_reason: str = "") -> str:
        """Send an envelope on the newest Socket Mode connection; returns envelope_id."""
        if envelope_type not in ENVELOPE_TYPES:
            raise ValueError(f"envelope_type must be one of {ENVELOPE_TYPES}")
        if not self._sockets:
            raise RuntimeError("no Socket Mode connection is open")
        envelope_id = str(uuid.uuid4())
        accepts = envelope_type != "events_api"
        envelope: JSON = {
            "envelope_id": envelope_id,
            "type": envelope_type,
            "payload": payload,
            "accepts_response_payload": accepts,
            "retry_attempt": retry_attempt,
            "retry_reason": retry_reason,
        }
        await self._sockets[-1][0].send_json(envelope)
        return envelope_id

    async def wait_ack(self, envelope_id: str, timeout: float = 5) -> JSON:
        """The client's ack `{envelope_id, payload?}`, waiting for it if need be."""
        return await _poll(lambda: self.acks.get(envelope_id), timeout, "no ack")

    async def wait_connected(self, count: int = 1, timeout: float = 5) -> None:
        """Wait until `count` connections were opened in all and one is open."""

        def probe() -> bool | None:
            return (self.connections_opened >= count and bool(self._sockets)) or None

        await _poll(probe, timeout, f"fewer than {count} Socket Mode connections")

    @property
    def open_connections(self) -> int:
        return len(self._sockets)

    async def drop_connections(self, *, graceful: bool = False) -> int:
        """Abort every socket's transport; or, graceful, send Slack's `disconnect` (refresh)
        message, after which the client opens a new connection and closes the old one."""
        sockets = list(self._sockets)
        for socket in sockets:
            if graceful:
                await socket[0].send_json({"type": "disconnect", "reason": "refresh_requested"})
                continue
            self._sockets.remove(socket)
            if socket[1].transport is not None:
                socket[1].transport.abort()
        return len(sockets)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        if request.query.get("ticket") not in self._tickets:
            raise web.HTTPUnauthorized()
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        socket = (ws, request)
        self._sockets.append(socket)
        self.connections_opened += 1
        info = {"host": "fake-slack", "approximate_connection_time": 3600}
        await ws.send_json({"type": "hello", "num_connections": len(self._sockets), "debug_info": info})
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._record_ack(msg.data)
        finally:
            if socket in self._sockets:
                self._sockets.remove(socket)
        return ws

    def _record_ack(self, data: str) -> None:
        try:
            ack = json.loads(data)
        except json.JSONDecodeError:
            ack = None
        if isinstance(ack, dict) and isinstance(ack.get("envelope_id"), str):
            self.acks[ack["envelope_id"]] = ack
        else:
            self.warnings.append(f"socket: not an ack: {data[:200]}")

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        try:
            params = await _read_params(request)
        except SlackError as error:
            return self._answer(request, method, {}, (200, {}, error.body()))
        return self._answer(request, method, params, self._dispatch(method, params, request))

    def _dispatch(self, method: str, params: JSON, request: web.Request) -> Reply:
        if faults := self._faults.get(method):
            return faults.pop(0).reply()
        try:
            handler = self._methods.get(method)
            if handler is None:
                raise SlackError("unknown_method")
            self._check_auth(method, request.headers.get("Authorization", ""))
            scopes = {} if method in APP_TOKEN_METHODS else {"x-oauth-scopes": ",".join(self.scopes)}
            return 200, scopes, {"ok": True, **handler(params)}
        except SlackError as error:
            return 200, {}, error.body()

    def _answer(self, request: web.Request, method: str, params: JSON, reply: Reply, target: str = "") -> web.Response:
        status, headers, body = reply
        kept = {k: v for k, v in request.headers.items() if k in KEPT_HEADERS}
        self._calls.append(Call(method, params, kept, time.time(), status, body, target))
        if status == 200 and body.get("ok") is True and method in CHANGING_METHODS:
            self.version += 1
        return web.json_response(body, status=status, headers=headers)

    def _check_auth(self, method: str, header: str) -> None:
        token = header.removeprefix("Bearer ").strip()
        if not header.startswith("Bearer ") or not token:
            raise SlackError("not_authed")
        wanted, other = self.token, self.app_token
        if method in APP_TOKEN_METHODS:
            wanted, other = other, wanted
        if token != wanted:
            raise SlackError("not_allowed_token_type" if token == other else "invalid_auth")

    async def _response_url(self, request: web.Request) -> web.Response:
        key = request.match_info["key"]
        target = self._targets.get(key)
        if target is None or target.uses >= MAX_RESPONSE_URL_USES:
            reply: Reply = (404, {}, SlackError("used_url").body())
            return self._answer(request, "response_url", {}, reply, key)
        target.uses += 1
        params: JSON = {}
        try:
            params = await _read_params(request)
            if faults := self._faults.get("response_url"):
                reply = faults.pop(0).reply()
            else:
                reply = (200, {}, self._respond(target, params))
        except SlackError as error:
            reply = (400, {}, error.body())
        return self._answer(request, "response_url", params, reply, key)

    def _respond(self, target: _ResponseTarget, params: JSON) -> JSON:
        original_key = (target.channel or "", target.message_ts or "")
        if _truthy(params.get("delete_original")):
            self._messages.pop(original_key, None)
            return {"ok": True}
        content = self._content("response_url", params)
        original = self._messages.get(original_key)
        if _truthy(params.get("replace_original")) and original is not None:
            original.update(content)
        elif params.get("response_type") == "in_channel" and target.channel:
            message = {"type": "message", **content, **self._bot()}
            self._store(target.channel, message, params.get("thread_ts"))
        else:
            where = {"channel": target.channel, "user": target.user, "ts": self._next_ts()}
            if target.thread_ts:
                where["thread_ts"] = target.thread_ts
            self.ephemerals.append({**where, **content})
        return {"ok": True}

    def _next_ts(self) -> str:
        if self._clock is None:
            micros = 1_700_000_000_000_000 + 100 * next(self._ts)
        else:
            micros = max(int(self._clock() * 1_000_000), self._last_micros + 100)
        self._last_micros = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def _bot(self) -> JSON:
        return {"user": BOT_USER_ID, "bot_id": BOT_ID, "app_id": APP_ID, "team": TEAM_ID}

    def _store(self, channel: str, message: JSON, thread_ts: object) -> JSON:
        root = self._thread_root(channel, str(thread_ts)) if thread_ts else None
        message = {**message, "channel": channel, "ts": self._next_ts()}
        if root:
            message["thread_ts"] = root
        self._messages[(channel, message["ts"])] = message
        return message

    def _thread_root(self, channel: str, thread_ts: str) -> str:
        parent = self._messages.get((channel, thread_ts))
        if parent is None:
            if self.strict_threads:
                raise SlackError("thread_not_found")
            return thread_ts
        root = str(parent.get("thread_ts", thread_ts))
        if root != thread_ts:
            self.warnings.append(f"thread_ts {thread_ts} is a reply, not a thread root")
        return root

    def _channel(self, params: JSON, *, member: bool = True) -> str:
        channel = str(params.get("channel") or "")
        if channel not in self.member_channels | self.other_channels:
            raise SlackError("channel_not_found")
        if member and channel not in self.member_channels:
            raise SlackError("not_in_channel")
        return channel

    def _message(self, channel: str, ts: object) -> JSON:
        message = self._messages.get((channel, str(ts or "")))
        if message is None:
            raise SlackError("message_not_found")
        return message

    def _own_message(self, params: JSON, error: str) -> JSON:
        message = self._message(self._channel(params, member=False), params.get("ts"))
        if message.get("bot_id") != BOT_ID:
            raise SlackError(error)
        return message

    def _content(self, method: str, params: JSON) -> JSON:
        text = str(params.get("text") or "")
        blocks = _json_arg(params, "blocks", "invalid_blocks_format")
        attachments = _json_arg(params, "attachments", "invalid_attachments")
        if not (text or blocks or attachments):
            raise SlackError("no_text")
        if len(text) > MAX_TEXT:
            raise SlackError("msg_too_long")
        if blocks is not None:
            check_blocks(blocks)
        if blocks and not text:
            self.warnings.append(f"{method}: blocks without a top-level text fallback")
        content: JSON = {"text": text}
        if blocks:
            content["blocks"] = blocks
        if attachments:
            content["attachments"] = attachments
        return content

    def _user(self, user_id: object) -> User:
        user = self.users.get(str(user_id or ""))
        if user is None:
            raise SlackError("user_not_found")
        return user

    def _auth_test(self, params: JSON) -> JSON:
        return {
            "url": "https://fake.slack.com/",
            "team": "Fake",
            "user": "errfix",
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _connections_open(self, params: JSON) -> JSON:
        ticket = uuid.uuid4().hex
        self._tickets.add(ticket)
        return {"url": f"ws{self.root_url.removeprefix('http')}socket?ticket={ticket}"}

    def _post_message(self, params: JSON) -> JSON:
        channel = self._channel(params)
        content = self._content("chat.postMessage", params)
        message = {"type": "message", **content, **self._bot()}
        if _truthy(params.get("reply_broadcast")):
            message["subtype"] = "thread_broadcast"
        stored = self._store(channel, message, params.get("thread_ts"))
        return {"channel": channel, "ts": stored["ts"], "message": _public(stored)}

    def _post_ephemeral(self, params: JSON) -> JSON:
        channel = self._channel(params)
        user, ts = self._user(params.get("user")).id, self._next_ts()
        where: JSON = {"channel": channel, "user": user, "ts": ts, "thread_ts": params.get("thread_ts")}
        self.ephemerals.append({**where, **self._content("chat.postEphemeral", params)})
        return {"message_ts": ts}

    def _update(self, params: JSON) -> JSON:
        message = self._own_message(params, "cant_update_message")
        content = self._content("chat.update", params)
        message["text"] = content["text"]
        if "blocks" in params:  # absent: Slack keeps the old blocks; [] removes them
            message["blocks"] = content.get("blocks", [])
        message["edited"] = {"user": BOT_USER_ID, "ts": self._next_ts()}
        channel, ts = message["channel"], message["ts"]
        return {"channel": channel, "ts": ts, "text": content["text"], "message": _public(message)}

    def _delete(self, params: JSON) -> JSON:
        message = self._own_message(params, "cant_delete_message")
        del self._messages[(message["channel"], message["ts"])]
        return {"channel": message["channel"], "ts": message["ts"]}

    def _reaction_target(self, params: JSON) -> JSON:
        if not params.get("channel") or not params.get("timestamp"):
            raise SlackError("no_item_specified")
        return self._message(self._channel(params, member=False), params["timestamp"])

    def _react(self, params: JSON, *, add: bool) -> JSON:
        message = self._reaction_target(params)
        name = str(params.get("name") or "").strip(":")
        if not name:
            raise SlackError("invalid_name")
        if not self._set_reaction(message, name, BOT_USER_ID, add=add):
            raise SlackError("already_reacted" if add else "no_reaction")
        return {}

    @staticmethod
    def _set_reaction(message: JSON, name: str, user: str, *, add: bool) -> bool:
        """Add or remove `user`'s reaction `name` (first-added reactions stay first); False if unchanged."""
        reactions: list[JSON] = message.get("reactions", [])
        entry = next((r for r in reactions if r["name"] == name), None)
        users: list[str] = entry["users"] if entry else []
        if (user in users) == add:
            return False
        users = [*users, user] if add else [u for u in users if u != user]
        if entry is None:
            reactions = [*reactions, {"name": name, "users": users, "count": len(users)}]
        else:
            entry |= {"users": users, "count": len(users)}
            reactions = [r for r in reactions if r["count"]]
        message["reactions"] = reactions
        return True

    def _reactions_get(self, params: JSON) -> JSON:
        message = self._reaction_target(params)
        channel = message["channel"]
        return {"type": "message", "channel": channel, "message": _public(message)}

    def _users_info(self, params: JSON) -> JSON:
        user = self._user(params.get("user"))
        name = user.name or user.id
        info: JSON = {
            "id": user.id,
            "team_id": TEAM_ID,
            "name": name,
            "real_name": name,
            "is_bot": user.is_bot,
            "deleted": False,
        }
        if _truthy(params.get("include_locale")):
            info["locale"] = user.locale
        return {"user": info}

    def _replies(self, params: JSON) -> JSON:
        channel = self._channel(params)
        if not params.get("ts"):
            raise SlackError("invalid_arguments", "missing required field: ts")
        root = self._messages.get((channel, str(params["ts"])))
        if root is None:
            raise SlackError("thread_not_found")
        thread_ts = str(root.get("thread_ts", root["ts"]))
        thread = [_public(m) for m in self.messages(channel, thread_ts)]
        if len(thread) > 1:
            thread[0] |= {"reply_count": len(thread) - 1, "latest_reply": thread[-1]["ts"]}
        return {"messages": thread, "has_more": False}

    def _history(self, params: JSON) -> JSON:
        channel = self._channel(params)
        messages = self.messages(channel)
        top = [_public(m) for m in messages if m.get("thread_ts", m["ts"]) == m["ts"] or _broadcast(m)]
        raw_limit = str(params.get("limit") or 100)
        if not raw_limit.isdigit():
            raise SlackError("invalid_limit")
        limit = int(raw_limit)
        return {"messages": top[::-1][:limit], "has_more": len(top) > limit}

    def _views_publish(self, params: JSON) -> JSON:
        user = self._user(params.get("user_id")).id
        view = _json_arg(params, "view", "invalid_arguments")
        if not isinstance(view, dict) or view.get("type") != "home":
            raise SlackError("invalid_arguments", "view.type must be home")
        check_blocks(view.get("blocks", []), MAX_HOME_BLOCKS)
        self.home_views[user] = {"id": f"V{user}", "team_id": TEAM_ID, **view}
        return {"view": copy.deepcopy(self.home_views[user])}


_MENTION = re.compile(r"(?<![\w<@])@([\w.-]+)")


def slack_escape(text: str) -> str:
    """What Slack puts in an event's `text` for what a person typed (`&`, `<`, `>` escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def channel_type(channel: str) -> str:
    """Slack's `channel_type` from a channel id: D… is a DM, G… a private channel."""
    return {"D": "im", "G": "group"}.get(channel[:1], "channel")


@dataclass(frozen=True)
class Delivery:
    """The app's answer to one request Slack sent it."""

    status: int
    body: str

    @property
    def ok(self) -> bool:
        return self.status == 200


class EventsLink:
    """Slack's side of the HTTP link to an app: what people do in the fake workspace.

    Each action is stored in `fake` as Slack stores it, then sent to the app's request URL
    (`url`, e.g. http://127.0.0.1:3000/slack/events) as Slack sends it: a POST signed with the
    app's signing secret. Call `close()` when done.
    """

    def __init__(self, fake: FakeSlack, url: str, signing_secret: str) -> None:
        self.fake, self.url, self.signing_secret = fake, url, signing_secret
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def send(self, body: str, content_type: str, headers: dict[str, str] | None = None) -> Delivery:
        """POST `body`, signed, to the app (as Slack would, with a 3 s answer expected)."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        all_headers = {"Content-Type": content_type, **sign(self.signing_secret, body), **(headers or {})}
        async with self._session.post(self.url, data=body.encode(), headers=all_headers) as resp:
            return Delivery(resp.status, await resp.text())

    async def event(self, event: JSON) -> Delivery:
        """An Events API callback carrying `event`."""
        body = {
            "token": "legacy",
            "team_id": TEAM_ID,
            "api_app_id": APP_ID,
            "type": "event_callback",
            "event_id": f"Ev{uuid.uuid4().hex[:12].upper()}",
            "event_time": int(time.time()),
            "event": event,
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
        }
        return await self.send(json.dumps(body), "application/json")

    def mentions(self, typed: str) -> str:
        """`typed` as Slack stores it: escaped, `@name` of a known user turned into `<@ID>`."""
        by_name = {u.name.lower(): u.id for u in self.fake.users.values() if u.name}

        def mention(m: re.Match[str]) -> str:
            found = by_name.get(m.group(1).lower())
            return f"<@{found}>" if found else m.group(0)

        return _MENTION.sub(mention, slack_escape(typed))

    async def message(
        self, channel: str, user: str, typed: str, *, thread_ts: str | None = None
    ) -> tuple[JSON, list[Delivery]]:
        """A person posts `typed`: stored, then a `message` event (and first an `app_mention` one
        when it mentions the app in a channel, as Slack sends both)."""
        message = self.fake.add_message(channel, self.mentions(typed), user, thread_ts=thread_ts)
        event: JSON = {
            "type": "message",
            "channel": channel,
            "channel_type": channel_type(channel),
            "user": user,
            "text": message["text"],
            "ts": message["ts"],
            "team": TEAM_ID,
            "event_ts": message["ts"],
        }
        if message.get("thread_ts"):
            event["thread_ts"] = message["thread_ts"]
        sent = []
        if f"<@{BOT_USER_ID}>" in message["text"] and channel_type(channel) != "im":
            mention = {k: v for k, v in event.items() if k != "channel_type"}
            sent.append(await self.event({**mention, "type": "app_mention"}))
        sent.append(await self.event(event))
        return message, sent

    async def command(
        self, channel: str, user: str, command: str, text: str, *, thread_ts: str | None = None
    ) -> Delivery:
        """A person runs a slash command: a signed form post with a fresh response_url. A
        non-empty acknowledgement is shown as Slack shows it (ephemeral unless in_channel)."""
        key = f"cmd-{uuid.uuid4().hex}"
        response_url = self.fake.response_url_for(key, channel=channel, user=user, thread_ts=thread_ts)
        form = {
            "token": "legacy",
            "team_id": TEAM_ID,
            "team_domain": "fake",
            "channel_id": channel,
            "channel_name": channel.lower(),
            "user_id": user,
            "user_name": self.fake.users[user].name or user,
            "command": command,
            "text": text,
            "api_app_id": APP_ID,
            "response_url": response_url,
            "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
        }
        delivery = await self.send(urlencode(form), "application/x-www-form-urlencoded")
        if delivery.ok and delivery.body.strip():
            self._show_ack(self.fake._targets[key], delivery.body)
        return delivery

    def _show_ack(self, target: _ResponseTarget, body: str) -> None:
        try:
            parsed = json.loads(body)
        except json.JSONDecodeError:
            parsed = {"text": body}
        if isinstance(parsed, dict):
            try:
                self.fake._respond(target, parsed)
                self.fake.version += 1
            except SlackError as error:
                self.fake.warnings.append(f"command ack: {error.code}")

    async def click(
        self,
        channel: str,
        user: str,
        action: JSON,
        *,
        message_ts: str,
        ephemeral: bool = False,
        thread_ts: str | None = None,
    ) -> Delivery:
        """A person presses a button (`action`: its action_id, block_id, value) of the message
        `message_ts` (an ephemeral one too): a signed `block_actions` payload."""
        key = f"act-{uuid.uuid4().hex}"
        response_url = self.fake.response_url_for(
            key, channel=channel, user=user, thread_ts=thread_ts, message_ts=None if ephemeral else message_ts
        )
        payload: JSON = {
            "type": "block_actions",
            "user": {"id": user, "team_id": TEAM_ID},
            "api_app_id": APP_ID,
            "team": {"id": TEAM_ID},
            "channel": {"id": channel},
            "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
            "container": {
                "type": "message",
                "message_ts": message_ts,
                "channel_id": channel,
                "is_ephemeral": ephemeral,
            },
            "response_url": response_url,
            "actions": [
                {
                    "type": "button",
                    "action_id": str(action.get("action_id", "")),
                    "block_id": str(action.get("block_id", "")),
                    "value": str(action.get("value", "")),
                    "action_ts": str(time.time()),
                }
            ],
        }
        if not ephemeral:
            stored = self.fake._message(channel, message_ts)
            payload["message"] = _public(stored)
        return await self.send(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    async def react(self, channel: str, user: str, ts: str, name: str, *, add: bool = True) -> Delivery | None:
        """A person adds (or removes) reaction `name` on a message: a `reaction_added` (or
        `reaction_removed`) event; None when nothing changed (nothing is sent then)."""
        if not self.fake.react(channel, ts, name, user, add=add):
            return None
        item_user = self.fake._messages[(channel, ts)].get("user")
        event: JSON = {
            "type": "reaction_added" if add else "reaction_removed",
            "user": user,
            "reaction": name,
            "item": {"type": "message", "channel": channel, "ts": ts},
            "event_ts": self.fake._next_ts(),
        }
        if item_user:
            event["item_user"] = item_user
        return await self.event(event)


class FakeSlackThread:
    """FakeSlack on its own event loop in a daemon thread, for synchronous code:
    `with FakeSlackThread() as slack:` then `slack.base_url`, `slack.fake.calls()`."""

    def __init__(self, fake: FakeSlack | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.fake = fake or FakeSlack()
        self._address = (host, port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FakeSlackThread:
        self._thread.start()
        self.run(self.fake.start(*self._address))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.run(self.fake.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    @property
    def base_url(self) -> str:
        return self.fake.base_url

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 10) -> T:
        """Run a coroutine on the fake's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def wait_for(self, method: str, predicate: Callable[[Call], bool] | None = None, timeout: float = 5) -> Call:
        return self.run(self.fake.wait_for(method, predicate, timeout), timeout + 1)

    def push(self, envelope_type: str, payload: JSON, **options: Any) -> str:
        return self.run(self.fake.push(envelope_type, payload, **options))

    def wait_ack(self, envelope_id: str, timeout: float = 5) -> JSON:
        return self.run(self.fake.wait_ack(envelope_id, timeout), timeout + 1)

    def wait_connected(self, count: int = 1, timeout: float = 5) -> None:
        self.run(self.fake.wait_connected(count, timeout), timeout + 1)

    def drop_connections(self, *, graceful: bool = False) -> int:
        return self.run(self.fake.drop_connections(graceful=graceful))

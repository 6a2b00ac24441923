"""The fake Slack Web API (plus response_url and Socket Mode) on one aiohttp server.

Serves the tests and `errfix demo`, and is as strict as Slack where errfix could go wrong:
tokens and their scopes (the bot token holds deploy/slack-manifest.yml's bot scopes; a call
outside them gets `missing_scope`), arguments, Block Kit (bot/fakeslack/blocks_check.py), the
per-channel posting rate (HTTP 429 with Retry-After) and response_url's 5 uses in 30 minutes.
It records every request and can inject rate limits, 5xx and dropped sockets. Human messages
and files enter through `add_message()` / `add_file()`, the bot's through the Web API; `version`
and `wait_change()` let a viewer (the demo page) follow the workspace without polling.
"""

from __future__ import annotations

import asyncio
import copy
import html
import itertools
import json
import math
import re
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

from bot.fakeslack.blocks_check import MAX_VIEW_BLOCKS, BlockError, check_blocks, check_modal, input_ids

JSON = dict[str, Any]
Reply = tuple[int, dict[str, str], JSON]
T = TypeVar("T")

BOT_TOKEN, APP_TOKEN = "xoxb-test", "xapp-test"
TEAM_ID, BOT_USER_ID, BOT_ID, APP_ID = "T_FAKE", "U_BOT", "B_BOT", "A_FAKE"
APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
MANIFEST = Path(__file__).resolve().parents[2] / "deploy" / "slack-manifest.yml"
KEPT_HEADERS = ("Authorization", "Content-Type", "User-Agent")
MAX_TEXT = 40_000
MAX_RESPONSE_URL_USES, RESPONSE_URL_TTL = 5, 30 * 60.0
MAX_ERROR_TEXT = 2_000  # a response_action errors message, per input
ENVELOPE_TYPES = ("events_api", "slash_commands", "interactive")
# the bot scope each Web API method needs ("" none); conversations.* need the history scope of
# the channel's type, see HISTORY_SCOPES
METHOD_SCOPES = {
    "auth.test": "",
    "chat.postMessage": "chat:write",
    "chat.update": "chat:write",
    "chat.postEphemeral": "chat:write",
    "chat.delete": "chat:write",
    "reactions.add": "reactions:write",
    "reactions.remove": "reactions:write",
    "reactions.get": "reactions:read",
    "users.info": "users:read",
    "files.info": "files:read",
    "views.publish": "",
    "views.open": "",
    "views.update": "",
    "chat.getPermalink": "",
    "users.conversations": "",  # by `types`: see CONVERSATION_SCOPES
}
HISTORY_METHODS = frozenset({"conversations.replies", "conversations.history"})
CONVERSATION_SCOPES = {
    "public_channel": "channels:read",
    "private_channel": "groups:read",
    "im": "im:read",
    "mpim": "mpim:read",
}
HISTORY_SCOPES = {"channel": "channels:history", "group": "groups:history", "im": "im:history", "mpim": "mpim:history"}
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
        "views.open",
        "views.update",
        "response_url",
    }
)
TRIGGER_TTL = 3.0  # seconds a trigger_id (a shortcut, a button press) may be used to open a modal
RATE_LIMITED_METHODS = frozenset({"chat.postMessage"})  # counted per channel
SNIPPET_PREVIEW_LINES = 5


def manifest_scopes(path: Path = MANIFEST) -> tuple[str, ...]:
    """The bot scopes deploy/slack-manifest.yml asks for (what an installed bot token holds)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "bot:")
    scopes = []
    for line in lines[start + 1 :]:
        item = re.match(r"^\s+- ([\w:.]+)\s*$", line)
        if item is None:
            break
        scopes.append(item.group(1))
    return tuple(scopes)


def channel_type(channel: str) -> str:
    """Slack's `channel_type` from a channel id: D… is a DM, G… a private channel (a group DM
    is one the fake was told about: see `FakeSlack(mpims=…)`)."""
    return {"D": "im", "G": "group"}.get(channel[:1], "channel")


class SlackError(Exception):
    """An API error, answered like Slack: HTTP 200 `{"ok": false, "error": code, ...}`."""

    def __init__(self, code: str, detail: str = "", **extra: str) -> None:
        super().__init__(code)
        self.code, self.detail, self.extra = code, detail, extra

    def body(self) -> JSON:
        body: JSON = {"ok": False, "error": self.code, **self.extra}
        if self.detail:
            body["response_metadata"] = {"messages": [f"[ERROR] {self.detail}"]}
        return body


@dataclass(frozen=True)
class Call:
    """One request received, whatever its outcome (faults, auth errors included)."""

    method: str  # a Web API method, "response_url" or "file_download"
    params: JSON
    headers: dict[str, str]
    time: float
    status: int
    response: JSON
    target: str = ""  # the response_url key, or the file id

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.response.get("ok") is True


@dataclass
class User:
    id: str
    name: str = ""
    locale: str = "en-US"
    is_bot: bool = False
    is_admin: bool = False


@dataclass(frozen=True)
class PostRate:
    """Slack's per-channel posting limit: about `per_second` messages a second, with short
    bursts of up to `burst` (a token bucket)."""

    per_second: float = 1.0
    burst: int = 3


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class _Fault:
    status: int
    retry_after: int = 0
    error: str = ""

    def reply(self) -> Reply:
        if self.status == 429:
            return _rate_limited(self.retry_after)
        if self.status >= 500:
            return self.status, {}, SlackError("internal_error").body()
        return 200, {}, SlackError(self.error).body()


def _rate_limited(retry_after: int) -> Reply:
    return 429, {"Retry-After": str(retry_after)}, SlackError("ratelimited").body()


@dataclass
class _ResponseTarget:
    channel: str | None
    user: str | None
    message_ts: str | None
    created: float
    uses: int = 0
    thread_ts: str | None = None  # where ephemeral answers show (a command typed in a thread)


_USER_MENTION = re.compile(r"<@([A-Z0-9_]+)(?:\|[^>]*)?>")


def rich_text(text: str) -> list[JSON]:
    """The `blocks` Slack adds to a person's message: one rich_text section of `text`
    (Slack-escaped, as in the event) as text and user elements, unescaped."""
    elements: list[JSON] = []
    at = 0
    for mention in _USER_MENTION.finditer(text):
        if mention.start() > at:
            elements.append({"type": "text", "text": html.unescape(text[at : mention.start()])})
        elements.append({"type": "user", "user_id": mention.group(1)})
        at = mention.end()
    if at < len(text):
        elements.append({"type": "text", "text": html.unescape(text[at:])})
    section = {"type": "rich_text_section", "elements": elements}
    return [{"type": "rich_text", "block_id": uuid.uuid4().hex[:5], "elements": [section]}]


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


def _metadata(params: JSON) -> JSON | None:
    """Message metadata as Slack takes it: an object with an `event_type` (letters, digits,
    underscores) and an object `event_payload`; else `invalid_metadata_format`."""
    if "metadata" not in params:
        return None
    metadata = _json_arg(params, "metadata", "invalid_metadata_format")
    if (
        not isinstance(metadata, dict)
        or set(metadata) != {"event_type", "event_payload"}
        or not isinstance(metadata["event_type"], str)
        or not re.fullmatch(r"[A-Za-z0-9_]{1,255}", metadata["event_type"])
        or not isinstance(metadata["event_payload"], dict)
    ):
        raise SlackError("invalid_metadata_format")
    return metadata


def _without_metadata(message: JSON) -> JSON:
    return {k: v for k, v in message.items() if k != "metadata"}


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


def _byte_range(header: str, size: int) -> tuple[int, int]:
    """`Range: bytes=a-b` / `bytes=-n` as a half-open [start, end) within `size` bytes."""
    found = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
    if found is None or not any(found.groups()):
        return 0, size
    first, last = found.groups()
    if not first:
        return max(0, size - int(last)), size
    return min(int(first), size), min(size, int(last) + 1) if last else size


class FakeSlack:
    """The fake. Run it with start()/stop(), or mount app() and set root_url.

    `clock` (e.g. `time.time`) makes message timestamps real times, unique across runs; without
    it they count up from 1700000000.000100. `timer` (monotonic seconds) drives the posting rate
    limit and response_url expiry: inject one to test them without waiting. `post_rate=None`
    lifts the rate limit. `scopes` are the bot token's (the manifest's unless given). `mpims`
    are group DMs among the member channels. `max_calls` bounds the call log (a long-running demo).
    """

    def __init__(
        self,
        *,
        token: str = BOT_TOKEN,
        app_token: str = APP_TOKEN,
        channels: Iterable[str] = ("C_GENERAL",),
        other_channels: Iterable[str] = ("C_RANDOM",),
        mpims: Iterable[str] = (),
        users: Iterable[User] = (),
        scopes: Iterable[str] | None = None,
        strict_threads: bool = True,
        clock: Callable[[], float] | None = None,
        timer: Callable[[], float] = time.monotonic,
        post_rate: PostRate | None = PostRate(),
        max_calls: int | None = None,
        members: dict[str, Iterable[str]] | None = None,
    ) -> None:
        self.token, self.app_token, self.strict_threads = token, app_token, strict_threads
        self.max_calls, self.version = max_calls, 0
        self._clock, self._last_micros = clock, 0
        self.timer, self.post_rate = timer, post_rate
        self.scopes: tuple[str, ...] = manifest_scopes() if scopes is None else tuple(scopes)
        self.mpims = set(mpims)
        # who is in each channel (users.conversations); unless given, every person is in every channel
        self.members: dict[str, set[str]] | None = None if members is None else {c: set(u) for c, u in members.items()}
        self.member_channels, self.other_channels = set(channels) | self.mpims, set(other_channels)
        self.users = {BOT_USER_ID: User(BOT_USER_ID, "errfix", is_bot=True)} | {user.id: user for user in users}
        self.root_url = ""  # "http://host:port/" plus any mount prefix; set by start()
        self.connections_opened = 0
        self._ts = itertools.count(1)
        self._file_ids = itertools.count(1)
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
            "files.info": self._files_info,
            "conversations.replies": self._replies,
            "conversations.history": self._history,
            "views.publish": self._views_publish,
            "views.open": self._views_open,
            "views.update": self._views_update,
            "chat.getPermalink": self._permalink,
            "users.conversations": self._user_conversations,
        }
        self.reset()

    def reset(self) -> None:
        """Forget calls, messages, views, faults, acks and warnings (not the sockets)."""
        self.warnings: list[str] = []
        self.ephemerals: list[JSON] = []
        self.home_views: dict[str, JSON] = {}
        self.acks: dict[str, JSON] = {}
        self._calls: deque[Call] = deque(maxlen=self.max_calls)
        self._messages: dict[tuple[str, str], JSON] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._drops: dict[str, int] = {}
        self._holds: dict[str, bool] = {}
        self._released = asyncio.Event()
        self.held = 0
        self._targets: dict[str, _ResponseTarget] = {}
        self._buckets: dict[str, _Bucket] = {}
        self.files: dict[str, JSON] = {}  # id → the file as files.info shows it, with its content
        self.views: dict[str, JSON] = {}  # modals open now, by view id (closed ones are removed)
        self._triggers: dict[str, tuple[str, float]] = {}  # trigger_id → (user, issued at), unused ones
        self._used_triggers: set[str] = set()
        self._view_ids = itertools.count(1)
        self.version += 1

    def app(self) -> web.Application:
        if self._app is None:
            self._app = web.Application()
            self._app.router.add_route("*", "/api/{method}", self._api)
            self._app.router.add_post("/response/{key}", self._response_url)
            self._app.router.add_get("/socket", self._socket)
            self._app.router.add_get("/files/{id}/{name}", self._download)
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
        """A response_url good for 5 uses in 30 minutes. in_channel answers go to `channel`,
        ephemeral ones to `user` (in the thread `thread_ts`, if given); replace/delete_original
        act on `message_ts`."""
        self._targets.setdefault(key, _ResponseTarget(channel, user, message_ts, self.timer(), thread_ts=thread_ts))
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

    def message(self, channel: str, ts: str) -> JSON:
        """One stored message as the Web API shows it (a copy); ValueError if there is none."""
        found = self._messages.get((channel, ts))
        if found is None:
            raise ValueError(f"no message {channel}/{ts}")
        return _public(found)

    def next_ts(self) -> str:
        """A fresh timestamp, later than every one given out."""
        return self._next_ts()

    def show_response(self, key: str, body: JSON) -> None:
        """Show a body posted for response_url `key` without using it up (how Slack shows a
        command's acknowledgement); a body Slack would refuse becomes a warning."""
        try:
            self._respond(self._targets[key], body)
            self.version += 1
        except SlackError as error:
            self.warnings.append(f"command ack: {error.code}")

    def kind(self, channel: str) -> str:
        """The channel's `channel_type`: `mpim` for a group DM, else by its id's first letter."""
        return "mpim" if channel in self.mpims else channel_type(channel)

    def add_message(self, channel: str, text: str, user: str, thread_ts: str | None = None, **extra: Any) -> JSON:
        """Store a message from a human (or another app); returns it with its new ts.

        A person's message carries what Slack adds: a `client_msg_id` and `rich_text` blocks."""
        if channel not in self.member_channels | self.other_channels:
            raise ValueError(f"unknown channel {channel}")
        message: JSON = {"type": "message", "user": user, "text": text, "team": TEAM_ID}
        if "bot_id" not in extra:
            message |= {"client_msg_id": str(uuid.uuid4()), "blocks": rich_text(text)}
        stored = copy.deepcopy(self._store(channel, {**message, **extra}, thread_ts))
        self.version += 1
        return stored

    def edit_message(self, channel: str, ts: str, text: str) -> tuple[JSON, JSON]:
        """A person edits their message: (before, after), as the Web API shows them; the new
        text gets fresh rich_text blocks and an `edited` mark, as in Slack."""
        message = self._messages.get((channel, ts))
        if message is None:
            raise ValueError(f"no message {channel}/{ts}")
        before = _public(message)
        message.update(text=text, blocks=rich_text(text), edited={"user": message["user"], "ts": self._next_ts()})
        self.version += 1
        return before, _public(message)

    def add_file(
        self,
        user: str,
        content: str | bytes,
        *,
        name: str = "snippet.txt",
        filetype: str = "text",
        mimetype: str = "text/plain",
        title: str = "",
    ) -> JSON:
        """Store a file a person uploaded (a snippet when `content` is text); returns the file
        object Slack puts in a `file_share` event: a preview of the first lines, marked
        truncated when there is more, and `url_private_download` (needs the bot token)."""
        file_id = f"F{next(self._file_ids):08d}"
        data = content.encode() if isinstance(content, str) else content
        url = f"{self.root_url}files/{file_id}/{name}"
        info: JSON = {
            "id": file_id,
            "created": int(float(self._next_ts())),
            "name": name,
            "title": title or name,
            "mimetype": mimetype,
            "filetype": filetype,
            "user": user,
            "mode": "snippet" if isinstance(content, str) else "hosted",
            "size": len(data),
            "is_external": False,
            "url_private": url,
            "url_private_download": url,
        }
        if isinstance(content, str):
            lines = content.splitlines()
            more = max(0, len(lines) - SNIPPET_PREVIEW_LINES)
            preview = "\n".join(lines[:SNIPPET_PREVIEW_LINES])
            info |= {"preview": preview, "lines": len(lines), "lines_more": more, "preview_is_truncated": more > 0}
        self.files[file_id] = {**info, "_content": data}
        return {k: v for k, v in info.items()}

    def delete_file(self, file_id: str) -> None:
        """The file is deleted (files.info then answers file_not_found; downloads fail)."""
        del self.files[file_id]

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
        """The next `times` requests to `method` (or "response_url", "file_download") get HTTP
        429 (with Retry-After) or 5xx."""
        if status != 429 and status < 500:
            raise ValueError("status must be 429 or 5xx; use error_next() for Slack errors")
        self._faults.setdefault(method, []).extend(_Fault(status, retry_after) for _ in range(times))

    def error_next(self, method: str, error: str = "not_in_channel", times: int = 1) -> None:
        """The next `times` requests to `method` get `{"ok": false, "error": error}`."""
        self._faults.setdefault(method, []).extend(_Fault(200, error=error) for _ in range(times))

    def drop_next(self, method: str, times: int = 1) -> None:
        """The next `times` requests to `method` are carried out (a post is stored), then the
        connection is cut before the answer: the caller cannot know whether it happened."""
        self._drops[method] = self._drops.get(method, 0) + times

    def hold(self, method: str, *, carry_out: bool) -> None:
        """Requests to `method` hang unanswered until `release()` (a Slack that stalls), each
        carried out first if `carry_out` (else at the release, unless its caller has gone by
        then); `held` counts them."""
        self._holds[method] = carry_out

    def release(self) -> None:
        self._holds.clear()
        self._released.set()
        self._released = asyncio.Event()

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
        if method in self._holds:
            carry_out = self._holds[method]
            reply = self._dispatch(method, params, request) if carry_out else None
            self.held += 1
            await self._released.wait()
            if reply is None and (request.transport is None or request.transport.is_closing()):
                return web.Response(status=499)  # the caller is gone: Slack never saw the request
            if reply is None:
                reply = self._dispatch(method, params, request)
            return self._answer(request, method, params, reply)
        response = self._answer(request, method, params, self._dispatch(method, params, request))
        if self._drops.get(method):
            self._drops[method] -= 1
            if request.transport is not None:
                request.transport.abort()  # carried out, never answered
        return response

    def _dispatch(self, method: str, params: JSON, request: web.Request) -> Reply:
        if faults := self._faults.get(method):
            return faults.pop(0).reply()
        try:
            handler = self._methods.get(method)
            if handler is None:
                raise SlackError("unknown_method")
            self._check_auth(method, request.headers.get("Authorization", ""))
            scopes = {} if method in APP_TOKEN_METHODS else {"x-oauth-scopes": ",".join(self.scopes)}
            self._check_scope(method, params)
            if method in RATE_LIMITED_METHODS and (wait := self._wait(str(params.get("channel") or ""))):
                return _rate_limited(wait)
            return 200, scopes, {"ok": True, **handler(params)}
        except SlackError as error:
            return 200, {}, error.body()

    def _check_scope(self, method: str, params: JSON) -> None:
        """`missing_scope` (with `needed` and `provided`, as Slack says it) for a call the bot
        token's scopes do not cover; the history scope depends on the channel's type."""
        needed = METHOD_SCOPES.get(method, "")
        if method in HISTORY_METHODS:
            channel = str(params.get("channel") or "")
            known = channel in self.member_channels | self.other_channels
            needed = HISTORY_SCOPES[self.kind(channel)] if known else ""
        if needed and needed not in self.scopes:
            raise SlackError("missing_scope", needed=needed, provided=",".join(self.scopes))

    def _wait(self, channel: str) -> int:
        """Take one post from `channel`'s bucket: 0 if allowed, else the seconds to wait."""
        if self.post_rate is None or not channel:
            return 0
        rate, now = self.post_rate, self.timer()
        bucket = self._buckets.setdefault(channel, _Bucket(float(rate.burst), now))
        bucket.tokens = min(float(rate.burst), bucket.tokens + (now - bucket.at) * rate.per_second)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0
        return max(1, math.ceil((1 - bucket.tokens) / rate.per_second))

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
        refused = "used_url" if target is None or target.uses >= MAX_RESPONSE_URL_USES else ""
        if target is not None and not refused and self.timer() - target.created > RESPONSE_URL_TTL:
            refused = "expired_url"
        if target is None or refused:
            reply: Reply = (404, {}, SlackError(refused).body())
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
            self._check_blocks(blocks)
        if blocks and not text:
            self.warnings.append(f"{method}: blocks without a top-level text fallback")
        content: JSON = {"text": text}
        if blocks:
            content["blocks"] = blocks
        if attachments:
            content["attachments"] = attachments
        return content

    @staticmethod
    def _check_blocks(blocks: object, most: int | None = None) -> None:
        try:
            check_blocks(blocks) if most is None else check_blocks(blocks, most)
        except BlockError as error:
            raise SlackError(error.code, error.detail) from None

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
        if (metadata := _metadata(params)) is not None:
            message["metadata"] = metadata
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
            "is_admin": user.is_admin,
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
        if not _truthy(params.get("include_all_metadata")):  # Slack leaves it out unless asked
            thread = [_without_metadata(m) for m in thread]
        if len(thread) > 1:
            thread[0] |= {"reply_count": len(thread) - 1, "latest_reply": thread[-1]["ts"]}
        return {"messages": thread, "has_more": False}

    def _history(self, params: JSON) -> JSON:
        """Newest first, from `cursor` on, `limit` at a time (Slack's cap: 999), those after
        `oldest`; a thread's root with its `reply_count`, as Slack shows it."""
        channel = self._channel(params)
        messages = self.messages(channel)
        try:
            oldest = float(str(params.get("oldest") or 0))
        except ValueError:
            raise SlackError("invalid_ts_oldest") from None
        top = [
            _public(m)
            for m in messages
            if (m.get("thread_ts", m["ts"]) == m["ts"] or _broadcast(m)) and float(m["ts"]) > oldest
        ]
        for m in top:
            replies = [r for r in messages if r.get("thread_ts") == m["ts"] and r["ts"] != m["ts"]]
            if replies:
                m |= {"reply_count": len(replies), "thread_ts": m["ts"], "latest_reply": replies[-1]["ts"]}
        if not _truthy(params.get("include_all_metadata")):
            top = [_without_metadata(m) for m in top]
        raw_limit = str(params.get("limit") or 100)
        if not raw_limit.isdigit() or not 0 < int(raw_limit) <= 999:
            raise SlackError("invalid_limit")
        limit = int(raw_limit)
        cursor = str(params.get("cursor") or "")
        if cursor and not cursor.startswith("next_ts:"):
            raise SlackError("invalid_cursor")
        newest = top[::-1]
        start = next((i for i, m in enumerate(newest) if m["ts"] == cursor[8:]), len(newest)) if cursor else 0
        page = newest[start : start + limit]
        more = start + limit < len(newest)
        meta = {"next_cursor": f"next_ts:{newest[start + limit]['ts']}" if more else ""}
        return {"messages": page, "has_more": more, "response_metadata": meta}

    def _files_info(self, params: JSON) -> JSON:
        stored = self.files.get(str(params.get("file") or ""))
        if stored is None:
            raise SlackError("file_not_found")
        info = {k: v for k, v in stored.items() if k != "_content"}
        answer: JSON = {"file": info, "comments": [], "response_metadata": {"next_cursor": ""}}
        if info.get("mode") == "snippet":
            answer |= {"content": stored["_content"].decode("utf-8", "replace"), "is_truncated": False}
        return answer

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """GET url_private_download: the bytes with the bot token; like Slack, without a valid
        token (or files:read) an HTML sign-in page with status 200, not an error."""
        file_id = request.match_info["id"]
        kept = {k: v for k, v in request.headers.items() if k in KEPT_HEADERS}
        if faults := self._faults.get("file_download"):
            status, headers, body = faults.pop(0).reply()
            self._calls.append(Call("file_download", {}, kept, time.time(), status, body, file_id))
            return web.json_response(body, status=status, headers=headers)
        stored = self.files.get(file_id)
        authed = request.headers.get("Authorization") == f"Bearer {self.token}" and "files:read" in self.scopes
        if stored is None or request.match_info["name"] != stored["name"]:
            self._calls.append(Call("file_download", {}, kept, time.time(), 404, {"ok": False}, file_id))
            return web.Response(status=404, text="Not Found")
        if not authed:
            self._calls.append(Call("file_download", {}, kept, time.time(), 200, {"ok": False}, file_id))
            return web.Response(text="<html><body>Sign in to Slack</body></html>", content_type="text/html")
        self._calls.append(Call("file_download", {}, kept, time.time(), 200, {"ok": True}, file_id))
        data: bytes = stored["_content"]
        start, end = _byte_range(request.headers.get("Range", ""), len(data))
        headers = {"Content-Type": str(stored["mimetype"]), "Accept-Ranges": "bytes"}
        if (start, end) == (0, len(data)):
            return web.Response(body=data, headers=headers)
        headers["Content-Range"] = f"bytes {start}-{end - 1}/{len(data)}"
        return web.Response(status=206, body=data[start:end], headers=headers)

    # ---- modals ---------------------------------------------------------------------------

    def trigger_for(self, user: str) -> str:
        """A trigger_id for something `user` just did (a shortcut, a button): good once, for
        TRIGGER_TTL seconds of `timer`."""
        trigger = f"{next(self._ts)}.{uuid.uuid4().hex[:12]}"
        self._triggers[trigger] = (user, self.timer())
        return trigger

    def _views_open(self, params: JSON) -> JSON:
        """Open a modal: a fresh, unused trigger_id (3 s, once) and a view Slack accepts."""
        trigger = str(params.get("trigger_id") or "")
        if not trigger:
            raise SlackError("invalid_arguments", "missing required field: trigger_id")
        issued = self._triggers.pop(trigger, None)
        if issued is None:
            raise SlackError("trigger_exchanged" if trigger in self._used_triggers else "invalid_trigger_id")
        self._used_triggers.add(trigger)
        user, at = issued
        if self.timer() - at > TRIGGER_TTL:
            raise SlackError("expired_trigger_id")
        view = _json_arg(params, "view", "invalid_arguments")
        try:
            check_modal(view)
        except BlockError as error:
            raise SlackError("invalid_arguments", error.detail or error.code) from None
        view_id = f"V{next(self._view_ids):08d}"
        self.views[view_id] = {"id": view_id, "team_id": TEAM_ID, "user": user, **view, "state": {"values": {}}}
        return {"view": copy.deepcopy(self.views[view_id])}

    def _views_update(self, params: JSON) -> JSON:
        view_id = str(params.get("view_id") or "")
        if view_id not in self.views:
            raise SlackError("not_found")
        view = _json_arg(params, "view", "invalid_arguments")
        try:
            check_modal(view)
        except BlockError as error:
            raise SlackError("invalid_arguments", error.detail or error.code) from None
        self.views[view_id] = {**self.views[view_id], **view}
        return {"view": copy.deepcopy(self.views[view_id])}

    def submission(self, view_id: str, user: str, values: dict[str, str]) -> JSON:
        """The `view_submission` payload Slack sends when `user` presses the modal's submit
        button with `values` (block_id → text typed) in its inputs; every input not given keeps
        its initial value. ValueError for a view that is not open or a block that is no input."""
        view = self.views.get(view_id)
        if view is None:
            raise ValueError(f"no open view {view_id}")
        if view["user"] != user:
            raise ValueError(f"view {view_id} is open for {view['user']}, not {user}")
        inputs = input_ids(view)
        unknown = sorted(set(values) - set(inputs))
        if unknown:
            raise ValueError(f"not input blocks of {view_id}: {unknown}")
        initial = {
            str(b["block_id"]): b["element"].get("initial_value")
            for b in view.get("blocks", [])
            if b.get("type") == "input"
        }
        state: JSON = {}
        for block_id, action_id in inputs.items():
            value = values.get(block_id, initial.get(block_id))
            state[block_id] = {action_id: {"type": "plain_text_input", "value": value or None}}
        shown = {k: copy.deepcopy(v) for k, v in view.items() if k != "user"}
        shown["state"] = {"values": state}
        return {
            "type": "view_submission",
            "team": {"id": TEAM_ID, "domain": "fake"},
            "user": {"id": user, "team_id": TEAM_ID},
            "api_app_id": APP_ID,
            "trigger_id": self.trigger_for(user),
            "view": shown,
            "response_urls": [],
        }

    def answer_submission(self, view_id: str, body: str) -> JSON | None:
        """What the app answered a submission with, applied as Slack applies it: an empty body
        or `clear` closes the modal; `errors` (block_id → message, each an input of the view)
        keeps it open and is returned; anything else Slack shows as an error (a warning here)."""
        view = self.views.get(view_id)
        parsed: Any = {}
        if body.strip():
            try:
                parsed = json.loads(body)
            except json.JSONDecodeError:
                parsed = None
        if not isinstance(parsed, dict) or parsed.get("response_action") not in (None, "clear", "errors"):
            self.warnings.append(f"view_submission answered with {body[:200]!r}")
            return None
        if parsed.get("response_action") == "errors":
            errors = parsed.get("errors")
            inputs = input_ids(view or {})
            if not isinstance(errors, dict) or not errors or not set(errors) <= set(inputs):
                self.warnings.append(f"response_action errors for blocks that are no inputs: {errors!r}")
                return None
            if not all(isinstance(m, str) and 0 < len(m) <= MAX_ERROR_TEXT for m in errors.values()):
                self.warnings.append(f"response_action errors with empty or over-long messages: {errors!r}")
                return None
            return errors
        self.views.pop(view_id, None)
        self.version += 1
        return None

    def in_channel(self, user: str, channel: str) -> bool:
        if user == BOT_USER_ID:
            return channel in self.member_channels
        return user in self.users and (self.members is None or user in self.members.get(channel, set()))

    def _user_conversations(self, params: JSON) -> JSON:
        """The channels `user` (the caller when absent) is in, of `types` (public_channel unless
        given), each type needing its read scope as Slack's does; a private channel or DM only
        when the bot is in it too (a bot token sees no other)."""
        types = [t.strip() for t in str(params.get("types") or "public_channel").split(",") if t.strip()]
        for kind in types:
            if kind not in CONVERSATION_SCOPES:
                raise SlackError("invalid_types")
            if CONVERSATION_SCOPES[kind] not in self.scopes:
                raise SlackError("missing_scope", needed=CONVERSATION_SCOPES[kind], provided=",".join(self.scopes))
        user = str(params.get("user") or BOT_USER_ID)
        if user not in self.users:
            raise SlackError("user_not_found")
        kinds = {"channel": "public_channel", "group": "private_channel", "im": "im", "mpim": "mpim"}
        found = []
        for channel in sorted(self.member_channels | self.other_channels):
            kind = kinds.get(self.kind(channel), "")
            if kind not in types or not self.in_channel(user, channel):
                continue
            if kind != "public_channel" and channel not in self.member_channels:
                continue
            found.append(
                {
                    "id": channel,
                    "name": channel.lower(),
                    "is_channel": kind == "public_channel",
                    "is_private": kind != "public_channel",
                    "is_archived": False,
                }
            )
        return {"channels": found, "response_metadata": {"next_cursor": ""}}

    def _permalink(self, params: JSON) -> JSON:
        channel = self._channel(params, member=False)
        message = self._message(channel, params.get("message_ts"))
        root = message.get("thread_ts")
        link = f"https://fake.slack.com/archives/{channel}/p{str(message['ts']).replace('.', '')}"
        if root and root != message["ts"]:
            link += f"?thread_ts={root}&cid={channel}"
        return {"channel": channel, "permalink": link}

    def _views_publish(self, params: JSON) -> JSON:
        user = self._user(params.get("user_id")).id
        view = _json_arg(params, "view", "invalid_arguments")
        if not isinstance(view, dict) or view.get("type") != "home":
            raise SlackError("invalid_arguments", "view.type must be home")
        self._check_blocks(view.get("blocks", []), MAX_VIEW_BLOCKS)
        self.home_views[user] = {"id": f"V{user}", "team_id": TEAM_ID, **view}
        return {"view": copy.deepcopy(self.home_views[user])}

"""Slack's side of the HTTP link to an app: what people do, sent as Slack sends it, acks timed.

What a person does in the fake workspace (a message, a shared snippet, a slash command, a
button, a reaction) is stored in the `FakeSlack` as Slack stores it, then POSTed to the app's
request URL, signed with the app's signing secret, with the payload fields Slack adds
(`client_msg_id`, rich_text `blocks`, `channel_type` incl. `mpim`, truncated snippet previews,
Slack Connect's `check_file_info` files). Slack gives an app 3 seconds to answer: every
delivery is timed, and one answered later fails (`SlowAck`) unless `ack_deadline` is None.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

import aiohttp
from slack_sdk.signature import SignatureVerifier

from bot.fakeslack.web_api import (
    APP_ID,
    BOT_USER_ID,
    JSON,
    TEAM_ID,
    FakeSlack,
    channel_type,
)

ACK_DEADLINE = 3.0  # seconds Slack waits for an answer before it retries the delivery
_MENTION = re.compile(r"(?<![\w<@])@([\w.-]+)")


def sign(secret: str, body: str | bytes, timestamp: int | None = None) -> dict[str, str]:
    """Slack's request-signing headers for `body` (HMAC-SHA256 of `v0:{ts}:{body}`)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    assert signature is not None
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}


def slack_escape(text: str) -> str:
    """What Slack puts in an event's `text` for what a person typed (`&`, `<`, `>` escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def event_body(event: JSON, event_id: str | None = None) -> JSON:
    """The Events API envelope (`event_callback`) Slack wraps an event in."""
    return {
        "token": "legacy",
        "team_id": TEAM_ID,
        "api_app_id": APP_ID,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:12].upper()}",
        "event_time": int(time.time()),
        "event": event,
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }


def message_event(message: JSON, kind: str | None = None, *, connect: bool = False) -> JSON:
    """The `message` event Slack sends for a stored person's message: its text, ts, thread,
    `client_msg_id`, `blocks`, `channel_type` (`kind`; by default from the channel id), and
    for a file share its files (only `{"id", "file_access": "check_file_info"}` each when
    `connect`, as in Slack Connect)."""
    channel = str(message["channel"])
    event: JSON = {
        "type": "message",
        "channel": channel,
        "channel_type": kind or channel_type(channel),
        "user": message["user"],
        "text": message["text"],
        "ts": message["ts"],
        "team": TEAM_ID,
        "event_ts": message["ts"],
    }
    for key in ("thread_ts", "client_msg_id", "blocks", "subtype", "upload", "display_as_bot"):
        if key in message:
            event[key] = message[key]
    if message.get("files"):
        files = message["files"]
        event["files"] = [{"id": f["id"], "file_access": "check_file_info"} for f in files] if connect else files
    return event


class SlowAck(AssertionError):
    """The app answered a delivery after Slack's deadline (Slack would retry it)."""


@dataclass(frozen=True)
class Delivery:
    """The app's answer to one request Slack sent it, and how long it took."""

    status: int
    body: str
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == 200


class EventsLink:
    """What people do in the fake workspace, delivered to the app at `url` (e.g.
    http://127.0.0.1:3000/slack/events). `acks` holds every delivery's seconds to answer.
    Call `close()` when done.
    """

    def __init__(
        self,
        fake: FakeSlack,
        url: str,
        signing_secret: str,
        *,
        ack_deadline: float | None = ACK_DEADLINE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fake, self.url, self.signing_secret = fake, url, signing_secret
        self.ack_deadline, self.clock = ack_deadline, clock
        self.acks: list[float] = []
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post(self, body: str, content_type: str, headers: dict[str, str] | None = None) -> Delivery:
        """POST `body` as is (no signature added: `send` signs), timing the answer."""
        if self._session is None:  # the timeout is a hang guard; the deadline is checked below
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        all_headers = {"Content-Type": content_type, **(headers or {})}
        started = self.clock()
        async with self._session.post(self.url, data=body.encode(), headers=all_headers) as resp:
            text = await resp.text()
        seconds = self.clock() - started
        self.acks.append(seconds)
        if self.ack_deadline is not None and seconds > self.ack_deadline:
            raise SlowAck(f"the app answered after {seconds:.2f}s, over Slack's {self.ack_deadline}s")
        return Delivery(resp.status, text, seconds)

    async def send(self, body: str, content_type: str, headers: dict[str, str] | None = None) -> Delivery:
        """POST `body`, signed with the signing secret, as Slack does."""
        return await self.post(body, content_type, {**sign(self.signing_secret, body), **(headers or {})})

    async def event(
        self, event: JSON, *, event_id: str | None = None, headers: dict[str, str] | None = None
    ) -> Delivery:
        """An Events API callback carrying `event`."""
        return await self.send(json.dumps(event_body(event, event_id)), "application/json", headers)

    def mentions(self, typed: str) -> str:
        """`typed` as Slack stores it: escaped, `@name` of a known user turned into `<@ID>`."""
        by_name = {u.name.lower(): u.id for u in self.fake.users.values() if u.name}

        def mention(m: re.Match[str]) -> str:
            found = by_name.get(m.group(1).lower())
            return f"<@{found}>" if found else m.group(0)

        return _MENTION.sub(mention, slack_escape(typed))

    async def deliver(self, message: JSON, *, connect: bool = False) -> list[Delivery]:
        """Send the events for a stored message: first an `app_mention` when it mentions the
        app outside a DM (Slack sends both), then the `message` event."""
        event = message_event(message, self.fake.kind(str(message["channel"])), connect=connect)
        sent = []
        if f"<@{BOT_USER_ID}>" in message["text"] and event["channel_type"] != "im":
            mention = {k: v for k, v in event.items() if k not in ("channel_type", "subtype")}
            sent.append(await self.event({**mention, "type": "app_mention"}))
        sent.append(await self.event(event))
        return sent

    async def message(
        self, channel: str, user: str, typed: str, *, thread_ts: str | None = None
    ) -> tuple[JSON, list[Delivery]]:
        """A person posts `typed`: stored, then delivered."""
        message = self.fake.add_message(channel, self.mentions(typed), user, thread_ts=thread_ts)
        return message, await self.deliver(message)

    async def edit(self, channel: str, ts: str, typed: str) -> Delivery:
        """A person edits their message `ts` to `typed`: a `message_changed` event carrying the
        message as it is now and as it was (Slack sends no new app_mention for an edit)."""
        before, after = self.fake.edit_message(channel, ts, self.mentions(typed))
        event: JSON = {
            "type": "message",
            "subtype": "message_changed",
            "hidden": True,
            "channel": channel,
            "channel_type": self.fake.kind(channel),
            "ts": after["edited"]["ts"],
            "event_ts": after["edited"]["ts"],
            "message": {**after, "type": "message"},
            "previous_message": {**before, "type": "message"},
        }
        return await self.event(event)

    async def share_file(
        self,
        channel: str,
        user: str,
        content: str | bytes,
        *,
        comment: str = "",
        connect: bool = False,
        thread_ts: str | None = None,
        **file: str,
    ) -> tuple[JSON, list[Delivery]]:
        """A person shares a file (a long paste becomes a text snippet) with an optional
        comment: a `file_share` message whose file shows only a preview of the first lines
        (`name`, `filetype`, `mimetype`, `title` as for `FakeSlack.add_file`). `connect`: the
        event carries only `{"id", "file_access": "check_file_info"}`, as in Slack Connect."""
        shared = self.fake.add_file(user, content, **file)
        extra = {"subtype": "file_share", "upload": True, "display_as_bot": False, "files": [shared]}
        message = self.fake.add_message(channel, self.mentions(comment), user, thread_ts=thread_ts, **extra)
        return message, await self.deliver(message, connect=connect)

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
            "trigger_id": self.fake.trigger_for(user),  # `/errfix edit ID` opens a modal with it
        }
        delivery = await self.send(urlencode(form), "application/x-www-form-urlencoded")
        if delivery.ok and delivery.body.strip():
            try:
                parsed = json.loads(delivery.body)
            except json.JSONDecodeError:
                parsed = {"text": delivery.body}
            if isinstance(parsed, dict):
                self.fake.show_response(key, parsed)
        return delivery

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
            "trigger_id": self.fake.trigger_for(user),  # a button press may open a modal (3 s, once)
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
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }
        if not ephemeral:
            payload["message"] = self.fake.message(channel, message_ts)
        return await self.send(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    async def react(self, channel: str, user: str, ts: str, name: str, *, add: bool = True) -> Delivery | None:
        """A person adds (or removes) reaction `name` on a message: a `reaction_added` (or
        `reaction_removed`) event; None when nothing changed (nothing is sent then)."""
        if not self.fake.react(channel, ts, name, user, add=add):
            return None
        item_user = self.fake.message(channel, ts).get("user")
        event: JSON = {
            "type": "reaction_added" if add else "reaction_removed",
            "user": user,
            "reaction": name,
            "item": {"type": "message", "channel": channel, "ts": ts},
            "event_ts": self.fake.next_ts(),
        }
        if item_user:
            event["item_user"] = item_user
        return await self.event(event)

    async def shortcut(self, channel: str, user: str, message_ts: str, callback_id: str) -> Delivery:
        """A person uses a message shortcut (the message's ⋯ menu) on message `message_ts`: a
        signed `message_action` payload with the message, a fresh trigger_id (3 s, once) and a
        response_url."""
        key = f"sc-{uuid.uuid4().hex}"
        response_url = self.fake.response_url_for(key, channel=channel, user=user)
        payload: JSON = {
            "type": "message_action",
            "token": "legacy",
            "action_ts": str(time.time()),
            "team": {"id": TEAM_ID, "domain": "fake"},
            "user": {"id": user, "name": self.fake.users[user].name or user, "team_id": TEAM_ID},
            "channel": {"id": channel, "name": channel.lower()},
            "is_enterprise_install": False,
            "callback_id": callback_id,
            "trigger_id": self.fake.trigger_for(user),
            "response_url": response_url,
            "message_ts": message_ts,
            "message": {**self.fake.message(channel, message_ts), "type": "message"},
        }
        return await self.send(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    async def submit(self, view_id: str, user: str, values: dict[str, str] | None = None) -> Submitted:
        """A person presses the submit button of open modal `view_id`, having typed `values`
        (block_id → text; other inputs keep their initial values): a signed `view_submission`.
        The app's answer is applied as Slack applies it (`FakeSlack.answer_submission`)."""
        payload = self.fake.submission(view_id, user, values or {})
        delivery = await self.send(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")
        errors = self.fake.answer_submission(view_id, delivery.body) if delivery.ok else None
        return Submitted(delivery, errors)


@dataclass(frozen=True)
class Submitted:
    """A modal's submission: the delivery, and the per-input errors that kept it open (or None)."""

    delivery: Delivery
    errors: JSON | None

"""What the listeners share, made once per app by `build_app` (no module globals).

`Outbox` wraps the Slack writes errfix makes, so "not in that channel" is logged once per
channel and skipped instead of failing every time, and posts are paced per channel (`Pacer`);
`Users` caches locale and bot-ness per user (and failed lookups for a while);
`Updates` (updates.py) coalesces, paces and retries the `chat.update`s of one reply;
`Activity` counts running listeners, so tests can wait for "done" instead of sleeping.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.service.async_errfix import AsyncErrfix
from bot.slack.middleware import RateLimiter
from bot.slack.owed import JOB_KEY
from bot.slack.pacing import Pacer
from bot.slack.snippets import FileReader
from bot.slack.updates import Updates

SKIPPED_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})
ANSWER_EVENT = "errfix_answer"  # the metadata event type of errfix's answers
UNCERTAIN = (aiohttp.ClientConnectionError, asyncio.TimeoutError)  # the post may or may not be in Slack
POST_TRIES = 3
Listener = Callable[..., Awaitable[None]]


def answer_key(channel: object, ts: object) -> str:
    """What an answer's metadata names: the message it answers."""
    return f"{channel}:{ts}"


def _uncertain(error: BaseException) -> bool:
    """A failure after which the post may have been made: no answer, or a 5xx."""
    if isinstance(error, SlackApiError):
        return error.response is not None and error.response.status_code >= 500
    return isinstance(error, UNCERTAIN)


class Outbox:
    """chat.postMessage / chat.update / conversations.replies with the errors we skip."""

    def __init__(self, logger: logging.Logger, pacer: Pacer | None = None) -> None:
        self.logger, self.pacer = logger, pacer or Pacer()
        self._warned: set[str] = set()

    def _skippable(self, error: SlackApiError, channel: str) -> bool:
        code = error.response.get("error") if error.response is not None else None
        if code not in SKIPPED_ERRORS:
            return False
        if channel not in self._warned:
            self._warned.add(channel)
            self.logger.warning("errfix: %s for channel %s; skipping it (invite @errfix there)", code, channel)
        return True

    async def post(
        self,
        client: AsyncWebClient,
        *,
        channel: str,
        text: str,
        key: str | None = None,
        payload: dict[str, Any] | None = None,
        **fields: Any,
    ) -> str | None:
        """Post (links not unfurled, thread replies not broadcast) at the channel's pace; the new
        ts, or None if skipped.

        With `key` (the message answered, `answer_key`) the post carries it as metadata, and a
        failure after which the post may have been made (the connection dropped, a 5xx) looks for
        it in the thread before trying again, so it is posted once. Without one, no retry.
        """
        if key is not None:
            fields["metadata"] = {"event_type": ANSWER_EVENT, "event_payload": {"message": key, **(payload or {})}}
        for attempt in range(1, POST_TRIES + 1):
            await self.pacer.wait(channel)
            try:
                resp = await client.chat_postMessage(
                    channel=channel, text=text, unfurl_links=False, unfurl_media=False, **fields
                )
            except SlackApiError as e:
                if self._skippable(e, channel):
                    return None
                if key is None or not _uncertain(e) or attempt == POST_TRIES:
                    raise
            except UNCERTAIN:
                if key is None or attempt == POST_TRIES:
                    raise
            else:
                return str(resp["ts"])
            thread_ts = str(fields.get("thread_ts") or "")
            found = await self.find_answer(client, channel, thread_ts, key) if thread_ts else None
            if found is not None:
                return str(found["ts"])
            self.logger.warning("errfix: posting to %s failed uncertainly; not in the thread, posting again", channel)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    async def find_answer(
        self, client: AsyncWebClient, channel: str, thread_ts: str, key: str
    ) -> dict[str, Any] | None:
        """errfix's answer to message `key` in the thread, if it was posted."""
        for message in await self.thread(client, channel=channel, ts=thread_ts, metadata=True):
            meta = message.get("metadata") or {}
            if meta.get("event_type") == ANSWER_EVENT and (meta.get("event_payload") or {}).get("message") == key:
                return message
        return None

    async def update(self, client: AsyncWebClient, *, channel: str, ts: str, text: str, blocks: list[Any]) -> bool:
        try:
            await client.chat_update(channel=channel, ts=ts, text=text, blocks=blocks)
        except SlackApiError as e:
            if self._skippable(e, channel):
                return False
            raise
        return True

    async def thread(
        self, client: AsyncWebClient, *, channel: str, ts: str, metadata: bool = False
    ) -> list[dict[str, Any]]:
        """The thread's messages (with `metadata`, each with its message metadata)."""
        options: dict[str, Any] = {"include_all_metadata": True, "limit": 200} if metadata else {"limit": 50}
        try:
            resp = await client.conversations_replies(channel=channel, ts=ts, **options)
        except SlackApiError as e:
            if self._skippable(e, channel):
                return []
            raise
        return list(resp.get("messages") or [])


@dataclass(frozen=True)
class UserInfo:
    locale: str = "en"
    is_bot: bool = False


class Users:
    """users.info with include_locale, cached per user for the life of the app; a failed lookup
    (deleted user, another workspace's user) is not asked again for `retry_after` seconds."""

    def __init__(
        self, logger: logging.Logger, *, clock: Callable[[], float] = time.monotonic, retry_after: float = 600.0
    ) -> None:
        self.logger, self.clock, self.retry_after = logger, clock, retry_after
        self._cache: dict[str, UserInfo] = {}
        self._failed: dict[str, float] = {}  # user → when the lookup failed

    async def get(self, client: AsyncWebClient, user_id: str) -> UserInfo:
        if user_id in self._cache:
            return self._cache[user_id]
        failed = self._failed.get(user_id)
        if failed is not None and self.clock() - failed < self.retry_after:
            return UserInfo()
        try:
            resp = await client.users_info(user=user_id, include_locale=True)
        except SlackApiError as e:
            self.logger.warning("errfix: users.info %s failed (%s); using defaults", user_id, e.response.get("error"))
            self._failed[user_id] = self.clock()
            return UserInfo()
        self._failed.pop(user_id, None)
        user = resp.get("user") or {}
        info = UserInfo(str(user.get("locale") or "en"), bool(user.get("is_bot")))
        self._cache[user_id] = info
        return info


class Activity:
    """How many listeners are running; `await idle()` returns when none is."""

    def __init__(self) -> None:
        self.running = 0
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    def track(self, fn: Listener) -> Listener:
        """Wrap a listener (bolt still sees its argument names through functools.wraps)."""

        @functools.wraps(fn)
        async def run(**kwargs: Any) -> None:
            self.running += 1
            try:
                await fn(**kwargs)
            finally:
                self.running -= 1
                async with self._condition():
                    self._condition().notify_all()

        return run

    async def idle(self) -> None:
        async with self._condition():
            await self._condition().wait_for(lambda: self.running == 0)


class Jobs:
    """Finishes the job of each request whose listener returns; knows which ones are running,
    and lets a replay wait until the job it dispatched has ended (`ended`)."""

    def __init__(self, errfix: AsyncErrfix) -> None:
        self.errfix = errfix
        self.running: set[str] = set()
        self._ended: dict[str, asyncio.Event] = {}

    def ended(self, key: str) -> asyncio.Event:
        """Set when the next run of `key`'s listener ends (done or failed) or the job is finished."""
        return self._ended.setdefault(key, asyncio.Event())

    async def finish(self, key: str) -> None:
        """The job's work is done without a listener (a channel over its budget)."""
        await self.errfix.finish_job(key)
        self._end(key)

    def _end(self, key: str) -> None:
        event = self._ended.pop(key, None)
        if event is not None:
            event.set()

    def completing(self, fn: Listener) -> Listener:
        """Wrap a listener that names `context` (bolt passes only the arguments it names)."""
        code = fn.__code__
        if "context" not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
            raise TypeError(f"{fn.__name__} must take `context` to finish its job")

        @functools.wraps(fn)
        async def run(**kwargs: Any) -> None:
            key = kwargs["context"].get(JOB_KEY)
            if key:
                self.running.add(key)
            try:
                await fn(**kwargs)
                if key:
                    await self.errfix.finish_job(key)
            finally:
                if key:
                    self.running.discard(key)
                    self._end(key)

        return run


@dataclass
class Deps:
    settings: Settings
    errfix: AsyncErrfix
    logger: logging.Logger
    limiter: RateLimiter
    outbox: Outbox
    users: Users
    files: FileReader
    jobs: Jobs
    updates: Updates = field(default_factory=lambda: Updates(logging.getLogger("errfix.slack")))
    activity: Activity = field(default_factory=Activity)
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))  # wall time: digests (#38)

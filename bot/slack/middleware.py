"""Cross-cutting rules for every incoming request, as bolt middleware.

Each one that drops a request answers 200 itself rather than skipping `next()`: bolt would
otherwise answer 404 (Slack then retries over HTTP; Socket Mode never acks).

* `IgnoreNoise`: other bots, deletes, joins and every subtype but file_share and
  thread_broadcast; and plain `message` events that mention errfix (the `app_mention` twin answers).
  A person's edit of a message's text passes (`edited_message`): it may add an error or @errfix.
* `Dedupe`: each event id and each (channel, ts) message is handled once, across retries,
  repeats and restarts (kept in SQLite by `bot.store.inbox`), and the work an event owes is
  written with its keys before the ack (`bot.slack.owed`, finished by `bot.slack.jobs`).
* `UnpromptedLimit`: no more than N unprompted answers per channel per minute.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.service.async_errfix import AsyncErrfix
from bot.slack.owed import JOB_KEY, REPLAY, click_key, event_of, owed_job

HANDLED_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
MESSAGE_EVENTS = frozenset({"message", "app_mention"})
Next = Callable[[], Awaitable[BoltResponse]]


def edited_message(event: dict[str, Any]) -> dict[str, Any] | None:
    """A person's edit of a message's text (`message_changed`) as a message event of the
    message as it is now (with `previous_text`); None for any other event, for edits by bots,
    and for changes that leave the text as it was (an unfurl, a reaction)."""
    if event.get("type") != "message" or event.get("subtype") != "message_changed":
        return None
    now, before = event.get("message"), event.get("previous_message")
    if not isinstance(now, dict) or now.get("bot_id") or now.get("bot_profile") or not now.get("user"):
        return None
    if now.get("subtype") not in HANDLED_SUBTYPES:
        return None
    previous = str(before.get("text") or "") if isinstance(before, dict) else ""
    if str(now.get("text") or "") == previous:
        return None
    edit = {k: v for k, v in now.items() if k not in ("edited", "subtype")}
    return edit | {
        "type": "message",
        "channel": event.get("channel"),
        "channel_type": event.get("channel_type"),
        "previous_text": previous,
    }


def is_noise(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """A message event errfix must never answer."""
    if event.get("type") not in MESSAGE_EVENTS:
        return False
    if event.get("subtype") == "message_changed":
        return edited_message(event) is None
    if event.get("bot_id") or event.get("bot_profile") or not event.get("user"):
        return True
    if event.get("subtype") not in HANDLED_SUBTYPES or event.get("edited"):
        return True
    mention = f"<@{bot_user_id}>" if bot_user_id else None
    return bool(
        event.get("type") == "message"
        and event.get("channel_type") != "im"
        and mention
        and mention in str(event.get("text") or "")
    )


def dedupe_keys(body: dict[str, Any]) -> list[str]:
    keys = [f"event:{body['event_id']}"] if event_of(body) and body.get("event_id") else []
    event = event_of(body)
    if event.get("type") in MESSAGE_EVENTS and event.get("channel") and event.get("ts"):
        keys.append(f"msg:{event['channel']}:{event['ts']}")
    return keys


class IgnoreNoise(AsyncMiddleware):
    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        if is_noise(event_of(req.body), req.context.bot_user_id):
            return BoltResponse(status=200, body="")
        await next()
        return resp


class Dedupe(AsyncMiddleware):
    def __init__(self, errfix: AsyncErrfix) -> None:
        self.errfix = errfix

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        """Seen before: 200 and nothing else. New: its keys and the job it owes are written in
        one transaction before anything else happens (so before the ack)."""
        if not req.context.get(REPLAY):  # a replay of a job (bot/slack/jobs.py) was seen: it is owed
            keys = dedupe_keys(req.body) or [k for k in [click_key(req.body)] if k]
            job = owed_job(req.body, keys)
            if keys and not await self.errfix.accept(keys, job):
                return BoltResponse(status=200, body="")
            if job is not None:
                req.context[JOB_KEY] = job[0]
        await next()
        return resp


class RateLimiter:
    """At most `per_minute` hits per key in any 60 s window (a sliding log)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def _window(self, key: str) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        horizon = self.clock() - 60.0
        while hits and hits[0] <= horizon:
            hits.popleft()
        return hits

    def full(self, key: str) -> bool:
        full = len(self._window(key)) >= self.per_minute
        if not self._hits[key]:
            del self._hits[key]
        return full

    def take(self, key: str) -> bool:
        """Use one answer of `key`'s budget; False (and nothing used) when there is none left."""
        hits = self._window(key)
        if len(hits) >= self.per_minute:
            return False
        hits.append(self.clock())
        return True


class UnpromptedLimit(AsyncMiddleware):
    """Channels whose unprompted budget is used up skip diagnosis altogether."""

    def __init__(self, limiter: RateLimiter, finish: Callable[[str], Awaitable[None]]) -> None:
        self.limiter, self.finish = limiter, finish

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        event = event_of(req.body)
        unprompted = event.get("type") == "message" and event.get("channel_type") not in ("im", "mpim")
        if unprompted and self.limiter.full(str(event.get("channel"))):
            if req.context.get(JOB_KEY):  # deciding not to answer is the work: it is done
                await self.finish(str(req.context[JOB_KEY]))
            return BoltResponse(status=200, body="")
        await next()
        return resp

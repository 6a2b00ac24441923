"""`errfix remember --channel C… [--days 90]`: team memory (#36) from a channel's history.

Reads the channel's messages of the last `days` (`conversations.history`, newest first, 200 a page)
and the threads among them (`conversations.replies`), remembers every pasted error as if errfix had
seen it then, counts each thread's replies and who took part, and marks a thread solved by its reply
marked ✅ or reacted to by the paster (the same rules as live: bot/slack/seen_before.py).

Paced under Slack's rate limits: both methods are Tier 3 (about 50 calls a minute), so a call waits
`pace` seconds after the last (1.3 by default), and a 429 is retried after its Retry-After by the
client. Resumable: after every page the cursor is kept in the database, so a run stopped (Ctrl-C, a
crash) goes on from there; what was already remembered is not counted twice. A progress line per
page goes to `progress`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.extract import unescape_slack
from bot.core.team_memory import memorable
from bot.service.async_errfix import AsyncErrfix
from bot.slack.answers import paste_text
from bot.slack.seen_before import SOLVED_REACTIONS

PAGE = 200
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class Backfilled:
    """What one run read and remembered in one channel."""

    channel: str
    messages: int = 0
    remembered: int = 0
    threads: int = 0
    solved: int = 0

    def line(self) -> str:
        return (
            f"{self.channel}: {self.messages} messages read, {self.remembered} errors remembered, "
            f"{self.threads} threads read, {self.solved} solved"
        )


class Backfill:
    """One channel's history into team memory (see the module docstring)."""

    def __init__(
        self,
        errfix: AsyncErrfix,
        client: AsyncWebClient,
        *,
        pace: float = 1.3,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        progress: Callable[[str], None] = print,
        page: int = PAGE,
    ) -> None:
        self.errfix, self.client, self.pace, self.sleep, self.clock = errfix, client, pace, sleep, clock
        self.progress, self.page = progress, page
        self._last = 0.0

    async def _call(self, method: Callable[..., Awaitable[Any]], **params: Any) -> Any:
        wait = self._last + self.pace - self.clock()
        if wait > 0:
            await self.sleep(wait)
        try:
            return await method(**params)
        finally:
            self._last = self.clock()

    async def channel_type(self, channel: str) -> str:
        """`channel` (public) or `group` (private), from the channels errfix is in."""
        resp = await self._call(self.client.users_conversations, types="public_channel,private_channel", limit=1000)
        for c in resp.get("channels") or []:
            if c.get("id") == channel:
                return "group" if c.get("is_private") else "channel"
        raise LookupError(f"errfix is not in channel {channel}: invite @errfix there first")

    async def run(self, channel: str, days: int) -> Backfilled:
        kind = await self.channel_type(channel)
        state = await self.errfix.backfill_state(channel)
        oldest = state.get("oldest") or f"{self.clock() - days * 86400:.6f}"
        cursor = state.get("cursor") or ""
        done = Backfilled(channel)
        while True:
            params: dict[str, Any] = {"channel": channel, "limit": self.page, "oldest": oldest}
            if cursor:
                params["cursor"] = cursor
            resp = await self._call(self.client.conversations_history, **params)
            for message in resp.get("messages") or []:
                await self._message(channel, kind, message, done)
            cursor = str((resp.get("response_metadata") or {}).get("next_cursor") or "")
            await self.errfix.set_backfill_state(channel, {"oldest": oldest, "cursor": cursor} if cursor else None)
            self.progress(done.line())
            if not cursor:
                return done

    async def _message(self, channel: str, kind: str, message: dict[str, Any], done: Backfilled) -> None:
        done.messages += 1
        if message.get("bot_id") or not message.get("user") or message.get("subtype") not in (None, "file_share"):
            return
        ts = str(message["ts"])
        diagnosis = await self.errfix.diagnose(paste_text(message)[0])
        if diagnosis.is_error or memorable(diagnosis.extracted):
            user = str(message["user"])
            kept = await self.errfix.remember_at(
                diagnosis.extracted, channel=channel, channel_type=kind, ts=ts, thread_ts=ts, user_id=user
            )
            done.remembered += kept
        if int(message.get("reply_count") or 0) and await self.errfix.thread_author(channel, ts) is not None:
            await self._thread(channel, ts, done)

    async def _thread(self, channel: str, ts: str, done: Backfilled) -> None:
        resp = await self._call(self.client.conversations_replies, channel=channel, ts=ts, limit=200)
        thread = [m for m in resp.get("messages") or [] if m.get("ts") != ts]
        done.threads += 1
        people = list(dict.fromkeys(str(m.get("user")) for m in thread if m.get("user") and not m.get("bot_id")))
        await self.errfix.set_thread(channel, ts, replies=len(thread), participants=people)
        paster = await self.errfix.thread_author(channel, ts)
        for reply in reversed(thread):  # the latest solving reply is the one kept
            if reply.get("bot_id"):
                continue
            marks = reply.get("reactions") or []
            solved = any(r.get("name") in SOLVED_REACTIONS for r in marks) or any(
                paster in (r.get("users") or []) for r in marks
            )
            if solved:
                words = unescape_slack(str(reply.get("text") or ""))
                user = str(reply.get("user") or "")
                await self.errfix.resolve(
                    channel=channel, thread_ts=ts, kind="check", ts=str(reply["ts"]), user_id=user, excerpt=words
                )
                done.solved += 1
                return

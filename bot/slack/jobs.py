"""Acknowledged means done: the work owed for an acknowledged event is finished, once.

`Dedupe` (middleware.py) writes a job row for every event whose work matters (a paste to answer,
a mention, a reaction vote) in the same transaction as its dedupe keys, before Slack gets its ack.
The listener finishes the job when it returns (`Jobs.completing`). Whatever is left — errfix was
killed, Slack failed past its retries — `Replayer` runs again through the same app (middleware
and listeners), at start and then every `sweep_every` seconds for jobs older than `stale_after`
that no listener of this process is running, at most `MAX_ATTEMPTS` times each.

Exactly once visible: an answer carries its message's key in Slack message metadata. Before a
replay answers a message that was already claimed, it looks for that answer in the thread: found,
the job is done (and the reply is remembered if the crash came before that); not found, the claim
is released and the message answered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.service.async_errfix import AsyncErrfix
from bot.service.errfix import Reply
from bot.slack.deps import Jobs, Outbox, answer_key
from bot.slack.middleware import edited_message, event_of
from bot.slack.owed import JOB_KEY, REPLAY

MAX_ATTEMPTS = 5


class Replayer:
    """Runs the jobs left owed (see the module docstring)."""

    def __init__(
        self,
        app: AsyncApp,
        errfix: AsyncErrfix,
        jobs: Jobs,
        outbox: Outbox,
        logger: logging.Logger,
        *,
        stale_after: float = 300.0,
        replay_timeout: float = 120.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app, self.errfix, self.jobs, self.outbox, self.logger = app, errfix, jobs, outbox, logger
        self.stale_after, self.replay_timeout, self.clock = stale_after, replay_timeout, clock
        self.started_at = clock()

    async def run_owed(self, *, left_over: bool = False) -> int:
        """Replay the owed jobs nothing here is running: with `left_over`, every one accepted
        before this process started; else those older than `stale_after`. How many ran."""
        age = self.clock() - self.started_at if left_over else self.stale_after
        replayed = 0
        for job in await self.errfix.pending_jobs(older_than=max(0.0, age)):
            if job.key not in self.jobs.running and await self.replay(job.key, job.body):
                replayed += 1
        return replayed

    async def replay(self, key: str, body: dict[str, Any]) -> bool:
        """Run one job again, unless its answer is already in Slack, and wait (up to
        `replay_timeout`) until its listener has ended: replays go one at a time. True if it ran."""
        attempts = await self.errfix.attempt_job(key)
        if attempts > MAX_ATTEMPTS:
            await self.errfix.finish_job(key)
            self.logger.warning("errfix: gave up on %s after %d attempts", key, MAX_ATTEMPTS)
            return False
        if await self._already_answered(event_of(body)):
            await self.errfix.finish_job(key)
            return False
        ended = self.jobs.ended(key)
        request = AsyncBoltRequest(body=body, mode="socket_mode", context={JOB_KEY: key, REPLAY: True})
        await self.app.async_dispatch(request)
        try:
            await asyncio.wait_for(ended.wait(), self.replay_timeout)
        except TimeoutError:
            self.logger.warning("errfix: replaying %s took over %.0fs; going on", key, self.replay_timeout)
        return True

    async def _already_answered(self, event: dict[str, Any]) -> bool:
        """The message was claimed and errfix's answer to it is in the thread (or the claim is
        released, so the replay answers it)."""
        message = edited_message(event) or event
        channel, ts = message.get("channel"), message.get("ts")
        if event.get("type") not in ("message", "app_mention") or not channel or not ts:
            return False
        claim = f"answered:{channel}:{ts}"
        if not await self.errfix.is_seen(claim):
            return False
        thread_ts = str(message.get("thread_ts") or ts)
        found = await self.outbox.find_answer(self.app.client, str(channel), thread_ts, answer_key(channel, ts))
        if found is None:
            await self.errfix.release([claim])
            return False
        await self._remember(str(channel), str(ts), thread_ts, found)
        return True

    async def _remember(self, channel: str, ts: str, thread_ts: str, found: dict[str, Any]) -> None:
        """Record the reply found in the thread if errfix died before recording it."""
        payload = (found.get("metadata") or {}).get("event_payload") or {}
        reply_ts, record = str(found.get("ts") or ""), payload.get("record")
        if not reply_ts or not isinstance(record, str) or await self.errfix.reply(channel, reply_ts) is not None:
            return
        others = tuple((str(o.get("id")), float(o.get("score", 0))) for o in payload.get("others") or [])
        await self.errfix.record_reply(
            Reply(
                channel,
                reply_ts,
                ts,
                thread_ts,
                record,
                float(payload.get("score", 0.0)),
                str(payload.get("locale") or "en"),
                sure=bool(payload.get("sure")),
                others=others,
                note=str(payload.get("note") or ""),
                kind_only=bool(payload.get("kind_only")),
                seen=str(payload.get("seen") or ""),
            )
        )


@asynccontextmanager
async def replaying(replayer: Replayer, *, sweep_every: float = 60.0) -> AsyncIterator[asyncio.Task[None]]:
    """Replay what the last run left owed now, then stale jobs every `sweep_every` seconds."""

    async def loop() -> None:
        await replayer.run_owed(left_over=True)
        while True:
            await asyncio.sleep(sweep_every)
            await replayer.run_owed()

    task = asyncio.create_task(loop(), name="errfix-replay")
    try:
        yield task
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task

"""`AsyncErrfix`: `Errfix` for async code, on one dedicated thread; it only forwards.

A sqlite3 connection belongs to the thread that opened it, so the store is opened, used and
closed on a single-worker `ThreadPoolExecutor`; every async method awaits one `Errfix` call there.
Calls run one at a time in submission order, so a read-then-write (a button that toggles a vote)
can't interleave with another, and a write has completed when its `await` returns. Each call runs
in a copy of the caller's context, so the observer's log lines carry the event being handled.

Matching (regexes, fuzzy: the CPU-bound part of a paste) runs on a second single-worker pool, so
a slow paste never queues a vote, a reply record or a health check behind it: `diagnose` and
`search` are Errfix's two halves (`match_paste` there, `diagnosis` on the store's thread).

What Slack's acks depend on (dedupe, the jobs owed for acknowledged events: `bot.store.inbox`)
runs on a third thread with its own connection to its own file, so an ack waits on one small
transaction, never on a match, a vote or a sync.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from bot.core.digest_view import ChannelView, DigestData
from bot.core.draft import Draft, TeachForm
from bot.core.extract import Extracted
from bot.core.matcher import Matcher
from bot.core.records import Record
from bot.core.team_memory import Seen
from bot.core.views import Diagnosis, MatchView
from bot.service.errfix import Entry, Erased, Errfix, query_words
from bot.service.observer import Observer
from bot.store.channels import Claim
from bot.store.inbox import Inbox, Job, events_path
from bot.store.learning import Paste, WeekCounts, WeekSummary
from bot.store.store import Reply, Stats
from bot.store.upstream import Fetched, SyncReport, SyncState

T = TypeVar("T")


class AsyncErrfix:
    """errfix's behaviour for the Slack app; open with `AsyncErrfix(path)`, end with `close()`."""

    def __init__(
        self,
        db_path: str,
        *,
        seed: bool = True,
        observer: Observer | None = None,
        background_reindex: bool = True,
        index_cache: bool = False,
    ) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errfix-store")
        self._match_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errfix-match")
        self._inbox_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errfix-events")
        self._svc: Errfix | None = None
        self._inbox: Inbox | None = None
        try:
            self._inbox = self._inbox_pool.submit(lambda: Inbox(events_path(db_path))).result()
            self._svc = self._pool.submit(
                lambda: Errfix.open(
                    db_path,
                    seed=seed,
                    observer=observer,
                    background_reindex=background_reindex,
                    index_cache=index_cache,
                )
            ).result()
        except BaseException:
            self._close_inbox()
            self._pool.shutdown(wait=True)
            self._match_pool.shutdown(wait=True)
            raise

    @property
    def reply_threshold(self) -> float:
        assert self._svc is not None
        return self._svc.reply_threshold

    @property
    def search_threshold(self) -> float:
        assert self._svc is not None
        return self._svc.search_threshold

    async def _run(self, fn: Callable[[Errfix], T]) -> T:
        svc = self._svc
        if svc is None:
            raise RuntimeError("AsyncErrfix is closed")
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._pool, context.run, fn, svc)

    def close(self) -> None:
        """Close the store on its thread and stop the thread (idempotent)."""
        svc, self._svc = self._svc, None
        if svc is not None:
            self._pool.submit(svc.close).result()
        self._close_inbox()
        self._pool.shutdown(wait=True)
        self._match_pool.shutdown(wait=True)

    def _close_inbox(self) -> None:
        inbox, self._inbox = self._inbox, None
        if inbox is not None:
            self._inbox_pool.submit(inbox.close).result()
        self._inbox_pool.shutdown(wait=True)

    async def _in_inbox(self, fn: Callable[[Inbox], T]) -> T:
        inbox = self._inbox
        if inbox is None:
            raise RuntimeError("AsyncErrfix is closed")
        return await asyncio.get_running_loop().run_in_executor(self._inbox_pool, fn, inbox)

    # ---- answers ------------------------------------------------------------------------

    async def _on_matcher(self, fn: Callable[[Matcher], T]) -> T:
        """`fn(matcher)` on the matching thread, with the index for the current store version."""
        matcher = await self._run(lambda s: s.matcher)
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._match_pool, context.run, fn, matcher)

    async def diagnose(self, text: str, limit: int = 3) -> Diagnosis:
        matched = await self._on_matcher(lambda m: Errfix.match_paste(m, text, limit))
        return await self._run(lambda s: s.diagnosis(matched))

    async def search(self, words: str, limit: int = 5) -> list[MatchView]:
        words = query_words(words)
        fuzzy = await self._on_matcher(lambda m: Errfix.fuzzy_search(m, words, limit))
        return await self._run(lambda s: s.ranked_search(words, fuzzy, limit))

    async def view(self, record_id: str) -> MatchView | None:
        """The record with current rates and votes, or None if there is no such record."""
        return await self._run(lambda s: s.find(record_id))

    async def log_paste(
        self,
        channel: str,
        ts: str,
        diagnosis: Diagnosis,
        *,
        replied: bool,
        channel_type: str = "",
        user_id: str = "",
    ) -> Paste | None:
        return await self._run(
            lambda s: s.log_paste(channel, ts, diagnosis, replied=replied, channel_type=channel_type, user_id=user_id)
        )

    async def defer_checkpoints(self) -> int:
        """Writes no longer copy the write-ahead log into the database (bot/store/store.py)."""
        return await self._run(lambda s: s.store.defer_checkpoints())

    async def checkpoint(self) -> tuple[int, int]:
        """Copy the write-ahead log into the database, on the store's thread: (frames, copied)."""
        return await self._run(lambda s: s.store.checkpoint())

    async def purge_expired(self, now: datetime, days: int, memory_days: int = 0) -> Erased:
        """The retention purge, on the store's thread (`errfix serve` runs it hourly)."""
        return await self._run(lambda s: s.purge_expired(now, days, memory_days))

    async def audit(self, since: str | None = None) -> list[Entry]:
        return await self._run(lambda s: s.audit(since))

    async def stats(self) -> Stats:
        return await self._run(lambda s: s.stats())

    async def week(self) -> WeekCounts:
        return await self._run(lambda s: s.week())

    async def home(self) -> WeekSummary:
        return await self._run(lambda s: s.home())

    async def ping(self) -> bool:
        """True when the database answers a query."""
        return await self._run(lambda s: s.ping())

    # ---- dedupe and replies ---------------------------------------------------------------

    async def first_seen(self, keys: Iterable[str]) -> bool:
        """Mark keys seen; True only if none was seen before (`Inbox.accept`)."""
        keys = list(keys)
        return await self._in_inbox(lambda i: i.accept(keys))

    async def accept(self, keys: Iterable[str], job: tuple[str, dict[str, Any]] | None = None) -> bool:
        """`first_seen`, and with `job` (key, body) the work owed for it, in one transaction."""
        keys = list(keys)
        return await self._in_inbox(lambda i: i.accept(keys, job))

    async def release(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        await self._in_inbox(lambda i: i.release(keys))

    async def is_seen(self, key: str) -> bool:
        return await self._in_inbox(lambda i: i.is_seen(key))

    async def finish_job(self, key: str) -> bool:
        return await self._in_inbox(lambda i: i.finish(key))

    async def attempt_job(self, key: str) -> int:
        return await self._in_inbox(lambda i: i.attempt(key))

    async def pending_jobs(self, *, older_than: float = 0.0) -> list[Job]:
        return await self._in_inbox(lambda i: i.pending(older_than=older_than))

    async def record_reply(self, reply: Reply) -> None:
        await self._run(lambda s: s.record_reply(reply))

    async def reply(self, channel: str, reply_ts: str) -> Reply | None:
        return await self._run(lambda s: s.reply(channel, reply_ts))

    # ---- learning -------------------------------------------------------------------------

    async def reject(self, *, channel: str, message_ts: str, record_id: str, user_id: str) -> str | None:
        return await self._run(
            lambda s: s.reject(channel=channel, message_ts=message_ts, record_id=record_id, user_id=user_id)
        )

    async def learn_alias(self, record_id: str, line: str, user_id: str) -> bool:
        return await self._run(lambda s: s.learn_alias(record_id, line, user_id))

    async def last_rejected_line(self, user_id: str) -> str | None:
        return await self._run(lambda s: s.last_rejected_line(user_id))

    # ---- votes ----------------------------------------------------------------------------

    async def vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int | None) -> int | None:
        return await self._run(lambda s: s.vote(reply_key, record_id, wkey, user_id, value))

    async def click_vote(
        self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int, click_id: str | None = None
    ) -> int | None:
        return await self._run(lambda s: s.click_vote(reply_key, record_id, wkey, user_id, value, click_id))

    async def reaction_vote(self, reply_key: str, record_id: str, user_id: str, value: int, added: bool) -> bool:
        return await self._run(lambda s: s.reaction_vote(reply_key, record_id, user_id, value, added))

    # ---- sync (bot.ops.sync.SyncTarget) -----------------------------------------------------

    async def sync_state(self, url: str) -> SyncState | None:
        return await self._run(lambda s: s.sync_state(url))

    async def sync_not_modified(self, url: str) -> SyncReport:
        return await self._run(lambda s: s.sync_not_modified(url))

    async def sync_same_body(self, fetched: Fetched) -> SyncReport:
        return await self._run(lambda s: s.sync_same_body(fetched))

    async def sync_apply(self, fetched: Fetched, records: list[Record]) -> SyncReport:
        return await self._run(lambda s: s.sync_apply(fetched, records))

    # ---- teaching (#17) -------------------------------------------------------------------

    async def draft(self, text: str, fix: str = "") -> Draft | None:
        return await self._run(lambda s: s.draft(text, fix))

    async def teach_problems(
        self, form: TeachForm, record_id: str | None = None, lang: str | None = "en"
    ) -> dict[str, str]:
        return await self._run(lambda s: s.teach_problems(form, record_id, lang))

    async def teach(
        self, form: TeachForm, *, submitter: str, permalink: str, record_id: str | None = None, editor: str = ""
    ) -> Record:
        return await self._run(
            lambda s: s.teach(form, submitter=submitter, permalink=permalink, record_id=record_id, editor=editor)
        )

    async def set_teach_off(self, channel: str, off: bool, user_id: str) -> None:
        await self._run(lambda s: s.set_teach_off(channel, off, user_id))

    async def teach_off(self, channel: str) -> bool:
        return await self._run(lambda s: s.teach_off(channel))

    # ---- team memory (#36) --------------------------------------------------------------------

    async def remember(
        self, ex: Extracted, *, channel: str, channel_type: str, ts: str, thread_ts: str, user_id: str
    ) -> list[Seen]:
        return await self._run(
            lambda s: s.remember(
                ex, channel=channel, channel_type=channel_type, ts=ts, thread_ts=thread_ts, user_id=user_id
            )
        )

    async def remember_at(
        self, ex: Extracted, *, channel: str, channel_type: str, ts: str, thread_ts: str, user_id: str
    ) -> int:
        return await self._run(
            lambda s: s.remember_at(
                ex, channel=channel, channel_type=channel_type, ts=ts, thread_ts=thread_ts, user_id=user_id
            )
        )

    async def set_thread(self, channel: str, thread_ts: str, *, replies: int, participants: list[str]) -> None:
        await self._run(lambda s: s.set_thread(channel, thread_ts, replies=replies, participants=participants))

    async def backfill_state(self, channel: str) -> dict[str, str]:
        return await self._run(lambda s: s.backfill_state(channel))

    async def set_backfill_state(self, channel: str, state: dict[str, str] | None) -> None:
        await self._run(lambda s: s.set_backfill_state(channel, state))

    async def memory_home(self) -> tuple[list[tuple[str, int, str, str]], list[tuple[str, str, str, str]]]:
        return await self._run(lambda s: s.memory_home())

    async def note_reply(self, channel: str, thread_ts: str, user_id: str) -> None:
        await self._run(lambda s: s.note_reply(channel, thread_ts, user_id))

    async def pasted_in(self, channel: str, user_id: str) -> bool:
        return await self._run(lambda s: s.pasted_in(channel, user_id))

    async def thread_author(self, channel: str, thread_ts: str) -> str | None:
        return await self._run(lambda s: s.thread_author(channel, thread_ts))

    async def resolve(self, *, channel: str, thread_ts: str, kind: str, ts: str, user_id: str, excerpt: str) -> bool:
        return await self._run(
            lambda s: s.resolve(
                channel=channel, thread_ts=thread_ts, kind=kind, ts=ts, user_id=user_id, excerpt=excerpt
            )
        )

    async def memory_vote(self, memory_id: int, user_id: str, value: int) -> Seen | None:
        return await self._run(lambda s: s.memory_vote(memory_id, user_id, value))

    # ---- each channel's settings and digest (#38) -------------------------------------------

    async def channel(self, channel: str) -> ChannelView:
        return await self._run(lambda s: s.channel(channel))

    async def channel_mode(self, channel: str) -> str:
        return await self._run(lambda s: s.channel_mode(channel))

    async def set_channel_mode(self, channel: str, mode: str, user_id: str) -> bool:
        return await self._run(lambda s: s.set_channel_mode(channel, mode, user_id))

    async def set_weekly_digest(self, channel: str, weekly: bool, user_id: str, now: datetime) -> bool:
        return await self._run(lambda s: s.set_weekly_digest(channel, weekly, user_id, now))

    async def weekly_channels(self) -> list[tuple[str, str]]:
        return await self._run(lambda s: s.weekly_channels())

    async def claim_digest(self, channel: str, slot: str) -> bool:
        return await self._run(lambda s: s.claim_digest(channel, slot))

    async def digest_posted(self, channel: str, slot: str, ts: str) -> None:
        await self._run(lambda s: s.digest_posted(channel, slot, ts))

    async def release_digest(self, channel: str, slot: str) -> None:
        await self._run(lambda s: s.release_digest(channel, slot))

    async def unposted_digests(self) -> list[Claim]:
        return await self._run(lambda s: s.unposted_digests())

    async def digest_data(self, channel: str, since: datetime, until: datetime) -> DigestData:
        return await self._run(lambda s: s.digest_data(channel, since, until))

    async def team_home(self, limit: int = 5) -> tuple[list[MatchView], list[MatchView]]:
        return await self._run(lambda s: s.team_home(limit))

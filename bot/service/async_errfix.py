"""`AsyncErrfix`: the service for async code, on one dedicated thread.

A sqlite3 connection belongs to the thread that opened it, so the store is opened, used and
closed on a single-worker `ThreadPoolExecutor`; every async method awaits one job there. Jobs
run one at a time in submission order, so a read-then-write (a button that toggles a vote) can't
interleave with another, and a write has completed when its `await` returns.

Matching (regexes, fuzzy: the CPU-bound part of a paste) runs on a second single-worker pool, so
a slow paste never queues a vote, a reply record or a health check behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from bot.core.blocks import HomeSummary
from bot.core.matcher import Matcher
from bot.core.views import Diagnosis, MatchView
from bot.errors import NotFound
from bot.service.errfix import Errfix
from bot.store import learning, open_store

T = TypeVar("T")


class AsyncErrfix:
    """errfix's behaviour for the Slack app; open with `AsyncErrfix(path)`, end with `close()`."""

    def __init__(self, db_path: str, *, seed: bool = True) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errfix-store")
        self._match_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errfix-match")
        self._svc: Errfix | None = None
        try:
            self._svc = self._pool.submit(lambda: Errfix(open_store(db_path, seed=seed))).result()
        except BaseException:
            self._pool.shutdown(wait=True)
            self._match_pool.shutdown(wait=True)
            raise

    @property
    def reply_threshold(self) -> float:
        assert self._svc is not None
        return self._svc.reply_threshold

    async def _run(self, fn: Callable[[Errfix], T]) -> T:
        svc = self._svc
        if svc is None:
            raise RuntimeError("AsyncErrfix is closed")
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, svc)

    def close(self) -> None:
        """Close the store on its thread and stop the thread (idempotent)."""
        svc, self._svc = self._svc, None
        if svc is not None:
            self._pool.submit(svc.store.close).result()
        self._pool.shutdown(wait=True)
        self._match_pool.shutdown(wait=True)

    # ---- answers ------------------------------------------------------------------------

    async def _on_matcher(self, fn: Callable[[Matcher], T]) -> T:
        """`fn(matcher)` on the matching thread, with the index for the current store version."""
        matcher = await self._run(lambda s: s.matcher)
        return await asyncio.get_running_loop().run_in_executor(self._match_pool, fn, matcher)

    async def diagnose(self, text: str, limit: int = 3) -> Diagnosis:
        ex, cands = await self._on_matcher(lambda m: Errfix.match_paste(m, text, limit))
        return await self._run(lambda s: s.diagnosis(ex, cands))

    async def search(self, words: str, limit: int = 5) -> list[MatchView]:
        fuzzy = await self._on_matcher(lambda m: Errfix.fuzzy_search(m, words, limit))
        return await self._run(lambda s: s.ranked_search(words, fuzzy, limit))

    async def view(self, record_id: str) -> MatchView | None:
        """The record with current rates and votes, or None if there is no such record."""

        def job(s: Errfix) -> MatchView | None:
            try:
                return s.view(record_id)
            except NotFound:
                return None

        return await self._run(job)

    async def stats(self) -> dict[str, Any]:
        return await self._run(lambda s: {**s.store.stats(), **learning.week_counts(s.store)})

    async def home(self) -> HomeSummary:
        return await self._run(lambda s: learning.home_summary(s.store))

    async def ping(self) -> bool:
        """True when the database answers a query."""
        return await self._run(lambda s: s.store.db.execute("SELECT count(*) FROM meta").fetchone() is not None)

    # ---- dedupe and replies ---------------------------------------------------------------

    async def first_seen(self, keys: Iterable[str]) -> bool:
        keys = list(keys)
        return await self._run(lambda s: s.store.first_seen(keys))

    async def record_reply(self, **fields: Any) -> None:
        await self._run(lambda s: s.store.record_reply(**fields))

    async def reply(self, channel: str, reply_ts: str) -> dict[str, Any] | None:
        """A reply of ours, with its paste `line` and `rejected_by` (who said "Not this error")."""

        def job(s: Errfix) -> dict[str, Any] | None:
            found = s.store.reply(channel, reply_ts)
            if found is None:
                return None
            line = learning.paste_line(s.store, channel, found["message_ts"]) or ""
            rejected = learning.rejected_by(
                s.store, channel=channel, message_ts=found["message_ts"], record_id=found["record_id"]
            )
            return {**found, "line": line, "rejected_by": rejected}

        return await self._run(job)

    # ---- learning -------------------------------------------------------------------------

    async def log_paste(self, **fields: Any) -> None:
        await self._run(lambda s: learning.log_paste(s.store, **fields))

    async def reject(self, *, channel: str, message_ts: str, record_id: str, user_id: str) -> str | None:
        """Store "Not this error" for our answer to that paste; its error line, or None if unknown."""
        return await self._run(
            lambda s: learning.reject(
                s.store, channel=channel, message_ts=message_ts, record_id=record_id, user_id=user_id
            )
        )

    async def learn_alias(self, record_id: str, line: str, user_id: str) -> bool:
        return await self._run(lambda s: learning.learn_alias(s.store, record_id, line, user_id))

    async def last_rejected_line(self, user_id: str) -> str | None:
        return await self._run(lambda s: learning.last_rejected_line(s.store, user_id))

    # ---- votes ----------------------------------------------------------------------------

    async def vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int | None) -> int | None:
        """Set, change or withdraw one vote; returns the previous value."""
        return await self._run(lambda s: s.store.vote(reply_key, record_id, wkey, user_id, value))

    async def click_vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int) -> int | None:
        """A "Worked"/"Didn't work" click (same again withdraws); returns the vote now held."""
        return await self._run(lambda s: learning.click_vote(s.store, reply_key, record_id, wkey, user_id, value))

    async def reaction_vote(self, reply_key: str, record_id: str, user_id: str, value: int, added: bool) -> bool:
        """A reaction on a reply: a vote on its top workaround, or (removed) its withdrawal."""

        def job(s: Errfix) -> bool:
            return learning.reaction_vote(s.store, reply_key, s.view(record_id), user_id, value, added)

        return await self._run(job)

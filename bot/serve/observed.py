"""`ServeErrfix`: the AsyncErrfix that `errfix serve` runs, counted, logged and kept in sync.

On top of AsyncErrfix (one worker thread owns the SQLite connection) it
* re-indexes in the background after a store change (a sync), so answers use the old index
  until the new one is built instead of waiting for it;
* reports matches, pastes and votes to `Metrics` and writes one log line for each;
* runs store functions for `errfix sync` on the worker (`on_store`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from bot.core.views import Diagnosis
from bot.service.async_errfix import AsyncErrfix
from bot.service.errfix import Errfix
from bot.store.store import Store
from bot.telemetry.metrics import Metrics

T = TypeVar("T")
log = logging.getLogger("errfix.serve")


class ServeErrfix(AsyncErrfix):
    """AsyncErrfix with metrics, decision logs and background re-indexing."""

    def __init__(
        self, db_path: str, *, metrics: Metrics | None = None, log_pastes: bool = False, seed: bool = True
    ) -> None:
        super().__init__(db_path, seed=seed)
        self.metrics = metrics or Metrics(db_path)
        self.log_pastes = log_pastes
        svc = self._svc
        assert svc is not None
        svc.background_reindex = svc.store.path != ":memory:"  # before any job uses it

    async def on_store(self, fn: Callable[[Store], T]) -> T:
        """`fn(store)` on the worker; afterwards a changed store starts its re-index in the background."""

        def job(s: Errfix) -> T:
            before = s.store.version
            result = fn(s.store)
            if s.store.version != before:
                s.matcher  # noqa: B018 - the property starts the background rebuild
            return result

        return await self._run(job)

    async def diagnose(self, text: str, limit: int = 3) -> Diagnosis:
        start = time.perf_counter()
        diagnosis = await super().diagnose(text, limit)
        self.metrics.match_seconds.observe(time.perf_counter() - start)
        return diagnosis

    async def log_paste(self, **fields: Any) -> None:
        await super().log_paste(**fields)
        replied = bool(fields.get("replied"))
        self.metrics.paste(replied=replied)
        extra = {"record": fields.get("record_id"), "score": _rounded(fields.get("score")), "replied": replied}
        if self.log_pastes:
            extra["line"] = fields.get("line")
        log.info("answered" if replied else "kept quiet", extra=extra)

    async def click_vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int) -> int | None:
        held = await super().click_vote(reply_key, record_id, wkey, user_id, value)
        self.metrics.vote("button", held)
        log.info("vote", extra={"record": record_id, "source": "button", "vote": held, "user": user_id})
        return held

    async def reaction_vote(self, reply_key: str, record_id: str, user_id: str, value: int, added: bool) -> bool:
        changed = await super().reaction_vote(reply_key, record_id, user_id, value, added)
        if changed:
            held = value if added else None
            self.metrics.vote("reaction", held)
            log.info("vote", extra={"record": record_id, "source": "reaction", "vote": held, "user": user_id})
        return changed


def _rounded(score: object) -> float | None:
    return round(score, 3) if isinstance(score, float) else None

"""The facade every adapter calls (CLI, Slack, demo): diagnose, search, show, vote, export.

`Errfix` wraps one `Store` (so one thread, see bot/store/store.py) and keeps a `Matcher` built for
the store's current version. A rebuild happens off to the side: answers keep using the old index
until the new one is complete, so an import never blocks a reply.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

from bot.core.extract import Extracted, extract
from bot.core.fold import updated_record
from bot.core.matcher import Candidate, Matcher
from bot.core.views import Diagnosis, MatchView, Tally, rank_workarounds
from bot.store import learning
from bot.store.store import Store

REPLY_THRESHOLD = 0.5  # P(right record) from the calibrated score: answer when more likely right than not
UNSURE_FLOOR = 0.15  # below this, even a mention or a search does not show a candidate


class Errfix:
    """errfix's behaviour over one store; use from the store's thread only."""

    def __init__(
        self, store: Store, *, reply_threshold: float = REPLY_THRESHOLD, background_reindex: bool = False
    ) -> None:
        self.store = store
        self.reply_threshold = reply_threshold
        self.background_reindex = background_reindex and store.path != ":memory:"
        self._matcher: Matcher | None = None
        self._matcher_version = -1
        self._lock = threading.Lock()
        self._rebuilding: threading.Thread | None = None

    # ---- index --------------------------------------------------------------------------

    @staticmethod
    def build_matcher(store: Store) -> tuple[int, Matcher]:
        version = store.version
        records = list(store.records())
        rejections = learning.rejections(store)  # "Not this error": lower for similar pastes
        return version, Matcher(records, store.learned_aliases(), seeds=store.seed_ids(), rejections=rejections)

    def _rebuild_in_background(self) -> None:
        """Index a new store version on a thread with its own connection; answers keep the old one."""

        def run() -> None:
            store = Store(self.store.path)
            try:
                self.install_matcher(*self.build_matcher(store))
            finally:
                store.close()

        self._rebuilding = threading.Thread(target=run, name="errfix-reindex", daemon=True)
        self._rebuilding.start()

    def install_matcher(self, version: int, matcher: Matcher) -> None:
        with self._lock:
            if version >= self._matcher_version:
                self._matcher, self._matcher_version = matcher, version
        # The index lives until the next store version and holds no reference cycles: moving it
        # out of the cyclic collector's reach means a full collection never walks it again (at
        # 250,000 records each walk stalled every thread for about a second). A replaced index is
        # still freed by reference counting. Collect first: garbage frozen would never be freed.
        gc.collect()
        gc.freeze()

    @property
    def matcher(self) -> Matcher:
        """The index for the current store version, built on first use after a change."""
        if self._matcher is None:
            self.install_matcher(*self.build_matcher(self.store))
        elif self._matcher_version != self.store.version:
            if not self.background_reindex:
                self.install_matcher(*self.build_matcher(self.store))
            elif self._rebuilding is None or not self._rebuilding.is_alive():
                self._rebuild_in_background()
        assert self._matcher is not None
        return self._matcher

    # ---- answers ------------------------------------------------------------------------

    def view(self, record_id: str, score: float = 1.0, parts: dict[str, float] | None = None) -> MatchView:
        rec = self.store.get(record_id)
        return MatchView(rec, score, rank_workarounds(rec, self.store.tallies(record_id)), parts or {})

    def _views(self, cands: list[Candidate]) -> list[MatchView]:
        return [self.view(c.id, c.score, c.parts) for c in cands if self.store.has(c.id)]

    @staticmethod
    def match_paste(matcher: Matcher, text: str, limit: int = 3) -> tuple[Extracted, list[Candidate]]:
        """The pure, CPU-bound half of `diagnose` (regexes, fuzzy): safe on any one thread at a
        time, so adapters run it beside the store's thread instead of on it."""
        ex = extract(text)
        return ex, [c for c in matcher.match(ex, limit=limit) if c.score >= UNSURE_FLOOR]

    def diagnose(self, text: str, limit: int = 3) -> Diagnosis:
        return self.diagnosis(*self.match_paste(self.matcher, text, limit))

    def diagnosis(self, ex: Extracted, cands: list[Candidate]) -> Diagnosis:
        """The store's half of `diagnose`: the candidates' records, votes and the reply decision."""
        # a deprecation notice is not an error: answer it when asked (mention, search), not unprompted
        reply = bool(cands) and cands[0].score >= self.reply_threshold and not ex.deprecation_only
        is_error = ex.is_error or reply
        return Diagnosis(is_error, reply, self._views(cands), ex)

    @staticmethod
    def fuzzy_search(matcher: Matcher, words: str, limit: int = 5) -> dict[str, float]:
        """The matcher's half of `search` (pure, see match_paste): record id -> score."""
        ex = extract(words)
        return {c.id: c.score for c in matcher.match(ex, limit=limit * 2)} if ex.lines or len(words) > 3 else {}

    def search(self, words: str, limit: int = 5) -> list[MatchView]:
        """Keyword (FTS5 BM25) and fuzzy search for `/errfix loss nan`; best first."""
        return self.ranked_search(words, self.fuzzy_search(self.matcher, words, limit), limit)

    def ranked_search(self, words: str, fuzzy: dict[str, float], limit: int = 5) -> list[MatchView]:
        """The store's half of `search`: FTS5 keywords merged with the fuzzy scores."""
        keyword = self.store.search_fts(words, limit=limit * 2)
        scores: dict[str, float] = dict(fuzzy)
        if keyword:
            best = keyword[0][1] or -1.0
            for rid, bm in keyword:
                kw = 0.9 * (bm / best if best else 0.0)  # bm25 is negative: nearer to best, nearer 0.9
                scores[rid] = max(scores.get(rid, 0.0), round(kw, 4))
        # equal to the precision people see (two decimals: near-equal BM25), the matcher decides
        ranked = sorted(scores.items(), key=lambda kv: (-round(kv[1], 2), -fuzzy.get(kv[0], 0.0), kv[0]))[:limit]
        return [self.view(rid, s) for rid, s in ranked if self.store.has(rid)]

    # ---- export -------------------------------------------------------------------------

    def export_records(self) -> Iterator[dict[str, Any]]:
        """Records in the file format, with rates and evidence updated from this team's votes."""
        by_record: dict[str, dict[str, Tally]] = {}
        for (rid, wkey), tally in self.store.all_tallies().items():
            by_record.setdefault(rid, {})[wkey] = tally
        learned = self.store.learned_aliases()
        worked = self.store.last_worked()
        source = self.store.instance_id() if by_record or learned else ""  # marks what export folded in
        for rec in self.store.records():
            yield updated_record(
                rec, by_record.get(rec.id, {}), learned.get(rec.id, []), source=source, last_worked=worked.get(rec.id)
            )

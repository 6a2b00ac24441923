"""`Errfix`: every use case of errfix over one store, for every adapter (CLI, Slack, demo, serve).

Diagnose, search, show, reply records, votes, what the team taught (learn/unlearn), import,
export, stats, lint and the store side of a sync. Results are dataclasses (`Diagnosis`,
`MatchView`, `Reply`, `Stats`, `ImportReport`, `SyncReport`, …); metrics and logs come in as an
`Observer` (bot/service/observer.py).

`Errfix` wraps one `Store` (so one thread, see bot/store/store.py) and keeps a `Matcher` built for
the store's current version. With `background_reindex` a rebuild happens off to the side:
answers keep using the old index until the new one is complete, so an import never blocks a reply.
With `index_cache` every index built is saved next to the database (bot/service/index_cache.py)
and the first use loads it instead of building: a restart answers at once. A cache of an older
store version answers while the current one is built in the background; with no usable cache, a
large store starts with an exact index of the bundled seeds alone while the full one is built.
"""

from __future__ import annotations

import gc
import html
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from bot.core.digest_view import ChannelView, DigestData
from bot.core.draft import Draft, TeachForm, draft, team_record
from bot.core.draft import record_id as record_id_for
from bot.core.extract import MAX_LINE, Extracted, extract
from bot.core.fold import updated_record
from bot.core.knows import (
    Knows,
    crosses,
    curated,
    explained_first,
    first_diagnostic,
    is_software,
    knowing,
    knowing_first,
    paste_language,
)
from bot.core.matcher import Candidate, Matcher
from bot.core.records import Record
from bot.core.redact import redact_text
from bot.core.team_memory import Seen, identities
from bot.core.views import Diagnosis, MatchView, Tally, rank_workarounds
from bot.errors import InvalidInput, NotFound
from bot.service import index_cache
from bot.service.index_cache import IndexKey
from bot.service.observer import Observer, Quiet, VoteCast
from bot.service.teach import form_problems
from bot.store import audit, open_store
from bot.store.audit import Entry
from bot.store.channels import Channels, Claim
from bot.store.files import DEFAULT_MAX_BYTES, LoadResult
from bot.store.inbox import Inbox, events_path
from bot.store.learning import Learned, Learning, Paste, WeekCounts, WeekSummary
from bot.store.lint import LintResult, lint
from bot.store.memory import Memory
from bot.store.privacy import Erased, Privacy
from bot.store.store import ImportSummary, Reply, Stats, Store, Vote
from bot.store.upstream import Fetched, SyncReport, SyncState, Upstreams

__all__ = [
    "REPLY_THRESHOLD",
    "SEARCH_THRESHOLD",
    "UNSURE_FLOOR",
    "Diagnosis",
    "Entry",
    "Erased",
    "Errfix",
    "ImportReport",
    "ImportSummary",
    "Learned",
    "LintResult",
    "MatchView",
    "Matched",
    "Paste",
    "Reply",
    "Stats",
    "SyncReport",
    "Vote",
    "WeekCounts",
    "WeekSummary",
    "search_is_sure",
]

SMALL_START = 5_000  # records above which a start without a cached index answers from the seeds first
REPLY_THRESHOLD = 0.5  # P(right record) from the calibrated score: answer when more likely right than not
# A record whose regex missed the paste, found by its wording alone, is a guess: the calibrated
# score was fitted where every paste's error is among the records, and in a channel most are not.
# On the judged wild pastes (bench/wild) such answers under 0.6 were 3 helpful of 13 (5 wrong).
WORDING_REPLY_THRESHOLD = 0.6
# An imported catch-all (its regex also recognises other records' signatures: `rpc.*timeout`,
# any `dependency failed to start`) is scored as if the paste's error were among the records, and
# an imported regex is nobody's reviewed work: matching it says little about which error this is.
# On the judged wild pastes such answers under 0.7 were none helpful of 9 (4 wrong: `rpc.*timeout`
# in containerd's start failure); the bundled seeds' catch-alls, reviewed, keep the reply threshold.
CATCH_ALL_REPLY_THRESHOLD = 0.7
UNSURE_FLOOR = 0.15  # below this, even a mention or a search does not show a candidate
# a search result scored under this is labelled weak, and words (a mention or DM with no paste)
# whose best result is under it get "not sure" instead of an answer (the score is keyword and
# fuzzy averaged: the best keyword hit alone is 0.45, so the matcher must give it 0.4 too)
SEARCH_THRESHOLD = 0.65


@dataclass(frozen=True)
class Matched:
    """What the matcher found for one paste, and how long it took (`Errfix.match_paste`)."""

    extracted: Extracted
    candidates: list[Candidate]
    seconds: float
    limit: int = 3  # how many the diagnosis shows (the matcher is asked for LOOK_ALIKES more)


@dataclass(frozen=True)
class ImportReport:
    """An `errfix import`: how many valid records were read, what the write changed, what was skipped."""

    loaded: int
    summary: ImportSummary
    skipped: list[str]
    not_software: list[str] = field(default_factory=list)  # imported, never an answer (bot/core/knows.py)

    def line(self) -> str:
        line = f"imported {self.loaded} record(s): {self.summary.line()}"
        if self.not_software:
            shown = ", ".join(self.not_software[:5]) + (", …" if len(self.not_software) > 5 else "")
            line += f"; {len(self.not_software)} not software errors, never an answer to a paste: {shown}"
        return line


def search_is_sure(results: Sequence[MatchView], threshold: float = SEARCH_THRESHOLD) -> bool:
    """The best search result is good enough to be given as the answer to words (a mention or a
    DM with no paste); below, errfix says it is not sure and lists the closest ones."""
    return bool(results) and results[0].score >= threshold


def query_words(words: str) -> str:
    """What a user typed, as searched: Slack sends < > & as entities, and `&lt;` is not the word "lt"."""
    return html.unescape(words)


LOOK_ALIKES = 3  # candidates asked for beyond those shown, for the look-alikes that may go last


class Errfix:
    """errfix's behaviour over one store; use from the store's thread only."""

    def __init__(
        self,
        store: Store,
        *,
        reply_threshold: float = REPLY_THRESHOLD,
        background_reindex: bool = False,
        observer: Observer | None = None,
        index_cache: bool = False,
        actor: str = audit.SYSTEM,
    ) -> None:
        self.store = store
        self.actor = actor  # who the audit trail names for changes made here without a Slack user
        self.index_cache = index_cache and store.path != ":memory:"
        self.learning = Learning(store)
        self.channels = Channels(store)
        self.memory = Memory(store)
        self.memory.rekey()  # once after an upgrade changed what identifies an error
        self.privacy = Privacy(store)
        self.upstreams = Upstreams(store)
        self.reply_threshold = reply_threshold
        self.search_threshold = SEARCH_THRESHOLD
        self.knows = Knows()
        self.background_reindex = background_reindex and store.path != ":memory:"
        self.observer: Observer = observer or Quiet()
        self._matcher: Matcher | None = None
        self._matcher_version = -1
        self._lock = threading.Lock()
        self._rebuilding: threading.Thread | None = None

    @classmethod
    def open(cls, path: str | Path, *, seed: bool = True, **options: Any) -> Errfix:
        """Over the store at `path` (created, migrated and, when new, seeded)."""
        return cls(open_store(path, seed=seed), **options)

    def close(self) -> None:
        self.store.close()

    # ---- index --------------------------------------------------------------------------

    @staticmethod
    def build_matcher(store: Store) -> tuple[int, Matcher]:
        version = store.version
        records = list(store.records())
        rejections = Learning(store).rejections()  # "Not this error": lower for similar pastes
        return version, Matcher(records, store.learned_aliases(), seeds=store.seed_ids(), rejections=rejections)

    def _build(self, store: Store) -> None:
        start = time.perf_counter()
        version, matcher = self.build_matcher(store)
        self.install_matcher(version, matcher)
        self.observer.on_rebuild(version, store.count(), time.perf_counter() - start)
        if self.index_cache:
            index_cache.save(store.path, IndexKey(store.instance_id(), version, len(matcher.entries)), matcher)

    def _start(self) -> bool:
        """The first index of this process without building the full one: the cached index (even
        of an older store version: it answers until the background rebuild is done), else, for a
        large store, an index of the bundled seeds alone. False: build the full one now.

        A large store's cache is loaded in the background too, with the seeds answering meanwhile:
        at 250,000 records unpickling it takes seconds, and the first paste should not wait."""
        store = self.store
        large = self.background_reindex and store.count() > SMALL_START
        if large and self.index_cache and index_cache.cache_path(store.path).exists():
            self._install_seeds(store)
            self._in_background(self._load_or_build)
            return True
        if self.index_cache and self._load_cached(store):
            return True
        if not large:
            return False
        self._install_seeds(store)
        return True

    def _load_cached(self, store: Store) -> bool:
        """Install the cached index when it is this database's; False when there is none usable
        (or it is stale and nothing would rebuild it in the background)."""
        start = time.perf_counter()
        found = index_cache.load(store.path)
        if found is None or found[0].instance != store.instance_id():
            return False
        key, matcher = found
        current = IndexKey(key.instance, store.version, store.count())
        if key != current and not self.background_reindex:
            return False  # stale, and nothing would rebuild it in the background
        # a stale index is installed one version "behind", so the refresh rebuilds it
        version = key.version if key == current else min(key.version, current.version - 1)
        self.install_matcher(version, matcher)
        self.observer.on_index_loaded(version, key.records, time.perf_counter() - start)
        return True

    def _install_seeds(self, store: Store) -> None:
        seeds = [store.get(rid) for rid in sorted(store.seed_ids()) if store.has(rid)]
        self.install_matcher(-1, Matcher(seeds, seeds=frozenset(r.id for r in seeds)))

    def _load_or_build(self, store: Store) -> None:
        """The background start of a large store: its cache, then a build if that was stale or
        unusable (the next refresh after this thread ends catches any later version)."""
        if not self._load_cached(store) or self._matcher_version != store.version:
            self._build(store)

    def _rebuild_in_background(self) -> None:
        """Index a new store version on a thread with its own connection; answers keep the old one."""
        self._in_background(self._build)

    def _in_background(self, work: Callable[[Store], None]) -> None:
        def run() -> None:
            store = Store(self.store.path)
            try:
                work(store)
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

    def refresh_index(self) -> None:
        """After a write that may have changed what the index holds: with `background_reindex`,
        start building the new index now (answers keep the old one); otherwise the next match
        builds it."""
        if self._matcher is None or self._matcher_version == self.store.version or not self.background_reindex:
            return
        if self._rebuilding is None or not self._rebuilding.is_alive():
            self._rebuild_in_background()

    @property
    def matcher(self) -> Matcher:
        """The index for the current store version, built on first use after a change."""
        if self._matcher is None and self._start():
            self.refresh_index()
        elif self._matcher is None or (self._matcher_version != self.store.version and not self.background_reindex):
            self._build(self.store)
        else:
            self.refresh_index()
        assert self._matcher is not None
        return self._matcher

    # ---- answers ------------------------------------------------------------------------

    def view(self, record_id: str, score: float = 1.0, parts: dict[str, float] | None = None) -> MatchView:
        """A record with current rates and votes; raises NotFound."""
        rec = self.store.get(record_id)
        return MatchView(rec, score, rank_workarounds(rec, self.store.tallies(record_id)), parts or {})

    def find(self, record_id: str) -> MatchView | None:
        """`view`, or None when there is no such record."""
        try:
            return self.view(record_id)
        except NotFound:
            return None

    def _views(self, cands: list[Candidate]) -> list[MatchView]:
        return [self.view(c.id, c.score, c.parts) for c in cands if self.store.has(c.id)]

    def _judged(self, views: list[MatchView], ex: Extracted) -> list[MatchView]:
        """The candidates that may answer this paste (none from another ecosystem, none that is not
        a software error: bot/core/knows.py), the first with whether it knows this very error."""
        language = paste_language(ex.text)
        matcher = self._matcher
        if matcher is None:
            return [v for v in views if not crosses(v.record, language, v.parts.get("domain", 0.0) > 0)]
        # a candidate found by wording alone whose regex quotes another name than the paste's is a
        # look-alike ('jax.random' … has no attribute for 'openai' …): it goes after the others
        judged = [
            (v, k)
            for v in views
            for k in [
                knowing(
                    v.record,
                    ex,
                    partial(matcher.regex_matches, v.id),
                    matcher.rarity,
                    matcher.catch_all(v.id),
                    matcher.wrapped_lines(v.id, ex.searchable),
                    curated(v.record, matcher.seeds),
                    matcher.wordings(v.id),
                )
            ]
            if not crosses(v.record, language, v.parts.get("domain", 0.0) > 0, k.matched, k.os_only, k.product_words)
        ]
        if not judged:
            return []
        knows = {v.id: self.knows.knows(k) for v, k in judged}
        # look-alikes last; among candidates scored the same, one that knows this very error first,
        # then one that names more of what the line names (a record of `from click import
        # _unicodefun` before any `cannot import name`); else as scored
        judged.sort(
            key=lambda vk: (
                not vk[1].matched and vk[1].other_name,
                -round(vk[0].score, 3),
                not knows[vk[0].id],
                vk[1].absorbed,
            )
        )

        def known() -> list[bool]:  # in the candidates' order as it stands
            return [knows[v.id] for v, _ in judged]

        judged = knowing_first(judged, known(), ex.searchable)
        judged = first_diagnostic(judged, known(), ex.searchable)
        first = judged[0][0]

        def same(i: int) -> bool:  # one regex recognises the other's signature
            v = judged[i][0]
            return matcher.regex_matches(v.id, first.record.signature) or matcher.regex_matches(
                first.id, v.record.signature
            )

        judged = explained_first(judged, known(), same, [v.id in matcher.seeds for v, _ in judged])
        top, k_top = judged[0]
        # by its wording alone: its regex misses the whole paste (a regex may span two of its lines)
        by_wording = not k_top.matched and not matcher.regex_matches(top.id, ex.searchable)
        return [
            replace(
                top,
                knows=knows[top.id],
                by_wording=by_wording,
                # the catch-all bar is for a regex that matches too much: found by wording, its
                # regex did not match, and the wording bar is the one that applies
                imported_catch_all=k_top.catch_all and not by_wording and top.id not in matcher.seeds,
            ),
            *(v for v, _ in judged[1:]),
        ]

    @staticmethod
    def match_paste(matcher: Matcher, text: str, limit: int = 3) -> Matched:
        """The pure, CPU-bound half of `diagnose` (regexes, fuzzy): safe on any one thread at a
        time, so adapters run it beside the store's thread instead of on it."""
        start = time.perf_counter()
        ex = extract(text)
        cands = [c for c in matcher.match(ex, limit=limit + LOOK_ALIKES) if c.score >= UNSURE_FLOOR]
        return Matched(ex, cands, time.perf_counter() - start, limit)

    def diagnose(self, text: str, limit: int = 3) -> Diagnosis:
        return self.diagnosis(self.match_paste(self.matcher, text, limit))

    def diagnosis(self, matched: Matched) -> Diagnosis:
        """The store's half of `diagnose`: the candidates' records, votes and the reply decision."""
        ex, cands = matched.extracted, matched.candidates
        views = self._judged(self._views(cands), ex)[: matched.limit]
        # a deprecation notice is not an error: answer it when asked (mention, search), not unprompted;
        # a record that only knows the kind of error (a catch-all) is not answered unprompted either
        reply = (
            bool(views) and views[0].score >= self._bar(views[0]) and not views[0].kind_only and not ex.deprecation_only
        )
        is_error = ex.is_error or reply
        diagnosis = Diagnosis(is_error, reply, views, ex)
        self.observer.on_answer(diagnosis, matched.seconds)
        return diagnosis

    def _bar(self, top: MatchView) -> float:
        """The score an unprompted answer needs: the reply threshold, higher for a guess by wording
        and for an imported catch-all, whose calibrated scores overstate them where most errors are
        in no record."""
        bars = [self.reply_threshold]
        bars += [WORDING_REPLY_THRESHOLD] if top.by_wording else []
        bars += [CATCH_ALL_REPLY_THRESHOLD] if top.imported_catch_all else []
        return max(bars)

    @staticmethod
    def fuzzy_search(matcher: Matcher, words: str, limit: int = 5) -> dict[str, float]:
        """The matcher's half of `search` (pure, see match_paste): record id -> score."""
        ex = extract(words)
        return {c.id: c.score for c in matcher.match(ex, limit=limit * 2)} if ex.lines or len(words) > 3 else {}

    def search(self, words: str, limit: int = 5) -> list[MatchView]:
        """Keyword (FTS5 BM25) and fuzzy search for `/errfix loss nan`; best first."""
        words = query_words(words)
        return self.ranked_search(words, self.fuzzy_search(self.matcher, words, limit), limit)

    def ranked_search(self, words: str, fuzzy: dict[str, float], limit: int = 5) -> list[MatchView]:
        """The store's half of `search`: FTS5 keywords merged with the fuzzy scores."""
        keyword = self.store.search_fts(words, limit=limit * 2)
        scores: dict[str, float] = dict(fuzzy)
        if keyword:
            best = keyword[0][1] or -1.0
            for rid, bm in keyword:
                kw = 0.9 * (bm / best if best else 0.0)  # bm25 is negative: nearer to best, nearer 0.9
                # both signals count: the words people use (keywords) and how like the error's text they are
                scores[rid] = max(scores.get(rid, 0.0), round((kw + fuzzy.get(rid, 0.0)) / 2, 4))
        # equal to the precision people see (two decimals: near-equal BM25), the matcher decides
        ranked = sorted(scores.items(), key=lambda kv: (-round(kv[1], 2), -fuzzy.get(kv[0], 0.0), kv[0]))[:limit]
        return [self.view(rid, s) for rid, s in ranked if self.store.has(rid)]

    def log_paste(
        self,
        channel: str,
        ts: str,
        diagnosis: Diagnosis,
        *,
        replied: bool,
        channel_type: str = "",
        user_id: str = "",
    ) -> Paste | None:
        """Log a paste that looked like an error (the App Home lists those that matched nothing),
        or words errfix answered (a mention, a DM); None (nothing logged) for anything else: channel
        chatter that merely resembles a record is neither a paste nor an unmatched error.
        `channel_type` is Slack's (channel, group, im, mpim; '' when the event does not say): only
        public-channel pastes reach shared views.
        `user_id` is its author, kept so `errfix forget-user` can erase it."""
        if not (diagnosis.is_error or (replied and diagnosis.matches)):
            return None  # chatter that merely resembles a record is no paste (nor "unmatched")
        lines = diagnosis.extracted.lines
        # only a match errfix is sure of counts as recognised; the rest are candidates for new records
        top = diagnosis.matches[0] if diagnosis.matches and diagnosis.reply else None
        line = lines[0].raw if lines else (diagnosis.matches[0].record.signature if diagnosis.matches else "")
        if len(line) >= MAX_LINE:  # cut by extraction: its last word may be part of a secret no detector knows
            line = line.rpartition(" ")[0] + " …"
        line = redact_text(line)  # what is kept, logged or shown of a paste never holds a secret (#18)
        paste = Paste(
            channel, ts, line, top.id if top else None, top.score if top else None, replied, channel_type, user_id
        )
        self.learning.log_paste(paste)
        self.observer.on_paste(paste)
        return paste

    # ---- replies -------------------------------------------------------------------

    def record_reply(self, reply: Reply) -> None:
        self.store.record_reply(reply)

    def reply(self, channel: str, reply_ts: str) -> Reply | None:
        """A reply of ours, with its paste's error `line` and `rejected_by` (who said "Not this error")."""
        found = self.store.reply(channel, reply_ts)
        if found is None:
            return None
        line = self.learning.paste_line(channel, found.message_ts) or ""
        rejected = self.learning.rejected_by(channel=channel, message_ts=found.message_ts, record_id=found.record_id)
        return replace(found, line=line, rejected_by=rejected)

    # ---- what the team teaches ------------------------------------------------------------

    def reject(self, *, channel: str, message_ts: str, record_id: str, user_id: str) -> str | None:
        """Store "Not this error" for our answer to that paste; its error line, or None if unknown."""
        return self.learning.reject(channel=channel, message_ts=message_ts, record_id=record_id, user_id=user_id)

    def learn_alias(self, record_id: str, line: str, user_id: str) -> bool:
        return self.learning.learn_alias(record_id, line, user_id)

    def last_rejected_line(self, user_id: str) -> str | None:
        return self.learning.last_rejected_line(user_id)

    def learned(self, record_id: str | None = None) -> list[Learned]:
        return self.learning.learned(record_id)

    def unlearn_alias(self, record_id: str, text: str) -> int:
        return self.learning.unlearn_alias(record_id, text, actor=self.actor)

    def unlearn_rejection(self, record_id: str, line: str, user_id: str | None = None) -> int:
        return self.learning.unlearn_rejection(record_id, line, user_id, actor=self.actor)

    # ---- retention, erasure, audit (#18) ----------------------------------------------------

    @contextmanager
    def _inbox(self) -> Iterator[Inbox]:
        """The events file, on a connection of its own for one call (the serving process keeps
        its own on another thread; SQLite orders the two)."""
        inbox = Inbox(events_path(self.store.path))
        try:
            yield inbox
        finally:
            inbox.close()

    def purge_expired(self, now: datetime, days: int, memory_days: int = 0) -> Erased:
        """Drop pastes, seen events, rejections and owed jobs older than `days`, and remembered
        errors older than `memory_days` (0: keep all)."""
        extra: dict[str, int] = {}
        if days:
            with self._inbox() as inbox:
                seen, jobs = inbox.purge_before((now - timedelta(days=days)).timestamp())
            extra = {"seen_events": seen, "jobs": jobs}
        erased = self.privacy.purge_expired(now, days, actor=self.actor, extra=extra, memory_days=memory_days)
        self.refresh_index()
        return erased

    def forget_user(self, user_id: str) -> Erased:
        erased = self.privacy.forget_user(user_id, actor=self.actor)
        self.refresh_index()
        return erased

    def forget_channel(self, channel: str) -> Erased:
        with self._inbox() as inbox:
            seen, jobs = inbox.forget_channel(channel)
        erased = self.privacy.forget_channel(channel, actor=self.actor, extra={"seen_events": seen, "jobs": jobs})
        self.refresh_index()
        return erased

    def audit(self, since: str | None = None) -> list[Entry]:
        """The audit trail, newest first (at or after `since`, an ISO time, when given)."""
        return audit.entries(self.store.db, since)

    # ---- votes ----------------------------------------------------------------------------

    def vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int | None) -> int | None:
        """Set, change or withdraw one vote; returns the previous value."""
        return self.store.vote(reply_key, record_id, wkey, user_id, value)

    def click_vote(
        self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int, click_id: str | None = None
    ) -> int | None:
        """A "Worked"/"Didn't work" click (same again withdraws); returns the vote now held.
        A click already applied (`click_id`, replayed after a crash) changes and counts nothing."""
        replayed = click_id is not None and self.learning.click_applied(click_id)
        held = self.learning.click_vote(reply_key, record_id, wkey, user_id, value, click_id)
        if not replayed:
            self.observer.on_vote(VoteCast("button", record_id, user_id, held))
        return held

    def reaction_vote(self, reply_key: str, record_id: str, user_id: str, value: int, added: bool) -> bool:
        """A reaction on a reply: a vote on its top workaround, or (removed) its withdrawal."""
        changed = self.learning.reaction_vote(reply_key, self.view(record_id), user_id, value, added)
        if changed:
            self.observer.on_vote(VoteCast("reaction", record_id, user_id, value if added else None))
        return changed

    # ---- counts ---------------------------------------------------------------------------

    def stats(self) -> Stats:
        return self.store.stats()

    def week(self) -> WeekCounts:
        return self.learning.week_counts()

    def home(self) -> WeekSummary:
        return self.learning.week_summary()

    def ping(self) -> bool:
        return self.store.ping()

    # ---- import, export, lint -------------------------------------------------------------

    def import_loaded(self, loaded: LoadResult) -> ImportReport:
        """Write the valid records of `loaded` (files read by bot.store.files.load) in one transaction."""
        with self.store.write_transaction():
            summary = self.store.import_records([rec for _, rec in loaded.records])
            counts = {"added": len(summary.added), "changed": len(summary.changed)}
            detail = {**counts, "unchanged": len(summary.unchanged), "skipped": len(loaded.problems)}
            audit.write(self.store.db, actor=self.actor, action="import", detail=detail)
        self.refresh_index()
        odd = sorted(rec.id for _, rec in loaded.records if not is_software(rec))
        return ImportReport(len(loaded.records), summary, list(loaded.problems), odd)

    def export_records(self) -> Iterator[dict[str, Any]]:
        """Records in the file format, with rates and evidence updated from this team's votes."""
        by_record: dict[str, dict[str, Tally]] = {}
        for (rid, wkey), tally in self.store.all_tallies().items():
            by_record.setdefault(rid, {})[wkey] = tally
        learned = {rid: [redact_text(a) for a in aliases] for rid, aliases in self.store.learned_aliases().items()}
        worked = self.store.last_worked()
        source = self.store.instance_id() if by_record or learned else ""  # marks what export folded in
        for rec in self.store.records():
            yield updated_record(
                rec, by_record.get(rec.id, {}), learned.get(rec.id, []), source=source, last_worked=worked.get(rec.id)
            )

    def export_votes(self) -> Iterator[Vote]:
        return self.store.votes()

    def lint(self, paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES) -> LintResult:
        """Lint record files; transition-graph links may also name records in this store, and a
        linted regex must not match this store's records' examples either."""
        return lint(paths, known=self.store.has, max_bytes=max_bytes, others=self.store.records())

    # ---- sync (the store side; fetching is bot/ops/sync.py) --------------------------------

    def sync_state(self, url: str) -> SyncState | None:
        return self.upstreams.state(url)

    def sync_not_modified(self, url: str) -> SyncReport:
        return self.upstreams.not_modified(url)

    def sync_same_body(self, fetched: Fetched) -> SyncReport:
        return self.upstreams.note_same_body(fetched)

    def sync_apply(self, fetched: Fetched, records: list[Record]) -> SyncReport:
        """Write a validated upstream; a changed store starts its re-index (in the background when set)."""
        report = self.upstreams.apply(fetched, records, actor=self.actor)
        self.refresh_index()
        return report

    # ---- teaching (#17): team records from solved threads ---------------------------------

    def draft(self, text: str, fix: str = "") -> Draft | None:
        """The record the teach modal is prefilled with for a paste (None: no error line in it).

        The domain is the nearest known record's when the matcher has a candidate for the paste,
        else guessed from its words; the id is made unique in this store.
        """
        matched = self.match_paste(self.matcher, text, limit=1)
        hint = None
        if matched.candidates and self.store.has(matched.candidates[0].id):
            hint = self.store.get(matched.candidates[0].id).domain or None
        found = draft(text, fix=fix, domain_hint=hint)
        if found is None:
            return None
        return replace(found, id=self.free_id(found.id))

    def free_id(self, wanted: str) -> str:
        """`wanted`, or `wanted-2`, `-3`…: the first id no record has."""
        rid, n = wanted, 1
        while self.store.has(rid):
            n += 1
            rid = f"{wanted}-{n}"
        return rid

    def teach_problems(self, form: TeachForm, record_id: str | None = None, lang: str | None = "en") -> dict[str, str]:
        """Per field, why the form cannot be stored yet (empty: it can), said in `lang`."""
        return form_problems(form, self.store.signatures(), own_id=record_id, lang=lang)

    def teach(
        self, form: TeachForm, *, submitter: str, permalink: str, record_id: str | None = None, editor: str = ""
    ) -> Record:
        """Store a confirmed form as a team record and index it before returning, so the next
        paste of the error is answered from it (the rebuild is the store thread's, a second or
        two at the corpus's size; teaching is rare). Raises InvalidInput listing the problems."""
        problems = self.teach_problems(form, record_id)
        if problems:
            raise InvalidInput("; ".join(f"{k}: {v}" for k, v in problems.items()))
        rid = record_id or self.free_id(record_id_for(form.domain, form.error_line))
        rec = team_record(form, record_id=rid, submitter=submitter, permalink=permalink, today=date.today().isoformat())
        self.store.add_team_record(rec, actor=editor or submitter)
        self._build(self.store)
        return rec

    def forget(self, record_id: str) -> None:
        """Remove one team record (its votes are kept); the index is rebuilt without it."""
        self.store.forget(record_id, actor=self.actor)
        self.refresh_index()

    def team_ids(self) -> set[str]:
        return self.store.team_ids()

    def team_home(self, limit: int = 5) -> tuple[list[MatchView], list[MatchView]]:
        """(the newest team records, the most helpful: most "worked" votes first, at least one)."""
        newest = [self.view(rid) for rid in self.store.newest_team_ids(limit)]
        team = self.store.team_ids()
        worked: dict[str, int] = {}
        for (rid, _), tally in self.store.all_tallies().items():
            if rid in team and tally.up:
                worked[rid] = worked.get(rid, 0) + tally.up
        helpful = [self.view(rid) for rid, _ in sorted(worked.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]
        return newest, helpful

    def set_teach_off(self, channel: str, off: bool, user_id: str) -> None:
        self.store.set_teach_off(channel, off, actor=user_id)

    def teach_off(self, channel: str) -> bool:
        """Whether the channel opted out of "save this?" offers (`/errfix teach off`)."""
        return self.store.teach_off(channel)

    # ---- team memory (#36) --------------------------------------------------------------------

    def remember(
        self, ex: Extracted, *, channel: str, channel_type: str, ts: str, thread_ts: str, user_id: str
    ) -> list[Seen]:
        """Remember a paste's error (when it identifies one) and return the earlier pastes of the
        same error this channel may see, in other threads (bot/store/memory.py)."""
        keys = identities(ex)
        if not keys:
            return []
        earlier = self.memory.seen(keys, channel=channel, thread_ts=thread_ts)
        self.remember_at(
            ex, channel=channel, channel_type=channel_type, ts=ts, thread_ts=thread_ts, user_id=user_id, keys=keys
        )
        return earlier

    def remember_at(
        self,
        ex: Extracted,
        *,
        channel: str,
        channel_type: str,
        ts: str,
        thread_ts: str,
        user_id: str,
        keys: list[str] | None = None,
    ) -> int:
        """Remember a paste read from history (`errfix remember`): 1 if it is new to the memory.
        `keys`: its identities when the caller has them already."""
        keys = identities(ex) if keys is None else keys
        line = ex.lines[0].raw if ex.lines else ""
        kept = self.memory.remember(
            channel=channel,
            channel_type=channel_type,
            ts=ts,
            thread_ts=thread_ts,
            user_id=user_id,
            line=line,
            keys=keys,
        )
        return int(kept is not None)

    def set_thread(self, channel: str, thread_ts: str, *, replies: int, participants: list[str]) -> None:
        self.memory.set_thread(channel, thread_ts, replies, participants)

    def backfill_state(self, channel: str) -> dict[str, str]:
        return self.memory.backfill_state(channel)

    def set_backfill_state(self, channel: str, state: dict[str, str] | None) -> None:
        self.memory.set_backfill_state(channel, state)

    def memory_home(self) -> tuple[list[tuple[str, int, str, str]], list[tuple[str, str, str, str]]]:
        """The App Home's team memory (bot/store/memory.py `Memory.home`)."""
        return self.memory.home()

    def note_reply(self, channel: str, thread_ts: str, user_id: str) -> None:
        self.memory.note_reply(channel, thread_ts, user_id)

    def pasted_in(self, channel: str, user_id: str) -> bool:
        return self.memory.pasted_in(channel, user_id)

    def thread_author(self, channel: str, thread_ts: str) -> str | None:
        return self.memory.thread_author(channel, thread_ts)

    def resolve(self, *, channel: str, thread_ts: str, kind: str, ts: str, user_id: str, excerpt: str) -> bool:
        return self.memory.resolve(
            channel=channel, thread_ts=thread_ts, kind=kind, ts=ts, user_id=user_id, excerpt=excerpt
        )

    def memory_vote(self, memory_id: int, user_id: str, value: int) -> Seen | None:
        """A vote on a team answer; the answer as it is now."""
        self.memory.vote(memory_id, user_id, value)
        return self.memory.one(memory_id)

    # ---- each channel's settings and digest (#38) -------------------------------------------

    def channel(self, channel: str) -> ChannelView:
        return self.channels.get(channel)

    def channel_mode(self, channel: str) -> str:
        """`auto`, `mention` or `off` (`/errfix here`)."""
        return self.channels.mode(channel)

    def set_channel_mode(self, channel: str, mode: str, user_id: str) -> bool:
        return self.channels.set_mode(channel, mode, actor=user_id)

    def set_weekly_digest(self, channel: str, weekly: bool, user_id: str, now: datetime) -> bool:
        return self.channels.set_weekly(channel, weekly, actor=user_id, now=now)

    def weekly_channels(self) -> list[tuple[str, str]]:
        return self.channels.weekly()

    def claim_digest(self, channel: str, slot: str) -> bool:
        return self.channels.claim_digest(channel, slot)

    def digest_posted(self, channel: str, slot: str, ts: str) -> None:
        self.channels.digest_posted(channel, slot, ts)

    def release_digest(self, channel: str, slot: str) -> None:
        self.channels.release_digest(channel, slot)

    def unposted_digests(self) -> list[Claim]:
        return self.channels.unposted()

    def digest_data(self, channel: str, since: datetime, until: datetime) -> DigestData:
        return self.channels.digest_data(channel, since, until)

    def export_team_records(self) -> Iterator[dict[str, Any]]:
        """`export_records`, team records only (`errfix export --team`)."""
        team = self.store.team_ids()
        return (row for row in self.export_records() if row["id"] in team)

"""The record store: one SQLite file (WAL) through sqlite-utils.

A `Store` owns one connection and must be used from the thread that opened it (sqlite3's rule);
async code goes through `bot.service.async_errfix.AsyncErrfix`, which keeps one store on one
thread. Every write that must not be half-done runs in a single transaction. This package is the
only place with SQL: what the team teaches is in learning.py (`Learning`), sync state in
upstream.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from bot.core.cjk import cjk_split, has_cjk, words_of
from bot.core.fold import FOLDED, unfold_record
from bot.core.records import Record
from bot.core.search_query import respelled, search_query
from bot.core.views import Tally, workaround_key
from bot.errors import InvalidInput, NotFound, StoreError
from bot.store import audit
from bot.store.schema import SCHEMA_VERSION, migrations, unknown_migrations


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def content_hash(data: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass
class ImportSummary:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{len(self.added)} added, {len(self.changed)} changed, "
            f"{len(self.unchanged)} unchanged, {len(self.removed)} removed"
        )


@dataclass(frozen=True)
class Reply:
    """One answer errfix posted: where it is, which paste it answers, what it showed.

    `line` (the paste's error line) and `rejected_by` (who said "Not this error") are not stored
    with the reply; `Errfix.reply` fills them in from what the team taught.
    """

    channel: str
    reply_ts: str
    message_ts: str
    thread_ts: str
    record_id: str
    score: float
    locale: str = "en"
    sure: bool | None = None  # None: an older reply, sure when its score is at the threshold
    others: tuple[tuple[str, float], ...] = ()  # the other candidates shown: (record id, score)
    note: str = ""
    seen: str = ""  # "Seen before in #channel …" (#36), shown again when the answer is re-rendered
    line: str = ""
    rejected_by: str | None = None
    kind_only: bool = False  # general advice for the kind of error, not this error's own record


@dataclass(frozen=True)
class Vote:
    """One user's vote on one workaround of the record an answer showed."""

    reply_key: str
    record_id: str
    wkey: str
    user_id: str
    value: int
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Stats:
    """What `errfix stats` and `/errfix stats` count."""

    records: int
    by_domain: dict[str, int]
    votes_up: int
    votes_down: int
    replies: int
    learned_aliases: int
    schema_version: int
    store_version: int

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


COMMON_SHARE = 0.05  # a search word in more than this share of records is left out (search_fts)...
COMMON_MIN = 500  # ...once it is in more records than this too, so a small store keeps its words
# (at 687 bundled seeds `pip` is in 206: a word that common still tells `pip install` from Xcode)
PHRASE_MIN = 50  # a synonym phrase is left out for a common word (PHRASE_SHARE) only past this many records
DF_CACHE = 100_000  # words whose record counts are kept between searches
RAREST = 3  # words (and synonyms) searched however common, when no other is searched
SEARCH_TERMS = 10  # the rarest single words searched: the rarest decide, more only add cost
SEARCH_SYNONYMS = 8  # synonyms searched, those of the rarest words first (each costs every matching row)
PHRASE_SHARE = 0.3  # a synonym phrase with a word in more than this share of records costs more than it finds
# BM25 weight of each indexed column: id, signature, aliases (+ keywords, Chinese signature), root
# cause (+ Chinese), tags (+ Chinese fixes). The last two explain: their prose names other tools and
# errors in passing, so they count half as much as before (#37: a general record whose prose repeats
# a query's words outranked the specific one whose signature and aliases name them all)
FIELD_WEIGHTS = "5.0, 3.0, 2.0, 0.5, 0.5"
SYNONYM_WEIGHT = 0.2  # a synonym's BM25 counts this much of the user's own words' (dev queries: 0.1-0.3 best)


class Store:
    """errfix's SQLite database: records, workarounds, votes, replies, dedupe, learning."""

    def __init__(self, path: str | Path, *, check_same_thread: bool = True) -> None:
        self.path = str(path)
        self._instance_id: str | None = None
        self._df: dict[str, int] = {}  # token -> records holding it, at store version _df_version (search_fts)
        self._df_version = -1
        self._vocab: dict[int, list[str]] = {}  # index words by length, at store version _vocab_version
        self._vocab_docs: dict[str, int] = {}
        self._vocab_version = -1
        self._count_at: tuple[int, int] | None = None  # (store version, records) for search_fts
        try:
            conn = sqlite3.connect(self.path, check_same_thread=check_same_thread, timeout=30)
            self.db = Database(conn)
            if self.path != ":memory:":
                self.db.enable_wal()
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            # deleted and overwritten rows are zeroed, not left in free pages: what retention and
            # `errfix forget-*` remove is gone from the file too (#18)
            conn.execute("PRAGMA secure_delete = ON")
            self._check_not_newer()
            migrations.apply(self.db)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable errfix database ({e})") from None

    def _check_not_newer(self) -> None:
        unknown = unknown_migrations([m.name for m in migrations.applied(self.db)])
        if unknown:
            raise StoreError(
                f"{self.path}: written by a newer errfix (schema has {', '.join(unknown)}); upgrade errfix"
            )

    def close(self) -> None:
        self.db.conn.close()

    def defer_checkpoints(self) -> int:
        """Commits stop copying the write-ahead log into the database once it passes 1,000 pages
        (SQLite's default): that copy stalls whichever write crosses the mark (about 5 ms, once
        every hundred remembered pastes: the p99 of remembering one). `checkpoint()` does it
        instead, off the writes' path (`errfix serve` runs it every few seconds). The pages at
        which a commit copies now (0: never)."""
        self.db.execute("PRAGMA wal_autocheckpoint = 0")
        return int(self.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0])

    def checkpoint(self) -> tuple[int, int]:
        """Copy the write-ahead log into the database without waiting for readers (PASSIVE):
        (frames in the log, frames copied); what a reader still needs is copied next time."""
        row = self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[1]), int(row[2])

    # ---- versions -------------------------------------------------------------------------

    def schema_version(self) -> int:
        return len(migrations.applied(self.db))

    @property
    def version(self) -> int:
        """Bumped by every change to records or aliases: matchers rebuild when it moves."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
        return int(row[0])

    def bump_version(self) -> None:
        """Tell every matcher to rebuild: call inside the transaction that changed what it indexes
        (records, aliases, rejections)."""
        self.db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'store_version'")

    def ping(self) -> bool:
        """True when the database answers a query (the health check)."""
        return self.db.execute("SELECT count(*) FROM meta").fetchone() is not None

    def instance_id(self) -> str:
        """A random id of this database, made on first use and kept in it (copies share it).

        `errfix export` stamps it on records it folds this database's votes into, so importing
        such a record here again can take them out instead of counting them twice.
        """
        cached = self._instance_id
        if cached is None:
            with self.write_transaction():
                new_id = uuid.uuid4().hex
                self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('instance_id', ?)", [new_id])
                row = self.db.execute("SELECT value FROM meta WHERE key = 'instance_id'").fetchone()
            cached = self._instance_id = str(row[0])
        return cached

    @contextlib.contextmanager
    def write_transaction(self) -> Iterator[None]:
        """A transaction that takes the write lock when it starts (BEGIN IMMEDIATE).

        A plain BEGIN reads first and asks for the write lock later; when another connection
        wrote in between, SQLite cannot upgrade and fails at once with "database is locked"
        (the busy timeout does not apply). Taking the lock first makes concurrent writers from
        other connections (threads, processes) wait their turn instead. Nested: a savepoint.
        """
        if self.db.conn.in_transaction:
            with self.db.atomic():
                yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.rollback()
            raise
        else:
            self.db.execute("COMMIT")

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM records").fetchone()[0])

    # ---- records --------------------------------------------------------------------------

    def import_records(
        self, records: Iterable[Record], *, origin: str = "import", replace_all: bool = False
    ) -> ImportSummary:
        """Upsert records in one transaction; votes and learned aliases are kept.

        With `replace_all`, records not in `records` are removed (used by sync), again keeping
        the votes so a record that comes back finds them.
        """
        summary = ImportSummary()
        stamp = now_iso()
        with self.db.atomic():
            existing = dict(self.db.execute("SELECT id, content_hash FROM records").fetchall())
            incoming: set[str] = set()
            for rec in records:
                rec = self.without_own_votes(rec)
                incoming.add(rec.id)
                data = rec.to_json()
                digest = content_hash(data)
                old = existing.get(rec.id)
                if old == digest:
                    summary.unchanged.append(rec.id)
                    continue
                (summary.changed if old else summary.added).append(rec.id)
                self._write_record(rec, data, digest, origin, stamp)
            if replace_all:  # a team's own records are not upstream's to remove
                for rid in sorted(set(existing) - incoming - self.team_ids()):
                    self.db.execute("DELETE FROM records WHERE id = ?", [rid])
                    self.db.execute("DELETE FROM aliases WHERE record_id = ? AND origin = 'record'", [rid])
                    summary.removed.append(rid)
            if summary.added or summary.changed or summary.removed:
                self.bump_version()
        return summary

    def _write_record(self, rec: Record, data: dict[str, Any], digest: str, origin: str, stamp: str) -> None:
        # One plain statement: sqlite-utils' upsert() re-reads the table schema on every call,
        # which was two thirds of the time of a corpus import. The FTS triggers fire as before.
        self.db.execute(
            "INSERT INTO records (id, domain, signature, regex, aliases_text, root_cause, tags_text, data, "
            "content_hash, origin, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET domain = excluded.domain, signature = excluded.signature, "
            "regex = excluded.regex, aliases_text = excluded.aliases_text, root_cause = excluded.root_cause, "
            "tags_text = excluded.tags_text, data = excluded.data, content_hash = excluded.content_hash, "
            "origin = excluded.origin, imported_at = excluded.imported_at",
            [
                rec.id,
                rec.domain,
                rec.signature,
                rec.regex,
                *_search_columns(rec),
                json.dumps(data, ensure_ascii=False),
                digest,
                origin,
                stamp,
            ],
        )
        self.db.execute("DELETE FROM workarounds WHERE record_id = ?", [rec.id])
        self.db.execute("DELETE FROM dead_ends WHERE record_id = ?", [rec.id])
        self.db.execute("DELETE FROM aliases WHERE record_id = ? AND origin = 'record'", [rec.id])
        self.db.conn.executemany(
            "INSERT INTO workarounds (record_id, idx, wkey, action, prior_rate) VALUES (?, ?, ?, ?, ?)",
            [(rec.id, i, workaround_key(w.action), w.action, w.success_rate) for i, w in enumerate(rec.workarounds)],
        )
        self.db.conn.executemany(
            "INSERT INTO dead_ends (record_id, idx, action, prior_rate) VALUES (?, ?, ?, ?)",
            [(rec.id, i, d.action, d.fail_rate) for i, d in enumerate(rec.dead_ends)],
        )
        self.db.conn.executemany(
            "INSERT OR IGNORE INTO aliases (record_id, alias, origin, created_at) VALUES (?, ?, 'record', ?)",
            [(rec.id, a, stamp) for a in rec.aliases],
        )

    def without_own_votes(self, rec: Record) -> Record:
        """`rec` without the votes of this database that `errfix export` folded into its rates.

        Those votes are still here and still counted: keeping them in the rates as well would
        count them twice. Records without the mark, or marked by other databases only, are
        returned as they are (another team's votes are evidence for us, not duplicates).
        """
        if FOLDED not in (rec.model_extra or {}):
            return rec
        data = unfold_record(rec.to_json(), self.instance_id())
        if data is None:
            return rec
        try:
            return Record.model_validate(data)
        except ValueError:  # a mark edited into nonsense: keep the record as given
            return rec

    def get(self, record_id: str) -> Record:
        row = self.db.execute("SELECT data FROM records WHERE id = ?", [record_id]).fetchone()
        if row is None:
            raise NotFound(f"no record with id {record_id!r}")
        return Record.model_validate_json(row[0])

    def has(self, record_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM records WHERE id = ?", [record_id]).fetchone() is not None

    def records(self) -> Iterator[Record]:
        for (data,) in self.db.execute("SELECT data FROM records ORDER BY id"):
            yield Record.model_validate_json(data)

    def ids_with_origin(self, origin: str) -> set[str]:
        """Records that came in by `origin` ('seed', 'import', 'sync')."""
        return {str(r[0]) for r in self.db.execute("SELECT id FROM records WHERE origin = ?", [origin])}

    def signatures(self) -> list[tuple[str, str]]:
        """(id, signature) of every record: what a team record's regex must not be broad enough to match."""
        return [(str(r), str(s)) for r, s in self.db.execute("SELECT id, signature FROM records ORDER BY id")]

    def team_ids(self) -> set[str]:
        """Records the team taught (verification_tier `team`), however they came in (#17)."""
        rows = self.db.execute("SELECT id FROM records WHERE json_extract(data, '$.verification_tier') = 'team'")
        return {str(r[0]) for r in rows}

    def newest_team_ids(self, limit: int = 5) -> list[str]:
        """Team records, most recently saved (or edited) first."""
        rows = self.db.execute(
            "SELECT id FROM records WHERE json_extract(data, '$.verification_tier') = 'team' "
            "ORDER BY imported_at DESC, id LIMIT ?",
            [limit],
        )
        return [str(r[0]) for r in rows]

    def add_team_record(self, rec: Record, *, actor: str) -> bool:
        """Store one record the team taught (`actor`: who, for the audit trail); True when it is
        new. Matchers rebuild (version bump)."""
        with self.write_transaction():
            added = bool(self.import_records([rec], origin="team").added)
            audit.write(self.db, actor=actor, action="teach" if added else "edit-team-record", target=rec.id)
        return added

    def forget(self, record_id: str, *, actor: str) -> None:
        """Remove one team record, its workarounds and aliases; its votes stay (`export --votes`).

        Raises:
            NotFound: no such record.
            InvalidInput: the record is not a team record (bundled and imported ones come back on
                the next import or sync; remove them at their source).
        """
        with self.write_transaction():
            if not self.has(record_id):
                raise NotFound(f"no record with id {record_id!r}")
            if record_id not in self.team_ids():
                raise InvalidInput(f"{record_id} is not a team record: only records taught in Slack can be forgotten")
            self.db.execute("DELETE FROM aliases WHERE record_id = ?", [record_id])
            self.db.execute("DELETE FROM records WHERE id = ?", [record_id])
            audit.write(self.db, actor=actor, action="forget-record", target=record_id)
            self.bump_version()

    def set_teach_off(self, channel: str, off: bool, *, actor: str) -> None:
        """`/errfix teach off|on`: whether errfix may offer to save solved threads in `channel`."""
        with self.write_transaction():
            audit.write(self.db, actor=actor, action="teach-off" if off else "teach-on", target=channel)
            if off:
                self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", [f"teach_off:{channel}"])
            else:
                self.db.execute("DELETE FROM meta WHERE key = ?", [f"teach_off:{channel}"])

    def teach_off(self, channel: str) -> bool:
        return self.db.execute("SELECT 1 FROM meta WHERE key = ?", [f"teach_off:{channel}"]).fetchone() is not None

    def seed_ids(self) -> frozenset[str]:
        """Records that came from the bundled seeds (not imported by the team)."""
        return frozenset(self.ids_with_origin("seed"))

    def learned_aliases(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for rid, alias in self.db.execute(
            "SELECT record_id, alias FROM aliases WHERE origin = 'learned' ORDER BY created_at"
        ):
            out.setdefault(rid, []).append(alias)
        return out

    def search_fts(self, words: str, limit: int = 20) -> list[tuple[str, float]]:
        """BM25 keyword search for a user's words and their synonyms (bot/core/search_query.py).

        Words in more than 5% of the records (and more than 500) are left out: their BM25 weight
        is near nothing, and scoring costs every row a word is in (at 25,000 records the common
        ones cost more than all the rest together). A query of common words only keeps its
        rarest three, so it still finds. Synonyms are a second query, each counting
        SYNONYM_WEIGHT of the user's own words.
        """
        query = search_query(words)
        tokens = dict.fromkeys(t for p in [*query.terms, *query.synonyms] for t in p.split())
        if not tokens:
            return []
        df = self._doc_freq(list(tokens))
        n = self._searched_count()
        common = max(COMMON_MIN, COMMON_SHARE * n)
        # a word no record holds may be a typo (`bublickey`) or a cognate (`divergem`): its nearest index word
        unknown = [t for t in query.terms if not df[t]]
        vocabulary, docs = self._vocabulary() if unknown else ({}, {})
        fixed = {t: respelled(t, vocabulary, docs) for t in unknown}
        df.update({s: docs[s] for s in fixed.values() if s})
        spelled = dict.fromkeys(fixed.get(t) or t for t in query.terms)
        # Chinese pairs: only those the run's segmentation into words keeps (cjk.words_of)
        pairs = {p for run in query.cjk_runs for p in words_of(run, df)}
        terms = sorted((t for t in spelled if df[t] and (t in pairs or not has_cjk(t))), key=lambda t: (df[t], t))
        usable = [t for t in terms if df[t] <= common]
        # Chinese is searched as character pairs, and a pair across two words is rare without
        # meaning anything: the rarest ten of them must not crowd out the query's other words
        # (`pip`, `docker`), so each script gets its own ten
        kept = [
            *[t for t in usable if has_cjk(t)][:SEARCH_TERMS],
            *[t for t in usable if not has_cjk(t)][:SEARCH_TERMS],
        ] or terms[:RAREST]
        # a synonym costs every row its commonest word is in: the cheapest three, then the
        # others none of whose words is common, as for the user's own words
        costs = [(max(df[t] for t in p.split()), k, p) for k, p in enumerate(query.synonyms)]
        phrase_cap = max(PHRASE_MIN, PHRASE_SHARE * n)
        found = [(d, p) for d, _, p in sorted(costs) if d <= phrase_cap and min(df[t] for t in p.split()) > 0]
        synonyms = [*(p for _, p in found[:RAREST]), *(p for d, p in found[RAREST:] if d <= common)][:SEARCH_SYNONYMS]
        scores: dict[int, float] = {}
        for group, weight in ((kept, 1.0), (synonyms, SYNONYM_WEIGHT)):
            for rowid, rank in self._bm25(group, limit):
                scores[rowid] = scores.get(rowid, 0.0) + weight * rank
        best = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))[:limit]
        # the ids of the best rows only: joining every matching row to its (large) records row
        # read a page per row, most of the time of a search at 25,000 records
        marks = ",".join("?" * len(best))
        ids = dict(self.db.execute(f"SELECT rowid, id FROM records WHERE rowid IN ({marks})", [r for r, _ in best]))
        return [(str(ids[r]), rank) for r, rank in best if r in ids]

    def _vocabulary(self) -> tuple[dict[int, list[str]], dict[str, int]]:
        """The keyword index's words (stems) by length, and the records holding each; read again
        only when the store's version moves (for respelled words, bot/core/search_query.py)."""
        version = self.version
        if self._vocab_version != version:
            self.db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_vocab USING fts5vocab(main, records_fts, row)"
            )
            docs = {str(t): int(d) for t, d in self.db.execute("SELECT term, doc FROM temp.records_vocab")}
            by_len: dict[int, list[str]] = {}
            for term in docs:
                by_len.setdefault(len(term), []).append(term)
            self._vocab, self._vocab_docs, self._vocab_version = by_len, docs, version
        return self._vocab, self._vocab_docs

    def _searched_count(self) -> int:
        """The number of records, counted again only when the store's version moves."""
        version = self.version
        if self._count_at is None or self._count_at[0] != version:
            self._count_at = (version, self.count())
        return self._count_at[1]

    def _bm25(self, phrases: list[str], limit: int) -> list[tuple[int, float]]:
        """The best `limit` rows holding any of `phrases` (plain tokens), by BM25 (negative: lower is better)."""
        if not phrases:
            return []
        rows = self.db.execute(
            f"SELECT rowid, bm25(records_fts, {FIELD_WEIGHTS}) AS rank FROM records_fts "
            "WHERE records_fts MATCH ? ORDER BY rank LIMIT ?",
            [" OR ".join(f'"{p}"' for p in phrases), limit],
        ).fetchall()
        return [(int(r), float(rank)) for r, rank in rows]

    def _doc_freq(self, tokens: list[str]) -> dict[str, int]:
        """How many records hold each token, as the index counts it (stemmed as it stems).

        Counted once per store version: the same words come back query after query, and a
        count costs as much as the word is common.
        """
        version = self.version
        if self._df_version != version or len(self._df) > DF_CACHE:
            self._df, self._df_version = {}, version
        for t in tokens:
            if t not in self._df:
                row = self.db.execute(
                    "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?", [f'"{t}"']
                ).fetchone()
                self._df[t] = int(row[0])
        return {t: self._df[t] for t in tokens}

    # ---- votes ----------------------------------------------------------------------------

    def tallies(self, record_id: str) -> dict[str, Tally]:
        """Team votes per workaround key of one record."""
        rows = self.db.execute(
            "SELECT wkey, sum(value = 1), sum(value = -1) FROM votes WHERE record_id = ? GROUP BY wkey",
            [record_id],
        ).fetchall()
        return {wkey: Tally(int(up), int(down)) for wkey, up, down in rows}

    def all_tallies(self) -> dict[tuple[str, str], Tally]:
        rows = self.db.execute(
            "SELECT record_id, wkey, sum(value = 1), sum(value = -1) FROM votes GROUP BY record_id, wkey"
        ).fetchall()
        return {(rid, wkey): Tally(int(up), int(down)) for rid, wkey, up, down in rows}

    def vote(self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int | None) -> int | None:
        """Set, change or (value None) withdraw one user's vote; returns the previous value.

        One statement per case inside one transaction, so concurrent clicks cannot double count.
        """
        if value not in (None, 1, -1):
            raise ValueError("a vote is +1, -1 or None (withdraw)")
        with self.write_transaction():
            if not self.db.execute(
                "SELECT 1 FROM workarounds WHERE record_id = ? AND wkey = ?", [record_id, wkey]
            ).fetchone():
                raise NotFound(f"no workaround {wkey!r} in record {record_id!r}")
            row = self.db.execute(
                "SELECT value FROM votes WHERE reply_key = ? AND record_id = ? AND wkey = ? AND user_id = ?",
                [reply_key, record_id, wkey, user_id],
            ).fetchone()
            previous = int(row[0]) if row else None
            if value is None:
                self.db.execute(
                    "DELETE FROM votes WHERE reply_key = ? AND record_id = ? AND wkey = ? AND user_id = ?",
                    [reply_key, record_id, wkey, user_id],
                )
            else:
                self.db.execute(
                    "INSERT INTO votes (reply_key, record_id, wkey, user_id, value, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (reply_key, record_id, wkey, user_id) "
                    "DO UPDATE SET value = excluded.value, created_at = excluded.created_at",
                    [reply_key, record_id, wkey, user_id, value, now_iso()],
                )
        return previous

    def last_worked(self) -> dict[str, str]:
        """Per record, when its latest standing "worked" vote on one of its workarounds was cast."""
        rows = self.db.execute(
            "SELECT v.record_id, max(v.created_at) FROM votes v JOIN workarounds w "
            "ON w.record_id = v.record_id AND w.wkey = v.wkey WHERE v.value = 1 GROUP BY v.record_id"
        ).fetchall()
        return {str(rid): str(at) for rid, at in rows}

    def votes(self) -> Iterator[Vote]:
        """Every vote held, oldest first (`errfix export --votes`)."""
        cols = ("reply_key", "record_id", "wkey", "user_id", "value", "created_at")
        for row in self.db.execute(f"SELECT {', '.join(cols)} FROM votes ORDER BY created_at, rowid"):
            yield Vote(*row)

    # ---- replies and dedupe ---------------------------------------------------------------

    def record_reply(self, reply: Reply) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO replies (channel, reply_ts, message_ts, thread_ts, record_id, score, locale, "
            "sure, others, note, kind_only, seen, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                reply.channel,
                reply.reply_ts,
                reply.message_ts,
                reply.thread_ts,
                reply.record_id,
                reply.score,
                reply.locale,
                None if reply.sure is None else int(reply.sure),
                json.dumps([[rid, score] for rid, score in reply.others]),
                reply.note,
                int(reply.kind_only),
                reply.seen,
                now_iso(),
            ],
        )
        self.db.conn.commit()

    def reply(self, channel: str, reply_ts: str) -> Reply | None:
        row = self.db.execute(
            "SELECT channel, reply_ts, message_ts, thread_ts, record_id, score, locale, sure, others, note, kind_only, "
            "seen FROM replies WHERE channel = ? AND reply_ts = ?",
            [channel, reply_ts],
        ).fetchone()
        if row is None:
            return None
        channel, reply_ts, message_ts, thread_ts, record_id, score, locale, sure, others, note, kind_only, seen = row
        return Reply(
            str(channel),
            str(reply_ts),
            str(message_ts),
            str(thread_ts),
            str(record_id),
            float(score),
            str(locale),
            sure=None if sure is None else bool(sure),
            others=tuple((str(rid), float(s)) for rid, s in json.loads(others)),
            note=str(note),
            kind_only=bool(kind_only),
            seen=str(seen),
        )

    # ---- stats ----------------------------------------------------------------------------

    def stats(self) -> Stats:
        q = self.db.execute
        by_domain = q("SELECT domain, count(*) FROM records GROUP BY domain ORDER BY 2 DESC, 1").fetchall()
        return Stats(
            records=self.count(),
            by_domain={str(d): int(n) for d, n in by_domain},
            votes_up=int(q("SELECT count(*) FROM votes WHERE value = 1").fetchone()[0]),
            votes_down=int(q("SELECT count(*) FROM votes WHERE value = -1").fetchone()[0]),
            replies=int(q("SELECT count(*) FROM replies").fetchone()[0]),
            learned_aliases=int(q("SELECT count(*) FROM aliases WHERE origin = 'learned'").fetchone()[0]),
            schema_version=self.schema_version(),
            store_version=self.version,
        )


__all__ = ["SCHEMA_VERSION", "ImportSummary", "Reply", "Stats", "Store", "Tally", "Vote", "workaround_key"]


def _search_columns(rec: Record) -> tuple[str, str, str]:
    """The keyword index's aliases, root-cause and tags columns: every wording a record has, both
    languages, Chinese as bigrams (bot.core.cjk) so its words can be met at all."""
    aliases = "\n".join([*rec.aliases, *rec.keywords, *map(cjk_split, [rec.signature_zh or "", *rec.keywords_zh])])
    cause = "\n".join([rec.root_cause, cjk_split(rec.root_cause_zh or "")])
    tags = "\n".join([" ".join(rec.tags), *map(cjk_split, rec.workarounds_zh)])
    return aliases, cause, tags

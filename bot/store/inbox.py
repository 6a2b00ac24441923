"""What errfix has acknowledged to Slack: the keys it has seen and the work it still owes.

Its own SQLite file next to the store (`errfix.db` → `errfix.db-events`), opened by its own
connection on its own thread, so an ack waits on one small transaction and never on matching,
a vote, a re-index or a sync holding the store's write lock.

* `seen`: event ids and (channel, ts) keys, so a retried or repeated event is handled once;
  also claims such as "answered:C1:12.5" (the first to claim a message answers it).
* `jobs`: one row per acknowledged event whose work (an answer, a vote) is not finished, written
  in the same transaction as its `seen` keys: a crash after the ack leaves the row, and the next
  start finishes it (`bot/slack/jobs.py`). The body is kept redacted (#18).

Rows older than the TTL are purged at most once per `purge_every` seconds (indexed, so a purge
costs the rows it deletes, not a scan of the table).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from bot.errors import StoreError

SEEN_TTL = 7 * 86400.0  # longer than any Slack retry, and than people edit old messages
PURGE_EVERY = 600.0

migrations = Migrations("errfix-events")


@migrations()
def m001_seen_and_jobs(db: Database) -> None:
    db.execute("CREATE TABLE seen (key TEXT PRIMARY KEY, seen_at REAL NOT NULL)")
    db.execute("CREATE INDEX seen_at ON seen(seen_at)")
    db.execute(
        """CREATE TABLE jobs (
            key TEXT PRIMARY KEY,
            body TEXT NOT NULL,
            created_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE INDEX jobs_created ON jobs(created_at)")


def events_path(db_path: str) -> str:
    """The inbox file for a store file (an in-memory store gets an in-memory inbox)."""
    return db_path if db_path == ":memory:" else f"{db_path}-events"


@dataclass(frozen=True)
class Job:
    key: str
    body: dict[str, Any]
    created_at: float
    attempts: int


class Inbox:
    """Seen keys and owed jobs; every method is one transaction. Use from one thread."""

    def __init__(
        self,
        path: str | Path,
        *,
        clock: Callable[[], float] = time.time,
        ttl: float = SEEN_TTL,
        purge_every: float = PURGE_EVERY,
    ) -> None:
        self.path, self.clock, self.ttl, self.purge_every = str(path), clock, ttl, purge_every
        self._purged_at: float | None = None
        try:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)  # transactions are ours
            self.db = Database(conn)
            if self.path != ":memory:":
                self.db.enable_wal()
            conn.execute("PRAGMA synchronous = NORMAL")  # a commit survives kill -9 (it is in the OS)
            conn.execute("PRAGMA secure_delete = ON")  # a finished job's body is zeroed, not left free
            migrations.apply(self.db)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable errfix events file ({e})") from None

    def close(self) -> None:
        self.db.conn.close()

    @contextmanager
    def _txn(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE: the check and the write of `accept` see no other writer in between."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def accept(self, keys: Iterable[str], job: tuple[str, dict[str, Any]] | None = None) -> bool:
        """Mark `keys` seen and, with `job` (key, body), record the work owed, in one transaction;
        False (and nothing written) when any key was seen before."""
        keys = list(keys)
        now = self.clock()
        self._maybe_purge(now)
        with self._txn():
            marks = ",".join("?" * len(keys))
            if keys and self.db.execute(f"SELECT 1 FROM seen WHERE key IN ({marks})", keys).fetchone():
                return False
            self.db.conn.executemany("INSERT INTO seen (key, seen_at) VALUES (?, ?)", [(k, now) for k in keys])
            if job is not None:
                key, body = job
                self.db.execute(
                    "INSERT OR REPLACE INTO jobs (key, body, created_at, attempts) VALUES (?, ?, ?, 0)",
                    [key, json.dumps(body, ensure_ascii=False), now],
                )
        return True

    def release(self, keys: Iterable[str]) -> None:
        """Forget `keys` (a claim whose work was lost, so that a replay may claim it again)."""
        keys = list(keys)
        with self._txn():
            self.db.conn.executemany("DELETE FROM seen WHERE key = ?", [(k,) for k in keys])

    def is_seen(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM seen WHERE key = ?", [key]).fetchone() is not None

    def finish(self, key: str) -> bool:
        """The job's work is done (or given up on); True if it was still owed."""
        with self._txn():
            return self.db.execute("DELETE FROM jobs WHERE key = ?", [key]).rowcount > 0

    def attempt(self, key: str) -> int:
        """Count one more try of a job; its number of tries so far (0 if it is not owed)."""
        with self._txn():
            self.db.execute("UPDATE jobs SET attempts = attempts + 1 WHERE key = ?", [key])
            row = self.db.execute("SELECT attempts FROM jobs WHERE key = ?", [key]).fetchone()
        return int(row[0]) if row else 0

    def pending(self, *, older_than: float = 0.0) -> list[Job]:
        """Owed jobs accepted at least `older_than` seconds ago, oldest first."""
        rows = self.db.execute(
            "SELECT key, body, created_at, attempts FROM jobs WHERE created_at <= ? ORDER BY created_at, key",
            [self.clock() - older_than],
        ).fetchall()
        return [Job(str(k), json.loads(b), float(c), int(a)) for k, b, c, a in rows]

    def counts(self) -> tuple[int, int]:
        """(seen keys, owed jobs)."""
        seen = int(self.db.execute("SELECT count(*) FROM seen").fetchone()[0])
        jobs = int(self.db.execute("SELECT count(*) FROM jobs").fetchone()[0])
        return seen, jobs

    def purge(self, now: float | None = None) -> tuple[int, int]:
        """Delete seen keys and jobs older than the TTL; (seen, jobs) deleted. A job that old was
        tried at every start since: it is given up on."""
        now = self.clock() if now is None else now
        deleted = self.purge_before(now - self.ttl)
        self._purged_at = now
        return deleted

    def purge_before(self, cut: float) -> tuple[int, int]:
        """Delete seen keys and jobs from before `cut` (epoch seconds: the retention's cut)."""
        with self._txn():
            seen = self.db.execute("DELETE FROM seen WHERE seen_at < ?", [cut]).rowcount
            jobs = self.db.execute("DELETE FROM jobs WHERE created_at < ?", [cut]).rowcount
        return seen, jobs

    def forget_channel(self, channel: str) -> tuple[int, int]:
        """Delete a channel's keys (msg:C:ts, answered:C:ts, secret-notice:C:ts; event ids name no
        channel) and the jobs of its events (messages, and reactions to messages there)."""
        with self._txn():
            seen = self.db.execute("DELETE FROM seen WHERE instr(key, ?) > 0", [f":{channel}:"]).rowcount
            jobs = self.db.execute(
                "DELETE FROM jobs WHERE json_extract(body, '$.event.channel') = ?"
                " OR json_extract(body, '$.event.item.channel') = ?",
                [channel, channel],
            ).rowcount
        return seen, jobs

    def _maybe_purge(self, now: float) -> None:
        if self._purged_at is None or now - self._purged_at >= self.purge_every:
            self.purge(now)

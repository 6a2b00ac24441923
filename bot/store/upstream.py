"""The store side of `errfix sync URL`: what was last fetched from each upstream, and the write.

`Upstreams(store)` keeps, per upstream URL, the validators of the last copy written (ETag,
Last-Modified) and the hash of its body (table `sync_state`, schema.py m003), so an unchanged
upstream costs a 304 or nothing, and writes a validated upstream in one transaction: records
added or changed upstream are upserted, records an earlier sync brought in that upstream no
longer has are removed; the team's votes and learned aliases stay (votes wait for a record that
comes back). Bundled seeds and records imported by hand are the team's, not upstream's: a sync
never removes them. Fetching and validating is bot/ops/sync.py's job.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bot.core.records import Record
from bot.store import audit
from bot.store.store import Store, now_iso

ORIGIN = "sync"


@dataclass(frozen=True)
class SyncState:
    url: str
    etag: str | None
    last_modified: str | None
    body_hash: str
    records: int
    synced_at: str
    checked_at: str


@dataclass(frozen=True)
class Fetched:
    """An upstream body as it came, with the validators to send next time."""

    url: str
    body: bytes
    etag: str | None = None
    last_modified: str | None = None
    content_type: str = ""

    @property
    def body_hash(self) -> str:
        return hashlib.sha256(self.body).hexdigest()


@dataclass
class SyncReport:
    url: str
    status: str  # "updated", "unchanged" (same body, or same records), "not_modified" (304)
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    def line(self) -> str:
        where = display_url(self.url)
        if self.status == "not_modified":
            return f"{where}: not modified since the last sync (HTTP 304); nothing to do"
        if self.status == "unchanged" and not (self.added or self.changed or self.removed):
            return f"{where}: {self.unchanged} record(s), unchanged since the last sync"
        return (
            f"{where}: {len(self.added)} added, {len(self.changed)} changed, {len(self.removed)} removed, "
            f"{self.unchanged} unchanged"
        )


def display_url(url: str) -> str:
    """The URL without credentials or query string (either may hold a token), for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}" + ("?…" if parts.query else "")


def state_key(url: str) -> str:
    """How `sync_state` names an upstream: the URL as given, or, when it holds credentials or a
    query (either may be a token), the URL without them and a digest of the whole, so no secret of
    ERRFIX_SYNC_URL is kept in the database (#18) and each URL still has its own state."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None and not parts.query:
        return url
    return f"{display_url(url)}#{hashlib.sha256(url.encode()).hexdigest()[:16]}"


class Upstreams:
    """Sync state and sync writes over one store (used from its thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def state(self, url: str) -> SyncState | None:
        row = self.db.execute(
            "SELECT url, etag, last_modified, body_hash, records, synced_at, checked_at FROM sync_state WHERE url = ?",
            [state_key(url)],
        ).fetchone()
        return SyncState(*row) if row else None

    def _write_state(self, fetched: Fetched, records: int, synced_at: str) -> None:
        if state_key(fetched.url) != fetched.url:  # a row an older errfix keyed by the URL with its secrets
            self.db.execute("DELETE FROM sync_state WHERE url = ?", [fetched.url])
        self.db.execute(
            "INSERT OR REPLACE INTO sync_state (url, etag, last_modified, body_hash, records, synced_at, "
            "checked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                state_key(fetched.url),
                fetched.etag,
                fetched.last_modified,
                fetched.body_hash,
                records,
                synced_at,
                now_iso(),
            ],
        )

    def _begin(self) -> None:
        """A sync takes the write lock first (BEGIN IMMEDIATE, see `Store.write_transaction`): one run
        from the CLI next to a serving errfix waits for it instead of failing on a lock upgrade."""
        if self.db.conn.in_transaction:
            raise RuntimeError("a sync must not run inside another transaction")

    def apply(self, fetched: Fetched, records: list[Record], *, actor: str = audit.SYSTEM) -> SyncReport:
        """Write a validated upstream in one transaction (see the module docstring for what changes);
        a sync that changed records is audited as `actor`'s in that transaction."""
        incoming = {rec.id for rec in records}
        self._begin()
        with self.store.write_transaction():
            owned = self.store.ids_with_origin(ORIGIN)
            # the team's records (seeds, hand imports) go through unchanged, so replace_all keeps them
            kept = [rec for rec in self.store.records() if rec.id not in incoming and rec.id not in owned]
            summary = self.store.import_records([*records, *kept], origin=ORIGIN, replace_all=True)
            self._write_state(fetched, len(records), now_iso())
            if summary.added or summary.changed or summary.removed:
                counts = {"added": len(summary.added), "changed": len(summary.changed)}
                detail = {**counts, "removed": len(summary.removed), "removed_ids": summary.removed[:100]}
                audit.write(self.db, actor=actor, action="sync", target=display_url(fetched.url), detail=detail)
        status = "updated" if summary.added or summary.changed or summary.removed else "unchanged"
        return SyncReport(
            fetched.url,
            status,
            summary.added,
            summary.changed,
            summary.removed,
            unchanged=len(summary.unchanged) - len(kept),
        )

    def note_same_body(self, fetched: Fetched) -> SyncReport:
        """Upstream sent the body already written (a server without ETag support): only remember it."""
        self._begin()
        with self.store.write_transaction():
            state = self.state(fetched.url)
            records = state.records if state else 0
            self._write_state(fetched, records, state.synced_at if state else now_iso())
        return SyncReport(fetched.url, "unchanged", unchanged=records)

    def not_modified(self, url: str) -> SyncReport:
        """A 304: remember when upstream was last asked."""
        with self.store.write_transaction():
            self.db.execute("UPDATE sync_state SET checked_at = ? WHERE url = ?", [now_iso(), state_key(url)])
        state = self.state(url)
        return SyncReport(url, "not_modified", unchanged=state.records if state else 0)

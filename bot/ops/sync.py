"""`errfix sync URL`: keep the records in step with an upstream file served over HTTP.

The upstream is one JSON (object or list) or JSONL file in the record format. A sync

1. fetches it with aiohttp, sending the ETag / Last-Modified of the last copy written
   (`If-None-Match`, `If-Modified-Since`), so an unchanged upstream costs a 304;
2. validates every record exactly as `errfix import` does (bot/store/files.py), before any write:
   one bad record and nothing is written;
3. writes in one transaction: records added or changed upstream are upserted, records an
   earlier sync brought in that upstream no longer has are removed; the team's votes and learned
   aliases stay (votes wait for a record that comes back). Bundled seeds and records imported by
   hand are the team's, not upstream's: a sync never removes them.

An upstream with no records is refused (an emptied file is far likelier a mistake than a wish to
remove every record). Store functions here run on whichever thread owns the store: the CLI's,
or `errfix serve`'s worker (see `sync_once`'s `on_store`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar
from urllib.parse import urlsplit

import aiohttp

from bot import __version__
from bot.core.records import Record
from bot.errors import ErrfixError, InvalidRecords
from bot.store.files import DEFAULT_MAX_BYTES, load
from bot.store.store import Store, now_iso

ORIGIN = "sync"
ACCEPT = "application/json, application/x-ndjson, application/jsonl, text/plain;q=0.5, */*;q=0.1"
T = TypeVar("T")


class OnStore(Protocol):
    """Runs `fn(store)` on the thread that owns the store: the CLI's own, or serve's worker."""

    def __call__(self, fn: Callable[[Store], T], /) -> Awaitable[T]: ...


class SyncError(ErrfixError):
    """The upstream could not be fetched (network, timeout, HTTP status, size); nothing was written."""


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


# ---- state -----------------------------------------------------------------------------------


def read_state(store: Store, url: str) -> SyncState | None:
    row = store.db.execute(
        "SELECT url, etag, last_modified, body_hash, records, synced_at, checked_at FROM sync_state WHERE url = ?",
        [url],
    ).fetchone()
    return SyncState(*row) if row else None


def _write_state(store: Store, fetched: Fetched, records: int, synced_at: str) -> None:
    store.db.execute(
        "INSERT OR REPLACE INTO sync_state (url, etag, last_modified, body_hash, records, synced_at, checked_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [fetched.url, fetched.etag, fetched.last_modified, fetched.body_hash, records, synced_at, now_iso()],
    )


def mark_checked(store: Store, url: str) -> None:
    """A 304: remember when upstream was last asked."""
    with store.db.atomic():
        store.db.execute("UPDATE sync_state SET checked_at = ? WHERE url = ?", [now_iso(), url])


# ---- fetch -----------------------------------------------------------------------------------


async def fetch(
    url: str, state: SyncState | None, *, timeout: float = 60, max_bytes: int = DEFAULT_MAX_BYTES
) -> Fetched | None:
    """The upstream body, or None when it answers 304 Not Modified. Raises SyncError."""
    headers = {"Accept": ACCEPT, "User-Agent": f"errfix/{__version__} (+errfix sync)"}
    if state is not None and state.etag:
        headers["If-None-Match"] = state.etag
    if state is not None and state.last_modified:
        headers["If-Modified-Since"] = state.last_modified
    where = display_url(url)
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session,
            session.get(url, headers=headers) as resp,
        ):
            if resp.status == 304:
                return None
            if resp.status != 200:
                raise SyncError(f"{where}: upstream answered HTTP {resp.status} {resp.reason or ''}".rstrip())
            body = await _read_bounded(resp, max_bytes, where)
            return Fetched(
                url,
                body,
                resp.headers.get("ETag"),
                resp.headers.get("Last-Modified"),
                resp.headers.get("Content-Type", ""),
            )
    except TimeoutError:
        raise SyncError(f"{where}: no complete answer within {timeout:g}s") from None
    except aiohttp.ClientError as e:
        raise SyncError(f"{where}: cannot fetch ({type(e).__name__}: {e})") from None


async def _read_bounded(resp: aiohttp.ClientResponse, max_bytes: int, where: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > max_bytes:
            raise SyncError(f"{where}: larger than {max_bytes / 1e6:.0f} MB; refusing it")
        chunks.append(chunk)
    return b"".join(chunks)


# ---- parse and validate ------------------------------------------------------------------------


def _suffix(fetched: Fetched) -> str:
    """.json or .jsonl: by the URL's name, else by the body (a list or one object is .json)."""
    path = urlsplit(fetched.url).path.lower()
    if path.endswith((".jsonl", ".ndjson")):
        return ".jsonl"
    if path.endswith(".json"):
        return ".json"
    if any(t in fetched.content_type for t in ("ndjson", "jsonl", "jsonlines")):
        return ".jsonl"
    head = fetched.body.lstrip()[:1]
    if head == b"[":
        return ".json"
    # one object spread over several lines is .json; objects one per line are .jsonl
    first_line = fetched.body.lstrip().split(b"\n", 1)[0].strip()
    return ".jsonl" if first_line.endswith(b"}") else ".json"


def parse(fetched: Fetched, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[list[Record], list[str]]:
    """Every record of the body, validated as `errfix import` validates a file, and the warnings.

    Raises InvalidRecords (every problem, as `URL:line: id: field: message`) or SyncError.
    """
    where = display_url(fetched.url)
    with tempfile.TemporaryDirectory(prefix="errfix-sync-") as tmp:
        path = Path(tmp) / ("upstream" + _suffix(fetched))
        path.write_bytes(fetched.body)
        result = load([path], max_bytes=max_bytes)
        problems = [p.replace(str(path), where) for p in result.problems]
        warnings = [w.replace(str(path), where) for w in result.warnings]
    if problems:
        raise InvalidRecords(problems)
    if not result.records:
        raise SyncError(f"{where}: no records in it; refusing to remove every synced record")
    return [rec for _, rec in result.records], warnings


# ---- write -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _write_lock(store: Store) -> Iterator[None]:
    """One transaction that takes the write lock first (BEGIN IMMEDIATE): a sync run from the CLI
    next to a serving errfix waits for it instead of failing on a lock upgrade."""
    if store.db.conn.in_transaction:
        raise RuntimeError("a sync must not run inside another transaction")
    store.db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        store.db.conn.rollback()
        raise
    store.db.execute("COMMIT")


def apply(store: Store, fetched: Fetched, records: list[Record]) -> SyncReport:
    """Write a validated upstream in one transaction (see the module docstring for what changes)."""
    incoming = {rec.id for rec in records}
    with _write_lock(store):
        owned = {rid for (rid,) in store.db.execute("SELECT id FROM records WHERE origin = ?", [ORIGIN])}
        # the team's records (seeds, hand imports) go through unchanged, so replace_all keeps them
        kept = [rec for rec in store.records() if rec.id not in incoming and rec.id not in owned]
        summary = store.import_records([*records, *kept], origin=ORIGIN, replace_all=True)
        _write_state(store, fetched, len(records), now_iso())
    status = "updated" if summary.added or summary.changed or summary.removed else "unchanged"
    return SyncReport(
        fetched.url,
        status,
        summary.added,
        summary.changed,
        summary.removed,
        unchanged=len(summary.unchanged) - len(kept),
    )


def note_same_body(store: Store, fetched: Fetched) -> SyncReport:
    """Upstream sent the body already written (a server without ETag support): only remember it."""
    with _write_lock(store):
        state = read_state(store, fetched.url)
        records = state.records if state else 0
        _write_state(store, fetched, records, state.synced_at if state else now_iso())
    return SyncReport(fetched.url, "unchanged", unchanged=records)


def not_modified(store: Store, url: str) -> SyncReport:
    mark_checked(store, url)
    state = read_state(store, url)
    return SyncReport(url, "not_modified", unchanged=state.records if state else 0)


async def sync_once(
    url: str, on_store: OnStore, *, timeout: float = 60, max_bytes: int = DEFAULT_MAX_BYTES
) -> SyncReport:
    """Fetch, validate (off the event loop) and write `url`'s records; raises SyncError or
    InvalidRecords with nothing written.

    `on_store(fn)` runs `fn(store)` on the thread that owns the store and returns its result.
    """
    state = await on_store(lambda store: read_state(store, url))
    fetched = await fetch(url, state, timeout=timeout, max_bytes=max_bytes)
    if fetched is None:
        return await on_store(lambda store: not_modified(store, url))
    if state is not None and state.body_hash == fetched.body_hash:
        return await on_store(lambda store: note_same_body(store, fetched))
    records, warnings = await asyncio.to_thread(parse, fetched, max_bytes)
    report = await on_store(lambda store: apply(store, fetched, records))
    report.warnings = warnings
    return report

"""`errfix sync URL`: keep the records in step with an upstream file served over HTTP.

The upstream is one JSON (object or list) or JSONL file in the record format. A sync

1. fetches it with aiohttp, sending the ETag / Last-Modified of the last copy written
   (`If-None-Match`, `If-Modified-Since`), so an unchanged upstream costs a 304;
2. validates every record exactly as `errfix import` does (bot/store/files.py), before any write:
   one bad record and nothing is written;
3. has the service write it in one transaction (bot/store/upstream.py says what changes).

An upstream with no records is refused (an emptied file is far likelier a mistake than a wish to
remove every record). The writes go through a `SyncTarget`: `AsyncErrfix` in `errfix serve` (its
one thread), or `Inline(Errfix)` for the CLI.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import aiohttp

from bot import __version__
from bot.core.records import Record
from bot.errors import ErrfixError, InvalidRecords
from bot.service.errfix import Errfix
from bot.store.files import DEFAULT_MAX_BYTES, load
from bot.store.upstream import ORIGIN, Fetched, SyncReport, SyncState, display_url

__all__ = ["ORIGIN", "Fetched", "Inline", "SyncError", "SyncReport", "SyncState", "display_url", "sync_once"]
ACCEPT = "application/json, application/x-ndjson, application/jsonl, text/plain;q=0.5, */*;q=0.1"


class SyncTarget(Protocol):
    """The service steps of a sync, each run on the thread that owns the store."""

    async def sync_state(self, url: str) -> SyncState | None: ...

    async def sync_not_modified(self, url: str) -> SyncReport: ...

    async def sync_same_body(self, fetched: Fetched) -> SyncReport: ...

    async def sync_apply(self, fetched: Fetched, records: list[Record]) -> SyncReport: ...


class Inline:
    """An `Errfix` as a `SyncTarget` for the CLI: its steps run on the caller's own thread."""

    def __init__(self, errfix: Errfix) -> None:
        self.errfix = errfix

    async def sync_state(self, url: str) -> SyncState | None:
        return self.errfix.sync_state(url)

    async def sync_not_modified(self, url: str) -> SyncReport:
        return self.errfix.sync_not_modified(url)

    async def sync_same_body(self, fetched: Fetched) -> SyncReport:
        return self.errfix.sync_same_body(fetched)

    async def sync_apply(self, fetched: Fetched, records: list[Record]) -> SyncReport:
        return self.errfix.sync_apply(fetched, records)


class SyncError(ErrfixError):
    """The upstream could not be fetched (network, timeout, HTTP status, size); nothing was written."""


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


def parse(
    fetched: Fetched, max_bytes: int = DEFAULT_MAX_BYTES, *, skip_invalid: bool = False
) -> tuple[list[Record], list[str]]:
    """Every record of the body, validated as `errfix import` validates a file, and the warnings.

    Raises InvalidRecords (every problem, as `URL:line: id: field: message`) or SyncError; with
    `skip_invalid` the invalid records are left out and each problem becomes a warning.
    """
    where = display_url(fetched.url)
    with tempfile.TemporaryDirectory(prefix="errfix-sync-") as tmp:
        path = Path(tmp) / ("upstream" + _suffix(fetched))
        path.write_bytes(fetched.body)
        result = load([path], max_bytes=max_bytes)
        problems = [p.replace(str(path), where) for p in result.problems]
        warnings = [w.replace(str(path), where) for w in result.warnings]
    if problems and not skip_invalid:
        raise InvalidRecords(problems)
    warnings += [f"skipped: {p}" for p in problems]
    if not result.records:
        raise SyncError(f"{where}: no records in it; refusing to remove every synced record")
    return [rec for _, rec in result.records], warnings


async def sync_once(
    url: str,
    target: SyncTarget,
    *,
    timeout: float = 60,
    max_bytes: int = DEFAULT_MAX_BYTES,
    skip_invalid: bool = False,
) -> SyncReport:
    """Fetch, validate (off the event loop) and write `url`'s records through `target`; raises
    SyncError or InvalidRecords with nothing written. `skip_invalid` writes the valid records and
    reports the others as warnings (see parse)."""
    state = await target.sync_state(url)
    fetched = await fetch(url, state, timeout=timeout, max_bytes=max_bytes)
    if fetched is None:
        return await target.sync_not_modified(url)
    if state is not None and state.body_hash == fetched.body_hash:
        return await target.sync_same_body(fetched)
    records, warnings = await asyncio.to_thread(lambda: parse(fetched, max_bytes, skip_invalid=skip_invalid))
    report = await target.sync_apply(fetched, records)
    report.warnings = warnings
    return report

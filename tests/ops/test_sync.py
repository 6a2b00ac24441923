"""`errfix sync URL` against a real HTTP server on 127.0.0.1: 200, 304, a broken file, a timeout and a
5xx. Whatever happens, the store is either fully updated or exactly as it was."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from bot.core.views import workaround_key
from bot.errors import InvalidRecords
from bot.ops.doctor import check_sync
from bot.ops.sync import Inline, SyncError, SyncReport, display_url, sync_once
from bot.service.errfix import Errfix
from bot.store import open_store
from bot.store.store import Store
from bot.store.upstream import Upstreams
from tests.conftest import Cli, db_state, full, minimal
from tests.ops.conftest import Upstream, upstream_records

T = TypeVar("T")
ALICE_ID = "U_ALICE"


async def sync(db: Path, url: str, timeout: float = 10) -> SyncReport:
    """One sync the way the CLI runs it: the store on this thread."""
    svc = Errfix.open(db)
    try:
        return await sync_once(url, Inline(svc), timeout=timeout)
    finally:
        svc.close()


def seeded(db: Path) -> int:
    store = open_store(db)
    try:
        return store.count()
    finally:
        store.close()


async def test_200_adds_the_upstream_records_and_keeps_the_seeds(upstream: Upstream, db: Path) -> None:
    seeds = seeded(db)
    upstream.serve_records(upstream_records())
    report = await sync(db, upstream.url())
    assert report.status == "updated"
    assert (sorted(report.added), report.changed, report.removed) == (["up/one", "up/three", "up/two"], [], [])
    assert report.line().endswith("3 added, 0 changed, 0 removed, 0 unchanged")
    store = Store(db)
    assert store.count() == seeds + 3 and store.get("up/one").signature.startswith("UpOneError")
    state = Upstreams(store).state(upstream.url())
    assert state is not None and state.etag == upstream.etag and state.records == 3
    store.close()


async def test_a_second_sync_is_conditional_and_a_304_writes_nothing(upstream: Upstream, db: Path) -> None:
    upstream.serve_records(upstream_records())
    await sync(db, upstream.url())
    before = db_state(db)
    report = await sync(db, upstream.url())
    sent = upstream.requests[-1]
    assert sent["If-None-Match"] == upstream.etag and sent["If-Modified-Since"] == upstream.last_modified
    assert report.status == "not_modified" and "304" in report.line()
    assert db_state(db) == before


async def test_the_same_body_without_validators_changes_nothing(upstream: Upstream, db: Path) -> None:
    upstream.serve_records(upstream_records(), etag=False)
    await sync(db, upstream.url())
    before = db_state(db)
    report = await sync(db, upstream.url())
    assert "If-None-Match" not in upstream.requests[-1]
    assert report.status == "unchanged" and "3 record(s), unchanged" in report.line()
    assert db_state(db) == before


async def test_upstream_changes_are_counted_and_votes_and_learned_aliases_stay(upstream: Upstream, db: Path) -> None:
    records = upstream_records()
    upstream.serve_records(records)
    await sync(db, upstream.url())
    store = Store(db)
    wkey = workaround_key(store.get("up/one").workarounds[0].action)
    store.vote("C1:1.0", "up/one", wkey, ALICE_ID, 1)
    store.db.execute(
        "INSERT INTO aliases (record_id, alias, origin, created_by, created_at) VALUES (?, ?, 'learned', ?, 'now')",
        ["up/one", "UpOneError: as the team pasted it", ALICE_ID],
    )
    store.db.conn.commit()
    store.close()

    changed = full("up/one", signature="UpOneError: the first upstream error, reworded", regex="UpOneError: the first")
    upstream.serve_records([changed, records[1], minimal("up/four")])  # up/three is gone upstream
    report = await sync(db, upstream.url())
    counts = (report.added, report.changed, report.removed, report.unchanged)
    assert counts == (["up/four"], ["up/one"], ["up/three"], 1)

    store = Store(db)
    assert not store.has("up/three") and store.get("up/one").signature.endswith("reworded")
    assert store.tallies("up/one")[wkey].up == 1
    assert store.learned_aliases()["up/one"] == ["UpOneError: as the team pasted it"]
    store.close()

    upstream.serve_records([changed, records[1], minimal("up/four"), records[2]])  # it comes back
    assert (await sync(db, upstream.url())).added == ["up/three"]


async def test_a_sync_never_removes_seeds_or_records_imported_by_hand(
    upstream: Upstream, db: Path, tmp_path: Path, cli: Cli
) -> None:
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps(minimal("team/own")) + "\n", encoding="utf-8")
    assert cli("import", own, "--db", db).code == 0
    seeds_and_own = seeded(db)
    upstream.serve_records(upstream_records())
    await sync(db, upstream.url())
    upstream.serve_records([minimal("up/two")])
    report = await sync(db, upstream.url())
    assert sorted(report.removed) == ["up/one", "up/three"] and report.added == report.changed == []
    store = Store(db)
    assert store.has("team/own") and store.count() == seeds_and_own + 1
    store.close()


@pytest.mark.parametrize(
    ("body", "fmt"),
    [
        (("[\n" + json.dumps(minimal("up/a")) + ",\n" + json.dumps(minimal("up/b")) + "\n]").encode(), "list"),
        (json.dumps(minimal("up/a"), indent=2).encode(), "object"),
        ((json.dumps(minimal("up/a")) + "\n" + json.dumps(minimal("up/b")) + "\n").encode(), "lines"),
    ],
    ids=["json-list", "json-object", "jsonl"],
)
async def test_json_and_jsonl_are_told_apart_without_a_file_suffix(
    upstream: Upstream, db: Path, body: bytes, fmt: str
) -> None:
    upstream.body, upstream.content_type = body, "text/plain"
    report = await sync(db, upstream.url("records"))
    assert sorted(report.added) == (["up/a"] if fmt == "object" else ["up/a", "up/b"])


# ---- failures: nothing is written ------------------------------------------------------------


async def refused(
    db: Path,
    upstream: Upstream,
    breaks: Callable[[], object],
    error: type[Exception],
    match: str,
    timeout: float = 10,
    name: str = "records.jsonl",
) -> pytest.ExceptionInfo[Exception]:
    """After a good sync, `breaks()` the upstream: the next sync raises `error` and leaves records,
    votes and the sync state (so the one after refetches in full) exactly as they were."""
    url = upstream.url(name)
    upstream.serve_records(upstream_records(), fmt="jsonl" if name.endswith(".jsonl") else "json")
    assert (await sync(db, url)).status == "updated"
    before = db_state(db)
    store = Store(db)
    state = Upstreams(store).state(url)
    store.close()
    breaks()
    with pytest.raises(error, match=match) as info:
        await sync(db, url, timeout=timeout)
    assert db_state(db) == before
    store = Store(db)
    assert Upstreams(store).state(url) == state
    store.close()
    return info


async def test_a_broken_file_writes_nothing(upstream: Upstream, db: Path) -> None:
    def cut_in_half() -> None:
        upstream.body = upstream.body[: len(upstream.body) // 2] + b"\n{not json\n"
        upstream.etag = '"broken"'

    info = await refused(db, upstream, cut_in_half, InvalidRecords, "nothing was written")
    problems = info.value.problems  # type: ignore[attr-defined]
    assert any("not valid JSON" in p and p.startswith(upstream.url()) for p in problems), problems


async def test_one_invalid_record_writes_nothing_and_every_problem_is_listed(upstream: Upstream, db: Path) -> None:
    bad = [*upstream_records(), minimal("up/new"), {"id": "up/bad", "signature": "x"}, minimal("up/one")]
    info = await refused(db, upstream, lambda: upstream.serve_records(bad), InvalidRecords, "nothing was written")
    problems = info.value.problems  # type: ignore[attr-defined]
    assert any(p.startswith(f"{upstream.url()}:5: up/bad: regex:") for p in problems), problems
    assert any(p.startswith(f"{upstream.url()}:6: up/one: id: duplicate id") for p in problems), problems


async def test_an_upstream_with_no_records_is_refused(upstream: Upstream, db: Path) -> None:
    def empty() -> None:
        upstream.body, upstream.etag, upstream.content_type = b"[]", '"empty"', "application/json"

    await refused(db, upstream, empty, SyncError, "no records", name="records.json")


async def test_a_5xx_writes_nothing(upstream: Upstream, db: Path) -> None:
    def fail() -> None:
        upstream.status, upstream.etag = 503, None

    await refused(db, upstream, fail, SyncError, "HTTP 503")


async def test_a_timeout_writes_nothing(upstream: Upstream, db: Path) -> None:
    def never_answer() -> None:
        upstream.hold = asyncio.Event()

    await refused(db, upstream, never_answer, SyncError, "no complete answer within 0.5s", timeout=0.5)


async def test_an_unreachable_upstream_writes_nothing(db: Path) -> None:
    seeded(db)
    before = db_state(db)
    with pytest.raises(SyncError, match="cannot fetch"):
        await sync(db, "http://127.0.0.1:9/records.jsonl")
    assert db_state(db) == before


def test_urls_are_shown_without_credentials_or_query() -> None:
    assert display_url("https://bot:s3cret@example.com:8443/kb/records.jsonl?token=abc") == (
        "https://example.com:8443/kb/records.jsonl?…"
    )


# ---- the command ---------------------------------------------------------------------------


async def test_errfix_sync_prints_the_counts_and_exit_codes(upstream: Upstream, db: Path, cli: Cli) -> None:
    """The command in a thread: the upstream server runs on this test's event loop."""
    upstream.serve_records(upstream_records())
    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db)
    assert r.code == 0, r.err
    assert r.out.strip() == f"synced {upstream.url()}: 3 added, 0 changed, 0 removed, 0 unchanged"
    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db)
    assert r.code == 0 and "not modified" in r.out

    upstream.status, upstream.etag = 500, None
    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db)
    assert r.code == 1 and r.err.strip().endswith("nothing was written") and "HTTP 500" in r.err

    upstream.serve_records([{"id": "up/bad"}])
    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db)
    assert r.code == 2 and "nothing was written" in r.err_lines[-1]
    assert r.err_lines[0].startswith(f"{upstream.url()}:1: up/bad: signature:")


PASSWORD, TOKEN = "Wq8z" + "Lp3vRt6n", "ghp_" + "R2d8Kq7Lm3Np9Xs4Tv6Wy1Zb5Cf0Hj2Gk8Qe"


def _with_secrets(url: str) -> str:
    return url.replace("http://", f"http://sync:{PASSWORD}@") + f"?access_token={TOKEN}"


async def test_an_upstream_url_with_credentials_is_kept_without_them(upstream: Upstream, db: Path) -> None:
    """ERRFIX_SYNC_URL may carry a password or a token (#18): the sync state is found again by it,
    `errfix doctor` reads it, and neither is in the database file."""
    upstream.serve_records(upstream_records())
    url = _with_secrets(upstream.url())
    assert (await sync(db, url)).status == "updated"
    assert (await sync(db, url)).status == "not_modified"  # its validators were found under its new name
    assert upstream.requests[-1]["If-None-Match"] == upstream.etag
    assert check_sync(db, url).status == "ok"
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*") if p.is_file())
    assert PASSWORD.encode() not in raw and TOKEN.encode() not in raw


async def test_a_sync_state_an_older_errfix_kept_with_the_secrets_is_replaced(upstream: Upstream, db: Path) -> None:
    upstream.serve_records(upstream_records())
    url = _with_secrets(upstream.url())
    store = Store(db)
    store.db.execute(
        "INSERT INTO sync_state (url, body_hash, records, synced_at, checked_at) VALUES (?, 'x', 0, 'then', 'then')",
        [url],
    )
    store.db.conn.commit()
    store.close()
    assert (await sync(db, url)).status == "updated"
    store = Store(db)
    try:
        [(kept,)] = store.db.execute("SELECT url FROM sync_state").fetchall()
    finally:
        store.close()
    assert PASSWORD not in kept and TOKEN not in kept and kept.startswith("http://127.0.0.1:")

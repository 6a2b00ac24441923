"""Fixtures for the operator features: a real upstream HTTP server on 127.0.0.1 for `errfix sync`,
the strict fake Slack, `errfix serve` as a real process, and a log capture that restores logging.

Nothing is mocked: the upstream is an aiohttp server whose answers a test sets (status, body,
ETag, a hold that never answers for the timeout case); the database is a real SQLite file.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web

from bot.fakeslack.web_api import FakeSlack, User
from tests.conftest import full, minimal

ALICE = "U_ALICE"


@dataclass
class Upstream:
    """What the upstream answers next, and the requests it got."""

    body: bytes = b""
    status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    content_type: str = "application/x-ndjson"
    hold: asyncio.Event | None = None  # when set, requests wait for it before answering
    requests: list[dict[str, str]] = field(default_factory=list)
    root: str = ""

    def url(self, name: str = "records.jsonl") -> str:
        return f"{self.root}{name}"

    def serve_records(self, records: list[dict[str, Any]], *, fmt: str = "jsonl", etag: bool = True) -> None:
        if fmt == "jsonl":
            self.body = "".join(json.dumps(r) + "\n" for r in records).encode()
        else:
            self.body = json.dumps(records, indent=2).encode()
        self.etag = f'"{hashlib.sha256(self.body).hexdigest()[:16]}"' if etag else None
        self.last_modified = "Sun, 01 Nov 2026 10:00:00 GMT" if etag else None
        self.status = 200

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(dict(request.headers))
        if self.hold is not None:
            await self.hold.wait()
        if self.etag and request.headers.get("If-None-Match") == self.etag:
            return web.Response(status=304, headers={"ETag": self.etag})
        if self.status != 200:
            return web.Response(status=self.status, text="upstream trouble")
        headers = {"Content-Type": self.content_type}
        if self.etag:
            headers["ETag"] = self.etag
        if self.last_modified:
            headers["Last-Modified"] = self.last_modified
        return web.Response(body=self.body, headers=headers)


@pytest_asyncio.fixture
async def upstream() -> AsyncIterator[Upstream]:
    up = Upstream()
    app = web.Application()
    app.router.add_get("/{name}", up.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    up.root = f"http://127.0.0.1:{runner.addresses[0][1]}/"
    yield up
    if up.hold is not None:
        up.hold.set()
    await runner.cleanup()


def upstream_records() -> list[dict[str, Any]]:
    """Three records of an upstream knowledge base."""
    return [
        full("up/one", signature="UpOneError: the first upstream error", regex="UpOneError: the first"),
        minimal("up/two"),
        minimal("up/three"),
    ]


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(users=[User(ALICE, "alice")])
    await slack.start()
    yield slack
    await slack.stop()


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """A stream that `bot.telemetry.logs.configure(stream=…)` can write to; the root logger is put back."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield io.StringIO()
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


# ---- `errfix serve` as a real process --------------------------------------------------------------


async def wait_until(probe: Any, what: str, timeout: float = 60) -> Any:
    """Poll an async `probe()` until it returns something truthy (fails the test after `timeout`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await probe()
        if found:
            return found
        await asyncio.sleep(0.05)
    pytest.fail(f"gave up waiting: {what}")


async def get_text(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        return resp.status, await resp.text()


async def wait_healthy(url: str, proc: asyncio.subprocess.Process, log: Path) -> None:
    async def probe() -> bool:
        if proc.returncode is not None:
            pytest.fail(f"errfix serve exited with {proc.returncode}:\n{log.read_text()}")
        try:
            return (await get_text(url))[0] == 200
        except aiohttp.ClientConnectionError:
            return False

    await wait_until(probe, f"{url} answering 200\n{log.read_text() if log.exists() else ''}")


def metric(text: str, name: str) -> float:
    """The value of one sample (`name` with its labels, as written) in Prometheus text, or 0."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0

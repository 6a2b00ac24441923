"""How much of a shared file errfix reads, pinned with this test's own numbers (#20): a file of up
to 1,000,000 bytes is read whole, a bigger one as its first 250,000 and last 750,000 bytes (two
ranged GETs), and a server that ignores Range is read no further than 32 MB. Planting 1 MB -> 100 kB
or 32 MB -> 3.2 MB passed the suite; the second reads a big log's first 3 MB and misses its end.
A download answered 429 is tried three more times, each after Retry-After capped at 30 s."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from bot.slack.snippets import FileReader

LINE = 10  # bytes: "%09d\n"


class Served:
    def __init__(self, data: bytes, honour_range: bool) -> None:
        self.data, self.honour_range = data, honour_range
        self.ranges: list[str] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        asked = request.headers.get("Range", "")
        self.ranges.append(asked)
        if not asked or not self.honour_range:
            return web.Response(body=self.data, content_type="text/plain")
        spec = asked.removeprefix("bytes=")
        first, _, last = spec.partition("-")
        start, end = (len(self.data) - int(last), len(self.data)) if not first else (int(first), int(last) + 1)
        return web.Response(
            status=206,
            body=self.data[start:end],
            content_type="text/plain",
            headers={"Content-Range": f"bytes {start}-{end - 1}/{len(self.data)}"},
        )


class Client:
    """The two things FileReader asks of Slack's client: the token and files.info."""

    token = "xoxb-test"

    def __init__(self, url: str, size: int) -> None:
        self.info = {"id": "F1", "name": "run.log", "mimetype": "text/plain", "size": size, "url_private_download": url}

    async def files_info(self, file: str) -> dict[str, Any]:
        return {"ok": True, "file": self.info}


@pytest.fixture
async def serve() -> AsyncIterator[Any]:
    runners: list[web.AppRunner] = []

    async def start(served: Served) -> str:
        app = web.Application()
        app.router.add_get("/f", served.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/f"

    yield start
    for runner in runners:
        await runner.cleanup()


def numbered(size: int) -> bytes:
    return b"".join(b"%09d\n" % n for n in range(size // LINE))


async def read(serve: Any, data: bytes, honour_range: bool = True) -> tuple[str, bool, Served]:
    served = Served(data, honour_range)
    url = await serve(served)
    result = await FileReader(logging.getLogger("test")).read(Client(url, len(data)), {"id": "F1"})  # type: ignore[arg-type]
    assert result is not None
    text, partial, _ = result
    return text, partial, served


async def test_a_file_of_a_million_bytes_is_read_whole(serve: Any) -> None:
    data = numbered(1_000_000)
    text, partial, served = await read(serve, data)
    assert (text.encode(), partial, served.ranges) == (data, False, [""])


async def test_a_bigger_file_is_read_as_its_first_quarter_and_last_three_quarters_of_a_million(serve: Any) -> None:
    data = numbered(1_000_010)
    text, partial, served = await read(serve, data)
    assert partial and served.ranges == ["bytes=0-249999", "bytes=-750000"]
    head, tail = text.split("\n[...]\n")
    assert head.splitlines()[-1] == f"{250_000 // LINE - 1:09d}"
    assert tail.splitlines()[0] == f"{(1_000_010 - 750_000) // LINE + 1:09d}"  # its first line may be cut: dropped


async def test_a_server_that_ignores_range_is_read_up_to_thirty_two_megabytes(serve: Any) -> None:
    data = numbered(40_000_000)
    text, partial, served = await read(serve, data, honour_range=False)
    assert partial and served.ranges[0] == "bytes=0-249999"
    last = int([ln for ln in text.splitlines() if len(ln) == LINE - 1][-1])  # the read stopped after it
    assert 32_000_000 <= (last + 1) * LINE < 32_000_000 + 100_000, last


class RateLimited(Served):
    """Answers 429 (Retry-After: 100) `times` times, then serves the file."""

    def __init__(self, data: bytes, times: int) -> None:
        super().__init__(data, honour_range=True)
        self.times = times

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.times:
            self.times -= 1
            self.ranges.append("429")
            return web.Response(status=429, headers={"Retry-After": "100"})
        return await super().handle(request)


class Waits:
    """A sleep that only notes how long it was asked to wait."""

    def __init__(self, waits: list[float]) -> None:
        self.waits = waits

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_a_rate_limited_download_is_tried_three_more_times_waiting_at_most_thirty_seconds(serve: Any) -> None:
    data = numbered(1_000)
    for times, read_it in ((3, True), (4, False)):
        served = RateLimited(data, times)
        url = await serve(served)
        waits: list[float] = []
        reader = FileReader(logging.getLogger("test"), sleep=Waits(waits))
        result = await reader.read(Client(url, len(data)), {"id": "F1"})  # type: ignore[arg-type]
        assert (result is not None) is read_it, times
        assert waits == [30.0, 30.0, 30.0], times  # Retry-After: 100 is capped at 30 s
        assert served.ranges == ["429"] * min(times, 4) + ([""] if read_it else [])

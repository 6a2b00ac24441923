"""`AsyncErrfix` only hops to the service's one thread: every call runs there, in order, in a copy
of the caller's context (so an observer's log line carries the event being handled)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.core.views import Diagnosis
from bot.service.async_errfix import AsyncErrfix
from bot.service.errfix import Reply
from bot.store.learning import Paste
from bot.telemetry.logs import bind_event, current_event
from tests.conftest import SEED_ID
from tests.service.test_errfix import NAN, Recorder


class WhereAndWho(Recorder):
    """Also notes the thread and the log context each answer was heard in."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str, str]] = []

    def on_answer(self, diagnosis: Diagnosis, seconds: float) -> None:
        super().on_answer(diagnosis, seconds)
        event = current_event()
        self.seen.append((threading.current_thread().name, event.channel, event.event_id))


@pytest.fixture
def heard() -> WhereAndWho:
    return WhereAndWho()


@pytest_asyncio.fixture
async def errfix(tmp_path: Path, heard: WhereAndWho) -> AsyncIterator[AsyncErrfix]:
    service = AsyncErrfix(str(tmp_path / "team.db"), observer=heard)
    yield service
    service.close()


async def test_calls_run_on_the_service_thread_in_the_callers_context(errfix: AsyncErrfix, heard: WhereAndWho) -> None:
    async def handle(channel: str, event_id: str) -> None:
        bind_event(channel, event_id)  # as the Slack middleware does for each request's task
        assert (await errfix.diagnose(NAN)).reply

    await asyncio.gather(handle("C1", "Ev1"), handle("C2", "Ev2"))
    assert sorted((c, e) for _, c, e in heard.seen) == [("C1", "Ev1"), ("C2", "Ev2")]
    assert {t for t, _, _ in heard.seen} == {t for t, _, _ in heard.seen if t.startswith("errfix-store")}
    assert len({t for t, _, _ in heard.seen}) == 1


async def test_the_use_cases_come_back_typed(errfix: AsyncErrfix, heard: WhereAndWho) -> None:
    d = await errfix.diagnose(NAN)
    paste = await errfix.log_paste("C1", "1.0", d, replied=True, channel_type="channel")
    assert isinstance(paste, Paste) and heard.pastes == [paste]
    await errfix.record_reply(Reply("C1", "2.0", "1.0", "1.0", SEED_ID, d.matches[0].score))
    reply = await errfix.reply("C1", "2.0")
    assert reply is not None and reply.line == paste.line and reply.rejected_by is None
    wkey = d.matches[0].workarounds[0].wkey
    assert await errfix.click_vote("C1:2.0", SEED_ID, wkey, "U1", 1) == 1
    assert (await errfix.stats()).votes_up == 1 and (await errfix.week()).answered == 1
    assert await errfix.view("no/such-record") is None
    assert await errfix.ping()


async def test_a_closed_service_refuses_work_and_closes_once(tmp_path: Path) -> None:
    service = AsyncErrfix(str(tmp_path / "team.db"))
    service.close()
    service.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        await service.diagnose(NAN)


async def test_the_plain_async_service_reindexes_in_the_background(tmp_path: Path) -> None:
    """The demo and the tests use AsyncErrfix as it comes: a write that changes the index must not
    rebuild it on the store's thread (the old index answers until the new one is built; #12)."""
    service = AsyncErrfix(str(tmp_path / "plain.db"))
    try:
        assert await service._run(lambda s: s.background_reindex) is True
    finally:
        service.close()

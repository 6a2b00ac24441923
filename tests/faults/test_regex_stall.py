"""A store of backtracking regexes cannot stall the bot (#14.2): another paste, a vote click and
/healthz are all answered while a hostile paste is matched.

Before the per-paste budget, one hostile paste over 1,000 such patterns took 20 s on the thread
every vote and health check waited on; the hang guards below are far shorter than that.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.faults.conftest import EVIL_PASTE, hostile_store
from tests.slack.conftest import PASTE, RECORD, Bot, buttons

GUARD = 8.0  # seconds: a hang guard only, well under the 20 s a stall took


async def healthz(bot: Bot) -> int:
    async with aiohttp.ClientSession() as session, session.get(str(bot.server.make_url("/healthz"))) as resp:
        return resp.status


async def test_a_hostile_paste_does_not_hold_up_a_paste_a_vote_or_healthz(make_bot: Any, db_file: Path) -> None:
    hostile_store(db_file, 1000)
    bot: Bot = await make_bot()
    await asyncio.wait_for(bot.errfix.diagnose("warm up"), 120)  # the index is built once, up front
    first = await bot.paste(PASTE)
    answer = await asyncio.wait_for(bot.answer_to(first), GUARD)
    worked = buttons(answer, "errfix_vote_up")[0]

    async def after_hostile_pastes() -> tuple[int, int, dict[str, Any]]:
        for _ in range(3):  # a few hostile pastes queued ahead of everything else
            await bot.paste(EVIL_PASTE)
        other = await bot.paste(PASTE)
        status, click = await asyncio.gather(healthz(bot), bot.click(answer, worked))
        return status, click, await bot.answer_to(other)

    status, click, second = await asyncio.wait_for(after_hostile_pastes(), GUARD)
    assert status == 200 and click == 200
    assert json.loads(worked["value"])["r"] == RECORD
    assert second["ts"] != answer["ts"]

"""What is pasted in a DM, group DM or private channel is never shown outside it (#18.1).

The App Home (and /errfix stats) are seen by every member, so they are built from public-channel
pastes only. Checked end to end: people paste over signed HTTP, another person opens the Home tab.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from bot.fakeslack.web_api import FakeSlack, User
from tests.slack.conftest import ALICE, BOB, CHANNEL, DM, GROUP_DM, Bot, all_text

PRIVATE = "G_PAYROLL"  # a private channel (G…: channel_type "group")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    """The usual workspace plus a private channel errfix is in."""
    slack = FakeSlack(
        channels=(CHANNEL, DM, PRIVATE), users=[User(ALICE, "alice"), User(BOB, "bob")], mpims=(GROUP_DM,)
    )
    await slack.start()
    yield slack
    await slack.stop()


async def home_of(bot: Bot, user: str) -> str:
    before = len(bot.fake.calls("views.publish"))
    assert await bot.event({"type": "app_home_opened", "user": user, "channel": "D_X", "tab": "home"}) == 200
    await bot.idle()
    assert len(bot.fake.calls("views.publish")) == before + 1
    return all_text(bot.fake.home_views[user])


async def test_dm_group_dm_and_private_channel_pastes_never_reach_another_users_home(bot: Bot) -> None:
    await bot.paste("QuuxError: ledger sync refused for payroll_admin on db-pay-01", channel=DM)
    await bot.paste("QuuxError: vault unsealing failed for trio-secret-store", channel=GROUP_DM, channel_type="mpim")
    await bot.paste("QuuxError: private bucket finance-q3-exports is gone", channel=PRIVATE)
    await bot.paste("QuuxError: frobnicator exploded while reticulating splines", channel=CHANNEL)
    await bot.idle()
    home = await home_of(bot, BOB)
    assert "frobnicator exploded" in home  # the public one is shown
    for private in ("payroll_admin", "trio-secret-store", "finance-q3-exports"):
        assert private not in home
    assert "payroll_admin" not in await home_of(bot, ALICE)  # not even the author's: the Home is shared


async def test_stats_count_public_channel_pastes_only(bot: Bot) -> None:
    await bot.paste("QuuxError: ledger sync refused for payroll_admin on db-pay-01", channel=DM)
    await bot.paste("QuuxError: private bucket finance-q3-exports is gone", channel=PRIVATE)
    await bot.paste("QuuxError: frobnicator exploded while reticulating splines", channel=CHANNEL)
    await bot.idle()
    week = await bot.errfix.week()
    assert (week.pastes, week.unmatched) == (1, 1)

"""Rules of the Slack app pinned end to end with numbers of this test's own (#20): the
per-channel unprompted budget (its 60 s window and its per-channel key, on a fake clock) and
dedupe by `event_id` for events that have no message `ts` to fall back on (reactions, App Home).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.store.learning import Learning
from bot.store.store import Store
from tests.slack.conftest import (
    ALICE,
    CHANNEL,
    DM,
    OTHER_CHANNEL,
    PASTE,
    RECORD,
    Bot,
    all_text,
    buttons,
    event_body,
    message_event,
    slack_escape,
)
from tests.slack.test_feedback_e2e import answered, tally, top_wkey


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


def posts_to(bot: Bot, channel: str) -> int:
    """chat.postMessage calls errfix made in `channel` (answered or refused by Slack)."""
    return sum(1 for c in bot.fake.calls("chat.postMessage") if c.params.get("channel") == channel)


async def test_the_unprompted_budget_comes_back_after_sixty_seconds(make_bot: Callable[..., Any]) -> None:
    clock = Clock()
    bot: Bot = await make_bot(max_replies_per_minute=2, clock=clock)
    for _ in range(3):
        await bot.paste()
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 2  # two a minute: the third paste is not answered
    clock.now += 59.0
    await bot.paste()
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 2  # 59 s later the window still holds both
    clock.now += 1.0
    await bot.paste()
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 3  # 60 s after the first two: budget back


async def test_one_busy_channel_does_not_silence_another(make_bot: Callable[..., Any]) -> None:
    bot: Bot = await make_bot(max_replies_per_minute=1, clock=Clock())
    await bot.paste()
    await bot.paste()
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 1
    await bot.paste(channel=OTHER_CHANNEL)  # errfix is not a member there: Slack refuses, but it tries
    await bot.idle()
    assert posts_to(bot, OTHER_CHANNEL) == 1


async def test_mentions_do_not_use_the_unprompted_budget(make_bot: Callable[..., Any]) -> None:
    bot: Bot = await make_bot(max_replies_per_minute=1, clock=Clock())
    await bot.paste()
    await bot.idle()
    for _ in range(2):
        mention = bot.fake.add_message(CHANNEL, "<@U_BOT> " + slack_escape("RuntimeError: Loss is NaN"), ALICE)
        await bot.event({**message_event(mention), "type": "app_mention"})
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 3
    await bot.paste()
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 3  # and the channel's budget is still used up


async def test_a_retried_reaction_is_handled_once(bot: Bot, read_store: Callable[[], Store]) -> None:
    """Add, remove, then Slack's late retry of the add (same event_id): the vote stays withdrawn."""
    answer = await answered(bot)
    wkey = top_wkey(answer)
    item = {"type": "message", "channel": CHANNEL, "ts": answer["ts"]}

    def reaction(kind: str) -> dict[str, Any]:
        return {"type": kind, "user": ALICE, "reaction": "+1", "item": item, "event_ts": "1700000000.000900"}

    await bot.event(reaction("reaction_added"), event_id="EvADD1")
    await bot.idle()
    assert tally(read_store, wkey) == (1, 0)
    await bot.event(reaction("reaction_removed"), event_id="EvDEL1")
    await bot.idle()
    assert tally(read_store, wkey) == (0, 0)
    await bot.event(reaction("reaction_added"), event_id="EvADD1", retry=1)
    await bot.idle()
    assert tally(read_store, wkey) == (0, 0)
    await bot.event(reaction("reaction_added"), event_id="EvADD2")  # a new add is a new vote
    await bot.idle()
    assert tally(read_store, wkey) == (1, 0)
    assert buttons(answer) and RECORD in all_text(answer)


async def test_a_retried_app_event_is_handled_once(bot: Bot) -> None:
    home = {"type": "app_home_opened", "user": ALICE, "channel": "D_ALICE", "tab": "home"}
    await bot.event(home, event_id="EvHOME1")
    await bot.event(home, event_id="EvHOME1", retry=1)
    await bot.event(home, event_id="EvHOME1", retry=2)
    await bot.idle()
    assert len(bot.fake.calls("views.publish")) == 1
    await bot.event(home, event_id="EvHOME2")  # opened again: a new event
    await bot.idle()
    assert len(bot.fake.calls("views.publish")) == 2


async def test_a_channel_over_its_budget_is_not_even_diagnosed(
    make_bot: Callable[..., Any], read_store: Callable[[], Store]
) -> None:
    """The budget is checked before matching, per channel: the paste over it is never logged,
    while the same paste in another channel (its own budget) is."""
    bot: Bot = await make_bot(max_replies_per_minute=1, clock=Clock())
    first = await bot.paste()
    await bot.idle()
    second = await bot.paste()
    await bot.idle()
    elsewhere = await bot.paste(channel=OTHER_CHANNEL)
    await bot.idle()
    learning = Learning(read_store())
    assert learning.paste_line(CHANNEL, first["ts"]) is not None
    assert learning.paste_line(CHANNEL, second["ts"]) is None
    assert learning.paste_line(OTHER_CHANNEL, elsewhere["ts"]) is not None


async def test_a_dropped_delivery_is_acknowledged_like_any_other(make_bot: Callable[..., Any]) -> None:
    """A retry errfix has seen and a paste over its channel's budget get 200 and an empty body,
    as a handled event does: anything else and Slack delivers them again."""
    bot: Bot = await make_bot(max_replies_per_minute=1, clock=Clock())
    message = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    body = json.dumps(event_body(message_event(message), "EvPASTE1"))
    assert await bot.post_signed(body, "application/json") == (200, "")
    await bot.idle()
    retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
    assert await bot.post_signed(body, "application/json", extra=retry) == (200, "")  # seen: dropped
    over = bot.fake.add_message(CHANNEL, slack_escape(PASTE), ALICE)
    over_body = json.dumps(event_body(message_event(over), "EvPASTE2"))
    assert await bot.post_signed(over_body, "application/json") == (200, "")  # over the budget: dropped
    await bot.idle()
    assert posts_to(bot, CHANNEL) == 1


async def test_words_errfix_is_not_sure_of_list_the_three_closest_records(bot: Bot) -> None:
    """Pinned with this test's own number (#20): three candidates, not two, under "not sure"."""
    assert bot.link is not None
    message, _ = await bot.link.message(DM, ALICE, "the training loss becomes nan")
    answer = await bot.answer_to(message)
    text = answer["blocks"][0]["text"]["text"]
    assert "Not sure which error you mean" in text
    rows = [line for line in text.splitlines() if line.startswith("• `")]
    assert len(rows) == 3 and len(set(rows)) == 3, text
    assert RECORD in "\n".join(rows)

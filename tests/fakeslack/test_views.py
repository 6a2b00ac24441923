"""The fake's modals (#17) are Slack's: trigger ids good once for 3 s, modals checked as
`views.open` checks them (inputs only in views), submissions shaped as Slack sends them, and an
app's `response_action` applied as Slack applies it. Limits at Slack's edge, one past refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.fakeslack.blocks_check import BlockError, check_blocks, check_modal
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User
from tests.fakeslack.test_web_api_strict import Timer

ANN = "U_ANN"


def box(block_id: str = "line", **element: Any) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "label": {"type": "plain_text", "text": "Error line"},
        "element": {"type": "plain_text_input", "action_id": "value", **element},
    }


def modal(**fields: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": "teach",
        "title": {"type": "plain_text", "text": "Save as errfix record"},
        "submit": {"type": "plain_text", "text": "Save"},
        "blocks": [box(initial_value="KeyError: 'x'"), box("fix", multiline=True)],
    }
    return {**view, **fields}


@pytest_asyncio.fixture
async def timer_fake() -> AsyncIterator[tuple[FakeSlack, Timer, AsyncWebClient]]:
    timer = Timer()
    fake = FakeSlack(users=[User(ANN, "ann")], timer=timer)
    await fake.start()
    yield fake, timer, AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    await fake.stop()


async def error_of(call: Any) -> str:
    with pytest.raises(SlackApiError) as raised:
        await call
    return str(raised.value.response["error"])


@pytest.mark.asyncio
async def test_a_trigger_id_opens_one_modal_within_three_seconds(
    timer_fake: tuple[FakeSlack, Timer, AsyncWebClient],
) -> None:
    fake, timer, client = timer_fake
    trigger = fake.trigger_for(ANN)
    timer.now += 3.0  # at the edge: still good
    opened = await client.views_open(trigger_id=trigger, view=modal())
    assert opened["view"]["id"] in fake.views and opened["view"]["state"] == {"values": {}}
    assert await error_of(client.views_open(trigger_id=trigger, view=modal())) == "trigger_exchanged"
    late = fake.trigger_for(ANN)
    timer.now += 3.25
    assert await error_of(client.views_open(trigger_id=late, view=modal())) == "expired_trigger_id"
    assert await error_of(client.views_open(trigger_id="made.up", view=modal())) == "invalid_trigger_id"


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        ({"title": {"type": "plain_text", "text": "x" * 25}}, "title"),
        ({"title": {"type": "mrkdwn", "text": "Save"}}, "title"),
        ({"submit": None}, "submit"),
        ({"private_metadata": "m" * 3001}, "private_metadata"),
        ({"callback_id": "c" * 256}, "callback_id"),
        ({"blocks": [box(initial_value="x" * 11, max_length=10)]}, "initial_value"),
        ({"blocks": [box(max_length=3001)]}, "max_length"),
        ({"blocks": [box(), box()]}, "duplicate block_id"),
        ({"blocks": [{**box(), "label": {"type": "plain_text", "text": "l" * 2001}}]}, "label"),
        ({"blocks": [{**box(), "element": {"type": "datepicker", "action_id": "d"}}]}, "unsupported element"),
        ({"type": "home"}, "modal"),
        ({"blocks": [box(placeholder={"type": "plain_text", "text": "p" * 151})]}, "placeholder"),
        ({"colour": "red"}, "unknown field"),
    ],
)
@pytest.mark.asyncio
async def test_views_open_refuses_what_slack_refuses(
    timer_fake: tuple[FakeSlack, Timer, AsyncWebClient], change: dict[str, Any], refused: str
) -> None:
    fake, _, client = timer_fake
    view = {k: v for k, v in {**modal(), **change}.items() if v is not None}
    with pytest.raises(SlackApiError) as raised:
        await client.views_open(trigger_id=fake.trigger_for(ANN), view=view)
    assert raised.value.response["error"] == "invalid_arguments"
    assert refused in raised.value.response["response_metadata"]["messages"][0]


def test_at_slacks_limits_a_modal_is_accepted() -> None:
    at_limits = modal(
        title={"type": "plain_text", "text": "t" * 24},
        private_metadata="m" * 3000,
        callback_id="c" * 255,
        blocks=[box(initial_value="x" * 3000, max_length=3000, placeholder={"type": "plain_text", "text": "p" * 150})],
    )
    check_modal(at_limits)


def test_an_input_block_is_for_views_only() -> None:
    with pytest.raises(BlockError, match="unsupported type 'input'"):
        check_blocks([box()])


@pytest.mark.asyncio
async def test_a_submission_carries_the_typed_values_and_errors_keep_the_modal_open(
    timer_fake: tuple[FakeSlack, Timer, AsyncWebClient],
) -> None:
    fake, _, client = timer_fake
    view_id = (await client.views_open(trigger_id=fake.trigger_for(ANN), view=modal()))["view"]["id"]
    payload = fake.submission(view_id, ANN, {"fix": "restart it"})
    assert payload["type"] == "view_submission" and payload["user"]["id"] == ANN
    assert payload["view"]["state"]["values"] == {
        "line": {"value": {"type": "plain_text_input", "value": "KeyError: 'x'"}},
        "fix": {"value": {"type": "plain_text_input", "value": "restart it"}},
    }
    with pytest.raises(ValueError, match="not input blocks"):
        fake.submission(view_id, ANN, {"nope": "x"})
    with pytest.raises(ValueError, match="open for U_ANN"):
        fake.submission(view_id, "U_BOB", {})
    assert fake.answer_submission(view_id, '{"response_action": "errors", "errors": {"fix": "Too short."}}') == {
        "fix": "Too short."
    }
    assert view_id in fake.views
    assert fake.answer_submission(view_id, '{"response_action": "errors", "errors": {"title": "x"}}') is None
    assert fake.warnings and "no inputs" in fake.warnings[-1]
    assert fake.answer_submission(view_id, "") is None and view_id not in fake.views  # an empty ack closes it

"""A button's value as errfix reads it: its own JSON object, or nothing at all.

Clicks arrive signed, but on any message errfix ever posted (an older version's buttons, a value
another app put on a message): whatever is not one of ours is read as {} and ignored, never a
crash of the click handler (which Slack would show as a failed click)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.feedback import value_of, where


def test_our_value_is_read_as_strings() -> None:
    assert value_of({"value": '{"r": "pytorch/loss-nan-step", "w": 2}'}) == {"r": "pytorch/loss-nan-step", "w": "2"}


@pytest.mark.parametrize(
    "action",
    [{}, {"value": None}, {"value": ""}, {"value": "not json"}, {"value": "[1, 2]"}, {"value": '"r"'}, {"value": "7"}],
    ids=["no-value", "null", "empty", "not-json", "a-list", "a-string", "a-number"],
)
def test_anything_but_a_json_object_is_read_as_nothing(action: dict[str, Any]) -> None:
    assert value_of(action) == {}


def test_where_reads_the_container_then_the_channel() -> None:
    assert where({"container": {"channel_id": "C1", "message_ts": "1.2"}}) == ("C1", "1.2")
    assert where({"channel": {"id": "C2"}, "container": {}}) == ("C2", "")
    assert where({}) == ("", "")

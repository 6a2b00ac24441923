"""Block Kit as Slack checks it: each limit passes at the limit and fails one past it."""

from __future__ import annotations

from typing import Any

import pytest

from bot.fakeslack.blocks_check import BlockError, check_blocks

Block = dict[str, Any]


def mrkdwn(text: str) -> Block:
    return {"type": "mrkdwn", "text": text}


def plain(text: str) -> Block:
    return {"type": "plain_text", "text": text}


def section(text: str = "x", **extra: Any) -> Block:
    return {"type": "section", "text": mrkdwn(text), **extra}


def button(action_id: str = "a", label: str = "Go", **extra: Any) -> Block:
    return {"type": "button", "text": plain(label), "action_id": action_id, **extra}


def actions(*elements: Block, block_id: str = "acts") -> Block:
    return {"type": "actions", "block_id": block_id, "elements": list(elements)}


def context(*elements: Block) -> Block:
    return {"type": "context", "elements": list(elements)}


def refusal(blocks: Any, most: int | None = None) -> str:
    with pytest.raises(BlockError) as raised:
        check_blocks(blocks) if most is None else check_blocks(blocks, most)
    return raised.value.code + " " + raised.value.detail


# (accepted at the limit, refused just past it, where Slack points)
LIMITS = [
    pytest.param([section("x" * 3000)], [section("x" * 3001)], "/blocks/0/text/text", id="section text 3000"),
    pytest.param([section("x")], [section("")], "/blocks/0/text/text", id="section text not empty"),
    pytest.param(
        [{"type": "section", "fields": [mrkdwn("f")] * 10}],
        [{"type": "section", "fields": [mrkdwn("f")] * 11}],
        "/blocks/0/fields",
        id="10 fields",
    ),
    pytest.param(
        [{"type": "section", "fields": [mrkdwn("f" * 2000)]}],
        [{"type": "section", "fields": [mrkdwn("f" * 2001)]}],
        "/blocks/0/fields/0/text",
        id="field 2000",
    ),
    pytest.param([context(*[mrkdwn("c")] * 10)], [context(*[mrkdwn("c")] * 11)], "/blocks/0/elements", id="context 10"),
    pytest.param([context(mrkdwn("c"))], [context()], "/blocks/0/elements", id="context at least 1"),
    pytest.param(
        [context(mrkdwn("c" * 3000))], [context(mrkdwn("c" * 3001))], "/blocks/0/elements/0/text", id="context 3000"
    ),
    pytest.param(
        [actions(*[button(f"a{i}") for i in range(25)])],
        [actions(*[button(f"a{i}") for i in range(26)])],
        "/blocks/0/elements",
        id="actions 25",
    ),
    pytest.param([actions(button())], [actions()], "/blocks/0/elements", id="actions at least 1"),
    pytest.param(
        [actions(button(label="b" * 75))],
        [actions(button(label="b" * 76))],
        "/blocks/0/elements/0/text/text",
        id="button text 75",
    ),
    pytest.param(
        [actions(button(value="v" * 2000))],
        [actions(button(value="v" * 2001))],
        "/blocks/0/elements/0/value",
        id="button value 2000",
    ),
    pytest.param(
        [actions(button("a" * 255))], [actions(button("a" * 256))], "/blocks/0/elements/0/action_id", id="action_id 255"
    ),
    pytest.param([section(block_id="b" * 255)], [section(block_id="b" * 256)], "/blocks/0/block_id", id="block_id 255"),
    pytest.param(
        [section(block_id="one"), section(block_id="two")],
        [section(block_id="one"), section(block_id="one")],
        "/blocks/1/block_id",
        id="block_id unique",
    ),
    pytest.param(
        [actions(button("up"), block_id="x"), section(accessory=button("down"))],
        [actions(button("up"), block_id="x"), section(accessory=button("up"))],
        "/blocks/1/accessory/action_id",
        id="action_id unique in the message",
    ),
    pytest.param(
        [{"type": "header", "text": plain("h" * 150)}],
        [{"type": "header", "text": plain("h" * 151)}],
        "/blocks/0/text/text",
        id="header 150",
    ),
    pytest.param(
        [{"type": "header", "text": plain("h")}],
        [{"type": "header", "text": mrkdwn("h")}],
        "/blocks/0/text/type",
        id="header is plain_text",
    ),
    pytest.param(
        [actions(button(label="ok"))],
        [actions({**button(), "text": mrkdwn("ok")})],
        "/blocks/0/elements/0/text/type",
        id="button text is plain_text",
    ),
    pytest.param(
        [section("x")], [{"type": "section", "text": {"type": "markdown", "text": "x"}}], "/text/type", id="text type"
    ),
    pytest.param([section("x")] * 50, [section("x")] * 51, "/blocks", id="50 blocks"),
    pytest.param([{"type": "divider"}], [{"type": "video"}], "/blocks/0/type", id="unknown block type"),
    pytest.param(
        [section(accessory=button())],
        [section(accessory={"type": "image", "image_url": "https://x", "alt_text": "x"})],
        "/blocks/0/accessory/type",
        id="unknown element type",
    ),
    pytest.param(
        [actions(button(style="danger"))],
        [actions(button(style="warning"))],
        "/blocks/0/elements/0/style",
        id="button style",
    ),
    pytest.param([section("x")], [section("x", colour="red")], "/blocks/0/colour", id="unknown field"),
    pytest.param(
        [{"type": "section", "text": {**plain("x"), "emoji": True}}],
        [{"type": "section", "text": {**mrkdwn("x"), "emoji": True}}],
        "/blocks/0/text/emoji",
        id="emoji only on plain_text",
    ),
]


@pytest.mark.parametrize(("accepted", "refused", "pointer"), LIMITS)
def test_each_limit(accepted: list[Block], refused: list[Block], pointer: str) -> None:
    check_blocks(accepted)
    message = refusal(refused)
    assert message.startswith("invalid_blocks ") and message.endswith(f"{pointer}]")


def test_a_view_holds_100_blocks() -> None:
    check_blocks([section("x")] * 100, 100)
    assert refusal([section("x")] * 101, 100).endswith("[json-pointer:/blocks]")


def test_the_payload_size_and_the_array_itself() -> None:
    check_blocks([section("x" * 2900)] * 4)  # about 12,000 characters of JSON
    assert refusal([section("x" * 2900)] * 5) == "msg_blocks_too_long "
    check_blocks([section("运" * 2900)] * 4)  # characters count, not the \u escapes slack-sdk sends
    assert refusal("not a list") == "invalid_blocks_format "
    assert refusal([section("x"), "a string"]) == "invalid_blocks_format "

"""Slack's Block Kit limits pinned with this test's own numbers (#20): 50 blocks a message, 3,000
characters a section or context text and a message's `text` fallback, 2,000 a button's value. Past
them Slack refuses the whole message (`invalid_blocks`, `msg_too_long`), so errfix must cut first;
a limit planted ×10 used to pass the suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.core import blocks as kit
from bot.core.records import Record
from bot.core.views import MatchView, rank_workarounds
from tests.core.test_blocks import SEED_LIKE

DIVIDER = {"type": "divider"}


def test_a_message_has_at_most_fifty_blocks() -> None:
    assert kit.fits([DIVIDER] * 50) and not kit.fits([DIVIDER] * 51)
    fifty_one = [dict(DIVIDER, block_id=str(n)) for n in range(51)]
    assert kit.smallest_fit([lambda: fifty_one]) == fifty_one[:50]  # nothing smaller to fall back on: cut


@pytest.mark.parametrize("build", [kit.section, kit.context], ids=["section", "context"])
def test_a_text_is_cut_to_three_thousand_characters(build: Callable[[str], dict[str, Any]]) -> None:
    def text_of(block: dict[str, Any]) -> str:
        return str(block["text"]["text"] if "text" in block else block["elements"][0]["text"])

    assert text_of(build("a" * 3000)) == "a" * 3000
    cut = text_of(build("a" * 3001))
    assert cut == "a" * 2999 + "…"


def test_a_fallback_is_cut_to_three_thousand_characters() -> None:
    rec = Record.model_validate({**SEED_LIKE, "signature": "RuntimeError: " + "x" * 9000})
    fallback = kit.record_fallback(MatchView(rec, 0.9, rank_workarounds(rec, {})))
    assert len(fallback) == 3000 and fallback.endswith("…")


def test_a_button_value_is_at_most_two_thousand_characters() -> None:
    padding = len('{"v":""}')
    assert kit.button("ok", "a", {"v": "x" * (2000 - padding)})["value"].startswith('{"v":')
    with pytest.raises(ValueError, match="2001 characters"):
        kit.button("ok", "a", {"v": "x" * (2001 - padding)})

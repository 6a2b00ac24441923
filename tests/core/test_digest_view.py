"""The digest's Block Kit (#38): within Slack's limits however long the week, in Chinese too."""

from __future__ import annotations

import json

from bot.core.digest_view import ChannelView, DigestData, Thread, digest_blocks, here_text


def busy_week(n: int) -> DigestData:
    th = [Thread("C1", f"17000000{k:02d}.000100") for k in range(n)]
    return DigestData(
        "2026-11-30T09:00:00Z",
        "2026-12-07T09:00:00Z",
        pastes=400,
        answered=120,
        top_errors=[(f"dom/record-{k}", "E" * 400, 50 - k, th[k]) for k in range(n)],
        top_fixes=[(f"dom/record-{k}", "F" * 400, 9) for k in range(n)],
        unanswered=[("X" * 900 + str(k), 3, th[k]) for k in range(n)],
        saved=[f"team/saved-{k}" for k in range(n)],
        voted=[(f"dom/record-{k}", 4, 1) for k in range(n)],
    )


def test_a_busy_week_fits_slacks_limits_and_keeps_its_numbers_and_save_buttons() -> None:
    blocks = digest_blocks(busy_week(40), {}, "Mon 09:00 UTC", "en")
    assert len(blocks) <= 50 and len(json.dumps(blocks, ensure_ascii=False)) <= 11_000
    text = json.dumps(blocks)
    assert "*400* errors pasted \\u00b7 *120* answered" in text
    ids = [b["accessory"]["action_id"] for b in blocks if "accessory" in b]
    assert ids and len(ids) == len(set(ids)) and ids[0] == "errfix_teach_open:0"


def test_the_digest_and_the_channel_settings_in_chinese() -> None:
    blocks = digest_blocks(busy_week(1), {}, "Mon 09:00 UTC", "zh")
    assert blocks[0]["text"]["text"] == "errfix：本周错误周报"
    said = here_text(ChannelView("C1", "mention", True, "U1", "2026-12-06T00:00:00Z"), "Mon 09:00 UTC", "zh")
    assert said.startswith("errfix 在本频道：*mention*（我只回复 @errfix 和 /errfix） · 周报：每周，Mon 09:00 UTC")

"""Block Kit builders: Slack's limits hold whatever the record or the user's text looks like."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import blocks as kit
from bot.core.records import Record
from bot.core.views import MatchView, Tally, rank_workarounds, workaround_key
from bot.fakeslack.blocks_check import check_blocks

SEED_LIKE: dict[str, Any] = {
    "id": "pytorch/loss-nan-step",
    "signature": "RuntimeError: Loss is NaN or Inf at step 1000",
    "signature_zh": "运行时错误：损失为NaN",
    "regex": "RuntimeError: Loss is NaN",
    "root_cause": "Numerical instability <with> & such",
    "root_cause_zh": "数值不稳定",
    "workarounds": [
        {"action": "Clip gradients", "success_rate": 0.85, "how": "clip_grad_norm_(params, 1.0)"},
        {"action": "Lower the learning rate", "success_rate": 0.8, "how": "lr=1e-4"},
    ],
    "workarounds_zh": ["梯度裁剪", "降低学习率"],
    "dead_ends": [{"action": "Raise the learning rate", "why_fails": "worse", "fail_rate": 0.95}],
    "official_doc_url": "https://pytorch.org/docs/stable/amp.html",
}


def view(data: dict[str, Any] | None = None, score: float = 0.9, tallies: dict[str, Tally] | None = None) -> MatchView:
    rec = Record.model_validate(data or SEED_LIKE)
    return MatchView(rec, score, rank_workarounds(rec, tallies or {}))


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(blocks)
    return out


def assert_within_limits(blocks: list[dict[str, Any]], max_blocks: int = kit.MAX_BLOCKS) -> None:
    assert 0 < len(blocks) <= max_blocks
    assert len(json.dumps(blocks, ensure_ascii=False)) <= kit.MAX_JSON
    for t in texts(blocks):
        assert len(t) <= kit.MAX_TEXT
    for block in blocks:
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= kit.MAX_HEADER
        for el in block.get("elements", []) + [block.get("accessory") or {}]:
            if el.get("type") == "button":
                assert len(el["value"]) <= kit.MAX_VALUE and len(el["action_id"]) <= 255
        if block["type"] == "actions":
            ids = [el["action_id"] for el in block["elements"]]
            assert len(ids) == len(set(ids))
    check_blocks(blocks, max_blocks)  # and every rule Slack checks (what the strict fake refuses)


def test_answer_has_signature_cause_ranked_fixes_votes_dead_ends_docs_and_buttons() -> None:
    v = view(tallies={workaround_key("Lower the learning rate"): Tally(up=2, down=1)})
    blocks = kit.answer_blocks(v, sure=True)
    joined = "\n".join(texts(blocks))
    assert "RuntimeError: Loss is NaN or Inf at step 1000" in joined and "90% match" in joined
    assert "Numerical instability &lt;with&gt; &amp; such" in joined  # escaped
    assert ":+1: 2 · :-1: 1" in joined and "Don't bother" in joined and "Official docs" in joined
    votes = [el for b in blocks if b["type"] == "actions" for el in b["elements"]]
    assert [el["text"]["text"] for el in votes] == ["Worked", "Didn't work"] * 2 + ["Not this error"]
    first = json.loads(votes[0]["value"])
    assert first == {"r": v.id, "w": v.workarounds[0].wkey}
    assert_within_limits(blocks)


def test_unsure_answers_say_so_and_list_other_candidates() -> None:
    other = view({**SEED_LIKE, "id": "x/other", "signature": "ValueError: other"}, score=0.3)
    blocks = kit.answer_blocks(view(score=0.4), sure=False, others=[other])
    joined = "\n".join(texts(blocks))
    assert "unsure" in joined and "x/other" in joined


def test_zh_locale_uses_the_zh_fields() -> None:
    joined = "\n".join(texts(kit.answer_blocks(view(), sure=True, locale="zh-CN")))
    assert "运行时错误" in joined and "数值不稳定" in joined and "梯度裁剪" in joined
    assert "Clip gradients" not in joined
    assert "Clip gradients" in "\n".join(texts(kit.answer_blocks(view(), sure=True, locale="en-US")))


def test_long_how_is_cut_with_an_ellipsis_and_points_to_the_full_record() -> None:
    data = {**SEED_LIKE, "workarounds": [{"action": f"Fix {i}", "how": "x" * 5000} for i in range(30)]}
    blocks = kit.answer_blocks(view(data), sure=True)
    assert_within_limits(blocks)
    joined = "\n".join(texts(blocks))
    assert "…" in joined and "/errfix pytorch/loss-nan-step" in joined and "more fixes" in joined
    full = kit.record_blocks(view(data))
    assert_within_limits(full)


def test_answer_fallback_is_escaped_and_bounded() -> None:
    data = {**SEED_LIKE, "signature": "<!channel> " + "E" * 10_000}
    text = kit.answer_fallback(view(data), sure=True)
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text and len(text) <= kit.MAX_FALLBACK


def test_search_results_carry_this_one_and_share_buttons_within_limits() -> None:
    results = [view({**SEED_LIKE, "id": f"r/{i}"}, score=0.5) for i in range(10)]
    line = 'KeyError: "' + '"\\' * 2000  # JSON escaping doubles this: still under the value limit
    blocks = kit.search_blocks("loss <nan>", results, learn_line=line)
    assert_within_limits(blocks)
    assert "loss &lt;nan&gt;" in "\n".join(texts(blocks))
    picks = [b["accessory"] for b in blocks if b.get("accessory")]
    assert picks and all(json.loads(p["value"])["l"].startswith("KeyError") for p in picks)
    assert any(el["action_id"] == kit.SHARE for b in blocks if b["type"] == "actions" for el in b["elements"])
    assert kit.search_blocks("nothing", [])[0]["text"]["text"].startswith("Nothing found")


def test_home_view_stays_within_the_home_limits() -> None:
    summary = kit.HomeSummary(
        [(f"r/{i}", "<sig>" * 100, i) for i in range(5)],
        [(f"r/{i}", "do it " * 100, 3) for i in range(5)],
        [("ValueError: <b>" * 50, "2026-12-02T10:00:00Z") for _ in range(10)],
    )
    view_ = kit.home_view(summary)
    assert view_["type"] == "home"
    assert_within_limits(view_["blocks"], kit.MAX_HOME_BLOCKS)
    assert "&lt;b&gt;" in "\n".join(texts(view_["blocks"]))


@settings(max_examples=60, deadline=None)
@given(
    signature=st.text(min_size=1, max_size=4000),
    cause=st.text(max_size=6000),
    hows=st.lists(st.text(max_size=4000), max_size=40),
    sure=st.booleans(),
)
def test_any_record_gives_an_answer_slack_accepts(signature: str, cause: str, hows: list[str], sure: bool) -> None:
    data = {
        **SEED_LIKE,
        "signature": signature,
        "root_cause": cause,
        "workarounds": [{"action": f"a{i} {h[:50]}", "how": h} for i, h in enumerate(hows)],
    }
    v = view(data)
    assert_within_limits(kit.answer_blocks(v, sure=sure))
    assert_within_limits(kit.record_blocks(v))
    assert len(kit.answer_fallback(v, sure=sure)) <= kit.MAX_FALLBACK


def test_escape_and_cut() -> None:
    assert kit.escape("a <b> & c") == "a &lt;b&gt; &amp; c"
    assert kit.cut("abcdef", 4) == "abc…" and kit.cut("abc", 4) == "abc" and kit.cut("abc", 0) == ""
    assert kit.link("javascript:alert(1)", "x") == "" and kit.link("https://a.b/c", "x") == "<https://a.b/c|x>"


@settings(max_examples=60, deadline=None)
@given(query=st.text(max_size=5000), line=st.one_of(st.none(), st.text(max_size=5000)), n=st.integers(0, 12))
def test_any_search_gives_blocks_slack_accepts(query: str, line: str | None, n: int) -> None:
    results = [view({**SEED_LIKE, "id": f"r/{i}"}, score=0.5) for i in range(n)]
    assert_within_limits(kit.search_blocks(query, results, learn_line=line))
    assert len(kit.search_fallback(query, results)) <= kit.MAX_FALLBACK

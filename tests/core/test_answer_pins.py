"""What an answer and a search result show, pinned with this test's own numbers (#20): how many
fixes and other candidates, the footer's count of fixes not shown, and which results are
labelled weak. Each was changed by one character in a planted copy and passed the suite."""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.core import blocks as kit
from tests.core.test_blocks import SEED_LIKE, texts, view


def fixes(n: int) -> dict[str, Any]:
    return {
        **SEED_LIKE,
        "workarounds": [{"action": f"Fix number {k}", "success_rate": 0.9 - k / 100} for k in range(n)],
        "workarounds_zh": [],
    }


def footer(n: int) -> str:
    return texts(kit.answer_blocks(view(fixes(n)), sure=True, buttons=False))[-1]


def test_five_fixes_are_shown_and_the_footer_counts_the_rest() -> None:
    joined = "\n".join(texts(kit.answer_blocks(view(fixes(7)), sure=True, buttons=False)))
    assert "Fix number 4" in joined and "Fix number 5" not in joined
    assert "2 more fixes and the full record" in footer(7)
    assert "1 more fix and the full record" in footer(6)
    assert "more fix" not in footer(5) and "Full record: `/errfix pytorch/loss-nan-step`" in footer(5)


def test_an_unsure_answer_lists_three_other_candidates() -> None:
    others = [
        view({**SEED_LIKE, "id": f"x/other{k}", "signature": f"ValueError: other {k}"}, score=0.3) for k in range(5)
    ]
    joined = "\n".join(texts(kit.answer_blocks(view(score=0.4), sure=False, others=others)))
    assert [f"x/other{k}" in joined for k in range(5)] == [True, True, True, False, False]


def test_search_results_under_the_threshold_are_labelled_weak() -> None:
    results = [view({**SEED_LIKE, "id": f"x/r{k}"}, score=s) for k, s in enumerate([0.66, 0.65, 0.6499, 0.56])]
    items = [line for line in texts(kit.search_blocks("loss nan", results, weak_below=0.65)) if line.startswith("`x/r")]
    assert [("weak match" in line) for line in items] == [False, False, True, True]
    for first, unsure in [(results[1:], False), (results[2:], True)]:  # the first scored 0.65, or 0.6499
        assert ("not sure" in texts(kit.search_blocks("loss nan", first, weak_below=0.65))[0]) is unsure
        assert ("not sure" in kit.search_fallback("loss nan", first, weak_below=0.65)) is unsure


def test_the_pasted_error_line_heads_the_answer_and_the_record_is_named_under_it() -> None:
    """#35: the heading is the person's error, not the record's example of it."""
    line = "RuntimeError: Loss is NaN or Inf at step 77"
    head = texts(kit.answer_blocks(view(), sure=True, buttons=False, line=line))[0]
    assert head == f"*{line}*\nRuntimeError: Loss is NaN or Inf at step 1000 · 90% match · `pytorch/loss-nan-step`"
    # no line (an older reply whose paste aged out): the record's signature heads it, as before
    assert texts(kit.answer_blocks(view(), sure=True, buttons=False))[0].startswith("*RuntimeError: Loss is NaN or Inf")


def test_general_advice_says_so_instead_of_a_percentage() -> None:
    kind = dataclasses.replace(view(score=0.93), knows=False)
    for locale, label in [("en", "general advice for this kind of error"), ("zh", "这类错误的通用建议")]:
        head = texts(kit.answer_blocks(kind, sure=False, locale=locale, buttons=False, line="KeyError: 'x'"))[0]
        assert label in head and "93%" not in head
        assert label in kit.answer_fallback(kind, sure=False, locale=locale)
    assert "93% match" in texts(kit.answer_blocks(view(score=0.93), sure=True, buttons=False))[0]

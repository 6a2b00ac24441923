"""RegexSet: untrusted record regexes, matched case-insensitively, never stalling a reply.

No timing assertions: a catastrophic pattern on a backtracking engine takes longer than the
universe has left, so "the call returned" is the assertion.
"""

from __future__ import annotations

import pytest
import regex

from bot.core import regexes
from bot.core.regexes import FALLBACK_TIMEOUT, Hit, RegexSet

EVIL_TEXT = "a" * 50_000 + "!"


def hits(rs: RegexSet, text: str) -> dict[int, int]:
    return {h.index: h.span for h in rs.search(text)}


def fallback_indices(rs: RegexSet) -> set[int]:
    return {index for index, _ in rs._fallback}


# ---- the linear-time path (RE2) -----------------------------------------------------------------


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(x+x+)+y", r"^(a|aa)+$", r"(a|a)*b", r"(\w+\s?)*$x"])
def test_evil_patterns_run_on_re2_and_return(pattern: str) -> None:
    rs = RegexSet([pattern])
    assert fallback_indices(rs) == set() and rs.rejected == []  # RE2 took it: linear time
    assert hits(rs, EVIL_TEXT) == {}


def test_evil_patterns_still_match_what_they_should() -> None:
    rs = RegexSet([r"(a+)+$", r"(x+x+)+y", r"^(a|aa)+$"])
    assert hits(rs, "a" * 50_000) == {0: 50_000, 2: 50_000}
    assert hits(rs, "x" * 50_000 + "y") == {1: 50_001}
    assert hits(rs, "no") == {}


def test_many_patterns_in_one_set() -> None:
    """Past a few thousand patterns one FilteredRE2 stops compiling; the set must still build."""
    patterns = [f"error code E{i:05d}: (disk|network) failure in zone{i % 7}" for i in range(3_000)]
    rs = RegexSet(patterns)
    assert rs.rejected == [] and fallback_indices(rs) == set()
    assert set(hits(rs, "error code E02999: network failure in zone3")) == {2999}
    assert set(hits(rs, "ERROR CODE E00007: DISK FAILURE IN ZONE0")) == {7}


def test_span_is_the_length_of_the_leftmost_match() -> None:
    rs = RegexSet([r"CUDA out of memory", r"out of \w+", r"memory"])
    assert hits(rs, "RuntimeError: CUDA out of memory. Tried to allocate") == {0: 18, 1: 13, 2: 6}


def test_span_counts_characters_not_bytes() -> None:
    rs = RegexSet([r"ошибка: \S+", r"错误.{2}"])  # (RE2's \w is ASCII-only)
    assert hits(rs, "произошла ошибка: диск") == {0: 12}
    assert hits(rs, "发生错误：磁盘") == {1: 4}


# ---- case-insensitivity -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"NOT_FOUND|not found", "Error: Not Found"),
        (r"ModuleNotFoundError: No module named", "modulenotfounderror: no module named 'x'"),
        (r"cuda error", "CUDA ERROR: device-side assert triggered"),
        (r"(?<=cuda )error", "CUDA ERROR: device-side assert"),  # the fallback engine too
        (r"(error)\s+\1", "ERROR error"),
    ],
)
def test_matching_ignores_case(pattern: str, text: str) -> None:
    assert 0 in hits(RegexSet([pattern]), text)


# ---- the bounded fallback -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "span"),
    [
        (r"(?<=torch\.)cuda\.OutOfMemoryError", "torch.cuda.OutOfMemoryError: CUDA out of memory", 21),
        (r"(?<!Module)NotFoundError", "FileNotFoundError: x", 13),
        (r"(a)\1", "xaay", 2),
        (r"(?P<q>['\"])\w+(?P=q) is not defined", "NameError: name 'foo' is not defined", 20),
    ],
    ids=["look-behind", "negative-look-behind", "back-reference", "named-back-reference"],
)
def test_patterns_re2_rejects_go_to_the_fallback_and_match(pattern: str, text: str, span: int) -> None:
    rs = RegexSet(["plain literal", pattern])
    assert fallback_indices(rs) == {1}
    assert rs.rejected == []
    assert hits(rs, text) == {1: span}
    assert hits(rs, "nothing to see") == {}


def test_fallback_and_re2_hits_come_together() -> None:
    rs = RegexSet([r"Connection refused", r"(?<=\[Errno )111\]", r"errno"])
    assert hits(rs, "ConnectionRefusedError: [Errno 111] Connection refused") == {0: 18, 1: 4, 2: 5}


@pytest.mark.parametrize("pattern", [r"^(a+)+\1$", r"^(a|a)*\1$"])
def test_an_evil_back_reference_is_cut_by_the_timeout(pattern: str) -> None:
    rs = RegexSet([pattern, "a{3}!"])
    assert fallback_indices(rs) == {0}
    # it really is catastrophic: the fallback engine alone gives up at the timeout
    compiled = regex.compile(pattern, regex.IGNORECASE | regex.V0)
    with pytest.raises(TimeoutError):
        compiled.search(EVIL_TEXT, timeout=FALLBACK_TIMEOUT)
    # through the set: it returns, the evil pattern is "no hit", the others are unaffected
    assert hits(rs, EVIL_TEXT) == {1: 4}


# ---- patterns that compile nowhere --------------------------------------------------------------


@pytest.mark.parametrize("bad", ["(", "[a-", "a{2,1}", "\\", "*a", "a**", "(?P<n>a)(?P<n>", "(?<=a+)(b"])
def test_patterns_that_compile_nowhere_are_listed_and_never_raise(bad: str) -> None:
    rs = RegexSet(["ValueError", bad, "KeyError"])
    assert rs.rejected == [1]
    assert hits(rs, "ValueError and KeyError") == {0: 10, 2: 8}
    assert hits(rs, "") == {}


def test_an_empty_set_and_empty_text() -> None:
    assert RegexSet([]).search("anything") == []
    rs = RegexSet(["x", r"(?<=a)b"])
    assert rs.search("") == []
    assert rs.size == 2


def test_hits_are_plain_values() -> None:
    (hit,) = RegexSet(["boom"]).search("it went boom")
    assert hit == Hit(0, 4)
    assert regexes.FALLBACK_TIMEOUT > 0

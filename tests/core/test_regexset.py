"""RegexSet: untrusted record regexes, matched case-insensitively, never stalling a reply.

No timing assertions: a catastrophic pattern on a backtracking engine takes longer than the
universe has left, so "the call returned" is the assertion.
"""

from __future__ import annotations

from typing import Any

import pytest
import re2
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import regexset
from bot.core.regexset import Hit, RegexSet, re2_options

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
        compiled.search(EVIL_TEXT, timeout=0.02)  # the fallback's 20 ms per pattern
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


# ---- the literal prefilter is exact: same hits and spans as running every pattern ----------------


HAND_PASTES = [
    'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n'
    "    import torch\nModuleNotFoundError: No module named 'torch'",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity)",
    "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
    "error[E0382]: borrow of moved value: `v`\n --> src/main.rs:5:20",
    "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV]",
    'Exception in thread "main" java.lang.NullPointerException\n\tat com.x.Main.main(Main.java:3)',
    "fatal: unable to access 'https://github.com/x/y.git/': SSL certificate problem",
    "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrapper.afterConnect",
    "kubectl get pods: Back-off restarting failed container; OOMKilled",
    "undefined reference to `pthread_create'\ncollect2: error: ld returned 1 exit status",
    "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    "ERROR: Could not find a version that satisfies the requirement tensorflow==2.3 (from versions: none)",
    "the quick brown fox jumps over the lazy dog",
    "anyone know why my build is slow today? lunch at noon?",
    "\x1b[31mERROR\x1b[0m Permission denied (publickey).",
    "KELVIN \u212a and long \u017f and stra\u00dfe STRASSE and \u0130stanbul, ΣΊΣΥΦΟΣ σίσυφος",
    "OOMKILLED 名刺交換 회식 존댓말 the pod was oomkilled; 503 Service Unavailable; HTTP 429",
]


def _brute(compiled: list[re2._Regexp | None], text: str) -> dict[int, int]:
    out = {}
    for i, c in enumerate(compiled):
        m = c.search(text) if c is not None and text else None
        if m:
            out[i] = m.end() - m.start()
    return out


def _re2_all(patterns: list[str]) -> list[re2._Regexp | None]:
    out: list[re2._Regexp | None] = []
    for p in patterns:
        try:
            out.append(re2.compile(p, re2_options()))
        except re2.error:
            out.append(None)
    return out


def test_prefilter_is_exact_on_the_whole_corpus(corpus_records: list[dict[str, Any]]) -> None:
    records = corpus_records
    patterns = [r["regex"] for r in records]
    rs = RegexSet(patterns)
    compiled = _re2_all(patterns)
    assert len(rs.unfiltered) <= 10 and len(rs.weak) <= 10  # it really filters (0 and 4 when written)
    # every 5th signature (each record's own signature hits its regex): the brute force runs all
    # 2,460 patterns on each text, ~6 s for 500 texts; all of them took 30 s
    for text in [r["signature"] for r in records[::5]] + HAND_PASTES:
        got = {i: s for i, s in hits(rs, text).items() if compiled[i] is not None}
        assert got == _brute(compiled, text), text


def test_a_vague_pattern_is_not_selected_by_one_of_its_words() -> None:
    common = [f"error number {n} in zone{n}" for n in range(20)]  # `error` is a common word
    rs = RegexSet(["ERR.*AUTH|NOAUTH", "os error 32|Broken pipe", *common])
    assert rs.candidates("npm ERR! code E404 and some other error") == set()
    assert rs.candidates("ERR wrong AUTH token") == {0}
    assert rs.candidates("BrokenPipeError: [Errno 32] Broken pipe") == {1}


def test_the_compiled_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexset, "CACHE_SIZE", 8)
    patterns = [f"failure number {variant}" for variant in ("alpha", "bravo", "charlie", "delta")] * 10
    patterns = [f"{p} in zone{i}" for i, p in enumerate(patterns)]
    rs = RegexSet(patterns)
    for i in range(len(patterns)):
        assert set(hits(rs, f"x failure number {patterns[i].split()[2]} in zone{i} y")) >= {i}
        assert len(rs._cache) <= 8


_ALPHABET = "abkKsS\u212a\u017f\u00df\u1e9e\u0130i\u03c3\u03c2\u03a3 .-"
_lit = st.text(alphabet=_ALPHABET, min_size=1, max_size=6).map(regex.escape)


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["lit", "alt", "opt", "any", "class"]))
        if kind == "lit":
            parts.append(draw(_lit))
        elif kind == "alt":
            parts.append("(" + "|".join(draw(st.lists(_lit, min_size=2, max_size=4))) + ")")
        elif kind == "opt":
            parts.append("(?:" + draw(_lit) + ")?")
        elif kind == "any":
            parts.append(draw(st.sampled_from([".*", ".", r"\s+", r"\w*", ".+?"])))
        else:
            parts.append("[" + regex.escape(draw(st.text(alphabet=_ALPHABET, min_size=1, max_size=3))) + "]")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(
    patterns=st.lists(_patterns(), min_size=1, max_size=12),
    texts=st.lists(st.text(alphabet=_ALPHABET + "xyz", max_size=40), min_size=1, max_size=5),
)
def test_prefilter_is_exact_on_generated_patterns(patterns: list[str], texts: list[str]) -> None:
    rs = RegexSet(patterns)
    compiled = _re2_all(patterns)
    for text in texts:
        assert {i: s for i, s in hits(rs, text).items() if compiled[i] is not None} == _brute(compiled, text)
        # each generated text also contains pieces of the patterns' own literals
        for p in patterns[:3]:
            lit = regex.sub(r"\\(.)", r"\1", regex.sub(r"[()|?*+\[\]]|\(\?:|\\s|\\w|\.", "", p))
            probe = text + lit.upper() + text
            assert {i: s for i, s in hits(rs, probe).items() if compiled[i] is not None} == _brute(compiled, probe)


@settings(max_examples=300, deadline=None)
@given(
    shared=st.lists(_patterns(), min_size=1, max_size=3),
    own=st.lists(_patterns(), min_size=1, max_size=6),
    picks=st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=4), min_size=1, max_size=8),
    texts=st.lists(st.text(alphabet=_ALPHABET + "xyz", max_size=40), min_size=1, max_size=5),
)
def test_alternatives_shared_by_patterns_give_each_pattern_its_own_result(
    shared: list[str], own: list[str], picks: list[list[int]], texts: list[str]
) -> None:
    """Patterns made of alternatives, several shared between patterns (searched once for all):
    which patterns match and their leftmost match lengths are those of each pattern alone."""
    pool = shared + own
    patterns = ["|".join(pool[k % len(pool)] for k in pick) for pick in picks]
    patterns += [f"({p})" for p in patterns[:2]] + ["x(?i)y|z", "[|]|zz"]  # unwrapped; not split
    rs = RegexSet(patterns)
    compiled = _re2_all(patterns)
    for text in texts:
        assert {i: s for i, s in hits(rs, text).items() if compiled[i] is not None} == _brute(compiled, text)
        for i, c in enumerate(compiled):
            if c is not None and text:
                assert rs.matches(i, text) == bool(c.search(text))


def test_copies_of_a_vague_alternative_are_searched_once() -> None:
    patterns = [f"zq{n}word failed|911.*no" for n in range(500)]
    rs = RegexSet(patterns)
    assert len(rs._unit_pattern) == 501
    assert set(hits(rs, "call 911 now")) == set(range(500))

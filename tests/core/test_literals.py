"""Literal analysis: what text every match of a pattern must contain (the prefilter's keys)."""

from __future__ import annotations

import pytest
import re2

from bot.core import literals
from bot.core.regexset import re2_options


def test_fold_is_consistent_with_re2_case_folding() -> None:
    """Every pair of characters RE2 matches case-insensitively folds to the same string, so an atom
    found in the folded paste is never missed (ſ/s, K/Kelvin sign, ß/ẞ, Σ/σ/ς)."""
    cased: set[str] = set()
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        variants = {c.lower(), c.upper(), c.casefold(), c.title()}
        if variants != {c}:
            cased.add(c)
            cased.update(v for v in variants if len(v) == 1)
    text = "".join(sorted(cased))
    for c in sorted(cased):
        for m in re2.compile(re2.escape(c), re2_options()).finditer(text):
            assert literals.fold(m.group()) == literals.fold(c), (c, m.group())
    # and RE2 folds no other character into that set
    everything = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    klass = re2.compile("[" + "".join(re2.escape(c) for c in sorted(cased)) + "]", re2_options())
    assert {m.group() for m in klass.finditer(everything)} <= cased


@pytest.mark.parametrize(
    ("pattern", "terms"),
    [
        # a literal run: all its words and the phrase itself must occur
        ("CUDA out of memory", [{"cuda", "out", "of", "memory", "cuda out of memo"}]),
        ("OOMKilled|Out of memory|OOM", [{"oom"}, {"oomkilled"}, {"out", "of", "memory", "out of memory"}]),
        ("[Ee]rror: (foo|bar)baz", [{"error", "barbaz", "error: barbaz"}, {"error", "foobaz", "error: foobaz"}]),
        ("Stra\u00dfe", [{"strasse"}]),
        ("(한국.*계좌|japan.*bank)", [{"한국", "계좌"}, {"japan", "bank"}]),
        ("ERR.*AUTH|NOAUTH", [{"err", "auth"}, {"noauth"}]),  # a conjunction, not `err` alone
        ("x+", [{"x"}]),  # weak keys (shorter than MIN_ATOM) where nothing better exists
        (".*", None),
        (r"\w+ \d+", [{" "}]),
        (r"\w+\d*", None),
        ("(tiananmen|6.4)", [{"tiananmen"}, {"6", "4"}]),
        ("(foo|ab)bar", [{"foobar"}, {"abbar"}]),  # small alternations multiply out
        ("(foo)?barbaz", [{"barbaz"}]),
        ("(foo|)barbaz", [{"barbaz"}, {"foobarbaz"}]),
        ("a{,3}bcd", None),  # `{,3}` is a literal in RE2, a repeat in Python: do not guess
        ("[[:alpha:]]+Error", None),
        (r"\Qa.b\E", None),
        (r"\pL+ failed", None),
    ],
)
def test_required_terms(pattern: str, terms: list[set[str]] | None) -> None:
    got = literals.required_terms(pattern)
    if terms is None:
        assert got is None
    else:
        assert got is not None and sorted(map(sorted, got)) == sorted(map(sorted, terms))


def test_a_conjunction_of_many_alternations_keeps_the_more_selective_side() -> None:
    got = literals.required_terms("(a|b)(c|d)(e|f)(g|h)(i|j)xyz")
    assert got is not None and 0 < len(got) <= literals.MAX_TERMS
    # every string the pattern matches satisfies one term
    for word in ("acegixyz", "bdfhjxyz", "adehixyz"):
        assert any(all(a in word for a in t) for t in got)


def test_required_atoms_are_one_key_per_term() -> None:
    assert literals.required_atoms("ERR.*AUTH|NOAUTH") == {"auth", "noauth"}
    assert literals.required_atoms(".*") is None

"""Top-level alternatives: where a pattern may be split so shared alternatives run once."""

from __future__ import annotations

from bot.core import alternatives


def test_branches_split_only_at_the_top_level() -> None:
    assert alternatives.branches("(a|b)") == ["a", "b"]
    assert alternatives.branches("(?:x(y|z)|w)") == ["x(y|z)", "w"]
    assert alternatives.branches("(a|b)c") == ["(a|b)c"]
    assert alternatives.branches(r"a\|b") == [r"a\|b"]
    assert alternatives.branches("[|]|x") == ["[|]", "x"]
    assert alternatives.branches("[]|]x|y") == ["[]|]x", "y"]
    assert alternatives.branches("(?i)a|b") == ["(?i)a|b"]  # an inline flag reaches across: not split
    assert alternatives.branches("a|") == ["a", ""]


def test_a_class_ends_at_its_first_unescaped_closing_bracket() -> None:
    assert alternatives.class_end("[ab]c", 0) == 4
    assert alternatives.class_end("[]a]b", 0) == 4  # a `]` first in a class is a literal
    assert alternatives.class_end("[^]a]b", 0) == 5
    assert alternatives.class_end(r"[a\]]b", 0) == 5
    assert alternatives.class_end("[[:alpha:]]x", 0) == 11
    assert alternatives.class_end("[abc", 0) == 4  # unclosed: to the end

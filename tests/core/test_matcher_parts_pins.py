"""The parts of a candidate's score, pinned with this test's own numbers (#20): each test was
written for a mutant of bot/core/matcher.py that passed the rest of the suite (docs/testing.md),
and fails with that mutant planted."""

from __future__ import annotations

from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.records import Record

OTHER = Record(id="b/other", signature="ValueError: something else broke", regex="something else broke")


def parts_of(records: list[Record], paste: str, rid: str) -> dict[str, float]:
    found = {c.id: c.parts for c in Matcher(records).match(extract(paste), limit=len(records))}
    return found[rid]


def test_a_line_without_content_words_explains_none_of_a_record() -> None:
    """`Error: 1 2 3 4` has no content word (numbers are placeholders): its line coverage is 0,
    not full, though its regex and wording match the record exactly (lcover 1.0 would lift it)."""
    numbers = Record(id="a/numbers", signature="Error: 1 2 3 4", regex=r"Error: \d \d")
    parts = parts_of([numbers, OTHER], "Error: 1 2 3 4", numbers.id)
    assert (parts["rx_line"], parts["fuzzy2"], parts["lcover"]) == (1.0, 1.0, 0.0)


def test_a_missing_word_counts_by_its_rarity_against_the_rarest_possible() -> None:
    """The paste lacks "alpha", which all three records have: its IDF is ln 2 against the rarest
    possible word's ln 4 (three records), so `miss` is 0.5, where a word no other record has
    would be 1.0."""
    wanted = Record(id="a/abg", signature="ValueError: alpha beta gamma", regex="beta gamma")
    others = [
        Record(id="b/ad", signature="TypeError: alpha delta", regex="zzqq never"),
        Record(id="c/az", signature="KeyError: alpha zeta", regex="zzqx never"),
    ]
    assert parts_of([wanted, *others], "ValueError: beta gamma", wanted.id)["miss"] == 0.5
    rare = Record(id="a/rare", signature="ValueError: omega beta gamma", regex="beta gamma")
    assert parts_of([rare, *others], "ValueError: beta gamma", rare.id)["miss"] == 1.0
    assert parts_of([wanted, *others], "ValueError: alpha beta gamma", wanted.id)["miss"] == 0.0


def test_a_record_with_no_wording_counts_as_missing_its_rarest_word() -> None:
    """A blank signature (import accepts one) leaves nothing to find in the paste: `miss` is
    the most it can be, 1.0, however the regex matched."""
    blank = Record(id="a/blank", signature="   ", regex="blank thing happened")
    assert parts_of([blank, OTHER], "RuntimeError: blank thing happened", blank.id)["miss"] == 1.0

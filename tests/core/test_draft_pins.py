"""The teach draft's limits pinned with this test's own numbers (#20): a regex stops at a clause
boundary only after 4 words and 20 characters, covers at most 24 pieces of the line, is generalised
only with 3 literal words or more; a record id's slug has at most 8 words and 60 characters; a
team's fix starts at a success rate of 0.8. Each planted alone passed the suite before these."""

from __future__ import annotations

from bot.core.draft import TeachForm, clauses, matches, record_slug, regex_for, slug, team_record

ADVICE = "Delete the old files first"


def test_a_clause_ends_after_four_words_and_twenty_characters() -> None:
    assert clauses(f"Disk quota was exceeded. {ADVICE}") == ["Disk quota was exceeded.", ADVICE]  # 4 words, 24
    assert clauses(f"Disk is now so full. {ADVICE}") == ["Disk is now so full.", ADVICE]  # 4 words, 20
    assert clauses(f"Quota was exceeded. {ADVICE}") == [f"Quota was exceeded. {ADVICE}"]  # 3 words
    assert clauses(f"Disk is so full. {ADVICE}") == [f"Disk is so full. {ADVICE}"]  # 4 words, 16 characters


WORDS = [f"{a}{b}x" for a in "pq" for b in "abcdefghijklmno"]  # pax pbx … qox: 30 plain words


def test_a_regex_covers_the_first_twenty_four_words_of_a_long_line() -> None:
    line = "ValueError: " + " ".join(WORDS)
    rx = regex_for(line)
    assert matches(rx, line)
    assert matches(rx, "ValueError: " + " ".join([*WORDS[:24], "zzz", *WORDS[25:]]))  # the 25th is not in it
    assert not matches(rx, "ValueError: " + " ".join([*WORDS[:23], "zzz", *WORDS[24:]]))  # the 24th is


def test_a_line_is_generalised_from_three_literal_words() -> None:
    three = regex_for("KeyError: no such key 'user_id'")  # no, such, key: the name may change
    assert matches(three, "KeyError: no such key 'order_id'")
    two = regex_for("KeyError: missing key 'user_id'")  # missing, key: too little, the line is kept whole
    assert matches(two, "KeyError: missing key 'user_id'") and not matches(two, "KeyError: missing key 'order_id'")


def test_a_slug_has_at_most_eight_words_and_sixty_characters() -> None:
    assert slug(" ".join(["abcde"] * 20)) == "-".join(["abcde"] * 10)  # 59 characters; 65 with one more
    exactly = "-".join(["abcd"] * 11 + ["abc"])  # 58 characters: "-x" makes exactly 60, still in
    assert slug(exactly.replace("-", " ") + " x yz") == exactly + "-x"
    line = "RuntimeError: one two six ten red big old new ink"  # the class and nine words
    assert record_slug(line) == "runtimeerror-one-two-six-ten-red-big-old-new"


def test_a_team_fix_starts_at_eight_in_ten() -> None:
    form = TeachForm("ValueError: the cache is stale", "the cache is stale", "clear the cache")
    rec = team_record(form, record_id="team/general/x", submitter="U1", permalink="", today="2026-12-04")
    assert [w.success_rate for w in rec.workarounds] == [0.8]
    assert (rec.confidence, rec.fix_success_rate) == (0.8, 0.8)

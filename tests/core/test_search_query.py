"""What `/errfix WORDS` asks the keyword index for: words, phrases, synonyms (bot/core/search_query.py)."""

from __future__ import annotations

from bot.core.search_query import respelled, search_query
from bot.core.synonyms import expansions, groups_in


def test_function_words_are_dropped() -> None:
    assert search_query("How do I fix the kernel dying?").terms == ["fix", "kernel", "dying"]


def test_one_letter_leftovers_of_apostrophes_are_not_words() -> None:
    assert search_query("won't git pull").terms == ["git", "pull"]


def test_chinese_is_searched_as_overlapping_pairs() -> None:
    assert search_query("显存不足").terms == ["显存", "存不", "不足"]


def test_letters_and_chinese_written_together_are_apart() -> None:
    assert search_query("cuda out of memory的情况").terms == ["cuda", "out", "memory", "的情", "情况"]


def test_synonyms_are_searched_apart_from_the_users_words() -> None:
    q = search_query("显存不足")
    assert "oom" in q.synonyms and "out of memory" in q.synonyms and "gpu memory" in q.synonyms
    assert "显存" not in q.synonyms  # already the user's own word
    assert "oom" not in q.terms


def test_a_member_in_another_language_finds_its_group_but_is_never_searched() -> None:
    # Korean and Spanish words name the group; records are written in English and Chinese
    assert "memory" in expansions("메모리")
    assert "显存不足" in expansions("memoria insuficiente oom")
    assert "memoria" not in expansions("memory") and "메모리" not in expansions("memory")


def test_english_members_match_whole_words_in_order() -> None:
    assert groups_in("timed out") == groups_in("timeout")
    assert groups_in("out timed") == []
    assert groups_in("ramp up") == []  # "ram" is a member, "ramp" is not ram


def _vocab(docs: dict[str, int]) -> tuple[dict[int, list[str]], dict[str, int]]:
    by_len: dict[int, list[str]] = {}
    for word in docs:
        by_len.setdefault(len(word), []).append(word)
    return by_len, docs


def test_an_unknown_word_is_respelled_to_the_nearest_index_word() -> None:
    vocab = _vocab({"publickei": 3, "diverg": 5, "permiss": 9, "socket": 4, "pocket": 1, "please": 50})
    assert respelled("bublickey", *vocab) == "publickei"  # nine letters: two edits (typo, stemmed y)
    assert respelled("divergem", *vocab) == "diverg"  # eight letters: two deletions
    assert respelled("rocket", *vocab) == "socket"  # six letters, one edit: a tie goes to more records (4 > 1)
    assert respelled("sockeet", *vocab) == "socket"


def test_short_words_numbers_far_words_and_function_words_are_not_respelled() -> None:
    vocab = _vocab({"stall": 3, "cuda12": 4, "publickei": 3, "please": 50})
    assert respelled("stalk", *vocab) is None  # five letters: too short to guess
    assert respelled("cuda13", *vocab) is None  # not letters only
    assert respelled("bublikkey", *vocab) is None  # three edits
    assert respelled("pleaze", *vocab) is None  # `please` is a function word
    assert respelled("显存不足了", *vocab) is None

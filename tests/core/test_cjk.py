from bot.core.cjk import bigrams, cjk_split, has_cjk, words_of


def test_a_chinese_run_becomes_its_overlapping_pairs() -> None:
    assert bigrams("显存不足") == ["显存", "存不", "不足"]
    assert bigrams("卡") == ["卡"]


def test_only_cjk_runs_are_split_and_latin_words_stay_whole() -> None:
    assert cjk_split("CUDA 显存不足了").split() == ["CUDA", "显存", "存不", "不足", "足了"]
    assert cjk_split("loss nan").split() == ["loss", "nan"]
    assert has_cjk("カーネル") and not has_cjk("kernel died")


def test_a_run_keeps_the_non_overlapping_pairs_most_records_hold() -> None:
    # 过程中出现: 过程 (3 records) 程中 (2) 中出 (2) 出现 (60); pairs sharing a character never both
    docs = {"过程": 3, "程中": 2, "中出": 2, "出现": 60}
    assert words_of(bigrams("过程中出现"), docs) == ["过程", "出现"]
    # a pair no record holds is never kept, even where nothing overlaps it
    assert words_of(bigrams("找不到"), {"找不": 5, "不到": 9}) == ["不到"]
    assert words_of(bigrams("甲乙"), {}) == []

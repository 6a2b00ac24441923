from bot.core.cjk import bigrams, cjk_split, has_cjk


def test_a_chinese_run_becomes_its_overlapping_pairs() -> None:
    assert bigrams("显存不足") == ["显存", "存不", "不足"]
    assert bigrams("卡") == ["卡"]


def test_only_cjk_runs_are_split_and_latin_words_stay_whole() -> None:
    assert cjk_split("CUDA 显存不足了").split() == ["CUDA", "显存", "存不", "不足", "足了"]
    assert cjk_split("loss nan").split() == ["loss", "nan"]
    assert has_cjk("カーネル") and not has_cjk("kernel died")

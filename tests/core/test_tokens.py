"""The words matching compares, and hard-wrapped sentences joined back."""

from __future__ import annotations

from bot.core.tokens import paste_words, tokens, wrapped_sentences


def test_wrapped_sentences_are_joined_and_nothing_else_is_kept() -> None:
    text = "first line\nRuntimeError: CUDA out\nof memory. Tried\nto allocate\nOK done\nlast one,\nand more\nX"
    assert wrapped_sentences(text) == "RuntimeError: CUDA out of memory. Tried to allocate\nOK done last one, and more"
    assert wrapped_sentences("no wraps\nHere") == ""


def test_tokens_drop_stop_words_and_single_letters() -> None:
    assert tokens("error: the module <path> is not found in x") == ["module", "path", "found"]
    assert tokens("cuda 12 2gb 名刺交換") == ["cuda", "2gb", "名刺交換"]


def test_paste_words_are_lower_cased() -> None:
    assert paste_words("Kubectl get POD x") == {"kubectl", "get", "pod"}

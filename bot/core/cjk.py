"""Chinese (and Japanese kanji/kana) text as overlapping character bigrams, for the keyword index.

FTS5's unicode61 tokenizer keeps a run of CJK characters as one token, so `显存不足` never
matches `CUDA 显存不足了`. Writing every CJK run as its bigrams (`显存 存不 不足`), on the index
side and the query side alike, lets any two-character word in a query meet the same word in a
record, with no dictionary to maintain.
"""

from __future__ import annotations

import re

# CJK unified ideographs (+ extension A), compatibility ideographs, hiragana, katakana, hangul
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
CJK_RUN = _CJK  # one run of CJK characters (bot/core/search_query.py splits text on them)


def bigrams(run: str) -> list[str]:
    """A run of CJK characters as its overlapping pairs; a lone character stays itself."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_split(text: str) -> str:
    """`text` with every CJK run replaced by its bigrams, space separated; other text unchanged."""
    return _CJK.sub(lambda m: " " + " ".join(bigrams(m.group())) + " ", text)


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None

"""Chinese (and Japanese kanji/kana) text as overlapping character bigrams, for the keyword index.

FTS5's unicode61 tokenizer keeps a run of CJK characters as one token, so `显存不足` never
matches `CUDA 显存不足了`. Writing every CJK run as its bigrams (`显存 存不 不足`), on the index
side and the query side alike, lets any two-character word in a query meet the same word in a
record, with no dictionary to maintain.
"""

from __future__ import annotations

import math
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


def words_of(pairs: list[str], docs: dict[str, int]) -> list[str]:
    """The pairs of one CJK run (`bigrams(run)`, in order) that are its words, as the index counts
    them: the non-overlapping pairs held by the most records together (summed log counts).

    `过程中出现` holds `过程 程中 中出 出现`; `程中` and `中出` span two words and are rare for it,
    so their BM25 weight would go to whatever record happens to hold them; the segmentation keeps
    `过程 出现` (or `程中 出现`: the words a record also holds), never two pairs sharing a character.
    """
    best: list[tuple[float, list[str]]] = [(0.0, []), (0.0, [])]  # best[k + 1]: the first k pairs
    for pair in pairs:
        weight = math.log1p(docs.get(pair, 0)) if len(pair) == 2 else 0.0
        skip, take = best[-1], best[-2]
        best.append(max(skip, (take[0] + weight, [*take[1], pair]), key=lambda b: b[0]))
    return [p for p in best[-1][1] if docs.get(p, 0)]

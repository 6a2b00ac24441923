"""What `/errfix WORDS` asks the keyword index for (pure): words and synonyms.

People describe an error in a sentence ("CUDA out-of-memory when GPU memory is 11GB",
"请问训练时显存不足怎么办"). Of such a sentence the index is asked for

* its content words (function words like "the", "when", "how" dropped), Chinese runs as the
  index holds them, overlapping character pairs (bot/core/cjk.py);
* the other members of each synonym group it names (bot/core/synonyms.py): `显存不足` also looks
  for "out of memory" and "OOM".

Adjacent words as phrases ("out of", three Chinese characters in a row) were measured too and
left out: on the dev queries they lost top-1 (0.846 without, 0.788 with), as a phrase's BM25 weight
goes to whatever happens to sit next to a common word, and in Chinese to pairs that span two words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from bot.core.cjk import CJK_RUN, bigrams, has_cjk
from bot.core.synonyms import expansions

# function and question words: in nearly every query and every record, they only add noise
STOP = frozenset(
    """a an and are as at be been but by can could do does did for from get got had has have how i if
    in into is it its me my of on or so than that the their then there these this those to was we
    were what when where which while who why will with would you your after before just any some all
    also very please help issue problem question about using use used error errors cannot cant can t
    don doesn didn isn wasn won""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class SearchQuery:
    """The user's own tokens, and the synonyms' tokens and phrases (tokens space separated)."""

    terms: list[str]
    synonyms: list[str]  # tokens and phrases of the synonyms: searched apart, they count less
    cjk_runs: list[list[str]] = field(default_factory=list)  # each CJK run's pairs in order (cjk.words_of)


def _plain(text: str) -> str:
    """Letters and digits only, lower case: nothing left can be FTS5 syntax."""
    return "".join(c if c.isalnum() else " " for c in text.lower())


def _runs(text: str) -> list[list[str]]:
    """Runs of index tokens in order: a run of words breaks where CJK text starts or ends, and
    each CJK run is its own run of bigrams."""
    out: list[list[str]] = [[]]
    last = 0
    for m in CJK_RUN.finditer(text):
        out[-1].extend(text[last : m.start()].split())
        out.append(bigrams(m.group()))
        out.append([])
        last = m.end()
    out[-1].extend(text[last:].split())
    return [r for r in out if r]


def _tokens(phrase: str) -> list[str]:
    """The index tokens of a phrase, in order."""
    return [t for run in _runs(_plain(phrase)) for t in run]


def search_query(words: str) -> SearchQuery:
    """The terms and phrases to search for `words` (a user's free text)."""
    runs = [[t for t in run if len(t) > 1 or has_cjk(t)] for run in _runs(_plain(words))]
    runs = [run for run in runs if run]
    terms: dict[str, None] = {}
    for run in runs:
        for t in run:
            if t not in STOP:
                terms.setdefault(t)
    synonyms: dict[str, None] = {}
    for extra in expansions(words):
        toks = _tokens(extra)
        if toks and " ".join(toks) not in terms:
            synonyms.setdefault(" ".join(toks))
    cjk_runs = [run for run in runs if has_cjk(run[0])]
    return SearchQuery(list(terms), list(synonyms), cjk_runs)


RESPELL_MIN = 6  # a word no record holds, this long or longer, is looked for respelled (`bublickey`)
RESPELL_LONG = 8  # from this length on two edits are allowed (a typo plus a stemmed ending), one below


def respelled(word: str, vocabulary: dict[int, list[str]], docs: dict[str, int]) -> str | None:
    """The index word (a stem, as FTS5's porter tokenizer keeps it) nearest to `word`, a word no
    record holds, or None: one edit away (two from RESPELL_LONG letters on: `bublickey` ->
    `publickei`, `divergem` -> `diverg`), the one most records hold on a tie.

    `vocabulary` maps a length to the index words of that length, `docs` each word to the number
    of records holding it. Only letters (not CJK, not digits) are respelled, never into a function word.
    """
    if len(word) < RESPELL_MIN or not word.isalpha() or has_cjk(word):
        return None
    limit = 1 if len(word) < RESPELL_LONG else 2
    best: tuple[float, int, str] | None = None
    for size in range(max(RESPELL_MIN - 1, len(word) - limit), len(word) + limit + 1):
        near = process.extract(
            word, vocabulary.get(size, []), scorer=Levenshtein.distance, score_cutoff=limit, limit=None
        )
        for stem, d, _ in near:
            if stem not in STOP and (best is None or (d, -docs[stem], stem) < best):
                best = (d, -docs[stem], stem)
    return best[2] if best else None

"""The words matching compares: content tokens of normalised text, words of a raw paste, and
hard-wrapped sentences joined back (pure)."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z][a-z0-9_]{1,40}|\d+[a-z]\w{0,20}|[\u4e00-\u9fff]{2,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "not",
        "but",
        "was",
        "are",
        "this",
        "that",
        "from",
        "has",
        "have",
        "had",
        "you",
        "your",
        "use",
        "using",
        "can",
        "cannot",
        "error",
        "errors",
        "is",
        "in",
        "on",
        "of",
        "to",
        "a",
        "an",
        "be",
        "or",
        "at",
        "by",
        "it",
        "as",
        "no",
        "none",
        "true",
        "false",
    ]
)
STOP_WORDS = _STOP  # function words that say nothing of an error (bot/core/knows.py reads them too)
_WRAPPED = re.compile(r"(?<=[a-z,])[ \t]*\n[ \t]*(?=[a-z])")  # a sentence broken mid-way
_WORD = re.compile(r"[a-z][a-z0-9]{1,30}")  # domain hints: `torch`, `kubectl`, `npm`


def wrapped_sentences(text: str) -> str:
    """The hard-wrapped sentences of `text`, each joined into one line, one per line.

    A match that needs a join spans it, so it lies within one joined sentence: searching these
    alone finds what searching the whole joined paste would, on a fraction of the text.
    """
    out: list[str] = []
    start = end = -1
    for m in _WRAPPED.finditer(text):
        if m.start() > end:  # a new run of joined lines: flush the last one
            if start >= 0:
                out.append(text[start:end])
            start = text.rfind("\n", 0, m.start()) + 1
        nxt = text.find("\n", m.end())
        end = len(text) if nxt < 0 else nxt
    if start >= 0:
        out.append(text[start:end])
    return "\n".join(_WRAPPED.sub(" ", part) for part in out)


def tokens(text: str) -> list[str]:
    """Content words of a normalised text (placeholders and stop words dropped)."""
    return [t for t in _TOKEN.findall(text) if t not in _STOP]


def paste_words(text: str) -> set[str]:
    """The lower-cased words of a raw paste, for the domain hints (`kubectl` -> kubernetes)."""
    return set(_WORD.findall(text.lower()))

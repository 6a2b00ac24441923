"""Many untrusted regexes against one paste, in bounded time.

Record regexes come from files we do not control; some are catastrophic for a backtracking
engine. We compile every pattern RE2 accepts into one `re2.Filter` (FilteredRE2: RE2's linear-time
engine behind a literal prefilter, so only patterns whose required literals occur are run). The
few patterns RE2 rejects (look-around, back-references) run on the `regex` module with a hard
timeout, so one of them can cost at most `FALLBACK_TIMEOUT` per paste.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import re2
import regex

FALLBACK_TIMEOUT = 0.02  # seconds per fallback pattern per search


def _options() -> re2.Options:
    opts = re2.Options()
    opts.case_sensitive = False
    opts.max_mem = 4 << 20  # per pattern; a pathological pattern fails to compile instead
    opts.log_errors = False  # rejected patterns are reported by us, not on stderr
    return opts


@dataclass(frozen=True)
class Hit:
    index: int
    span: int  # length of the matched text: longer matches are more specific


class RegexSet:
    """Patterns compiled once (per store version); `search` returns which ones match and how much."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.size = len(patterns)
        self._filter = re2.Filter()
        self._filter_ids: list[int] = []
        self._compiled: dict[int, re2._Regexp] = {}
        self._fallback: list[tuple[int, regex.Pattern[str]]] = []
        self.rejected: list[int] = []
        opts = _options()
        for i, pattern in enumerate(patterns):
            try:
                self._filter.Add(pattern, opts)
            except re2.error:
                self._add_fallback(i, pattern)
                continue
            self._filter_ids.append(i)
        if self._filter_ids:
            self._filter.Compile()

    def _add_fallback(self, index: int, pattern: str) -> None:
        try:
            self._fallback.append((index, regex.compile(pattern, regex.IGNORECASE | regex.V0)))
        except (regex.error, ValueError, OverflowError, RecursionError):
            self.rejected.append(index)

    def _regexp(self, fid: int) -> re2._Regexp:
        compiled = self._compiled.get(fid)
        if compiled is None:
            compiled = self._compiled[fid] = self._filter.re(fid)
        return compiled

    def search(self, text: str) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match."""
        hits: list[Hit] = []
        if self._filter_ids and text:
            for fid in self._filter.Match(text) or ():
                m = self._regexp(fid).search(text)
                span = (m.end() - m.start()) if m else 0
                hits.append(Hit(self._filter_ids[fid], span))
        for index, pattern in self._fallback:
            try:
                m = pattern.search(text, timeout=FALLBACK_TIMEOUT)
            except TimeoutError:
                continue
            if m:
                hits.append(Hit(index, m.end() - m.start()))
        return hits

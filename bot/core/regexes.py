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


SHARD_SIZE = 1000  # patterns per re2.Filter: one Filter's literal-atom set fails to compile past ~2,500


class _Shard:
    """One FilteredRE2 over a slice of the patterns (indices are global)."""

    def __init__(self, items: list[tuple[int, str]], opts: re2.Options) -> None:
        self.filter = re2.Filter()
        self.ids: list[int] = []
        self.compiled: dict[int, re2._Regexp] = {}
        for index, pattern in items:
            self.filter.Add(pattern, opts)
            self.ids.append(index)
        self.filter.Compile()

    def search(self, text: str) -> list[Hit]:
        hits = []
        for fid in self.filter.Match(text) or ():
            regexp = self.compiled.get(fid)
            if regexp is None:
                regexp = self.compiled[fid] = self.filter.re(fid)
            m = regexp.search(text)
            hits.append(Hit(self.ids[fid], (m.end() - m.start()) if m else 0))
        return hits


class RegexSet:
    """Patterns compiled once (per store version); `search` returns which ones match and how much."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.size = len(patterns)
        self._fallback: list[tuple[int, regex.Pattern[str]]] = []
        self.rejected: list[int] = []
        opts = _options()
        accepted: list[tuple[int, str]] = []
        for i, pattern in enumerate(patterns):
            try:
                re2.compile(pattern, opts)
            except re2.error:
                self._add_fallback(i, pattern)
                continue
            accepted.append((i, pattern))
        self._shards: list[_Shard] = []
        for start in range(0, len(accepted), SHARD_SIZE):
            self._build(accepted[start : start + SHARD_SIZE], opts)

    def _build(self, items: list[tuple[int, str]], opts: re2.Options) -> None:
        """A shard per slice; a slice whose atom set will not compile is halved until it does."""
        try:
            self._shards.append(_Shard(items, opts))
        except re2.error:
            if len(items) == 1:
                self._add_fallback(*items[0])
                return
            half = len(items) // 2
            self._build(items[:half], opts)
            self._build(items[half:], opts)

    def _add_fallback(self, index: int, pattern: str) -> None:
        try:
            self._fallback.append((index, regex.compile(pattern, regex.IGNORECASE | regex.V0)))
        except (regex.error, ValueError, OverflowError, RecursionError):
            self.rejected.append(index)

    def search(self, text: str) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match."""
        hits: list[Hit] = []
        if text:
            for shard in self._shards:
                hits += shard.search(text)
        for index, pattern in self._fallback:
            try:
                m = pattern.search(text, timeout=FALLBACK_TIMEOUT)
            except TimeoutError:
                continue
            if m:
                hits.append(Hit(index, m.end() - m.start()))
        return hits

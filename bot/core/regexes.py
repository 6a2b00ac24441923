"""Many untrusted regexes against one paste, in bounded time, at any store size.

Record regexes come from files we do not control; some are catastrophic for a backtracking
engine. Every pattern RE2 accepts runs on RE2 (linear time). To avoid running all of them on every
paste, each pattern gets a set of required *atoms* (literal strings, case-folded, at least
`MIN_ATOM` characters) such that any match must contain one of them. One Aho-Corasick pass over
the case-folded paste finds which atoms occur; only the patterns owning one are run. Patterns with
no usable atom (`.*`, `\\w+ \\d+`) are "unfiltered" and always run. Compiled RE2 objects of the
filtered patterns live in a bounded LRU cache, so memory stays flat however large the store.

The prefilter is conservative: it may select a pattern that then does not match, never skip one
that does. Results (which patterns match, and the length of the leftmost match) are exactly those
of searching each pattern on its own with RE2, case-insensitively.

The few patterns RE2 rejects (look-around, back-references) run on the `regex` module with a hard
timeout, so one of them can cost at most `FALLBACK_TIMEOUT` per paste.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ahocorasick
import re2
import regex

FALLBACK_TIMEOUT = 0.02  # seconds per fallback pattern per search
MIN_ATOM = 3  # characters (after case folding) of the shortest literal the prefilter keys on
MAX_ATOM = 16  # longer literals are cut to this (any piece of a required literal is required)
WEAK = 1e6  # cost of keying on a literal shorter than MIN_ATOM: only where nothing better exists
CACHE_SIZE = 4096  # compiled RE2 objects kept for filtered patterns


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


def fold(text: str) -> str:
    """Case folding for the prefilter, applied alike to atoms and pastes.

    Full Unicode case folding maps every character RE2 treats as case-equivalent (`K`, `k` and
    the Kelvin sign; `s` and `ſ`; `ß` and `ẞ`) to the same string. It may change lengths
    (`ß` -> `ss`), which is fine: only *whether* an atom occurs is used, never where.
    """
    return text.casefold()


# ---- required atoms -----------------------------------------------------------------------------

# Atom-set choice: a pattern node yields None (no literal is required) or a set of atoms one of
# which any match contains. `cost` says how bad an atom is to key on (common, short).

_Cost = Any  # Callable[[str], float]


class _NoAtoms(Exception):
    """The pattern cannot be analysed safely: treat it as unfiltered."""


MAX_EXACT = 16  # strings kept while expanding small alternations/classes (`[Ee]rror`, `(a|b)c`)


def _usable(atom: str) -> bool:
    """Long enough to be selective: MIN_ATOM characters, or 2 non-ASCII ones (`계좌`, `名刺`)."""
    return len(atom) >= MIN_ATOM or (len(atom) == 2 and not atom.isascii())


def _words(run: str) -> list[str]:
    """Candidate atoms inside one required literal string: its pieces of at most MAX_ATOM chars.

    Word-like pieces (a whole rare word is the most selective key); the string itself, cut,
    when it holds no usable word.
    """
    out: list[str] = []
    word: list[str] = []
    for ch in run + " ":
        if ch.isalnum() or ch == "_":
            word.append(ch)
        else:
            piece = "".join(word)
            if _usable(piece):
                out.append(piece[:MAX_ATOM])
            word = []
    if not out and run:
        out.append(run[:MAX_ATOM])  # short: a weak key, chosen only where nothing better exists
    return out


@dataclass
class _Info:
    """What a pattern node requires: `exact` (every string it can match, when few and known) and
    `best` (the cheapest set of atoms one of which any of its matches contains)."""

    exact: frozenset[str] | None
    best: frozenset[str] | None


def _exact_atoms(strings: frozenset[str], cost: _Cost) -> frozenset[str] | None:
    """An atom set from a set of exact strings: the best piece of each (None if one has none)."""
    out = set()
    for s in strings:
        pieces = _words(s)
        if not pieces:
            return None
        out.add(min(pieces, key=lambda a: (cost(a), a)))
    return frozenset(out)


def _cheapest(options: list[frozenset[str]], cost: _Cost) -> frozenset[str] | None:
    if not options:
        return None
    return min(options, key=lambda s: (sum(cost(a) for a in s), sorted(s)))


_NOTHING = frozenset([""])


def _seq(items: Any, cost: _Cost) -> _Info:
    """A concatenation: adjacent exact parts multiply out; the cheapest required set wins."""
    options: list[frozenset[str]] = []
    cur = _NOTHING
    exact_all = True
    lit: list[str] = []  # literal characters not yet appended to `cur` (the common case, batched)

    def flush() -> None:
        if cur != _NOTHING:
            atoms = _exact_atoms(cur, cost)
            if atoms is not None:
                options.append(atoms)

    for op, av in items:
        if op is sre_c.LITERAL:
            lit.append(chr(av))
            continue
        if lit:
            tail = fold("".join(lit))
            cur = frozenset(a + tail for a in cur)
            lit.clear()
        info = _node(op, av, cost)
        if info.exact is not None and len(cur) * len(info.exact) <= MAX_EXACT:
            cur = frozenset(a + b for a in cur for b in info.exact)
            continue
        flush()
        # too many combinations: a new exact run starts with this part
        cur = info.exact if info.exact is not None else _NOTHING
        exact_all = False
        if info.best is not None:
            options.append(info.best)
    if lit:
        tail = fold("".join(lit))
        cur = frozenset(a + tail for a in cur)
    flush()
    return _Info(cur if exact_all else None, _cheapest(options, cost))


def _node(op: Any, av: Any, cost: _Cost) -> _Info:
    if op is sre_c.LITERAL:
        return _Info(frozenset([fold(chr(av))]), None)
    if op is sre_c.AT:
        return _Info(frozenset([""]), None)  # zero-width: its neighbours are adjacent in a match
    if op is sre_c.IN:
        if av and all(iop is sre_c.LITERAL for iop, _ in av) and len(av) <= 4:
            return _Info(frozenset(fold(chr(c)) for _, c in av), None)
        return _Info(None, None)
    if op is sre_c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if add_flags & sre_c.SRE_FLAG_VERBOSE:
            raise _NoAtoms
        return _seq(sub, cost)
    if op is sre_c.BRANCH:
        infos = [_seq(branch, cost) for branch in av[1]]
        exact: frozenset[str] | None = None
        if all(i.exact is not None for i in infos):
            union = frozenset().union(*(i.exact for i in infos if i.exact is not None))
            exact = union if len(union) <= MAX_EXACT else None
        atoms: set[str] = set()
        for i in infos:
            own = _cheapest([o for o in (i.best, _exact_atoms(i.exact, cost) if i.exact else None) if o], cost)
            if own is None:
                return _Info(exact, None)
            atoms |= own
        return _Info(exact, frozenset(atoms))
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        info = _seq(sub, cost)
        if lo == hi == 1:
            return info
        if lo < 1:
            return _Info(None, None)
        options = [o for o in (info.best, _exact_atoms(info.exact, cost) if info.exact else None) if o]
        return _Info(None, _cheapest(options, cost))
    if op is sre_c.ATOMIC_GROUP:
        return _seq(av, cost)
    if op in (sre_c.ASSERT, sre_c.ASSERT_NOT, sre_c.GROUPREF, sre_c.GROUPREF_EXISTS):
        raise _NoAtoms  # RE2 rejects these anyway; never guess
    return _Info(None, None)  # ANY, CATEGORY, NOT_LITERAL, ...: no literal here


def _parse(pattern: str) -> Any:
    """Python's parse of an RE2 pattern, or _NoAtoms where the two syntaxes may disagree."""
    if "{," in pattern or "[:" in pattern or "\\Q" in pattern:
        raise _NoAtoms  # `{,n}` is a literal in RE2; POSIX classes and \Q..\E are RE2's own: don't guess
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. "possible nested set": the syntaxes differ there
            return sre_parse.parse(pattern)
    except Exception as e:  # noqa: BLE001 - any parse trouble: the pattern is unfiltered
        raise _NoAtoms from e


def required_atoms(pattern: str, cost: _Cost | None = None) -> frozenset[str] | None:
    """Folded literals one of which every match of `pattern` contains; None if there are none."""
    cost = cost or (lambda a: 1.0 / len(a) + (0.0 if _usable(a) else WEAK))
    try:
        info = _seq(list(_parse(pattern)), cost)
    except (_NoAtoms, RecursionError):
        return None
    atoms = info.best
    if info.exact is not None:
        whole = _exact_atoms(info.exact, cost)
        atoms = _cheapest([o for o in (atoms, whole) if o], cost)
    return atoms


_WORD = re.compile(r"\w{2,}")


def _pattern_words(pattern: str) -> set[str]:
    """The words of a pattern's source, folded and cut as atoms are: for document frequencies."""
    return {w[:MAX_ATOM] for w in _WORD.findall(fold(pattern))}


# ---- the set ------------------------------------------------------------------------------------


class RegexSet:
    """Patterns indexed once (per store version); `search` returns which ones match and how much."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.size = len(patterns)
        self._patterns = list(patterns)
        self._fallback: list[tuple[int, regex.Pattern[str]]] = []
        self.rejected: list[int] = []
        self._opts = _options()
        self._cache: OrderedDict[int, re2._Regexp] = OrderedDict()
        accepted: list[int] = []
        for i, pattern in enumerate(patterns):
            try:
                re2.compile(pattern, self._opts)  # a check only: the object is not kept
            except re2.error:
                self._add_fallback(i, pattern)
                continue
            accepted.append(i)
        # document frequency of candidate atoms: an atom many patterns offer is a poor key
        df: dict[str, int] = {}
        for i in accepted:
            for a in _pattern_words(patterns[i]):
                df[a] = df.get(a, 0) + 1

        def cost(atom: str) -> float:
            return df.get(atom, 1) + 4.0 / len(atom) + (0.0 if _usable(atom) else WEAK)

        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
        owners: dict[str, list[int]] = {}
        self.unfiltered: list[int] = []  # no literal at all (`.*`): run on every search
        self.weak: list[int] = []  # keyed on a short literal (`W/`, `6.4`): selected more often
        for i in accepted:
            atoms = required_atoms(patterns[i], cost)
            if atoms is None:
                self.unfiltered.append(i)
                continue
            if not all(_usable(a) for a in atoms):
                self.weak.append(i)
            for a in atoms:
                owners.setdefault(a, []).append(i)
        self._owners: list[tuple[int, ...]] = []
        for atom, ids in owners.items():
            self._automaton.add_word(atom, len(self._owners))
            self._owners.append(tuple(ids))
        if owners:
            self._automaton.make_automaton()
        self._unfiltered = [(i, re2.compile(patterns[i], self._opts)) for i in self.unfiltered]

    def _add_fallback(self, index: int, pattern: str) -> None:
        try:
            self._fallback.append((index, regex.compile(pattern, regex.IGNORECASE | regex.V0)))
        except (regex.error, ValueError, OverflowError, RecursionError):
            self.rejected.append(index)

    def _compiled(self, index: int) -> re2._Regexp:
        regexp = self._cache.get(index)
        if regexp is None:
            regexp = self._cache[index] = re2.compile(self._patterns[index], self._opts)
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(index)
        return regexp

    def candidates(self, text: str) -> set[int]:
        """Filtered patterns one of whose atoms occurs in `text` (a superset of those matching)."""
        found: set[int] = set()
        if self._automaton.kind == ahocorasick.AHOCORASICK:
            seen: set[int] = set()
            for _end, k in self._automaton.iter(fold(text)):
                if k not in seen:
                    seen.add(k)
                    found.update(self._owners[k])
        return found

    def search(self, text: str) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match."""
        hits: list[Hit] = []
        if text:
            for index in sorted(self.candidates(text)):
                m = self._compiled(index).search(text)
                if m:
                    hits.append(Hit(index, m.end() - m.start()))
            for index, regexp in self._unfiltered:
                m = regexp.search(text)
                if m:
                    hits.append(Hit(index, m.end() - m.start()))
            hits.sort(key=lambda h: h.index)
        for index, pattern in self._fallback:
            try:
                m = pattern.search(text, timeout=FALLBACK_TIMEOUT)
            except TimeoutError:
                continue
            if m:
                hits.append(Hit(index, m.end() - m.start()))
        return hits

"""Many untrusted regexes against one paste, in bounded time, at any store size.

Record regexes come from files we do not control; some are catastrophic for a backtracking
engine. Every pattern RE2 accepts runs on RE2 (linear time). To avoid running all of them on every
paste, each pattern is reduced to a few *terms*: sets of literal strings (case-folded *atoms*)
that must all occur, one term of which any match satisfies (`ERR.*AUTH|NOAUTH` -> {err, auth} or
{noauth}). Each term is keyed on its rarest atom. One Aho-Corasick pass over the case-folded paste
finds which keys occur; a term whose other atoms are there too selects its pattern, and only the
selected patterns are run. Patterns with no literal at all (`.*`, `\\w+\\d*`) are "unfiltered" and
always run. Compiled RE2 objects of the filtered patterns live in a bounded LRU cache, so memory
stays flat however large the store.

The prefilter is conservative: it may select a pattern that then does not match, never skip one
that does. Results (which patterns match, and the length of the leftmost match) are exactly those
of searching each pattern on its own with RE2, case-insensitively, unless a search is given a
`budget` and the paste selects more patterns than that: then the least selective are skipped.

The few patterns RE2 rejects (look-around, back-references) run on the `regex` module with a hard
timeout, so one of them can cost at most `FALLBACK_TIMEOUT` per paste.
"""
from __future__ import annotations

import heapq
import re
import re._constants as sre_c
import re._parser as sre_parse
import warnings
from array import array
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

# What a pattern requires, as a small formula over atoms: a tuple of *terms*, each a set of atoms
# that must all occur, at least one term of which any match satisfies (`ERR.*AUTH|NOAUTH` ->
# {err, auth} or {noauth}). None: no literal is required. Conjunctions matter: a vague pattern
# keyed on one common word (`err`) would run on most pastes; requiring `err` AND `auth` does not.
# `cost` says how bad an atom is to key on (common, short).

_Cost = Any  # Callable[[str], float]
_WORD = re.compile(r"\w{2,}")
_Terms = tuple[frozenset[str], ...] | None


class _NoAtoms(Exception):
    """The pattern cannot be analysed safely: treat it as unfiltered."""


MAX_EXACT = 16  # strings kept while expanding small alternations/classes (`[Ee]rror`, `(a|b)c`)
MAX_TERMS = 16  # terms kept when multiplying out a conjunction of alternations


def _usable(atom: str) -> bool:
    """Long enough to be selective: MIN_ATOM characters, or 2 non-ASCII ones (`계좌`, `名刺`)."""
    return len(atom) >= MIN_ATOM or (len(atom) == 2 and not atom.isascii())


def _words(run: str) -> list[str]:
    """Atoms inside one required literal string: its pieces of at most MAX_ATOM chars.

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
    `terms` (see above)."""

    exact: frozenset[str] | None
    terms: _Terms


def _exact_terms(strings: frozenset[str]) -> _Terms:
    """Terms from a set of exact strings: all the atoms of each (None if one has none)."""
    out = []
    for s in sorted(strings):
        pieces = _words(s)
        if not pieces:
            return None
        words = _WORD.findall(s)
        pieces += [w for w in words if len(w) == 2]  # `os`, `32`: weak keys, but fine conjuncts
        phrase = s[:MAX_ATOM]
        if len(_WORD.findall(phrase)) >= 2:  # `broken pipe`, `os error 32`: rarer than any of its words
            pieces.append(phrase)
        out.append(frozenset(pieces))
    return tuple(dict.fromkeys(out))


def _terms_cost(terms: tuple[frozenset[str], ...], cost: _Cost) -> float:
    """How often the terms would be checked: each is keyed on its cheapest atom."""
    return sum(min(cost(a) for a in t) / len(t) for t in terms)


def _and(a: _Terms, b: _Terms, cost: _Cost) -> _Terms:
    """Both required: terms multiplied out, or the more selective side alone when too many."""
    if a is None or b is None:
        return b if a is None else a
    product = tuple(dict.fromkeys(x | y for x in a for y in b))
    if len(product) <= MAX_TERMS:
        return product
    return a if (_terms_cost(a, cost), len(a)) <= (_terms_cost(b, cost), len(b)) else b


def _or(options: list[_Terms]) -> _Terms:
    """One of the options required: their terms together (None if one requires nothing)."""
    out: list[frozenset[str]] = []
    for terms in options:
        if terms is None:
            return None
        out.extend(terms)
    return tuple(dict.fromkeys(out))


_NOTHING = frozenset([""])


def _seq(items: Any, cost: _Cost) -> _Info:
    """A concatenation: adjacent exact parts multiply out; every part's terms are required."""
    terms: _Terms = None
    cur = _NOTHING
    exact_all = True
    lit: list[str] = []  # literal characters not yet appended to `cur` (the common case, batched)

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
        if cur != _NOTHING:
            terms = _and(terms, _exact_terms(cur), cost)
        # too many combinations: a new exact run starts with this part
        cur = info.exact if info.exact is not None else _NOTHING
        exact_all = False
        if info.exact is None:
            terms = _and(terms, info.terms, cost)
    if lit:
        tail = fold("".join(lit))
        cur = frozenset(a + tail for a in cur)
    if cur != _NOTHING:
        terms = _and(terms, _exact_terms(cur), cost)
    return _Info(cur if exact_all else None, terms)


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
        return _Info(exact, _or([i.terms for i in infos]))
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        info = _seq(sub, cost)
        if lo == hi == 1:
            return info
        if lo < 1:
            return _Info(None, None)
        return _Info(None, info.terms)
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


def _default_cost(atom: str) -> float:
    return 1.0 / len(atom) + (0.0 if _usable(atom) else WEAK)


def required_terms(pattern: str, cost: _Cost | None = None) -> _Terms:
    """Terms (sets of folded literals that must all occur) one of which every match of `pattern`
    satisfies; None if it requires no literal."""
    cost = cost or _default_cost
    try:
        terms = _seq(list(_parse(pattern)), cost).terms
    except (_NoAtoms, RecursionError):
        return None
    return terms or None


def trigger(term: frozenset[str], cost: _Cost) -> str:
    """The atom a term is keyed on: its cheapest (rarest, longest)."""
    return min(term, key=lambda a: (cost(a), a))


def required_atoms(pattern: str, cost: _Cost | None = None) -> frozenset[str] | None:
    """Folded literals one of which every match of `pattern` contains (each term's key); None if
    there are none."""
    cost = cost or _default_cost
    terms = required_terms(pattern, cost)
    return None if terms is None else frozenset(trigger(t, cost) for t in terms)


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
            words = _WORD.findall(atom)
            if len(words) >= 2:  # a phrase: rarer than its rarest word, but a longer key to store
                return min(cost(w) for w in words) / 2 + 1.0
            return df.get(atom, 1) + 4.0 / len(atom) + (0.0 if _usable(atom) else WEAK)

        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS, ahocorasick.KEY_STRING)
        atom_ids: dict[str, int] = {}
        keyed: dict[int, list[int]] = {}  # trigger atom id -> terms keyed on it
        self.unfiltered: list[int] = []  # no literal at all (`.*`): run on every search
        self.weak: list[int] = []  # keyed on a short literal (`W/`, `6.4`): selected more often
        # terms, flat: term t belongs to pattern _term_pattern[t] and needs the atoms
        # _term_atoms[_term_start[t]:_term_start[t + 1]] besides its trigger (arrays: 250,000
        # patterns' terms as Python tuples were tens of MB)
        self._term_pattern = array("i")
        self._term_start = array("i", [0])
        self._term_atoms = array("i")
        # how selective each pattern's prefilter is (its worst term's key cost): when a paste
        # selects more than a search's budget, the most selective patterns run first
        self._rank = array("d", [0.0] * len(patterns))
        for i in accepted:
            terms = required_terms(patterns[i], cost)
            if terms is None:
                self.unfiltered.append(i)
                continue
            weak = False
            for term in terms:
                key = trigger(term, cost)
                weak = weak or not _usable(key)
                self._rank[i] = max(self._rank[i], cost(key) / (1 + len(term)))
                keyed.setdefault(atom_ids.setdefault(key, len(atom_ids)), []).append(len(self._term_pattern))
                self._term_pattern.append(i)
                # 1-character conjuncts (`:`, `4`) would cost more to find than they filter, and a
                # phrase adds little to its own words: dropped
                others = sorted(a for a in term if a != key and len(a) >= 2 and len(_WORD.findall(a)) < 2)
                self._term_atoms.extend(atom_ids.setdefault(a, len(atom_ids)) for a in others)
                self._term_start.append(len(self._term_atoms))
            if weak:
                self.weak.append(i)
        # trigger atom id -> its terms, flat the same way
        self._key_start = array("i", [0] * (len(atom_ids) + 1))
        self._key_terms = array("i")
        for k in range(len(atom_ids)):
            self._key_terms.extend(keyed.get(k, ()))
            self._key_start[k + 1] = len(self._key_terms)
        # only keys go into the automaton (its trie costs ~40 bytes a character); a conjunct that
        # is nobody's key is looked for in the paste directly, once per search
        self._is_key = bytearray(len(atom_ids))
        self._atom_text: list[str] = list(atom_ids)
        for k in keyed:
            self._is_key[k] = 1
            self._automaton.add_word(self._atom_text[k], k)
            self._atom_text[k] = ""  # the trie has it; only conjuncts are looked up as text
        del atom_ids
        if keyed:
            self._automaton.make_automaton()
        self._unfiltered = [(i, re2.compile(patterns[i], self._opts)) for i in self.unfiltered]
        self._fallback_at = dict(self._fallback)

    def matches(self, index: int, text: str) -> bool:
        """Whether pattern `index` alone matches `text` (RE2, or the bounded fallback)."""
        if index in self._fallback_at:
            try:
                return self._fallback_at[index].search(text, timeout=FALLBACK_TIMEOUT) is not None
            except TimeoutError:
                return False
        if index in self.rejected:
            return False
        return self._compiled(index).search(text) is not None

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
        """Filtered patterns one of whose terms occurs whole in `text` (a superset of those
        matching)."""
        found: set[int] = set()
        if self._automaton.kind != ahocorasick.AHOCORASICK:
            return found
        folded = fold(text)
        present = {k for _end, k in self._automaton.iter(folded)}
        key_start, key_terms = self._key_start, self._key_terms
        term_start, term_atoms, term_pattern = self._term_start, self._term_atoms, self._term_pattern
        is_key, atom_text = self._is_key, self._atom_text
        looked: dict[int, bool] = {}

        def occurs(a: int) -> bool:
            if is_key[a]:
                return a in present
            seen = looked.get(a)
            if seen is None:
                seen = looked[a] = atom_text[a] in folded
            return seen

        for k in present:
            for t in key_terms[key_start[k] : key_start[k + 1]]:
                lo, hi = term_start[t], term_start[t + 1]
                if lo == hi or all(occurs(a) for a in term_atoms[lo:hi]):
                    found.add(term_pattern[t])
        return found

    def search(self, text: str, budget: int | None = None) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match.

        `budget` bounds the filtered patterns run: when a paste selects more (a large store with
        many copies of a vague pattern, e.g. `911.*no`), the most selective run and the rest are
        skipped, so one paste can never cost more than `budget` searches. None: all of them.
        """
        hits: list[Hit] = []
        if text:
            selected = self.candidates(text)
            if budget is not None and len(selected) > budget:
                rank = self._rank
                selected = set(heapq.nsmallest(budget, selected, key=lambda i: (rank[i], i)))
            for index in sorted(selected):
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

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


def _compiles(pattern: str, opts: re2.Options) -> bool:
    try:
        re2.compile(pattern, opts)
    except re2.error:
        return False
    return True


# ---- top-level alternatives -------------------------------------------------------------------


def class_end(pattern: str, i: int) -> int:
    """Index just past the character class that starts at pattern[i] == '['."""
    n, j = len(pattern), i + 1
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1  # a `]` first in a class is a literal
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
        elif pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            j = n if end < 0 else end + 2
        elif c == "]":
            return j + 1
        else:
            j += 1
    return n


def _bars(pattern: str) -> tuple[list[int], int] | None:
    """Positions of the top-level `|` and where the group opened at 0 closes (-1 if none), or
    None when the parentheses do not balance."""
    bars: list[int] = []
    first_close = -1
    depth, i, n = 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = class_end(pattern, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and first_close < 0 and pattern[0] == "(":
                first_close = i
        elif c == "|" and depth == 0:
            bars.append(i)
        i += 1
    return (bars, first_close) if depth == 0 else None


def branch_spans(pattern: str) -> list[tuple[int, int]]:
    """Where the top-level alternatives of `pattern` are, a group around the whole unwrapped
    (`(a|b)` -> a, b); the whole pattern when there are none or the syntax could mean something
    else here.

    A pattern matches where one of its alternatives does, and its leftmost match is the leftmost
    of theirs (the earlier alternative on a tie), so alternatives shared by many records (per
    environment copies of one error) can be searched once for all of them.
    """
    whole = [(0, len(pattern))]
    if "\\Q" in pattern or "(?" in pattern.replace("(?:", "").replace("(?P<", ""):
        return whole  # inline flags apply across alternatives; \Q..\E quotes `|`: do not split
    lo, hi = 0, len(pattern)
    for _ in range(8):  # `((a|b))`: unwrap a few levels
        body = pattern[lo:hi]
        found = _bars(body)
        if found is None:
            return whole
        bars, first_close = found
        if bars or first_close != len(body) - 1:
            break
        if body.startswith("(?:"):
            lo += 3
        elif body.startswith("(?P<"):
            lo += body.find(">") + 1
        else:
            lo += 1
        hi -= 1
    else:
        return whole
    if not bars:
        return whole
    edges = [-1, *bars, hi - lo]
    return [(lo + a + 1, lo + b) for a, b in zip(edges, edges[1:], strict=False)]


def branches(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (see branch_spans)."""
    return [pattern[a:b] for a, b in branch_spans(pattern)]


# ---- the set ------------------------------------------------------------------------------------


class RegexSet:
    """Patterns indexed once (per store version); `search` returns which ones match and how much.

    Internally the unit of search is a pattern's top-level alternative (see `branches`): one
    alternative shared by many patterns runs once for all of them.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.size = len(patterns)
        self._patterns = list(patterns)
        self._fallback: list[tuple[int, regex.Pattern[str]]] = []
        self.rejected: list[int] = []
        self._opts = _options()
        self._cache: OrderedDict[int, re2._Regexp] = OrderedDict()
        accepted: list[int] = []
        for i, pattern in enumerate(patterns):
            if _compiles(pattern, self._opts):  # a check only: the object is not kept
                accepted.append(i)
            else:
                self._add_fallback(i, pattern)
        # units: the distinct alternatives; unit u is alternative number _owner_order[k] of
        # pattern _owner_pattern[k] for k in _owner_start[u]:_owner_start[u + 1]
        # units: the distinct alternatives, each kept as a span of its first pattern
        # (_unit_pattern, _unit_lo, _unit_hi: 250,000 patterns' alternatives as strings were 45 MB);
        # unit u is alternative number _owner_order[k] of pattern _owner_pattern[k] for k in
        # _owner_start[u]:_owner_start[u + 1]
        unit_ids: dict[str, int] = {}
        owners: list[list[tuple[int, int]]] = []
        self._unit_pattern = array("i")
        self._unit_lo = array("i")
        self._unit_hi = array("i")
        self._pattern_start = array("i", [0] * (len(patterns) + 1))  # pattern i's units:
        self._pattern_unit = array("i")  # _pattern_unit[_pattern_start[i]:_pattern_start[i + 1]]
        for i in accepted:
            pattern = patterns[i]
            spans = branch_spans(pattern)
            if len(spans) > 1 and not all(_compiles(pattern[lo:hi], self._opts) for lo, hi in spans):
                spans = [(0, len(pattern))]
            for order, (lo, hi) in enumerate(spans):
                u = unit_ids.setdefault(pattern[lo:hi], len(unit_ids))
                if u == len(owners):
                    owners.append([])
                    self._unit_pattern.append(i)
                    self._unit_lo.append(lo)
                    self._unit_hi.append(hi)
                owners[u].append((i, order))
                self._pattern_unit.append(u)
            self._pattern_start[i + 1] = len(self._pattern_unit)
        for i in range(len(patterns)):  # patterns RE2 rejects own no unit: an empty range
            self._pattern_start[i + 1] = max(self._pattern_start[i + 1], self._pattern_start[i])
        del unit_ids
        self._owner_start = array("i", [0])
        self._owner_pattern = array("i")
        self._owner_order = array("i")
        for pairs in owners:
            self._owner_pattern.extend(i for i, _ in pairs)
            self._owner_order.extend(k for _, k in pairs)
            self._owner_start.append(len(self._owner_pattern))
        del owners
        n_units = len(self._unit_pattern)
        # document frequency of candidate atoms: an atom many patterns offer is a poor key
        df: dict[str, int] = {}
        for i in accepted:
            for a in _pattern_words(patterns[i]):
                df[a] = df.get(a, 0) + 1

        def word_cost(atom: str) -> float:
            return df.get(atom, 1) + 4.0 / len(atom) + (0.0 if _usable(atom) else WEAK)

        def cost(atom: str) -> float:  # not recursive: a self-referencing closure is a GC cycle
            words = _WORD.findall(atom)
            if len(words) >= 2:  # a phrase: rarer than its rarest word, but a longer key to store
                return min(word_cost(w) for w in words) / 2 + 1.0
            return word_cost(atom)

        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS, ahocorasick.KEY_STRING)
        atom_ids: dict[str, int] = {}
        keyed: dict[int, list[int]] = {}  # trigger atom id -> terms keyed on it
        self.unfiltered: list[int] = []  # units with no literal at all (`.*`): run on every search
        self.weak: list[int] = []  # units keyed on a short literal (`W/`, `6.4`): selected more often
        # terms, flat: term t belongs to unit _term_unit[t] and needs the atoms
        # _term_atoms[_term_start[t]:_term_start[t + 1]] besides its trigger (arrays: 250,000
        # patterns' terms as Python tuples were tens of MB)
        self._term_unit = array("i")
        self._term_start = array("i", [0])
        self._term_atoms = array("i")
        # how selective each unit's prefilter is (its worst term's key cost): when a paste
        # selects more than a search's budget, the most selective units run first
        self._rank = array("d", [0.0] * n_units)
        for u in range(n_units):
            terms = required_terms(self._unit_text(u), cost)
            if terms is None:
                self.unfiltered.append(u)
                continue
            weak = False
            for term in terms:
                key = trigger(term, cost)
                weak = weak or not _usable(key)
                self._rank[u] = max(self._rank[u], cost(key) / (1 + len(term)))
                keyed.setdefault(atom_ids.setdefault(key, len(atom_ids)), []).append(len(self._term_unit))
                self._term_unit.append(u)
                # 1-character conjuncts (`:`, `4`) would cost more to find than they filter, and a
                # phrase adds little to its own words: dropped
                others = sorted(a for a in term if a != key and len(a) >= 2 and len(_WORD.findall(a)) < 2)
                self._term_atoms.extend(atom_ids.setdefault(a, len(atom_ids)) for a in others)
                self._term_start.append(len(self._term_atoms))
            if weak:
                self.weak.append(u)
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
        self._unfiltered = [(u, re2.compile(self._unit_text(u), self._opts)) for u in self.unfiltered]
        self._fallback_at = dict(self._fallback)

    def matches(self, index: int, text: str) -> bool:
        """Whether pattern `index` alone matches `text` (RE2, or the bounded fallback)."""
        if index in self._fallback_at:
            try:
                return self._fallback_at[index].search(text, timeout=FALLBACK_TIMEOUT) is not None
            except TimeoutError:
                return False
        units = self._pattern_unit[self._pattern_start[index] : self._pattern_start[index + 1]]
        return any(self._compiled(u).search(text) is not None for u in units)

    def _add_fallback(self, index: int, pattern: str) -> None:
        try:
            self._fallback.append((index, regex.compile(pattern, regex.IGNORECASE | regex.V0)))
        except (regex.error, ValueError, OverflowError, RecursionError):
            self.rejected.append(index)

    def _unit_text(self, unit: int) -> str:
        return self._patterns[self._unit_pattern[unit]][self._unit_lo[unit] : self._unit_hi[unit]]

    def _compiled(self, unit: int) -> re2._Regexp:
        regexp = self._cache.get(unit)
        if regexp is None:
            regexp = self._cache[unit] = re2.compile(self._unit_text(unit), self._opts)
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(unit)
        return regexp

    def _unit_candidates(self, text: str) -> set[int]:
        """Filtered units one of whose terms occurs whole in `text` (a superset of those matching)."""
        found: set[int] = set()
        if self._automaton.kind != ahocorasick.AHOCORASICK:
            return found
        folded = fold(text)
        present = {k for _end, k in self._automaton.iter(folded)}
        key_start, key_terms = self._key_start, self._key_terms
        term_start, term_atoms, term_unit = self._term_start, self._term_atoms, self._term_unit
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
                    found.add(term_unit[t])
        return found

    def candidates(self, text: str) -> set[int]:
        """Filtered patterns one of whose alternatives' terms occurs whole in `text` (a superset of
        those matching)."""
        start, owner = self._owner_start, self._owner_pattern
        return {owner[k] for u in self._unit_candidates(text) for k in range(start[u], start[u + 1])}

    def search(self, text: str, budget: int | None = None) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match.

        `budget` bounds the filtered alternatives run: when a paste selects more (a large store
        with many vague patterns), the most selective run and the rest are skipped, so one paste
        can never cost more than `budget` searches; a pattern whose skipped alternative would have
        matched is then missed, or measured by another of its alternatives. None: all of them,
        and the result is exact.
        """
        hits: list[Hit] = []
        if text:
            selected = self._unit_candidates(text)
            if budget is not None and len(selected) > budget:
                rank = self._rank
                selected = set(heapq.nsmallest(budget, selected, key=lambda u: (rank[u], u)))
            # pattern -> (start, alternative, length) of its leftmost match: the earliest start,
            # the earlier alternative on a tie, as the whole alternation would match
            best: dict[int, tuple[int, int, int]] = {}
            start, owner, order = self._owner_start, self._owner_pattern, self._owner_order
            runs = [(u, self._compiled(u)) for u in sorted(selected)] + self._unfiltered
            for u, regexp in runs:
                m = regexp.search(text)
                if m is None:
                    continue
                for k in range(start[u], start[u + 1]):
                    found = (m.start(), order[k], m.end() - m.start())
                    cur = best.get(owner[k])
                    if cur is None or found < cur:
                        best[owner[k]] = found
            hits = [Hit(i, best[i][2]) for i in sorted(best)]
        for index, pattern in self._fallback:
            try:
                m = pattern.search(text, timeout=FALLBACK_TIMEOUT)
            except TimeoutError:
                continue
            if m:
                hits.append(Hit(index, m.end() - m.start()))
        return hits

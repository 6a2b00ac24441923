"""Many untrusted regexes against one paste, in bounded time, at any store size (pure).

Record regexes come from files we do not control; some are catastrophic for a backtracking
engine. Every pattern RE2 accepts runs on RE2 (linear time). To avoid running all of them on every
paste, each pattern is reduced to a few *terms* (bot/core/literals.py): sets of literal strings
(case-folded *atoms*) that must all occur, one term of which any match satisfies
(`ERR.*AUTH|NOAUTH` -> {err, auth} or {noauth}). Each term is keyed on its rarest atom. One
Aho-Corasick pass over the case-folded paste finds which keys occur; a term whose other atoms are
there too selects its pattern, and only the selected patterns are run. Patterns with no literal at
all (`.*`, `\\w+\\d*`) are "unfiltered" and always run. Compiled RE2 objects of the filtered
patterns live in a bounded LRU cache, so memory stays flat however large the store. The unit of
search is a pattern's top-level alternative (bot/core/alternatives.py).

The prefilter is conservative: it may select a pattern that then does not match, never skip one
that does. Results (which patterns match, and the length of the leftmost match) are exactly those
of searching each pattern on its own with RE2, case-insensitively, unless a search is given a
`budget` and the paste selects more patterns than that: then the least selective are skipped.

The few patterns RE2 rejects (look-around, back-references) run on the `regex` module with a hard
timeout. All the regex work for one paste shares one `Budget` (bot/core/budget.py: PASTE_SECONDS
in total, however many patterns the store holds): each fallback search may use at most
FALLBACK_TIMEOUT of what is left, and once it is spent the remaining searches are skipped, so a
store full of backtracking patterns costs a paste at most the budget. Fallback searches release
the GIL (`concurrent`), so they never hold up the threads that serve acks and votes.
"""

from __future__ import annotations

import heapq
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import ahocorasick
import re2
import regex

from bot.core.alternatives import branch_spans
from bot.core.budget import Budget
from bot.core.literals import WEAK, WORD, fold, pattern_words, required_terms, trigger, usable

FALLBACK_TIMEOUT = 0.02  # seconds one fallback pattern may take of a paste's budget
CACHE_SIZE = 4096  # compiled RE2 objects kept for filtered patterns


def re2_options() -> re2.Options:
    """The options every record regex is compiled with (also what `errfix lint` checks against)."""
    opts = re2.Options()
    opts.case_sensitive = False
    opts.max_mem = 4 << 20  # per pattern; a pathological pattern fails to compile instead
    opts.log_errors = False  # rejected patterns are reported by us, not on stderr
    return opts


@dataclass(frozen=True)
class Hit:
    index: int
    span: int  # length of the matched text: longer matches are more specific


def _compiles(pattern: str, opts: re2.Options) -> bool:
    try:
        re2.compile(pattern, opts)
    except re2.error:
        return False
    return True


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
        self._opts = re2_options()
        self._cache: OrderedDict[int, re2._Regexp] = OrderedDict()
        accepted: list[int] = []
        for i, pattern in enumerate(patterns):
            if _compiles(pattern, self._opts):  # a check only: the object is not kept
                accepted.append(i)
            else:
                self._add_fallback(i, pattern)
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
            for a in pattern_words(patterns[i]):
                df[a] = df.get(a, 0) + 1

        def word_cost(atom: str) -> float:
            return df.get(atom, 1) + 4.0 / len(atom) + (0.0 if usable(atom) else WEAK)

        def cost(atom: str) -> float:  # not recursive: a self-referencing closure is a GC cycle
            words = WORD.findall(atom)
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
                weak = weak or not usable(key)
                self._rank[u] = max(self._rank[u], cost(key) / (1 + len(term)))
                keyed.setdefault(atom_ids.setdefault(key, len(atom_ids)), []).append(len(self._term_unit))
                self._term_unit.append(u)
                # 1-character conjuncts (`:`, `4`) would cost more to find than they filter, and a
                # phrase adds little to its own words: dropped
                others = sorted(a for a in term if a != key and len(a) >= 2 and len(WORD.findall(a)) < 2)
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

    def __getstate__(self) -> dict[str, object]:
        """What a pickled index keeps (the start-up cache): no compiled RE2 object, no options;
        they are compiled again on load, with the options production uses."""
        state = dict(self.__dict__)
        for name in ("_opts", "_cache", "_unfiltered"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._opts = re2_options()
        self._cache = OrderedDict()
        self._unfiltered = [(u, re2.compile(self._unit_text(u), self._opts)) for u in self.unfiltered]

    def matches(self, index: int, text: str) -> bool:
        """Whether pattern `index` alone matches `text` (RE2, or the bounded fallback)."""
        if index in self._fallback_at:
            try:
                return self._fallback_at[index].search(text, timeout=FALLBACK_TIMEOUT, concurrent=True) is not None
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

    def search(self, text: str, budget: int | None = None, time_budget: Budget | None = None) -> list[Hit]:
        """Every pattern that matches `text`, with the length of its leftmost match.

        `budget` bounds the filtered alternatives run: when a paste selects more (a large store
        with many vague patterns), the most selective run and the rest are skipped, so one paste
        can never cost more than `budget` searches; a pattern whose skipped alternative would have
        matched is then missed, or measured by another of its alternatives. None: all of them,
        and the result is exact.

        `time_budget` bounds the seconds spent (see Budget): RE2 searches stop once it is spent,
        and each fallback search gets at most FALLBACK_TIMEOUT of what is left. None: each
        fallback pattern gets FALLBACK_TIMEOUT (building the index, where no paste waits).
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
            for n, (u, regexp) in enumerate(runs):
                if time_budget is not None and time_budget.spent():
                    time_budget.skipped += len(runs) - n
                    break
                m = regexp.search(text)
                if m is None:
                    continue
                for k in range(start[u], start[u + 1]):
                    found = (m.start(), order[k], m.end() - m.start())
                    cur = best.get(owner[k])
                    if cur is None or found < cur:
                        best[owner[k]] = found
            hits = [Hit(i, best[i][2]) for i in sorted(best)]
        for n, (index, pattern) in enumerate(self._fallback):
            timeout = FALLBACK_TIMEOUT
            if time_budget is not None:
                timeout = min(timeout, time_budget.remaining())
                if timeout <= 0.0:
                    time_budget.skipped += len(self._fallback) - n
                    break
            try:
                m = pattern.search(text, timeout=timeout, concurrent=True)
            except TimeoutError:
                continue
            if m:
                hits.append(Hit(index, m.end() - m.start()))
        return hits

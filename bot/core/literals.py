"""What literal text a regex requires of any match: the keys of the `RegexSet` prefilter (pure).

Each pattern is reduced to a few *terms*: sets of literal strings (case-folded *atoms*) that must
all occur, one term of which any match satisfies (`ERR.*AUTH|NOAUTH` -> {err, auth} or {noauth}).
The analysis is conservative: where Python's parser and RE2 might read a pattern differently, or
a construct is not understood, the pattern requires nothing (it is then always run).
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MIN_ATOM = 3  # characters (after case folding) of the shortest literal the prefilter keys on
MAX_ATOM = 16  # longer literals are cut to this (any piece of a required literal is required)
WEAK = 1e6  # cost of keying on a literal shorter than MIN_ATOM: only where nothing better exists


def fold(text: str) -> str:
    """Case folding for the prefilter, applied alike to atoms and pastes.

    Full Unicode case folding maps every character RE2 treats as case-equivalent (`K`, `k` and
    the Kelvin sign; `s` and `ſ`; `ß` and `ẞ`) to the same string. It may change lengths
    (`ß` -> `ss`), which is fine: only *whether* an atom occurs is used, never where.
    """
    return text.casefold()


# What a pattern requires, as a small formula over atoms: a tuple of *terms*, each a set of atoms
# that must all occur, at least one term of which any match satisfies (`ERR.*AUTH|NOAUTH` ->
# {err, auth} or {noauth}). None: no literal is required. Conjunctions matter: a vague pattern
# keyed on one common word (`err`) would run on most pastes; requiring `err` AND `auth` does not.
# `cost` says how bad an atom is to key on (common, short).

_Cost = Callable[[str], float]  # how bad an atom is to key on
WORD = re.compile(r"\w{2,}")  # the words of an atom or a pattern's source, as atoms count them
_Terms = tuple[frozenset[str], ...] | None


class _NoAtoms(Exception):
    """The pattern cannot be analysed safely: treat it as unfiltered."""


MAX_EXACT = 16  # strings kept while expanding small alternations/classes (`[Ee]rror`, `(a|b)c`)
MAX_TERMS = 16  # terms kept when multiplying out a conjunction of alternations


def usable(atom: str) -> bool:
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
            if usable(piece):
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
        words = WORD.findall(s)
        pieces += [w for w in words if len(w) == 2]  # `os`, `32`: weak keys, but fine conjuncts
        phrase = s[:MAX_ATOM]
        if len(WORD.findall(phrase)) >= 2:  # `broken pipe`, `os error 32`: rarer than any of its words
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
    return 1.0 / len(atom) + (0.0 if usable(atom) else WEAK)


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


def pattern_words(pattern: str) -> set[str]:
    """The words of a pattern's source, folded and cut as atoms are: for document frequencies."""
    return {w[:MAX_ATOM] for w in WORD.findall(fold(pattern))}

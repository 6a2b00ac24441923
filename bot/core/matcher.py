"""Error lines → ranked candidate records with one calibrated score in [0, 1] (pure).

Three kinds of evidence, combined by a small logistic model whose weights were fitted on
labelled pastes (bot/core/model.py, `bench/eval.py`):

* **regex**: the record's own pattern matches the error lines (strong) or only somewhere in the
  paste (weaker). A hit is worth as much as it is *specific*: long matched text, and a pattern that
  does not also match other records' signatures (bot/core/vagueness.py). `NOT_FOUND|not found`
  matches half the internet and so earns little.
* **fuzzy**: rapidfuzz similarity between the normalised error lines and the record's normalised
  signature and aliases, for pastes that were retyped, translated or wrapped.
* **coverage**: how much of the signature's rare vocabulary (IDF-weighted tokens) is in the lines.

Environment hints (OS, `torch 2.1`, `CUDA 12`; bot/core/env.py) only break near-ties between
variants of a record.

`Matcher` builds the index once per store version; `Matcher.match` runs in named steps: the
paste's regex hits and words → the pool of candidates → the cheap parts of their scores → the full
score (fuzzy) while a candidate could still reach the top → the best different error (the rival)
→ calibration into P(right record).
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from rapidfuzz import fuzz

from bot.core.budget import Budget
from bot.core.env import domain_words as words_of_domain
from bot.core.env import env_agreement, record_env
from bot.core.extract import ErrorLine, Extracted, normalize
from bot.core.model import Calibration, Weights, calibration_features, sigmoid
from bot.core.records import Record
from bot.core.redact import redact_text
from bot.core.regexset import RegexSet
from bot.core.rejections import rejection_penalty
from bot.core.tokens import paste_words, tokens, wrapped_sentences
from bot.core.vagueness import seed_shadows, vagueness

REGEX_TEXT_LIMIT = 100_000  # the whole-paste regex pass looks at this much of the tail
FUZZY_LINE_CHARS = 300
REGEX_BUDGET = 250  # filtered regexes run per searched text, most selective first (RegexSet.search)
OPEN_DF = 300  # a word in more records than this adds to token candidates, never starts one
POOL = 64  # candidates given the cheap parts of the score (see Matcher._pool)
SAME_WORDING = 0.8  # fuzzy2 (fuzzy squared) from which a record's wording is the paste's
SCORED = 4  # candidates scored in full (fuzzy) at least: the answer and its runners-up, and a
# rival (Matcher._score_rival scores on when all of them are one error); 16 gave the same answers
TOKEN_CANDIDATES = 40  # records sharing rare words with the paste that join the pool


@dataclass(frozen=True, slots=True)
class Entry:
    """What the matcher keeps of a record."""

    id: str
    signature: str
    texts: tuple[str, ...]  # normalised signature and aliases
    env: frozenset[str]
    specificity: float  # 1 / (1 + other records' signatures this regex matches)
    domain_words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidate:
    """A record as an answer: its calibrated score and the parts that made it.

    `parts` is built in full before the Candidate is made and never changed afterwards: a step
    that adds to it (the shadowing, the margin) makes a new Candidate with a new dict.
    """

    id: str
    score: float
    parts: dict[str, float] = field(default_factory=dict)


def _redacted_norm(line: ErrorLine) -> str:
    """The line normalised as a rejection stores it: with its secrets redacted."""
    redacted = redact_text(line.raw)
    return line.norm if redacted == line.raw else normalize(redacted)


@dataclass(frozen=True, slots=True)
class _Paste:
    """What one paste offers every candidate, read once per match (the "hits" step)."""

    line_hits: dict[int, int]  # record -> length of its regex's match on the error lines
    text_hits: dict[int, int]  # record -> the same anywhere in the paste's tail (wrapped lines joined)
    tokens: set[str]  # content words of the error lines (of the paste's tail if it has none)
    words: set[str]  # raw words of the tail, for domain hints
    env: frozenset[str]
    fuzzy_lines: list[tuple[ErrorLine, str]]  # the first error lines, each cut for rapidfuzz
    line_norms: list[str]
    strong: bool  # some error line is a strong one (weight >= 0.8), for calibration


@dataclass(frozen=True, slots=True)
class _Pool:
    """The candidates a paste suggests (the "pool" step)."""

    whole: set[int]  # every regex hit and token candidate
    kept: set[int]  # the POOL most promising of them, which get the cheap parts
    known: dict[int, dict[str, float]]  # parts that cost nothing, for the whole pool


class _Bound(NamedTuple):
    """A candidate with its cheap parts, and the most its full score's logit can be."""

    bound: float
    id: str
    record: int  # index into entries
    parts: dict[str, float]


def _fuzzy_room(w: Weights) -> float:
    """The most the fuzzy parts (unknown until the full score) can add to the logit."""
    return max(0.0, w.fuzzy2) + max(0.0, w.strong_fuzzy) + max(0.0, w.lcover)


class Matcher:
    """An index over one version of the store: compiled regexes, token postings, entries."""

    def __init__(
        self,
        records: Sequence[Record],
        learned_aliases: dict[str, list[str]] | None = None,
        weights: Weights | None = None,
        calibration: Calibration | None = None,
        seeds: frozenset[str] = frozenset(),
        rejections: dict[str, list[tuple[str, str]]] | None = None,
    ) -> None:
        learned_aliases = learned_aliases or {}
        self.rejections = rejections or {}  # record id -> (normalised line, user): "Not this error"
        self.weights = weights or Weights()
        self.calibration = calibration or Calibration()
        self.regexes = RegexSet([r.regex for r in records])
        overlap = vagueness(records, self.regexes, seeds)
        self.entries: list[Entry] = []
        postings: dict[str, list[int]] = defaultdict(list)
        # One string object per distinct token, and a tuple (not a set) of them per wording: at
        # 250,000 records per-record token sets and duplicate strings were most of the index.
        canon: dict[str, str] = {}
        envs: dict[frozenset[str], frozenset[str]] = {}  # a few hundred distinct ones
        domains: dict[str, str] = {}  # and a few dozen domains: one string and tuple each, shared
        domain_words: dict[str, tuple[str, ...]] = {}
        self._text_tokens: list[tuple[tuple[str, ...], ...]] = []
        for i, rec in enumerate(records):
            texts = tuple(
                dict.fromkeys(
                    normalize(t) for t in [rec.signature, *rec.aliases, *learned_aliases.get(rec.id, [])] if t.strip()
                )
            )
            text_tokens = tuple(tuple(canon.setdefault(t, t) for t in dict.fromkeys(tokens(text))) for text in texts)
            self._text_tokens.append(text_tokens)
            domain = domains.setdefault(rec.domain, rec.domain.lower())
            self.entries.append(
                Entry(
                    rec.id,
                    rec.signature,
                    texts,
                    envs.setdefault(env := record_env(rec), env),
                    1.0 / (1.0 + overlap.counts[i]),
                    domain_words.setdefault(domain, words_of_domain(domain)),
                )
            )
            for tok in dict.fromkeys(t for toks in text_tokens for t in toks):
                postings[tok].append(i)
        n = max(1, len(records))
        self.max_idf = math.log(1 + n)
        # tuples, not lists (no spare capacity); a word only one record has gets max_idf by
        # default, so it needs no idf entry (at 250,000 records most words are such)
        self.postings: dict[str, tuple[int, ...]] = {tok: tuple(ids) for tok, ids in postings.items()}
        del postings
        self.idf = {tok: math.log(1 + n / len(ids)) for tok, ids in self.postings.items() if len(ids) > 1}
        self.by_id = {e.id: i for i, e in enumerate(self.entries)}
        self._sig_idf = [self._idf_mass(toks[0]) if toks else 0.0 for toks in self._text_tokens]
        del canon, envs, domains, domain_words
        self.seeds = seeds  # the bundled records (the rest are the team's or imported)
        self.shadows = seed_shadows(records, seeds, overlap.cross_hits)
        self._catch_all = overlap.catch_all
        self._wraps = overlap.wraps

    def rarity(self, word: str) -> float:
        """How rare a word is among the records' wordings, in [0, 1]: 1 when at most one says it."""
        return self.idf.get(word, self.max_idf) / self.max_idf

    def catch_all(self, record_id: str) -> bool:
        """Whether the record's regex also recognises other errors' signatures (one way: not a
        variant of the same error): a class's catch-all in this database."""
        i = self.by_id.get(record_id)
        return i is not None and self._catch_all[i]

    def wrapped_lines(self, record_id: str, text: str) -> list[str]:
        """Lines other errors print beside their own that the record's regex recognises (a
        wrapper's line: bot/core/vagueness.py `wrappers`), of those errors not in `text`."""
        i = self.by_id.get(record_id)
        wrapped = () if i is None else self._wraps.get(i, ())
        return [line for j, line in wrapped if not self.regexes.matches(j, text)]

    def wordings(self, record_id: str) -> tuple[str, ...]:
        """The record's signature, aliases and the aliases the team taught it, normalised."""
        i = self.by_id.get(record_id)
        return () if i is None else self.entries[i].texts

    def regex_matches(self, record_id: str, text: str) -> bool:
        """Whether the record's own regex matches `text` (False for a record not in the index)."""
        i = self.by_id.get(record_id)
        return i is not None and self.regexes.matches(i, text)

    def _idf_mass(self, toks: Iterable[str]) -> float:
        # in first-seen order, so float sums never depend on hash order
        return sum(self.idf.get(t, self.max_idf) for t in dict.fromkeys(toks))

    def _token_candidates(self, query_tokens: set[str], limit: int) -> dict[int, float]:
        """Records sharing rare words with the error lines, by the IDF mass they share.

        Rarest words first. Once the words left could not lift a record that has none of the
        words so far above the `limit`-th best, they only add to records already found (a set
        intersection in C instead of a Python loop over long postings); that cut is exact. Words
        in more than OPEN_DF records do the same from the start: a record sharing only common
        words with the paste is not worth a place (at 250,000 records their postings were most
        of the time spent here).
        """
        # rarest first, ties by the word: float sums and ties never depend on hash order
        toks = sorted(
            (t for t in query_tokens if 0 < len(self.postings.get(t, ())) <= 2000),
            key=lambda t: (-self.idf.get(t, self.max_idf), t),
        )
        left = sum(self.idf.get(t, self.max_idf) for t in toks)
        acc: dict[int, float] = {}
        closed = False
        top = 0.0  # the best sum so far: the limit-th best is no higher, so no point checking before
        for tok in toks:
            w = self.idf.get(tok, self.max_idf)
            ids = self.postings[tok]
            if not closed and left < top and len(acc) >= limit:
                # `left` is a running difference of floats: a record tied with the limit-th best
                # (in exact sums) must still get in, so close only with room for rounding
                closed = left < heapq.nlargest(limit, acc.values())[-1] - 1e-9
            if closed or (len(ids) > OPEN_DF and len(acc) >= limit):
                # a word this common only adds to records a rarer word found
                for i in acc.keys() & ids:
                    acc[i] += w
            else:
                for i in ids:
                    v = acc[i] = acc.get(i, 0.0) + w
                    if v > top:
                        top = v
            left -= w
        # the `limit` largest, ties broken by record index, so results never depend on PYTHONHASHSEED
        return dict(heapq.nsmallest(limit, acc.items(), key=lambda kv: (-kv[1], kv[0])))

    def _missing(self, i: int, present: set[str]) -> float:
        """The rarest word of the record's best wording that the paste lacks, as IDF in [0, 1].

        "ReferenceError: fetch is not defined" is not "ReferenceError: window is not defined":
        fuzzy scores them alike, but the missing rare word tells them apart.
        """
        best = 1.0
        for toks in self._text_tokens[i]:
            missing = [self.idf.get(t, self.max_idf) for t in toks if t not in present]
            best = min(best, max(missing, default=0.0) / self.max_idf)
        return best

    def same_error(self, a: str, b: str) -> bool:
        """Variants of one error (per environment, per source) share their signature's wording."""
        ta, tb = self.entries[self.by_id[a]].texts, self.entries[self.by_id[b]].texts
        return bool(ta and tb) and fuzz.ratio(ta[0], tb[0]) >= 90

    def rival(self, ranked_ids: Sequence[str]) -> int | None:
        """Index of the best candidate that is a *different* error from the first one.

        How sure we are is the margin over the best alternative error, not over another variant
        of the same error (the corpus holds several per error, one per environment).
        """
        for k in range(1, len(ranked_ids)):
            if not self.same_error(ranked_ids[0], ranked_ids[k]):
                return k
        return None

    def _may_shadow(self, seed: Candidate, team: Candidate, mutual: bool) -> bool:
        """A team record for the same error takes a bundled seed's place unless its regex is
        broader than the seed's: it recognises more signatures of other errors (a catch-all like
        `Loss.*NaN|gradient.*overflow|Inf.*backward` must not displace the seed for one precise
        error). A one-way relation needs more: the team record must recognise this paste itself, by
        its regex or by its wording (fuzzy >= ~0.9: a literal regex that misses one word of the
        paste still belongs to the same error's record)."""
        vague = self.entries[self.by_id[team.id]].specificity < self.entries[self.by_id[seed.id]].specificity
        if vague:
            return False
        recognised = bool(team.parts["rx_line"] or team.parts["rx_text"]) or team.parts["fuzzy2"] >= SAME_WORDING
        return mutual or recognised

    def _prefer_imported(self, ranked: list[Candidate]) -> list[Candidate]:
        """Move a team record above a seed it shadows, giving it the seed's place and logit."""
        if not self.shadows:
            return ranked
        out = list(ranked)
        for k in range(len(out)):
            shadows = self.shadows.get(self.by_id[out[k].id])
            if not shadows:
                continue
            for j in range(k + 1, len(out)):
                mutual = shadows.get(self.by_id[out[j].id])
                if mutual is not None and self._may_shadow(out[k], out[j], mutual):
                    seed, team = out[k], out.pop(j)
                    out.insert(k, replace(team, parts={**team.parts, "z": seed.parts["z"], "shadows": 1.0}))
                    break
        return out

    def _line_cover(self, i: int, line_norm: str) -> float:
        """Share of the error line's rare vocabulary that the record's wording explains.

        An uncovered error that merely resembles a record ("destination path … already exists"
        vs "tag … already exists") leaves its own distinctive words unexplained.
        """
        line_toks = dict.fromkeys(tokens(line_norm))
        if not line_toks:
            return 0.0
        total = self._idf_mass(line_toks)
        best = 0.0
        for toks in self._text_tokens[i]:
            best = max(best, self._idf_mass(t for t in toks if t in line_toks) / total if total else 0.0)
        return best

    def _known_parts(self, i: int, paste: _Paste, token_mass: dict[int, float]) -> dict[str, float]:
        """The parts of a candidate's score that cost nothing to get: regex, span, vagueness, coverage."""
        line_hits, text_hits = paste.line_hits, paste.text_hits
        rx_line = 1.0 if i in line_hits else 0.0
        rx_text = 1.0 if (i in text_hits and not rx_line) else 0.0
        hit = bool(rx_line or rx_text)
        span = min(1.0, max(line_hits.get(i, 0), text_hits.get(i, 0)) / 40.0) if hit else 0.0
        sig_mass = self._sig_idf[i]
        cover = min(1.0, token_mass.get(i, 0.0) / sig_mass) if sig_mass else 0.0
        return {
            "rx_line": rx_line,
            "rx_text": rx_text,
            "span": round(span, 3),
            "spec": round(self.entries[i].specificity if hit else 0.0, 3),
            "cover": round(cover, 3),
        }

    @staticmethod
    def _present(paste: _Paste, known: dict[str, float]) -> set[str]:
        """The words a record's wording may be found among: the error lines', and the whole tail's
        when the record's regex matched the tail (its wording is in the paste, just not on a line
        the extractor chose: a Jupyter header, a log prefix), so no word of it counts as missing."""
        return paste.tokens | paste.words if known["rx_text"] else paste.tokens

    def _cheap_parts(self, i: int, paste: _Paste, known: dict[str, float]) -> dict[str, float]:
        """All parts of a candidate's score but the fuzzy ones (left at 0 for the full score)."""
        e = self.entries[i]
        return {
            **known,
            "fuzzy2": 0.0,
            "domain": 1.0 if any(d in paste.words for d in e.domain_words) else 0.0,
            "env": round(env_agreement(e.env, paste.env), 3),
            "strong_fuzzy": 0.0,
            "miss": round(self._missing(i, self._present(paste, known)), 3),
            "lcover": 0.0,
        }

    def _full_score(self, i: int, paste: _Paste, cheap: dict[str, float]) -> Candidate:
        """A candidate with every part (the fuzzy ones are most of the cost) and its logit `z`."""
        e = self.entries[i]
        fz, strong, best_line, close = 0.0, 0.0, None, 0.0
        for ln, norm in paste.fuzzy_lines:
            for t in e.texts:  # score_cutoff: rapidfuzz skips work that cannot beat the best so far
                close = max(close, fuzz.ratio(norm, t, score_cutoff=close * 100) / 100.0)
                scorer = fuzz.token_set_ratio if len(t) < 30 else fuzz.token_sort_ratio
                sc = scorer(norm, t, score_cutoff=fz * 100)
                if len(t) <= len(norm):
                    sc = max(sc, fuzz.partial_ratio(t, norm, score_cutoff=max(fz * 100, sc)))
                if sc / 100.0 > fz:
                    fz, best_line = sc / 100.0, ln
                    strong = 1.0 if ln.weight >= 0.9 else 0.0
        lcover = self._line_cover(i, best_line.norm) if best_line is not None else 0.0
        parts = {
            **cheap,
            "fuzzy2": round(fz * fz, 3),
            "strong_fuzzy": round(strong * fz, 3),
            "lcover": round(lcover, 3),
            "close": round(close, 3),
        }
        rejected = rejection_penalty(self.rejections.get(e.id, ()), paste.line_norms)
        if rejected:  # "Not this error" on similar pastes (bot/core/rejections.py); not a fitted weight
            parts["rejected"] = -rejected
        parts["z"] = round(self.weights.logit(parts) + parts.get("rejected", 0.0), 4)
        return Candidate(e.id, 0.0, parts)

    # ---- the steps of `match` ---------------------------------------------------------------

    def _hits(self, ex: Extracted, spend: Budget) -> _Paste:
        """Regex hits on the error lines and on the paste (all sharing `spend`), and the paste's words."""
        rx = self.regexes
        line_text = ex.error_text
        line_hits = {h.index: h.span for h in rx.search(line_text, REGEX_BUDGET, spend)} if line_text else {}
        tail = ex.searchable[-REGEX_TEXT_LIMIT:]
        text_hits = {h.index: h.span for h in rx.search(tail, REGEX_BUDGET, spend)}
        # terminals and issue trackers hard-wrap long messages: try the wrapped sentences joined
        for h in rx.search(wrapped_sentences(tail), REGEX_BUDGET, spend):
            text_hits.setdefault(h.index, h.span)
        lines = ex.lines[:6]
        q_tokens = set(t for ln in lines for t in tokens(ln.norm))
        if not q_tokens:  # no error-looking line: the words of the paste may still name one
            q_tokens = set(tokens(normalize(ex.searchable[-4000:])))
        return _Paste(
            line_hits=line_hits,
            text_hits=text_hits,
            tokens=q_tokens,
            words=paste_words(tail),
            env=ex.env,
            # fuzzy comparison cost grows with line length; an error's wording is in its first words
            fuzzy_lines=[(ln, ln.norm[:FUZZY_LINE_CHARS]) for ln in lines],
            # rejected lines are stored redacted (#18): compared as redacted, a paste with another
            # secret of the same kind is the same error; with no rejection nothing reads them
            line_norms=[_redacted_norm(ln) for ln in lines] if self.rejections else [],
            strong=any(ln.weight >= 0.8 for ln in ex.lines),
        )

    def _pool(self, paste: _Paste) -> _Pool:
        """Regex hits and records sharing rare words, cut to the POOL most promising.

        A pool can hold hundreds of regex hits in a large store (copies of a vague pattern). Only
        the POOL best by their known parts' logit get even the cheap parts. The most the other
        parts (env, domain, miss, the fuzzy ones) could add is the same for every candidate, so
        this is also the order of the highest logit each could reach.
        """
        token_mass = self._token_candidates(paste.tokens, TOKEN_CANDIDATES)
        whole = set(paste.line_hits) | set(paste.text_hits) | set(token_mass)
        known = {i: self._known_parts(i, paste, token_mass) for i in whole}
        kept = whole
        if len(whole) > POOL:
            kept = set(heapq.nsmallest(POOL, whole, key=lambda i: self._known_key(i, known[i])))
        return _Pool(whole, kept, known)

    def _known_key(self, i: int, known: dict[str, float]) -> tuple[float, str]:
        """Sort key: the logit of candidate `i`'s known parts (negated), then its id."""
        w = self.weights
        return (-sum(getattr(w, f) * v for f, v in known.items()), self.entries[i].id)

    def _cheap(self, paste: _Paste, pool: _Pool) -> list[_Bound]:
        """The kept pool with cheap parts, by the most each full score could be, best first."""
        room = _fuzzy_room(self.weights)
        bounds = []
        for i in pool.kept:
            parts = self._cheap_parts(i, paste, pool.known[i])
            bounds.append(_Bound(self.weights.logit(parts) + room, self.entries[i].id, i, parts))
        bounds.sort(key=lambda b: (-b.bound, b.id))
        return bounds

    def _score_top(self, paste: _Paste, bounds: list[_Bound], keep: int) -> list[Candidate]:
        """Full scores in bound order, while a candidate could still enter the top `keep`.

        The fuzzy parts add at most `_fuzzy_room` to the logit, so the cut is exact for the top.
        """
        out: list[Candidate] = []
        best: list[float] = []  # min-heap of the `keep` highest exact logits so far
        for b in bounds:
            if len(best) >= keep and b.bound + 1e-3 < best[0]:
                break  # neither this nor any later candidate can enter the top `keep`
            cand = self._full_score(b.record, paste, b.parts)
            out.append(cand)
            if len(best) < keep:
                heapq.heappush(best, cand.parts["z"])
            elif cand.parts["z"] > best[0]:
                heapq.heapreplace(best, cand.parts["z"])
        return out

    def _score_rival(self, paste: _Paste, rest: list[_Bound], scored: list[Candidate]) -> list[Candidate]:
        """More full scores when all those scored are variants of one error: the margin needs the
        best *different* error, so go on (in bound order) until it is certain. When a different
        error is among those scored, it is the rival: one scoring lower could hide past the cut,
        but the margin weighs little in the calibration (bot/core/model.py), and scoring on until
        certain tripled the full scores per paste."""
        top = max(scored, key=lambda c: (c.parts["z"], c.id), default=None)
        if top is None or not rest or self.rival([top.id, *(c.id for c in scored)]) is not None:
            return []
        out: list[Candidate] = []
        rival_z: float | None = None
        for b in rest:
            if rival_z is not None and b.bound + 1e-3 < rival_z:
                break
            cand = self._full_score(b.record, paste, b.parts)
            out.append(cand)
            if not self.same_error(top.id, cand.id):
                rival_z = cand.parts["z"] if rival_z is None else max(rival_z, cand.parts["z"])
        return out

    def _score_shadowing(self, paste: _Paste, pool: _Pool, scored: list[Candidate]) -> list[Candidate]:
        """Full scores of the pool's team records that shadow a scored seed, whatever their rank:
        a team record that takes a seed's place must be scored."""
        if not self.shadows:
            return []
        out: list[Candidate] = []
        have = {c.id for c in scored}
        for c in scored:
            for j in self.shadows.get(self.by_id[c.id], ()):
                if j in pool.whole and self.entries[j].id not in have:
                    have.add(self.entries[j].id)
                    out.append(self._full_score(j, paste, self._cheap_parts(j, paste, pool.known[j])))
        return out

    def _calibrate(self, ranked: list[Candidate], strong: bool, limit: int) -> list[Candidate]:
        """The first `limit` with P(right record), from the logit and the margin over the rival
        (for the first) or over the first (for the others)."""
        rival = self.rival([c.id for c in ranked])
        out: list[Candidate] = []
        for k, c in enumerate(ranked[:limit]):
            runner_up = (ranked[rival].parts["z"] if rival is not None else None) if k == 0 else ranked[0].parts["z"]
            feats = calibration_features(c.parts["z"], runner_up, c.parts, strong)
            score = round(sigmoid(self.calibration.logit(feats)), 4)
            if out:  # rank order is the truth; a later candidate never shows a higher score
                score = min(score, out[-1].score)
            parts = {**c.parts, "margin": round(feats["margin"], 4), "strong": feats["strong"]}
            out.append(Candidate(c.id, score, parts))
        return out

    def match(self, ex: Extracted, limit: int = 5, regex_budget: Budget | None = None) -> list[Candidate]:
        """Best candidates first, each with its score and the parts that made it.

        All the regex work shares `regex_budget` (a fresh `Budget()` when None): a store full of
        backtracking patterns costs one paste at most its seconds.
        """
        if not self.entries:
            return []
        paste = self._hits(ex, regex_budget if regex_budget is not None else Budget())
        pool = self._pool(paste)
        bounds = self._cheap(paste, pool)
        scored = self._score_top(paste, bounds, max(SCORED, limit))
        scored += self._score_rival(paste, bounds[len(scored) :], scored)
        scored += self._score_shadowing(paste, pool, scored)
        scored.sort(key=lambda c: (-c.parts["z"], c.id))
        return self._calibrate(self._prefer_imported(scored), paste.strong, limit)

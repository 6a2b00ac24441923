"""Error lines → ranked candidate records with one calibrated score in [0, 1] (pure).

Three kinds of evidence, combined by a small logistic model whose weights were fitted on
labelled pastes (see `bench/eval.py`):

* **regex**: the record's own pattern matches the error lines (strong) or only somewhere in the
  paste (weaker). A hit is worth as much as it is *specific*: long matched text, and a pattern that
  does not also match other records' signatures. `NOT_FOUND|not found` matches half the internet
  and so earns little.
* **fuzzy**: rapidfuzz similarity between the normalised error lines and the record's normalised
  signature and aliases, for pastes that were retyped, translated or wrapped.
* **coverage**: how much of the signature's rare vocabulary (IDF-weighted tokens) is in the lines.

Environment hints (OS, `torch 2.1`, `CUDA 12`) only break near-ties between variants of a record.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from bot.core.budget import Budget
from bot.core.extract import Extracted, normalize
from bot.core.records import Record
from bot.core.regexset import RegexSet
from bot.core.rejections import rejection_penalty

REGEX_TEXT_LIMIT = 100_000  # the whole-paste regex pass looks at this much of the tail
FUZZY_LINE_CHARS = 300
VAGUENESS_SAMPLE = 20_000  # signatures searched to estimate each regex's vagueness
REGEX_BUDGET = 250  # filtered regexes run per searched text, most selective first (RegexSet.search)
OPEN_DF = 300  # a word in more records than this adds to token candidates, never starts one
POOL = 64  # candidates given the cheap parts of the score (see match)
SAME_WORDING = 0.8  # fuzzy2 (fuzzy squared) from which a record's wording is the paste's
SCORED = 16  # candidates scored in full (fuzzy): enough for the answer, the runners-up and a rival
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
_ENV_PART = re.compile(r"^([a-z]+?)(\d+(?:\.\d+)?)$")
_PART_NAMES = {
    "py": "python",
    "pt": "torch",
    "pytorch": "torch",
    "torch": "torch",
    "cuda": "cuda",
    "node": "node",
    "jdk": "java",
    "go": "go",
    "rust": "rust",
    "pip": "pip",
    "tf": "tensorflow",
    "hf": "transformers",
    "k8s": "kubernetes",
    "ts": "typescript",
    "docker": "docker",
    "git": "git",
    "react": "react",
    "nextjs": "next",
    "python": "python",
    "numpy": "numpy",
}
_DOMAIN_WORDS = {
    "pytorch": ("torch", "pytorch"),
    "kubernetes": ("kubectl", "k8s", "pod", "kubernetes", "kubelet"),
    "node": ("node", "npm", "nodejs", "yarn"),
    "typescript": ("ts", "tsc", "typescript", "tsx"),
    "huggingface": ("transformers", "huggingface", "hf", "tokenizer", "datasets"),
    "python": ("python", "py", "pip"),
    "cuda": ("cuda", "nvidia", "gpu", "nvcc"),
    "docker": ("docker", "dockerfile", "container", "compose"),
    "pip": ("pip", "pip3", "conda", "wheel", "venv"),
    "go": ("go", "golang"),
    "rust": ("rust", "cargo", "rustc"),
    "java": ("java", "jvm", "maven", "gradle", "jar"),
    "nextjs": ("next", "nextjs"),
    "react": ("react", "jsx"),
    "numpy": ("numpy", "np"),
    "pandas": ("pandas", "pd", "dataframe"),
    "jupyter": ("jupyter", "notebook", "ipykernel"),
}
_WRAPPED = re.compile(r"(?<=[a-z,])[ \t]*\n[ \t]*(?=[a-z])")  # a sentence broken mid-way
_WORD = re.compile(r"[a-z][a-z0-9]{1,30}")
_OS_WORDS = {
    "linux": "os:linux",
    "win": "os:windows",
    "windows": "os:windows",
    "macos": "os:macos",
    "mac": "os:macos",
    "wsl": "os:wsl",
}


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


def record_env(rec: Record) -> frozenset[str]:
    """Environment tokens a record is specific to, from its tags and its id's variant suffix."""
    env: set[str] = set()
    for tag in rec.tags:
        if tag.startswith("os:"):
            env.add(tag.lower())
    parts = rec.id.lower().split("/")
    if len(parts) >= 3:
        for part in parts[-1].split("-"):
            if part in _OS_WORDS:
                env.add(_OS_WORDS[part])
                continue
            m = _ENV_PART.match(part)
            if m and m.group(1) in _PART_NAMES:
                name, ver = _PART_NAMES[m.group(1)], m.group(2)
                if name == "python" and "." not in ver and len(ver) >= 2:
                    ver = f"{ver[0]}.{ver[1:]}"
                env.add(f"{name}:{ver}")
    for os_name in rec.os_specific:
        env.add(_OS_WORDS.get(os_name.lower(), f"os:{os_name.lower()}"))
    return frozenset(env) if env else _NO_ENV


_NO_ENV: frozenset[str] = frozenset()  # shared: most records name no environment


def env_agreement(record: frozenset[str], paste: frozenset[str]) -> float:
    """+ for each of the record's env tokens the paste confirms, - for a contradicted OS."""
    if not record or not paste:
        return 0.0
    score = 0.0
    paste_os = {t for t in paste if t.startswith("os:")}
    for tok in record:
        if tok in paste:
            score += 1.0
        elif tok.startswith("os:") and paste_os:
            score -= 1.0
        elif ":" in tok and "." not in tok.split(":", 1)[1]:
            name = tok.split(":", 1)[0]
            if any(p.startswith(name + ":") for p in paste):
                score -= 0.5
    return max(-1.0, min(1.0, score / 2))


@dataclass(frozen=True, slots=True)
class Entry:
    """What the matcher keeps of a record."""

    id: str
    signature: str
    texts: tuple[str, ...]  # normalised signature and aliases
    env: frozenset[str]
    specificity: float  # 1 / (1 + other records' signatures this regex matches)
    domain_words: tuple[str, ...] = ()
    prior: float = 0.0  # learned adjustment (rejections), added to the logit


@dataclass(frozen=True)
class Candidate:
    id: str
    score: float
    parts: dict[str, float] = field(default_factory=dict)


FEATURES = ("rx_line", "rx_text", "span", "spec", "fuzzy2", "cover", "domain", "env", "strong_fuzzy", "miss", "lcover")


@dataclass(frozen=True)
class Weights:
    """Logistic weights over FEATURES; fitted by bench/fit_weights.py on labelled pastes."""

    bias: float = -1.718
    rx_line: float = 0.693
    rx_text: float = 0.558
    span: float = 0.947
    spec: float = 0.760
    fuzzy2: float = 0.988
    cover: float = 1.843
    domain: float = 0.651
    env: float = 0.079
    strong_fuzzy: float = 0.135
    miss: float = -0.766
    lcover: float = 1.064

    def logit(self, parts: dict[str, float]) -> float:
        return self.bias + sum(getattr(self, f) * parts[f] for f in FEATURES) + parts.get("prior", 0.0)


CALIBRATION_FEATURES = ("z", "margin", "lcover", "miss", "rx_line", "strong", "spec", "close", "fuzzy2")


@dataclass(frozen=True)
class Calibration:
    """Turns a ranking logit into P(this is the right record), using the margin over the runner-up.

    Ranking decides the order; this decides how sure we are, which is what `reply` thresholds.
    Fitted by bench/fit_weights.py on the first candidate of each labelled paste.
    """

    bias: float = -0.601
    z: float = 0.743
    margin: float = 0.005
    lcover: float = -0.422
    miss: float = 0.197
    rx_line: float = -0.347
    spec: float = 0.531
    close: float = -0.250
    fuzzy2: float = 0.039
    strong: float = 0.136

    def logit(self, feats: dict[str, float]) -> float:
        return self.bias + sum(getattr(self, f) * feats[f] for f in CALIBRATION_FEATURES)


def calibration_features(z: float, runner_up: float | None, parts: dict[str, float], strong: bool) -> dict[str, float]:
    margin = min(5.0, z - runner_up) if runner_up is not None else 5.0
    return {
        "z": z,
        "margin": margin,
        "lcover": parts["lcover"],
        "miss": parts["miss"],
        "rx_line": parts["rx_line"],
        "strong": 1.0 if strong else 0.0,
        "spec": parts["spec"],
        "close": parts["close"],
        "fuzzy2": parts["fuzzy2"],
    }


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


class Matcher:
    """An index over one version of the store: compiled regexes, token postings, entries."""

    def __init__(
        self,
        records: Sequence[Record],
        learned_aliases: dict[str, list[str]] | None = None,
        priors: dict[str, float] | None = None,
        weights: Weights | None = None,
        calibration: Calibration | None = None,
        seeds: frozenset[str] = frozenset(),
        rejections: dict[str, list[tuple[str, str]]] | None = None,
    ) -> None:
        learned_aliases = learned_aliases or {}
        self.rejections = rejections or {}  # record id -> (normalised line, user): "Not this error"
        priors = priors or {}
        self.weights = weights or Weights()
        self.calibration = calibration or Calibration()
        self.regexes = RegexSet([r.regex for r in records])
        spec_counts = self._vagueness(records, seeds)
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
                    1.0 / (1.0 + spec_counts[i]),
                    _DOMAIN_WORDS.get(domain) or domain_words.setdefault(domain, (domain,)),
                    priors.get(rec.id, 0.0),
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
        self.shadows = self._shadows(records, seeds)

    def _shadows(self, records: Sequence[Record], seeds: frozenset[str]) -> dict[int, dict[int, bool]]:
        """Bundled seed → the team's imported records for the same error, and whether the
        relation is mutual (each regex recognises the other's signature) or one-way.

        When a team imports its own record for an error the bundled seeds also cover, the team's
        record is the answer: seeds are the out-of-the-box fallback, not a competitor.
        """
        pairs = {(i, j) for i, j, _ in self._cross_hits}
        shadows: dict[int, dict[int, bool]] = {}
        for i, j, span in self._cross_hits:  # regex i matches signature j
            if records[i].id in seeds and records[j].id not in seeds:
                shadows.setdefault(i, {})[j] = (j, i) in pairs
            elif records[j].id in seeds and records[i].id not in seeds and 3 * span >= len(records[j].signature):
                # a team regex that recognises much of the seed's wording describes the same error
                shadows.setdefault(j, {})[i] = (j, i) in pairs
        return shadows

    def _vagueness(self, records: Sequence[Record], seeds: frozenset[str]) -> list[float]:
        """How many signatures of *other errors* each regex matches: its vagueness.

        Exact up to VAGUENESS_SAMPLE records; above that, counted on an evenly spaced sample of
        signatures and scaled, so building a 250,000-record index stays linear. Pairs that
        involve a bundled seed (for `_shadows`) are always collected exactly.
        """
        n = len(records)
        step = max(1, -(-n // VAGUENESS_SAMPLE))  # ceil(n / sample)
        counts = [0.0] * n
        self._cross_hits: list[tuple[int, int, int]] = []  # (regex i, signature j, span), i != j
        seed_idx = [i for i, r in enumerate(records) if r.id in seeds]
        seed_pos = frozenset(seed_idx)
        pairs: set[tuple[int, int]] = set()  # (regex i, signature j), exact
        if step == 1:
            for j in range(n):
                for hit in self.regexes.search(records[j].signature):
                    if hit.index != j:
                        pairs.add((hit.index, j))
                        if hit.index in seed_pos or j in seed_pos:
                            self._cross_hits.append((hit.index, j, hit.span))
        else:
            # team regex on team signatures: sampled and scaled
            for j in range(0, n, step):
                if j in seed_pos:
                    continue
                for hit in self.regexes.search(records[j].signature):
                    i = hit.index
                    if i != j and i not in seed_pos and not self.regexes.matches(j, records[i].signature):
                        counts[i] += step
            # seed regexes on every signature, and every regex on seed signatures: exact
            seed_set = RegexSet([records[i].regex for i in seed_idx])
            for j, rec in enumerate(records):
                for hit in seed_set.search(rec.signature):
                    i = seed_idx[hit.index]
                    if i != j:
                        pairs.add((i, j))
                        self._cross_hits.append((i, j, hit.span))
            for i in seed_idx:
                for hit in self.regexes.search(records[i].signature):
                    if hit.index != i and hit.index not in seed_pos:
                        pairs.add((hit.index, i))
                        self._cross_hits.append((hit.index, i, hit.span))
        # Two records whose regexes each recognise the other's signature are one error (variants
        # per environment, or a team's record for a seed's error): matching a variant is not vague.
        for i, j in pairs:
            if (j, i) not in pairs:
                counts[i] += 1
        return counts

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
                closed = left < heapq.nlargest(limit, acc.values())[-1]
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
                    team.parts.update(z=seed.parts["z"], shadows=1.0)
                    out.insert(k, team)
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

    def _known_parts(
        self, i: int, line_hits: dict[int, int], text_hits: dict[int, int], tok_cands: dict[int, float]
    ) -> dict[str, float]:
        """The parts of a candidate's score that cost nothing to get: regex, span, vagueness, coverage."""
        rx_line = 1.0 if i in line_hits else 0.0
        rx_text = 1.0 if (i in text_hits and not rx_line) else 0.0
        hit = bool(rx_line or rx_text)
        span = min(1.0, max(line_hits.get(i, 0), text_hits.get(i, 0)) / 40.0) if hit else 0.0
        sig_mass = self._sig_idf[i]
        cover = min(1.0, tok_cands.get(i, 0.0) / sig_mass) if sig_mass else 0.0
        return {
            "rx_line": rx_line,
            "rx_text": rx_text,
            "span": round(span, 3),
            "spec": round(self.entries[i].specificity if hit else 0.0, 3),
            "cover": round(cover, 3),
        }

    def match(self, ex: Extracted, limit: int = 5, regex_budget: Budget | None = None) -> list[Candidate]:
        """Best candidates first, each with its score and the parts that made it.

        All the regex work shares `regex_budget` (a fresh `Budget()` when None): a store full of
        backtracking patterns costs one paste at most its seconds.
        """
        if not self.entries:
            return []
        w = self.weights
        line_text = ex.error_text
        rx = self.regexes
        spend = regex_budget if regex_budget is not None else Budget()
        line_hits = {h.index: h.span for h in rx.search(line_text, REGEX_BUDGET, spend)} if line_text else {}
        tail = ex.text[-REGEX_TEXT_LIMIT:]
        text_hits = {h.index: h.span for h in rx.search(tail, REGEX_BUDGET, spend)}
        # terminals and issue trackers hard-wrap long messages: try the wrapped sentences joined
        for h in rx.search(wrapped_sentences(tail), REGEX_BUDGET, spend):
            text_hits.setdefault(h.index, h.span)
        lines = ex.lines[:6]
        # fuzzy comparison cost grows with line length; an error's wording is in its first words
        fuzzy_lines = [(ln, ln.norm[:FUZZY_LINE_CHARS]) for ln in lines]
        q_tokens = set(t for ln in lines for t in tokens(ln.norm))
        if not q_tokens:  # no error-looking line: the words of the paste may still name one
            q_tokens = set(tokens(normalize(ex.text[-4000:])))
        words = set(_WORD.findall(tail.lower()))
        tok_cands = self._token_candidates(q_tokens, 40)
        pool = set(line_hits) | set(text_hits) | set(tok_cands)
        # Cheap parts first, for the whole pool; the fuzzy parts (rapidfuzz over every line and
        # wording: most of the cost) only while a candidate could still reach the top SCORED.
        # Fuzzy parts add at most `fuzzy_room` to the logit, so the cut is exact for the top.
        fuzzy_room = max(0.0, w.fuzzy2) + max(0.0, w.strong_fuzzy) + max(0.0, w.lcover)
        line_norms = [ln.norm for ln in lines]
        known = {i: self._known_parts(i, line_hits, text_hits, tok_cands) for i in pool}
        whole_pool = pool
        # A pool can hold hundreds of regex hits in a large store (copies of a vague pattern).
        # Only the POOL most promising by an upper bound of the logit (the parts above known,
        # the others at their best: env is in [-1, 1], domain and miss in [0, 1]) get even the
        # cheap parts.
        free = fuzzy_room + abs(w.env) + max(0.0, w.domain) + max(0.0, w.miss)
        if len(pool) > POOL:

            def upper(i: int) -> tuple[float, str]:
                z = sum(getattr(w, f) * v for f, v in known[i].items()) + self.entries[i].prior + free
                return (-z, self.entries[i].id)

            pool = set(heapq.nsmallest(POOL, pool, key=upper))

        def cheap_parts(i: int) -> dict[str, float]:
            e = self.entries[i]
            return {
                **known[i],
                "fuzzy2": 0.0,
                "domain": 1.0 if any(d in words for d in e.domain_words) else 0.0,
                "env": round(env_agreement(e.env, ex.env), 3),
                "strong_fuzzy": 0.0,
                "miss": round(self._missing(i, q_tokens), 3),
                "lcover": 0.0,
                "prior": e.prior,
                "close": 0.0,
            }

        def scored_in_full(i: int, parts: dict[str, float]) -> Candidate:
            e = self.entries[i]
            fz, strong, best_line, close = 0.0, 0.0, None, 0.0
            for ln, norm in fuzzy_lines:
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
            parts.update(
                fuzzy2=round(fz * fz, 3),
                strong_fuzzy=round(strong * fz, 3),
                lcover=round(lcover, 3),
                close=round(close, 3),
            )
            rejected = rejection_penalty(self.rejections.get(e.id, ()), line_norms)
            if rejected:  # "Not this error" on similar pastes (bot/core/rejections.py); not a fitted weight
                parts["rejected"] = -rejected
            parts["z"] = round(w.logit(parts) + parts.get("rejected", 0.0), 4)
            return Candidate(e.id, 0.0, parts)

        cheap = []
        for i in pool:
            parts = cheap_parts(i)
            cheap.append((w.logit(parts) + fuzzy_room, self.entries[i].id, i, parts))
        cheap.sort(key=lambda c: (-c[0], c[1]))
        keep = max(SCORED, limit)
        out: list[Candidate] = []
        best: list[float] = []  # min-heap of the `keep` highest exact logits so far
        done = 0
        for bound, _id, i, parts in cheap:
            if len(best) >= keep and bound + 1e-3 < best[0]:
                break  # neither this nor any later candidate can enter the top `keep`
            out.append(scored_in_full(i, parts))
            done += 1
            if len(best) < keep:
                heapq.heappush(best, out[-1].parts["z"])
            elif out[-1].parts["z"] > best[0]:
                heapq.heapreplace(best, out[-1].parts["z"])
        # The margin needs the best *different* error: if all those scored are variants of one
        # error, go on (in bound order) until the best different one is certain.
        top = max(out, key=lambda c: (c.parts["z"], c.id), default=None)
        if top is not None and done < len(cheap) and self.rival([top.id, *(c.id for c in out)]) is None:
            rival_z: float | None = None
            for bound, _id, i, parts in cheap[done:]:
                if rival_z is not None and bound + 1e-3 < rival_z:
                    break
                cand = scored_in_full(i, parts)
                out.append(cand)
                if not self.same_error(top.id, cand.id):
                    rival_z = cand.parts["z"] if rival_z is None else max(rival_z, cand.parts["z"])
        # A team record that takes a seed's place must be scored whatever its own rank.
        if self.shadows:
            have = {c.id for c in out}
            for c in list(out):
                for j in self.shadows.get(self.by_id[c.id], ()):
                    if j in whole_pool and self.entries[j].id not in have:
                        have.add(self.entries[j].id)
                        out.append(scored_in_full(j, cheap_parts(j)))
        out.sort(key=lambda c: (-c.parts["z"], c.id))
        out = self._prefer_imported(out)
        strong = any(ln.weight >= 0.8 for ln in ex.lines)
        scored: list[Candidate] = []
        rival = self.rival([c.id for c in out])
        for k, c in enumerate(out[:limit]):
            runner_up = (out[rival].parts["z"] if rival is not None else None) if k == 0 else out[0].parts["z"]
            feats = calibration_features(c.parts["z"], runner_up, c.parts, strong)
            c.parts["margin"] = round(feats["margin"], 4)
            c.parts["strong"] = feats["strong"]
            score = round(_sigmoid(self.calibration.logit(feats)), 4)
            if scored:  # rank order is the truth; a later candidate never shows a higher score
                score = min(score, scored[-1].score)
            scored.append(Candidate(c.id, score, c.parts))
        return scored

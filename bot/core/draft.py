"""A paste → the team record errfix would prefill for it (pure; no I/O).

"Teach errfix" (#17) turns a solved thread into a record. The person should only have to confirm,
so the draft must already be a record that answers the *next* paste of the same error: the error
line, a regex that matches it with other numbers, paths, names and addresses, a domain and an id.

The regex keeps the error's own words literally and generalises what changes from one occurrence
to the next into bounded classes (`'[^']{1,200}'`, `\\d+`, `0x[0-9a-f]{1,16}`, `\\S{1,200}`). It is
not anchored with `^`: the same error arrives behind log prefixes, timestamps and chat, so the
framing (timestamps, `ERROR:`, `file:line:` locations, `pkg:build:` labels) is dropped and the
exception name made optional instead. It stops after the first clause that says enough: the
advice and details errors append ("If this is a private repository…", a list of keys) vary more
than the error does. Every pattern here is linear-time on one line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.core.extract import ErrorLine, extract
from bot.core.records import Record

MIN_WORDS = 4  # literal words a regex keeps before it may stop at a clause boundary
MIN_CHARS = 20  # ... and literal characters
MAX_TOKENS = 24  # whitespace-separated pieces of the error line a regex covers at most
MIN_LITERAL_WORDS = 3  # a line whose regex keeps fewer of its words is passed over for the next
SLUG_WORDS = 8
SLUG_CHARS = 60

# ---- which line ------------------------------------------------------------------------------

_EXC_NAME = re.compile(
    r"(?:\b[A-Za-z_][\w]{0,60}\.){0,6}\b[A-Z]\w{0,80}(?:Error|Exception)\b(?=:)"
    r"|\berror\s?(?:\[[A-Z]{0,4}\d{3,5}\]|TS\d{3,5})(?=:)"  # rustc's error[E0277], tsc's error TS2589
    r"|\bError \[[A-Z][A-Z0-9_]{2,60}\](?=:)"  # Node's Error [ERR_REQUIRE_ESM]
)
_CODED = re.compile(r"\b(?:[A-Z]{1,5}\d{3,5}|E[A-Z]{4,12}|ERR_[A-Z_]{3,40})\b")  # GH001, TS2589, ENOENT
_STRONG = re.compile(r"\b[A-Z]\w{0,80}(?:Error|Exception)\b|\berror\b\s?(?:\[\w{1,10}\]|TS\d{1,5})?:", re.I)
# first-person chat and questions around a paste: "I get this error:", "It should work"
_CHATTY = re.compile(
    r"^(?:-\s|\*\s)|\b(?:I|I'm|I've|my|me|we|you|should|would|please|thanks|trying to)\b|\?\s*$"
    r"|\b(?:this|that|the following|the same|below|an?) (?:error|issue|problem)\b"
)
_WORD = re.compile(r"[A-Za-z]{2,}")
# lines that say that something failed, not what: the error is on another line
_SUMMARY = re.compile(
    r"\bfailed to push some refs\b|\breturned non-zero exit status\b|^make(?:\[\d{1,3}\])?: \*\*\*"
    r"|\bsubprocess-exited-with-error\b|\bA complete log of this run\b|\bexit(?:ed with)? code:? \d{1,5}\b"
    r"|\bBuild failed\b|\bCommand failed with exit code\b",
    re.I,
)


def _line_score(line: ErrorLine) -> float:
    """The extractor's weight, plus how error-like and how informative the line is for a record."""
    text = line.raw
    words = len(_WORD.findall(text))
    score = line.weight + 0.05 * min(words, 8)
    if _STRONG.search(text):
        score += 0.2
    if _CODED.search(text):
        score += 0.15
    if _CHATTY.search(text):
        score -= 0.4
    if _SUMMARY.search(text):
        score -= 0.5
    return score


def ranked_lines(text: str) -> list[ErrorLine]:
    """The error lines of a paste, the one a record is best made from first ([] when none)."""
    # the extractor's order is best first; a stable sort keeps it among equals
    return sorted(extract(text).lines, key=_line_score, reverse=True)


# ---- the error text, without its framing -----------------------------------------------------

_FRAMING = [
    re.compile(r"^(?:>\s?|`{1,3}|\*\s)"),  # a quote, inline code, a list bullet around the paste
    re.compile(r"^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?[\s,|-]{0,4}"),
    re.compile(r"^\[?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?\]?[\s,|-]{0,4}"),
    re.compile(r"^#\d{1,4} \d{1,6}\.\d{1,4} "),  # buildkit's `#12 0.345 `
    re.compile(r"^\[(?:[^\]\s]{1,40}|\d{1,6}/\d{1,6})\]\s{0,4}"),  # [ERROR], [builder 3/4] is kept
    re.compile(r"^(?:npm|yarn|pnpm) (?:ERR!|error)\s{1,4}"),
    re.compile(r"^(?:remote|warning|hint|caused by|Caused by):\s{1,4}"),
    re.compile(
        r"^(?:FATAL ERROR|Fatal error|fatal error|ERROR|Error|error|FATAL|Fatal|fatal|E|F|CRITICAL)\s{0,3}[:!]\s{0,4}"
    ),
    re.compile(r"^(?:E|F|ERROR|FATAL)\s{2,8}"),  # pytest's `E   `
    re.compile(r"^[^\s:]{1,300}:\d{1,7}(?::\d{1,5})?(?::|\s{1,3}-)\s{1,4}"),  # file:line:col: / - (tsc)
    re.compile(r"^(?=[^\s:]{0,80}[/@])[^\s:]{1,80}(?::[\w-]{1,40}){0,3}:\s{1,4}"),  # @scope/pkg:build:
]


def error_text(line: str) -> tuple[str, str | None]:
    """(the error's own text, the exception name that leads it or None), framing dropped."""
    s = line.strip().rstrip("`").rstrip()
    for _ in range(8):
        before = s
        for pattern in _FRAMING:
            s = pattern.sub("", s, count=1)
        if s == before:
            break
    m = _EXC_NAME.search(s)
    if m and (m.start() == 0 or not _EXC_NAME.search(s[: m.start()])):
        s = s[m.start() :]
        name = m.group(0)
        rest = s[len(name) + 1 :].strip()
        if len(_WORD.findall(rest)) >= 2:
            return rest, name
        return s, None
    return s or line.strip(), None


# ---- clauses ---------------------------------------------------------------------------------

# where an error's own sentence ends and its advice or details begin: (pattern, words it needs before)
_BOUNDARIES: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"'])"), MIN_WORDS),  # a sentence end
    (re.compile(r"(?<=:)\s+(?=[A-Z\"'])"), MIN_WORDS),  # `message: Detail`
    (re.compile(r"\s+(?=[(\[])"), MIN_WORDS),  # a parenthesis: (from versions: none), [E0277]
    # an unpunctuated sentence (V8's `near heap limit Allocation failed`), not a name after `the`
    (re.compile(r"(?<=[a-z0-9'\")])\s+(?=[A-Z][a-z])"), 3),
]
# `X is not a …`, `X cannot be …`: a message that opens with the thing it is about names it, and that
# thing changes (HF's `model is not a local folder`, rustc's `future cannot be sent between threads`)
_SUBJECT = re.compile(
    r"^\S{1,300}(?=\s+(?:(?:is|was|are|does|did|has|could|must|may|will) not|cannot|can't|isn't|doesn't|won't)\b)"
)


_BEFORE_NAME = frozenset(["the", "a", "an", "to", "for", "of", "on", "in", "at", "with", "by", "from", "and", "or"])


def _enough(text: str, words: int = MIN_WORDS) -> bool:
    return len(_WORD.findall(text)) >= words and len(text.strip()) >= min(MIN_CHARS, 6 * words)


def clauses(text: str) -> list[str]:
    """`text` cut where a clause ends, each clause long enough to say something on its own."""
    cuts = sorted({(m.start(), m.end(), need) for pattern, need in _BOUNDARIES for m in pattern.finditer(text)})
    out: list[str] = []
    start = 0
    for lo, hi, need in cuts:
        if lo < start:
            continue
        head = text[start:lo]
        if _enough(head, need) and head.rsplit(None, 1)[-1].lower() not in _BEFORE_NAME:
            out.append(text[start:lo].strip())
            start = hi
    rest = text[start:].strip()
    if rest and (not out or _enough(rest)):  # a short tail (`for PyGCL`, `(from versions: none)`) is detail
        out.append(rest)
    return out


def _kept(text: str) -> str:
    """The clause a regex is made from: the first that reads as an error itself (the one after
    `heap limit` in V8's `… near heap limit Allocation failed - JavaScript heap out of memory`),
    else the first; at most MAX_TOKENS pieces, without a closing full stop."""
    parts = clauses(text) or [text]
    chosen = next((c for c in parts if extract(c).lines), parts[0])
    head = chosen.strip()
    if head.endswith((".", ";", ",")) and not head.endswith(".."):
        head = head[:-1]
    return " ".join(_SPACE.split(head)[:MAX_TOKENS])


# ---- tokens → regex --------------------------------------------------------------------------

_META = set(".^$*+?()[]{}|\\")
_QUOTED = re.compile(r"""^(['"`])([^'"`\s]{1,200})\1$""")
_URL = re.compile(r"^(?:https?|ftp|file)://", re.I)
_HEX = re.compile(r"^0x[0-9a-f]{1,16}$", re.I | re.A)
_NUMBER = re.compile(r"^\d{1,30}$", re.A)
_VERSION = re.compile(r"^v?\d{1,6}(?:\.\d{1,6}){1,4}(?:[-+.]?[A-Za-z0-9]{1,12})?$", re.A)
_CODE = re.compile(r"^[A-Z][A-Z0-9_]{1,60}$")  # TS2589, E0382, ERR_REQUIRE_ESM, CUDNN_STATUS_…
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_EXC_WORD = re.compile(r"(?:Error|Exception|Warning)s?$")
_DIGIT_RUN = re.compile(r"\d{1,30}", re.A)
_NAME_CHARS = re.compile(r"[\d_/\\=<>@:]|\w\.\w", re.A)
_PLAIN = re.compile(r"^[A-Za-z]+(?:[-'][A-Za-z]+)*$")
_SPLIT_COLON = re.compile(r"(?<=[A-Za-z]{2}):(?=[A-Za-z])(?<!::)(?!:)")
_LEAD = re.compile(r"""^[(\[{<]{1,4}""")
_TRAIL = re.compile(r"""[)\]}>.,;:!?]{1,6}$""")

QUOTED_CLASS = {"'": "'[^']{1,200}'", '"': '"[^"]{1,200}"', "`": "`[^`]{1,200}`"}


def _bounded(cls: str, default: int, tok: str) -> str:
    """`cls{1,N}` long enough for `tok` (a line is at most 2,000 characters), `default` at least."""
    return f"{cls}{{1,{max(default, len(tok))}}}"


def escape(text: str) -> str:
    """Literal text as a pattern RE2 and Python read alike: only the metacharacters escaped."""
    return "".join("\\" + c if c in _META else c for c in text)


def _token(tok: str) -> tuple[str, bool]:
    """(pattern of one whitespace-free piece, whether it is literal text)."""
    q = _QUOTED.match(tok)
    if q:
        return QUOTED_CLASS[q.group(1)], False
    if _URL.match(tok) or "/" in tok or "\\" in tok:
        return _bounded(r"\S", 300, tok), False
    if _HEX.match(tok):
        return "0x[0-9a-f]{1,16}", False
    if _NUMBER.match(tok):
        return r"\d+", False
    if _VERSION.match(tok):
        return r"v?\d[\w.+-]{0,60}", False
    if _CAMEL.search(tok) and not _EXC_WORD.search(tok):
        return _bounded(r"\S", 200, tok), False  # DataParallel, DTNet, PyGCL: a class or package name
    if _CODE.match(tok) or _PLAIN.match(tok):
        return escape(tok), True
    if "'" in tok or '"' in tok or "`" in tok:  # a quote cut by the clause, or `name's`
        return _bounded(r"\S", 200, tok), False
    digit_runs = len(_DIGIT_RUN.findall(tok))
    if digit_runs and digit_runs <= 2 and len(tok) <= 16 and re.fullmatch(r"[A-Za-z0-9_-]+", tok):
        return _DIGIT_RUN.sub(r"\\d+", escape(tok)), True  # cuda12, sm_86, 100MB, Error(s)
    if _NAME_CHARS.search(tok):
        return _bounded(r"\S", 200, tok), False  # state_dict.keys, python>=3.7, mod.sub, ids
    return escape(tok), True


def _piece(tok: str) -> tuple[str, int]:
    """(pattern of one whitespace-separated token with its punctuation, literal words in it)."""
    lead = _LEAD.match(tok)
    head = lead.group(0) if lead else ""
    rest = tok[len(head) :]
    trail = _TRAIL.search(rest) if not _QUOTED.match(rest) else None
    tail = trail.group(0) if trail and trail.start() > 0 else ""
    core = rest[: len(rest) - len(tail)] if tail else rest
    if not core:
        return escape(tok), 0
    pattern, literal = _token(core)
    words = len(_WORD.findall(core)) if literal else 0
    return escape(head) + pattern + escape(tail), words


_SPACE = re.compile(r"[ \t\n\r\f]+")  # what RE2's \s matches (Python's split() takes more)


def _pieces(text: str) -> list[str]:
    out: list[str] = []
    for tok in _SPACE.split(text.strip()):
        if not tok:
            continue
        parts = _SPLIT_COLON.split(tok)  # ERROR:No → ERROR: No
        out += [p + ":" for p in parts[:-1]] + [parts[-1]]
    return out


def _body(text: str) -> tuple[str, int]:
    """(the regex of one clause, its literal words); leading and trailing variable parts dropped,
    since a search finds the literal words wherever they are."""
    pieces = [(tok, *_piece(tok)) for tok in _pieces(text)]
    while pieces and not pieces[0][2]:
        pieces.pop(0)
    while pieces and not pieces[-1][2]:
        pieces.pop()
    parts: list[str] = []
    for tok, pattern, _ in pieces:
        if parts:
            parts.append(r"\s*" if parts[-1].endswith(":") else r"\s+")
        elif re.match(r"\w", tok) and pattern.startswith(escape(tok[:1])):
            parts.append(r"\b")
        parts.append(pattern)
    return "".join(parts), sum(words for _, _, words in pieces)


def regex_for(line: str) -> str:
    """A regex for one error line: its words literal, its variable parts bounded classes."""
    return _regex_and_words(line)[0]


def matches(pattern: str, text: str) -> bool:
    """Whether `pattern` finds a match in `text` as production searches (case-insensitive, ASCII
    classes as RE2 has them)."""
    try:
        return re.search(pattern, text, re.I | re.A) is not None
    except re.error:
        return False


def _regex_and_words(line: str) -> tuple[str, int]:
    """The regex and its literal words; a regex that would not find its own line (a class that a
    character there defeats) gives way to the line's text, escaped."""
    found = _generalised(line)
    if matches(found[0], line):
        return found
    text = error_text(line)[0]
    return escape(text), len(_WORD.findall(text))


def _generalised(line: str) -> tuple[str, int]:
    text, label = error_text(line)
    kept = _kept(text)
    unsubjected = _SUBJECT.sub("", kept, count=1)
    body, words = _body(unsubjected if _enough(unsubjected) else kept)
    if words < MIN_LITERAL_WORDS:  # too little literal to generalise (`KeyError: 'user_id'`): keep it all
        whole = f"{label}: {text}" if label else text
        return escape(whole), len(_WORD.findall(whole))
    if label:
        return rf"(?:{escape(label)}:\s*)?{body}", words
    return body, words


# ---- domain and id ---------------------------------------------------------------------------

# (domain, words that point to it), most specific first: the first rule with a hit wins
_DOMAINS: list[tuple[str, re.Pattern[str]]] = [
    ("cuda", re.compile(r"\b(?:CUDA|cuDNN|CUBLAS|NCCL|nvcc|nvidia-smi|kernel image)\b", re.I)),
    ("pytorch", re.compile(r"\b(?:torch|pytorch|state_dict|DataLoader|autograd|tensor)\b", re.I)),
    ("huggingface", re.compile(r"\b(?:huggingface|transformers|tokenizer|from_pretrained|hf_hub)\b", re.I)),
    ("jupyter", re.compile(r"\b(?:jupyter|ipykernel|notebook)\b", re.I)),
    ("numpy", re.compile(r"\b(?:numpy|ndarray|np\.)", re.I)),
    ("pandas", re.compile(r"\b(?:pandas|DataFrame|pd\.)", re.I)),
    ("pip", re.compile(r"\b(?:pip|wheel|site-packages|requirement|distribution|setup\.py|PEP 668)\b", re.I)),
    ("docker", re.compile(r"\b(?:docker|dockerfile|buildkit|container|image|compose)\b", re.I)),
    ("kubernetes", re.compile(r"\b(?:kubectl|kubernetes|k8s|pod|CrashLoopBackOff|ImagePullBackOff)\b", re.I)),
    ("terraform", re.compile(r"\b(?:terraform|tfstate|provider)\b", re.I)),
    ("git", re.compile(r"\b(?:git|remote|refs|push|pull|merge|rebase|commit|publickey)\b", re.I)),
    ("typescript", re.compile(r"\berror TS\d{3,5}\b|\b(?:tsc|typescript|tsconfig)\b", re.I)),
    ("react", re.compile(r"\b(?:react|hook|jsx|hydration)\b", re.I)),
    ("node", re.compile(r"\b(?:node|npm|yarn|pnpm|javascript|ERR_[A-Z_]{3,40}|require\(\))\b", re.I)),
    ("rust", re.compile(r"\berror\[E\d{4}\]|\b(?:cargo|rustc|tokio|crate)\b")),
    ("go", re.compile(r"\b(?:goroutine|go\.mod|golang)\b|^panic: ")),
    ("aws", re.compile(r"\b(?:aws|s3|boto3|botocore|iam)\b", re.I)),
    ("java", re.compile(r"\b(?:java|jvm|gradle|maven)\b|\bat [\w$.]{1,200}\(\w{1,100}\.java:\d")),
    ("python", re.compile(r"\b[A-Z]\w{0,60}(?:Error|Exception)\b|Traceback \(most recent call last\)")),
]
_SLUG_DROP = re.compile(r"'[^']{0,200}'|\"[^\"]{0,200}\"|`[^`]{0,200}`|\S{0,300}[/\\]\S{0,300}|\S{0,60}\d\S{0,60}")
_SLUG_WORD = re.compile(r"[a-z]{2,}")
_STOP = frozenset(_BEFORE_NAME | {"is", "are", "was", "be", "it", "this", "that"})


def guess_domain(paste: str, line: str, hint: str | None = None) -> str:
    """The ecosystem of an error: `hint` (the nearest known record's, when one is near), else the
    first rule whose words are on the error line, else in the paste; `general` when none is."""
    if hint:
        return slug(hint, 30) or "general"
    for text in (line, paste[-20_000:]):
        for domain, pattern in _DOMAINS:
            if pattern.search(text):
                return domain
    return "general"


def slug(text: str, limit: int = SLUG_CHARS) -> str:
    """Lower-case words joined by `-`, at most `limit` characters, cut at a word."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", text).lower())
    out = ""
    for w in words:
        nxt = f"{out}-{w}" if out else w
        if len(nxt) > limit:
            break
        out = nxt
    return out


def record_slug(line: str) -> str:
    """The id's last part: the error's words, names and numbers left out (they change)."""
    text, name = error_text(line)
    words = [w for w in _SLUG_WORD.findall(_SLUG_DROP.sub(" ", _kept(text)).lower()) if w not in _STOP]
    lead = [name.rsplit(".", 1)[-1].lower()] if name else []
    return slug(" ".join([*lead, *words[:SLUG_WORDS]])) or "error"


# ---- the draft -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Draft:
    """What the teach modal is prefilled with (and `errfix draft` prints)."""

    id: str
    signature: str
    regex: str
    domain: str
    fix: str = ""
    how: str = ""
    root_cause: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"id": self.id, "signature": self.signature, "regex": self.regex, "domain": self.domain}
        if self.fix:
            out["fix"] = self.fix
        if self.how:
            out["how"] = self.how
        if self.root_cause:
            out["root_cause"] = self.root_cause
        return out


def record_id(domain: str, line: str) -> str:
    """`team/<domain>/<slug>`: derived, never typed, so one error gets one id."""
    return f"team/{slug(domain, 30) or 'general'}/{record_slug(line)}"


_FENCED = re.compile(r"```(?:[\w+-]{0,20}\n)?(.{1,4000}?)```", re.S)
_INLINE = re.compile(r"`([^`\n]{1,500})`")


def split_fix(reply: str) -> tuple[str, str]:
    """A reply in a thread → (the fix in words, its `how` from code blocks)."""
    reply = reply.strip()
    codes = [m.group(1).strip() for m in _FENCED.finditer(reply)]
    words = _FENCED.sub(" ", reply)
    if not codes:
        codes = [m.group(1).strip() for m in _INLINE.finditer(words)]
    action = re.sub(r"\s+", " ", words).strip(" :") or (codes[0] if codes else "")
    return action[:500], "\n".join(c for c in codes if c)[:2000]


def draft(paste: str, *, fix: str = "", domain_hint: str | None = None) -> Draft | None:
    """The record the teach modal is prefilled with for `paste`; None when it holds no error line.

    `fix` is the reply the person saved (its code blocks become `how`); `domain_hint` the domain
    of the nearest known record, when the caller has one.
    """
    lines = ranked_lines(paste)
    if not lines:
        return None
    # the best line whose regex keeps enough of the error's words (a bare `file:line` does not)
    line = next((ln for ln in lines if _regex_and_words(ln.raw)[1] >= MIN_LITERAL_WORDS), lines[0])
    signature = line.raw.strip()
    domain = guess_domain(paste, signature, domain_hint)
    action, how = split_fix(fix) if fix else ("", "")
    return Draft(record_id(domain, signature), signature, regex_for(signature), slug(domain, 30), action, how)


# ---- the form and the record it becomes ------------------------------------------------------


@dataclass(frozen=True)
class TeachForm:
    """What the person confirmed in the teach modal (every field editable there)."""

    error_line: str
    regex: str
    fix: str
    root_cause: str = ""
    how: str = ""
    domain: str = "general"

    @classmethod
    def from_draft(cls, d: Draft) -> TeachForm:
        return cls(d.signature, d.regex, d.fix, d.root_cause, d.how, d.domain)


TEAM_FIX_RATE = 0.8  # worked once, for the person who saved it: a prior the team's votes soon outweigh
TEAM_TIER = "team"  # the verification_tier of a record the team wrote (`/errfix teach`)


def team_record(form: TeachForm, *, record_id: str, submitter: str, permalink: str, today: str) -> Record:
    """The record a confirmed form becomes: tier `team`, one piece of evidence, who and where."""
    sources = [permalink] if permalink else []
    return Record.model_validate(
        {
            "id": record_id,
            "signature": form.error_line.strip(),
            "regex": form.regex.strip(),
            "domain": form.domain,
            "category": "team",
            "root_cause": form.root_cause.strip(),
            "workarounds": [
                {
                    "action": form.fix.strip(),
                    "success_rate": TEAM_FIX_RATE,
                    "how": form.how.strip(),
                    "sources": sources,
                }
            ],
            "verification_tier": TEAM_TIER,
            "confidence": TEAM_FIX_RATE,
            "fix_success_rate": TEAM_FIX_RATE,
            "first_seen": today,
            "last_confirmed": today,
            "last_updated": today,
            "evidence_count": 1,
            "tags": ["team"],
            "errfix_team": {"submitted_by": submitter, "permalink": permalink, "submitted_at": today},
        }
    )

"""Find likely secrets in pasted text and replace them with typed markers: `[redacted:aws-access-key]`.

Why here, and pure: every text errfix keeps, logs or shows (paste lines, aliases, rejections, drafts,
views) passes through `redact()` first, so one detector decides what a secret looks like. The marker
keeps the line readable ("password authentication failed … postgres://app:[redacted:url-password]@db")
and still matchable, because error patterns do not depend on the secret itself.

Precision matters as much as recall: a traceback is full of paths, hex addresses, commit SHAs and
UUIDs, and redacting those would make pastes unmatchable. So the detectors are shaped like the
vendors' token formats (after detect-secrets' plugins) or need a keyword context (`password=`,
`Authorization: Bearer`, `aws_secret_access_key`); there is no context-free "high entropy" rule.

Linear time: every pattern runs on RE2 (no backtracking), a pattern only runs when a literal it
needs is in the text, and overlaps are joined in one sorted pass. The output never contains a
match for any detector (markers use only `[`, `]`, `:`, `-` and lowercase words), so
`redact(redact(x)) == redact(x)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import re2

MARKER_PREFIX = "[redacted:"


def marker(kind: str) -> str:
    """The text that replaces a secret of `kind`."""
    return f"{MARKER_PREFIX}{kind}]"


@dataclass(frozen=True)
class Finding:
    """One secret: its kind and where it was in the original text (character offsets)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Redacted:
    """The text with every finding replaced by its marker, and the findings in text order."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """Distinct kinds found, in order of first appearance (for telling the author)."""
        return tuple(dict.fromkeys(f.kind for f in self.findings))

    def __bool__(self) -> bool:
        return bool(self.findings)


Check = Callable[[str], bool]  # is this matched value really a secret?


@dataclass(frozen=True)
class _Detector:
    """A pattern whose group `s` (or whole match) is a secret of `kind` when `check` agrees.

    `needs` are literals one of which must be in the text (lowercased when `fold`) for the pattern
    to be worth running: most pastes hold none, so most pastes cost a few substring searches.
    """

    kind: str
    pattern: re2._Regexp
    needs: tuple[str, ...]
    fold: bool = False
    check: Check | None = None
    kind_of: Callable[[str], str] | None = None  # the kind, from the text matched before the secret
    groups: dict[str, int] = field(init=False)  # kept: the re2 wrapper rebuilds `groupindex` on each access

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", dict(self.pattern.groupindex))

    def candidates(self, text: str, low: str) -> list[Finding]:
        hay = low if self.fold else text
        if not any(n in hay for n in self.needs):
            return []
        group = self.groups.get("s", 0)
        found = []
        for m in self.pattern.finditer(text):
            if m.start() > 0 and text[m.start() - 1] == "]":
                # A marker's `]` is no word boundary: `…[redacted:x]AKIA…` was `…xAKIA…`, which is no key.
                continue
            start, end = m.span(group)
            if start == end or (self.check is not None and not self.check(text[start:end])):
                continue
            kind = self.kind_of(text[m.start() : start]) if self.kind_of else self.kind
            found.append(Finding(kind, start, end))
        return found


def _mixed(value: str) -> bool:
    """Vendor keys mix upper, lower and digits; words and kebab-case names do not."""
    return any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value)


def _openai_ok(value: str) -> bool:
    return _mixed(value[3:])


# Values that stand for a secret rather than being one: `password=None`, `${DB_PASSWORD}`, `<token>`,
# and the words documentation writes in their place (`mongodb://user:pass@host`, `hf_xxxxx`).
_PLACEHOLDER_START = ("$", "<", "%", "{", "*", "...", "…")
_PLACEHOLDER_WORDS = {
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "redacted",
    "changeme",
    "pass",
    "passwd",
    "password",
    "secret",
    "token",
    "mypassword",
    "yourpassword",
}


def _placeholder(value: str) -> bool:
    v = value.lower()
    return (
        MARKER_PREFIX in v
        or v.startswith(_PLACEHOLDER_START)
        or v in _PLACEHOLDER_WORDS
        or "xxx" in v
        or len(set(v)) == 1
    )


def _keyword_kind(key: str) -> str:
    k = key.lower()
    if "pass" in k:
        return "password"
    if "secret" in k:
        return "secret"
    if "key" in k:
        return "api-key"
    return "token"


def _url_ok(value: str) -> bool:
    return not _placeholder(value)


def _bearer_ok(value: str) -> bool:
    return not _placeholder(value) and any(c.isdigit() for c in value)


_TOKEN = r"[A-Za-z0-9_-]"
# A vendor prefix starts a key at a word boundary or glued after `_`, as env-style names and
# log fields do (`STRIPE_KEY_sk_live_…`, `creds_AKIA…`): RE2 has no look-behind, so the `_` is
# consumed and the key is group `s`.
_GLUED = r"(?:\b|_)"
_DETECTORS: tuple[_Detector, ...] = (
    # Most specific first: where candidates overlap, the earliest detector names the finding.
    _Detector(
        "private-key",
        re2.compile(
            r"(?s)-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)"
        ),
        ("PRIVATE KEY",),
    ),
    _Detector(
        "slack-webhook",
        re2.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{8,})"),
        ("hooks.slack.com",),
    ),
    _Detector("jwt", re2.compile(r"\beyJ" + _TOKEN + r"{8,}\.eyJ" + _TOKEN + r"{8,}\." + _TOKEN + r"{8,}"), ("eyJ",)),
    _Detector(
        "aws-access-key",
        re2.compile(_GLUED + r"(?P<s>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})(?:\b|_)"),
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    _Detector(
        "aws-secret-key",
        re2.compile(
            r"(?i)aws[a-z0-9_.-]{0,20}(?:secret|private)[a-z0-9_.-]{0,20}[\"']?\s{0,4}[:=]\s{0,4}[\"']?"
            r"(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)"
        ),
        ("aws",),
        fold=True,
    ),
    _Detector(
        "slack-token",
        re2.compile(_GLUED + r"(?P<s>(?:xox[abprs]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,})"),
        ("xox", "xapp-"),
    ),
    _Detector(
        "github-token",
        re2.compile(_GLUED + r"(?P<s>gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        ("gh", "github_pat_"),
    ),
    _Detector(
        "stripe-key", re2.compile(_GLUED + r"(?P<s>[sr]k_(?:live|test)_[A-Za-z0-9]{10,})"), ("k_live_", "k_test_")
    ),
    _Detector("google-api-key", re2.compile(_GLUED + r"(?P<s>AIza[0-9A-Za-z_-]{35})"), ("AIza",)),
    _Detector(
        "openai-key",
        re2.compile(_GLUED + r"(?P<s>sk-(?:proj-|svcacct-|admin-)?" + _TOKEN + r"{20,})"),
        ("sk-",),
        check=_openai_ok,
    ),
    _Detector(
        "url-password",
        re2.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@\[\]\"'<>]{0,256}:(?P<s>[^\s/@\[\]\"'<>]{1,256})@"),
        ("://",),
        check=_url_ok,
    ),
    _Detector(
        "bearer-token",
        re2.compile(
            r"(?i)(?:\bauthorization[\"']?\s{0,4}[:=]\s{0,4}[\"']?(?:bearer|basic|token)|\bbearer)"
            r"\s{1,4}(?P<s>[A-Za-z0-9._~+/=-]{16,})"
        ),
        ("bearer", "authorization"),
        fold=True,
        check=_bearer_ok,
        kind_of=lambda before: "basic-auth" if "basic" in before.lower() else "bearer-token",
    ),
    _Detector(
        "assignment",
        re2.compile(
            r"(?i)(?P<key>[a-z0-9_.-]{0,40}(?P<kw>password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key)"
            r"(?:[_-]?key)?)[\"']?\s{0,4}"
            # quoted after `=` or `:`; bare only after `=` (`Token: invalid` is prose). The structure is
            # in the pattern, not a later check, so prose like `SECRET: x…` does not swallow a key after it.
            r"(?:[:=]\s{0,4}[\"'](?P<s>[^\"'\r\n]{1,256})[\"']|=\s{0,4}(?P<s2>[^\s\"'`,;&()\[\]{}<>]{1,256})(?P<after>[(\[]?))"
        ),
        ("pass", "secret", "token", "key"),
        fold=True,
    ),
)


def _assignment_candidates(det: _Detector, text: str, low: str) -> list[Finding]:
    """Keyword assignments. A rejected match (`token=None`) must not hide a key inside its value
    (`token=None_password='x'`), so after a rejection the search resumes right after the keyword.

    Searching resumes by position, so it runs on the UTF-8 bytes, encoded once (the re2 wrapper
    would re-encode a str on every call); byte offsets become character offsets in one pass.
    """
    if not any(n in low for n in det.needs):
        return []
    g = det.groups
    data = text.encode("utf-8")
    spans: list[tuple[str, int, int]] = []
    pos = 0
    while (m := det.pattern.search(data, pos)) is not None:
        quoted = m.group(g["s"]) is not None
        raw = m.group(g["s"]) if quoted else m.group(g["s2"])
        kind = _keyword_kind(m.group(g["kw"]).decode("utf-8", "replace"))
        value = raw.decode("utf-8", "replace") if raw is not None else None
        after = m.group(g["after"])
        if value is not None and _assignment_value_ok(kind, value, quoted, after.decode() if after else None):
            start, end = m.span(g["s"] if quoted else g["s2"])
            spans.append((kind, start, end))
            pos = end
        else:
            pos = m.end(g["kw"])
    return _char_offsets(text, data, spans)


def _char_offsets(text: str, data: bytes, spans: list[tuple[str, int, int]]) -> list[Finding]:
    """Findings at character offsets for `spans` (sorted, non-overlapping) at byte offsets of `data`."""
    if text.isascii() or not spans:  # the offsets agree
        return [Finding(kind, start, end) for kind, start, end in spans]
    found, byte_at, char_at = [], 0, 0
    for kind, start, end in spans:
        char_start = char_at + len(data[byte_at:start].decode("utf-8"))
        char_end = char_start + len(data[start:end].decode("utf-8"))
        found.append(Finding(kind, char_start, char_end))
        byte_at, char_at = end, char_end
    return found


def _assignment_value_ok(kind: str, value: str, quoted: bool, after: str | None) -> bool:
    """`password="x"` / `token: 'x'` always; unquoted `token=x` only when x is not code.

    Tracebacks show source lines such as `Client(token=self.token)` or `password=get_pw()`: an
    unquoted value made of letters, `_` and `.` (an identifier or attribute), or followed by `(`/`[`,
    is code, not a secret.
    """
    if _placeholder(value) or len(value) < (4 if kind == "password" else 8):
        return False
    if quoted:
        return True
    if after:  # `token=f(x)`, `token=env[…]` are code
        return False
    if kind != "password" and value.isdigit():
        return False
    if all(c.isalpha() or c in "_." for c in value):  # an identifier: only a long mixed-case run counts
        return len(value) >= 12 and value.isalpha() and not value.islower() and not value.isupper()
    return True


def _scannable(text: str) -> str:
    """`text` with lone surrogates (JSON can carry them) as `?`: RE2 needs UTF-8; offsets stay put."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def find(text: str) -> list[Finding]:
    """All findings in `text`, in text order, non-overlapping.

    Overlapping candidates are joined into one finding named after the earliest detector (a
    vendor token inside `password=…` is a `slack-token`, and the whole value goes). Joining, not
    dropping the weaker one, is what keeps `redact` idempotent: a dropped candidate's remainder
    could otherwise match on the second pass.
    """
    text = _scannable(text)
    low = text.lower()
    ranked: list[tuple[int, int, int, str]] = []  # (start, end, rank, kind)
    for rank, det in enumerate(_DETECTORS):
        found = _assignment_candidates(det, text, low) if det.kind == "assignment" else det.candidates(text, low)
        ranked += [(f.start, f.end, rank, f.kind) for f in found]
    ranked.sort()
    joined: list[tuple[int, int, int, str]] = []
    for start, end, rank, kind in ranked:
        if joined and start < joined[-1][1]:
            p_start, p_end, p_rank, p_kind = joined[-1]
            joined[-1] = (p_start, max(p_end, end), *min((p_rank, p_kind), (rank, kind)))
        else:
            joined.append((start, end, rank, kind))
    return [Finding(kind, start, end) for start, end, _, kind in joined]


def redact(text: str) -> Redacted:
    """`text` with every likely secret replaced by `[redacted:<kind>]`."""
    findings = find(text)
    if not findings:
        return Redacted(text, ())
    parts, pos = [], 0
    for f in findings:
        parts += [text[pos : f.start], marker(f.kind)]
        pos = f.end
    parts.append(text[pos:])
    return Redacted("".join(parts), tuple(findings))


def redact_text(text: str) -> str:
    """Just the redacted text, for callers that keep or show a string."""
    return redact(text).text

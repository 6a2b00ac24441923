"""Pasted text → the lines that carry the error (pure; no I/O).

People paste whole tracebacks, log tails with colour codes, Slack-escaped text and chat around
them. Matching works best on the few lines that *are* the error (a Python traceback's final
exception line, Java's `Caused by:`, Rust's `error[E…]`), so we find those, keep their raw text
for regexes, and a normalised form (paths, numbers, hex, quoted names, shapes replaced by
placeholders) for fuzzy comparison. Every pattern here is linear-time on a single line.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field

MAX_CHARS = 1_000_000  # longer pastes keep their tail: errors come last in logs
MAX_LINE = 2_000  # a single line longer than this is cut (minified JS, base64 blobs)
MAX_LINES = 12  # error lines handed to the matcher

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b[@-Z\\-_]")
_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # lone halves (JSON "\\ud800", surrogateescape): not UTF-8
_SLACK_LINK = re.compile(r"<((?:https?|mailto|file):[^|<>\s]{1,2000})(?:\|([^<>]{0,500}))?>")
_SLACK_REF = re.compile(r"<([@#!])([A-Za-z0-9^_-]{1,64})(?:\|([^<>]{0,200}))?>")
_FENCE = re.compile(r"^\s*```[\w+-]{0,20}\s*$|```")
# A quote's marker (`> ` before each quoted line, Slack's `&gt; ` unescaped): quoted lines are the
# paste; not a REPL's `>>>` nor pytest's `>       assert …` (its marker, then an indent)
_QUOTE = re.compile(r"(?m)^[ \t]{0,3}>(?: (?! )|$)")
# Markdown emphasis (**AttributeError**, _Traceback_) only as a pair around text, so identifiers
# like torch._dynamo, __main__ and unscale_() keep their underscores.
# The emphasised text never holds its own delimiter character, so the search for a closing
# delimiter stops at the next one: linear time (a scan up to 300 characters from every `*` cost
# 1.6 s on a megabyte of `*a *a …`).
_MD = re.compile(
    r"(?<![\w\\])(?:(\*{1,2})(?=[^\s*])([^\n*]{0,300}?[^\s\\*])\1|(_{1,2})(?=[^\s_])([^\n_]{0,300}?[^\s\\_])\3)"
    r"(?=[\s.,:;!?]|$)",
    re.M,
)
_CJK_PUNCT = str.maketrans(
    {
        "。": ".",
        "，": ",",
        "：": ":",
        "；": ";",
        "（": "(",
        "）": ")",
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "「": '"',
        "」": '"',
        "、": ",",
        "！": "!",
    }
)

# A program's log entry at warning level or above, whatever its words say (the rules below
# read words): glog/klog's `W0309 21:19:18.193471  4766 docker.go:726] `, Chromium's
# `[0818/104648.606:ERROR:file.cc(103)] `, an ISO time then the level (Python's logging:
# `2024-05-01 10:30:42.230 WARNING (MainThread) [logger] `). Weak: no record is matched on it
# alone, but the team may have seen it before (bot/core/team_memory.py).
# An ISO 8601 time as logs print it first (`2024-05-01 10:30:42,230`, `2025-02-27T22:15:11.471527Z`)
_ISO_TIME = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?"
_LOG_ENTRY = re.compile(
    r"^\s{0,8}(?:[WEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}\s{1,12}\d{1,10} [\w.-]{1,120}:\d{1,6}\] "
    r"|\[\d{4}/\d{6}\.\d{3}:(?:WARNING|ERROR|FATAL):[\w.-]{1,120}\(\d{1,6}\)\] "
    rf"|\[?{_ISO_TIME}\]?\s{{1,4}}"
    r"\[?(?:WARNING|WARN|ERROR|CRITICAL|FATAL)\]?\s)"
)

# What makes a line an error line, strongest first. Each is (kind, weight, pattern).
_RULES: list[tuple[str, float, re.Pattern[str]]] = [
    (
        "python",
        1.0,
        re.compile(
            r"^\s{0,8}(?:[A-Za-z_][\w.]{0,120}\.)?[A-Z]\w{0,80}(?:Error|Exception|Exit|Interrupt|Fault|Failure|Denied|Timeout|NotFound|Missing|Invalid)\b(?:: |:$|$)"
        ),
    ),
    ("java-cause", 0.95, re.compile(r"^\s{0,8}Caused by: ")),
    # cargo's and rustc's closing summary: the error[E…] above it is the error
    ("summary", 0.5, re.compile(r"^\s{0,8}error: (?:could not compile |aborting due to )")),
    ("rust", 1.0, re.compile(r"^\s{0,8}error(?:\[E\d{4}\])?: ")),
    ("ts", 1.0, re.compile(r"\berror TS\d{3,5}\b")),
    ("panic", 1.0, re.compile(r"^\s{0,8}(?:panic: |thread '[^']{0,80}' panicked at|fatal error: )")),
    ("npm", 0.8, re.compile(r"^\s{0,4}npm (?:ERR!|error) ")),
    (
        "cc",
        0.95,
        re.compile(
            r":\d+(?::\d+)?: (?:fatal )?error: |undefined reference to |ld(?:\.\w+)?: (?:error|cannot find)|collect2: error"
        ),
    ),
    (
        "fatal",
        0.9,
        re.compile(r"^\s{0,8}(?:fatal|FATAL|Fatal|error|ERROR|Error|E|F)(?:\s{0,3}\[[^\]]{0,40}\])?\s{0,3}[:!]\s"),
    ),
    ("deprecation", 0.3, re.compile(r"\b(?:FutureWarning|DeprecationWarning|PendingDeprecationWarning)\b")),
    (
        "warning",
        0.45,
        # logfmt's (logrus, Docker Compose, Go tools): `time="…" level=warning msg="…"`; a log's
        # ISO time before Python's `file.py:90: TracerWarning: …` (ComfyUI's `2025-02-27T22:15:11.471527 - `)
        re.compile(
            rf"^\s{{0,8}}(?:{_ISO_TIME}\s{{1,4}}(?:-\s{{1,4}})?)?"
            r"(?:\S{1,300}:\d{1,6}: )?(?:[\w.]{0,80}Warning: |warning: |WARNING: |WARN\b)"
            r"|^\s{0,8}(?:time=\S{1,60}\s{1,4})?level=warn(?:ing)?\s"
        ),
    ),
    (
        "cuda",
        0.85,
        re.compile(
            r"\b(?:CUDA error|CUDNN_STATUS_\w+|CUBLAS_STATUS_\w+|NCCL (?:WARN|error|Error)|ncclInternalError|ncclUnhandled\w+|nvcc fatal|NVIDIA-SMI has failed)",
            re.I,
        ),
    ),
    ("exception", 0.8, re.compile(r"\b(?:[A-Z]\w{1,60}(?:Error|Exception))(?:: | \(|$)")),
    (
        "keyword",
        0.6,
        re.compile(
            r"\b(?:error|failed|failure|fatal|denied|refused|cannot|can't|couldn't|unable to|not found|no such|invalid|unsupported|incompatible|exceed(?:s|ed)|timed? ?out|(?:was|has been|were|have been) removed|no longer supported|killed|segmentation fault|out of memory|insufficient|not enough|more [^\n]{1,60}? than (?:is |are )?available|traceback|exception|unresolved|undefined|mismatch|conflict|missing|too open|unprotected|abort(?:ed)?|crash(?:ed)?|panic|not allowed|forbidden|unauthorized|rejected|overflow|deadlock|corrupt(?:ed)?|illegal|expected .{1,60} but|is not (?:a |an )?(?:supported|valid|recognized|defined|compatible))\b",
            re.I,
        ),
    ),
    (
        "status",
        0.7,
        re.compile(
            r"\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|OOMKilled|Evicted|FailedScheduling|FailedMount|Back-off|NOT_FOUND|PERMISSION_DENIED|UNAVAILABLE|DEADLINE_EXCEEDED|E[A-Z]{3,12}(?=[:\s]))"
        ),
    ),
    ("log", 0.45, _LOG_ENTRY),
]
# A log viewer's entry (Home Assistant's: `Logger: name`, `Source: file:line`, `First occurred: …`,
# `Last logged: …`, then the message): its message is a log entry like the lines above.
_VIEWER_LOGGER = re.compile(r"^\s{0,8}Logger: [\w.]{1,120}\s*$")
_VIEWER_FIELD = re.compile(r"^\s{0,8}(?:Source|First occurred|Last logged|Integration): ")
# A line that says where the log is (npm's `A complete log of this run can be found in:`), or one
# that is nothing but a location under its tool's prefix (`npm ERR!     /home/u/.npm/_logs/…log`),
# tells where to look, not what failed: it ranks below every error line.
_POINTER = re.compile(r"\blog of this run can be found in\b", re.I)
_PLACEHOLDER = re.compile(r"<[a-z ]{1,12}>")
_LETTERS = re.compile(r"[a-z]+")
_PREFIX_WORDS = frozenset({"npm", "err", "error", "fatal", "warn", "warning", "e", "f"})
POINTER_WEIGHT = 0.3
_RAISE = re.compile(r"\braise ([A-Z]\w{0,80})\((['\"])(.{1,300})\2\)")
_TRACEBACK = re.compile(r"^\s{0,8}Traceback \(most recent call last\):")
_FRAME = re.compile(r"^\s{0,12}(?:File \"|at [\w$.<>]{1,200}\(|\d{1,3}: 0x|#\d{1,3} )")
# after a traceback's frames, `name.Class: message` is the exception whatever its class is called
# (BackendCompilerFailed, StopIteration, ConnectTimeout): a CamelCase name, maybe dotted
_TB_EXCEPTION = re.compile(r"^ {0,2}(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z][a-z0-9]\w{0,80}(?:: |:$)")
# Source code a traceback shows is not an error line, whatever words it holds (`except
# (KeyboardInterrupt, Exception) as e:`): rich's framed listing (`│ ❱ 140 │ raise e │`) and the code
# line Python prints under each `File "…", line N` frame.
_RICH_SOURCE = re.compile(r"^\s{0,8}│\s{0,4}(?:❱|→|>)?\s{0,4}\d{1,6}\s{0,4}│")
_PY_FRAME = re.compile(r"^(\s{0,12})File \"[^\"\n]{1,400}\", line \d+")
_CHAIN = re.compile(r"During handling of the above exception|The above exception was the direct cause")

# Normalisation of volatile parts, for fuzzy comparison only.
_NORM = [
    (
        re.compile(r"\b\d{4}-\d\d-\d\d[t ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:z|[+-]\d\d:?\d\d)?"),
        " <time> ",
    ),  # lower-cased
    (re.compile(r"\b0x[0-9a-f]{4,}\b", re.I), " <hex> "),
    (re.compile(r"(?:[a-z]:)?(?:[\\/][\w.@~+-]{1,100}){2,}[\\/]?", re.I), " <path> "),
    (re.compile(r"https?://\S{1,500}"), " <url> "),
    (
        re.compile(r"\[\s?\d+(?:\s?,\s?\d+){1,7}\s?\]|\(\s?\d+(?:\s?,\s?\d+){1,7}\s?\)|\b\d+x\d+(?:x\d+){0,3}\b"),
        " <shape> ",
    ),
    (re.compile(r"\b[0-9a-f]{12,64}\b", re.I), " <hex> "),
    (re.compile(r"\b\d+(?:\.\d+)*\b"), " <n> "),
    # quoted names and values ('numpy', "x.py", `float`), not quoted sentences: those are the message
    (re.compile(r"'[^'\s]{1,120}'|\"[^\"\s]{1,120}\"|`[^`\s]{1,120}`"), " <q> "),
]
_SPACE = re.compile(r"\s+")

# Environment hints found in the text: they prefer the matching variant among near-identical records.
_ENV = [
    (
        "os",
        re.compile(r"\b(?:windows|win32|win64|win_amd64|powershell)|\b[a-z]:\\\\?(?:users|program files|python)", re.I),
        "windows",
    ),
    ("os", re.compile(r"\b(?:macos|mac os|darwin|osx|homebrew|apple m[1-4])|/Users/", re.I), "macos"),
    ("os", re.compile(r"\b(?:linux|ubuntu|debian|centos|fedora)|/home/|/usr/lib/", re.I), "linux"),
    ("os", re.compile(r"\bwsl2?\b", re.I), "wsl"),
]
# not after `.` or a word character: `main.go:17` and `Main.java:10` are files, not versions
_VERSIONED = re.compile(
    r"(?<![\w.])(python|py|torch|pytorch|cuda|node|nodejs|java|jdk|go|rust|pip|numpy|pandas|transformers|tensorflow|tf|docker|git|react|next|typescript|ts|gradle|k8s|kubernetes|terraform)"
    r"(?:[ =:/-]{0,3}v?)(\d{1,2})(?:\.(\d{1,2}))?(?!\d)",
    re.I,
)
_PY_TAG = re.compile(r"(?<![\w.])(?:py|cp)3(\d{1,2})\b", re.I)  # wheel/tox tags: py311, cp39 -> Python 3.11, 3.9
_ALIASES = {
    "pytorch": "torch",
    "py": "python",
    "nodejs": "node",
    "jdk": "java",
    "tf": "tensorflow",
    "k8s": "kubernetes",
    "ts": "typescript",
}


@dataclass(frozen=True)
class ErrorLine:
    """One line that carries an error: raw for regexes, normalised for fuzzy comparison."""

    raw: str
    norm: str
    kind: str
    weight: float
    index: int


@dataclass(frozen=True)
class Extracted:
    text: str  # cleaned paste (unescaped, no ANSI), maybe only its tail
    lines: list[ErrorLine]  # best first
    is_error: bool
    truncated: bool
    env: frozenset[str] = field(default_factory=frozenset)
    # `text` less the source code its tracebacks show (blank lines in their place), "" when it has
    # none: what records' regexes read, so `except (KeyboardInterrupt, Exception)` is no error
    uncoded: str = ""

    @property
    def searchable(self) -> str:
        return self.uncoded or self.text

    @property
    def deprecation_only(self) -> bool:
        """Only deprecation notices (FutureWarning…) look like errors here: nothing is broken yet."""
        kinds = {ln.kind for ln in self.lines if ln.weight >= 0.3}
        return "deprecation" in kinds and not any(ln.weight >= 0.8 for ln in self.lines)

    @property
    def logged(self) -> bool:
        """One of its two best lines is a program's log entry at warning level or above (an
        ERROR line that also reads as a failure included): printed by a program, not chat, though
        no line may be a strong error."""
        return any(ln.kind == "log" or _LOG_ENTRY.match(ln.raw) for ln in self.lines[:2])

    @property
    def error_text(self) -> str:
        """The error lines joined: what regexes run against first."""
        return "\n".join(line.raw for line in sorted(self.lines, key=lambda ln: ln.index))


def unescape_slack(text: str) -> str:
    """Slack's `&lt;`, `<url|label>` and `<@U123>` back into what the person pasted."""
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _SLACK_REF.sub(lambda m: m.group(1) + (m.group(3) or m.group(2)), text)
    return html.unescape(text) if "&" in text else text


def clean(text: str) -> tuple[str, bool]:
    """Unescape, strip colour codes, quote markers, fences and markdown emphasis; keep at most
    MAX_CHARS (tail)."""
    truncated = len(text) > MAX_CHARS
    if truncated:
        text = text[-MAX_CHARS:]
    text = unescape_slack(text)
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CTRL.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    text = unicodedata.normalize("NFKC", text).translate(_CJK_PUNCT)
    text = _QUOTE.sub("", text)
    text = _FENCE.sub("", text)
    text = _MD.sub(_unemphasise, text)
    return text, truncated


def _unemphasise(m: re.Match[str]) -> str:
    if m.group(1):
        return m.group(2)
    if m.group(3) == "__" and m.group(4).isidentifier():
        return m.group(0)  # `__main__`, `__init__`: a Python dunder name, not bold text
    return m.group(4)


def normalize(line: str) -> str:
    """Volatile parts → placeholders, lower case, single spaces: stable text for fuzzy matching."""
    line = line.lower()
    for pattern, repl in _NORM:
        line = pattern.sub(repl, line)
    return _SPACE.sub(" ", line).strip()


def _classify(line: str) -> tuple[str, float] | None:
    for kind, weight, pattern in _RULES:
        if pattern.search(line):
            return kind, weight
    return None


def environment(text: str) -> frozenset[str]:
    """Tokens like `os:windows`, `torch:2`, `torch:2.1`, `cuda:12` seen in the paste."""
    found: set[str] = set()
    head = text[:20_000] + "\n" + text[-20_000:] if len(text) > 40_000 else text
    for key, pattern, value in _ENV:
        if pattern.search(head):
            found.add(f"{key}:{value}")
    for m in _VERSIONED.finditer(head):
        name = _ALIASES.get(m.group(1).lower(), m.group(1).lower())
        found.add(f"{name}:{m.group(2)}")
        if m.group(3):
            found.add(f"{name}:{m.group(2)}.{m.group(3)}")
    for m in _PY_TAG.finditer(head):
        found.update(("python:3", f"python:3.{m.group(1)}"))
    return frozenset(found)


def extract(text: str) -> Extracted:
    """Find the error lines of a paste, best first; never raises, linear in the input."""
    cleaned, truncated = clean(text)
    raw_lines = [ln[:MAX_LINE] for ln in cleaned.split("\n")]
    found: list[ErrorLine] = []
    in_traceback = False
    last_tb_line: int | None = None
    frame_indent: int | None = None  # the indent of the `File "…"` frame line just above
    source: list[int] = []  # lines that are a traceback's source code
    viewer = False  # inside a log viewer entry's header: its message is next
    for i, line in enumerate(raw_lines):
        stripped = line.strip()
        if not stripped:
            continue
        if _VIEWER_LOGGER.match(line):
            viewer = True
            continue
        logged, viewer = viewer, viewer and bool(_VIEWER_FIELD.match(line))
        if viewer:
            continue
        under_frame, frame_indent = frame_indent, None
        if under_frame is not None and len(line) - len(line.lstrip()) > under_frame and not _RAISE.search(stripped):
            source.append(i)  # the frame's source line (a `raise X('message')` there is read below)
            continue
        if _RICH_SOURCE.match(line):
            source.append(i)
            continue
        if _TRACEBACK.search(line):
            in_traceback = True
            continue
        if frame := _PY_FRAME.match(line):
            frame_indent = len(frame.group(1))
            continue
        if _FRAME.search(line) or _CHAIN.search(line):
            continue
        raised = _RAISE.search(stripped)
        if raised:  # `raise RuntimeError('x')` as the last frame line: the message is the error
            stripped = f"{raised.group(1)}: {raised.group(3)}"
        hit = _classify(stripped)
        if hit is None and in_traceback and _TB_EXCEPTION.match(line):  # not an indented code line
            hit = ("python", 1.0)
        if hit is None and logged:
            hit = ("log", 0.45)
        if hit is None:
            continue
        kind, weight = hit
        if kind == "panic" and stripped.endswith(":") and i + 1 < len(raw_lines) and raw_lines[i + 1].strip():
            # Rust >= 1.73 prints the panic message on the line after `panicked at file:line:col:`
            stripped = f"{stripped} {raw_lines[i + 1].strip()}"
        if in_traceback and kind in ("python", "exception"):
            last_tb_line = len(found)
            in_traceback = False
        norm = normalize(stripped)
        if _POINTER.search(stripped) or set(_LETTERS.findall(_PLACEHOLDER.sub(" ", norm))) <= _PREFIX_WORDS:
            weight = min(weight, POINTER_WEIGHT)
        found.append(ErrorLine(stripped, norm, kind, weight, i))
    if last_tb_line is not None:  # a traceback's final exception line is the error itself
        best = found[last_tb_line]
        found[last_tb_line] = ErrorLine(best.raw, best.norm, best.kind, 1.1, best.index)
    # later lines win ties: the last error in a log is usually the one that stopped it
    ranked = sorted(found, key=lambda ln: (-ln.weight, -ln.index))[:MAX_LINES]
    strong = any(ln.weight >= 0.8 for ln in ranked)
    uncoded = ""
    if source:
        whole = cleaned.split("\n")
        for i in source:
            whole[i] = ""
        uncoded = "\n".join(whole)
    return Extracted(cleaned, ranked, strong, truncated, environment(cleaned), uncoded)

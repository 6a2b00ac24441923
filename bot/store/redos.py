"""Whether a record regex can run safely here: RE2, or the bounded backtracking fallback.

`errfix lint` (bot/store/lint.py) reports the catastrophic ones among its quality checks;
`errfix import` and `errfix sync` (bot/store/files.py) refuse a regex that compiles in no engine,
or that RE2 rejects and the backtracking fallback can be made to stall on (`unrunnable`). A
pattern RE2 accepts always runs in linear time, whatever a backtracking engine would do with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import re2
import regex

from bot.core.regexset import re2_options  # the options production compiles with

REDOS_TIMEOUT = 0.1  # seconds a backtracking engine may spend on one adversarial input
ADVERSARIAL_SIZE = 10_000  # characters of pumped text: quadratic blow-ups show at this size


def compile_re2(pattern: str) -> re2._Regexp:
    """The pattern as production compiles it (case-insensitive); raises re2.error if RE2 rejects it."""
    return re2.compile(pattern, re2_options())


_META = set(".^$*+?()[]{}|")
_CLASS_ESCAPES = set("dDwWsSbBAzZpPQEC")


def literal_runs(pattern: str) -> list[str]:
    """Runs of literal text in a pattern ("nvcc fatal", ": "), longest first, without duplicates.

    A rough reading of the syntax, enough to build inputs from the pattern's own words: escapes of
    punctuation are literals, character classes and operators end a run, and the character before
    a quantifier is dropped from its run (it may be repeated or absent).
    """
    runs: list[str] = []
    cur: list[str] = []

    def end() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            if e in _CLASS_ESCAPES or e.isdigit() or e in "xu":
                end()
            else:
                cur.append({"n": "\n", "t": "\t", "r": "\r"}.get(e, e))
            i += 2
            continue
        if c == "[":  # skip the class: []] and [^]] start with a literal ]
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            end()
            i = j + 1
            continue
        if c in "*+?{" and cur:
            cur.pop()  # the quantified character is not a fixed part of the text
        if c in _META:
            end()
            if c == "{":
                close = pattern.find("}", i)
                i = close + 1 if close > i else i + 1
                continue
            if c == "(" and pattern.startswith("(?", i):  # (?:  (?i)  (?P<name>
                m = re.match(r"\(\?(?:P?<[^>]*>|[a-zA-Z]*:?|[=!]|<[=!])", pattern[i:])
                i += len(m.group(0)) if m else 2
                continue
            i += 1
            continue
        cur.append(c)
        i += 1
    end()
    unique = dict.fromkeys(r for r in runs if r.strip())
    return sorted(unique, key=lambda r: (-len(r), r))


def _pumped(prefix: str, pump: str, size: int = ADVERSARIAL_SIZE) -> str:
    return prefix + pump * max(1, size // max(1, len(pump))) + "!"


def _changed(text: str, pos: int) -> str:
    """`text` with the character at `pos` replaced by one that differs from it in any case."""
    c = text[pos]
    new = "#" if c.isalnum() else "x"
    return text[:pos] + new + text[pos + 1 :]


def adversarial_inputs(pattern: str, signature: str) -> Iterator[tuple[str, str]]:
    """(description, text) pairs built from the pattern's literals and its signature.

    The classic ReDoS shapes: a prefix that enters the pattern, then a long run of something a
    nested or overlapping repeat accepts in many ways, then a character that makes the match fail
    (so the engine tries every way); and near-misses of the real error repeated many times.
    """
    yield f"'a'×{ADVERSARIAL_SIZE} + '!'", "a" * ADVERSARIAL_SIZE + "!"
    sig = signature or "x"
    reps = max(1, ADVERSARIAL_SIZE // (len(sig) + 1))
    yield "the signature repeated", " ".join([sig] * reps)
    yield "the signature repeated on lines", "\n".join([sig] * reps)
    positions = sorted({len(sig) // 2, max(0, len(sig) - 1), min(len(sig) - 1, len(sig) // 4)})
    for pos in positions:
        near = _changed(sig, pos)
        yield f"the signature with char {pos} changed, repeated", " ".join([near] * reps)
        yield f"the signature with char {pos} changed, pumped", _pumped(near[: pos + 1], near[pos:])
    lits = literal_runs(pattern)[:6]
    words = sorted(dict.fromkeys(re.findall(r"\w+", sig.lower())), key=lambda w: (-len(w), w))[:4]
    chars = sorted(set(sig.lower()) - set(" \t\n"), key=lambda c: (-sig.lower().count(c), c))[:6]
    fixed = ["a", "0", " ", "\t", "\n", ".", "-", "/", "'", '"', "a "]
    pumps = list(dict.fromkeys(p.lower() for p in [*lits, *words, *chars, *fixed]))
    cuts = range(len(sig) // 4, len(sig), max(1, len(sig) // 4))
    prefixes = dict.fromkeys(["", *lits[:4], *(sig[:k] for k in cuts)])
    for prefix in prefixes:
        for pump in pumps:
            yield f"{prefix[:30]!r} + {pump[:30]!r}×N + '!'", _pumped(prefix, pump)


def redos_problem(pattern: str, signature: str, timeout: float = REDOS_TIMEOUT) -> str | None:
    """A problem if a backtracking engine (`regex`) takes over `timeout` on an adversarial input."""
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError) as e:
        return f"regex does not compile in the backtracking `regex` module: {e}"
    for description, text in adversarial_inputs(pattern, signature):
        try:
            compiled.search(text, timeout=timeout)
        except TimeoutError:
            return f"regex may backtrack catastrophically: over {timeout:g}s on {description}"
    return None


def _message(error: re2.error) -> str:
    """RE2's reason as text (the binding passes it as bytes)."""
    arg = error.args[0] if error.args else ""
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def unrunnable(pattern: str, signature: str) -> str | None:
    """Why production cannot run `pattern` safely (import refuses it), or None.

    RE2 takes it: safe. Else it runs on the backtracking `regex` module, which must compile it
    and must not stall on the adversarial inputs `lint` tries.
    """
    try:
        compile_re2(pattern)
    except re2.error as e:
        reason = _message(e)
    else:
        return None
    try:
        regex.compile(pattern, regex.IGNORECASE | regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError):
        return f"regex does not compile: {reason}"
    redos = redos_problem(pattern, signature)
    return None if redos is None else f"{redos} (RE2 rejects it: {reason})"

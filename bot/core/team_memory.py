"""Team memory (#36): what identifies a pasted error, and how "seen before" is said (pure).

An error's identity is its error line as the team would recognise it again: from the exception
name on (the words a person wrote before it are theirs, not the error's), with what changes between
two pastes of one error (times, addresses, paths, URLs, numbers, quote marks) replaced, and the
names kept: `KeyError: 'token_type_ids'` and `KeyError: 'input_ids'` are two errors, the same
class. A line that says no more than its class (`KeyError`, `RuntimeError: <n>`) identifies
nothing, so it is not remembered: the rule of the quiet issue (bot/core/knows.py) holds here too.

Besides a line's identity a paste may have *secondary* keys (marked `~`), each as strict as an
identity: the Python 2 wording of a Python 3 message (`'module' object has no attribute 'x'`); and
the *raise site*, the message with its quoted names left out together with the library frame that
raised it (`File ".../site-packages/torch/nn/modules/module.py", ... in __getattr__`): two pastes
raised by the same library `raise` with the same words are one error whatever the user's names were.
A bare `KeyError: 'x'` has no words left once its name is out, so it gets no raise site.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.blocks import actions, button, context, cut, escape, header, section
from bot.core.extract import Extracted
from bot.core.messages import t
from bot.core.redact import redact_text
from bot.core.teach_view import TEACH_OPEN

# Bumped whenever identity() changes what it keeps, so remembered pastes get their keys again
# (bot/store/memory.py `Memory.rekey`): 2 kept log entries, URL hosts and generated names apart.
IDENTITY_VERSION = "2"
MEMORY_UP, MEMORY_DOWN = "errfix_memory_up", "errfix_memory_down"
EXCERPT = 280  # characters of a resolution's words kept (redacted first, by the store)
LINES = 2  # the paste's best error lines whose identities are remembered and looked up

_EXCEPTION = re.compile(r"\b[\w.]*(?:error|exception|warning|fault|panic)\b\s*:", re.I)
# a hash inside a name: 8+ hex digits with both digits and letters, not inside a longer word
_HASH = re.compile(r"(?<![0-9a-z])(?=[0-9a-f]{0,63}[a-f])(?=[0-9a-f]{0,63}\d)[0-9a-f]{8,64}(?![0-9a-z])")
_DIGITS = re.compile(r"\d+")
_URL = re.compile(r"https?://(?:[^\s/?#@]{0,200}@)?([^\s/:?#<>@]{1,200})\S{0,500}")  # its host, no user
_TIME = r"\d{4}-\d\d-\d\d[t ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:z|[+-]\d\d:?\d\d)?"  # lower-cased ISO-ish
_VOLATILE: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(rf"\b{_TIME}"), " <time> "),
    (re.compile(r"\b0x[0-9a-f]{4,}\b"), " <hex> "),
    # a URL's host is kept: registry.ollama.ai and ollama.com fail for two reasons (the host-less
    # key is a secondary one, for a service reached under two names)
    (_URL, lambda m: f" <url {_DIGITS.sub('n', m.group(1))}> "),
    (re.compile(r"(?:[a-z]:)?(?:[\\/][\w.@~+-]{1,100}){2,}[\\/]?"), " <path> "),
    # a generated name (a container, pod or build name with a hash in it) is volatile as a whole
    (re.compile(r"[\w.-]{8,300}"), lambda m: " <id> " if _HASH.search(m.group()) else m.group()),
    (re.compile(r"\b[0-9a-f]{12,64}\b"), " <hex> "),
    (re.compile(r"\b\d+(?:\.\d+)*\b"), " <n> "),
    (re.compile(r"['\"`]"), ""),
]
_URL_HOST = re.compile(r"<url [^>\s]{1,200}>")
_PACKAGE_PREFIX = re.compile(r"^[\w]+(?:\.[\w]+)*\.(\w*(?:error|exception)\b)")
_TAIL = re.compile(r"[\s.!,;:]+$")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z_][\w.]{1,}")
SECONDARY = "~ "  # the mark of a secondary key (Python 2 wording, raise site): never listed on its own
# Python 3 `module 'conda.plan' has no attribute 'x'` is Python 2 `'module' object has no attribute 'x'`
_PY3_MODULE = re.compile(r"^(\S*attributeerror: )module [\w.]+ has no attribute ")
_QUOTED = re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`")
# a library frame: CPython's `File ".../site-packages/pkg/mod.py", line 9, in func`
_LIB_FRAME = re.compile(r'^\s*File "[^"]*[\\/](?:site|dist)-packages[\\/]([^"]{1,300})", line \d+, in ([\w<>.]{1,100})')
FRAME_BACK = 4  # lines above an error line searched for the frame that raised it (its code and carets between)
_RAISE = re.compile(r"raise\b")
_CLASS_ONLY = re.compile(r"^\s*[\w.]*(?:error|exception)\s*$", re.I)


# A log line's head is the logger's, not the error's: a time, a level, a thread, a logger name
# (`2024-05-01 10:30:42.230 WARNING (MainThread) [homeassistant.util.loop] `), or glog/klog's
# `W0309 21:19:18.193471    4766 docker.go:726] `. The same error logged elsewhere is the same error.
_LOG_HEAD = re.compile(
    r"^\s{0,8}(?:[ewfi]\d{4} \d\d:\d\d:\d\d\.\d{1,9}\s{1,12}\d{1,10} [\w.-]{1,120}:\d{1,6}\] "
    rf"|\[?{_TIME}\]?\s{{1,4}}"
    r"(?:\[?(?:debug|info|warning|warn|error|critical|fatal)\]?\s{1,4})?(?:\([^)\n]{0,60}\)\s{1,4})?"
    r"(?:\[[^\]\n]{0,120}\]:?\s{1,4})?(?=\S))"
)


def identity(line: str) -> str | None:
    """The identity of one error line, or None when it names nothing beyond its class. Secrets are
    redacted first: an identity is stored as a key, and a URL's credentials are not its host."""
    text = _LOG_HEAD.sub("", redact_text(line).lower())
    if m := _EXCEPTION.search(text):
        start = m.start()
        # `AttributeError: …` quoted inline in a sentence: the error ends where its code span does
        end = text.find("`", m.end()) if start and text[start - 1] == "`" else -1
        text = text[start:end] if end > 0 else text[start:]
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    text = _PACKAGE_PREFIX.sub(r"\1", _TAIL.sub("", text))
    text = _SPACE.sub(" ", text).strip()[:300]
    words = _WORD.findall(text)
    return text if len(words) >= 2 else None


def memorable(ex: Extracted) -> bool:
    """Whether a paste's errors are remembered: an error, or a program's log entry (a warning
    logged by glog, Chromium or Python's logging is what teams paste and solve too; chat is
    neither)."""
    return ex.is_error or ex.logged


def identities(ex: Extracted) -> list[str]:
    """The identities of a paste's best error lines, best first, each once, then their secondary keys."""
    split: list[list[str]] = []  # the paste's rows, split only when a line needs its neighbours

    def rows() -> list[str]:
        if not split:
            split.append(ex.text.split("\n"))
        return split[0]

    keys: list[str] = []
    secondary: list[str] = []
    for line in ex.lines[:LINES]:
        raw = _with_message(line.raw, rows(), line.index) if _CLASS_ONLY.match(line.raw) else line.raw
        key = identity(raw)
        if key is None:
            continue
        keys.append(key)
        if (hostless := _URL_HOST.sub("<url>", key)) != key:
            secondary.append(SECONDARY + hostless)
        if (py2 := _PY3_MODULE.sub(r"\1module object has no attribute ", key)) != key:
            secondary.append(py2)  # a Python 2 paste's own identity: unmarked, as it would be remembered
        if _QUOTED.search(raw) and (site := _raise_site(raw, rows(), line.index)):  # no names: the key says it
            secondary.append(SECONDARY + site)
    return list(dict.fromkeys(keys + secondary))


def _with_message(raw: str, rows: list[str], index: int) -> str:
    """A class alone on its indented line, a blank line, then an indented message (Poetry/cleo prints
    `  KeyError`, ``, `  'format'`): the class with that message. A traceback's class line is not
    indented, so what follows it there (`During handling of …`) is never taken for its message."""
    if not _CLASS_ONLY.match(raw) or not 0 <= index < len(rows) - 2:
        return raw
    line, blank, message = rows[index : index + 3]
    if not (line[:1].isspace() and not blank.strip() and message[:1].isspace() and message.strip()):
        return raw
    message = message.strip()
    return raw if message.startswith("at ") else f"{raw.strip()}: {message}"


def _raise_site(raw: str, rows: list[str], index: int) -> str | None:
    """`<message without its quoted names> @ <library file> in <function>` when a library frame
    shortly above the error line raised it (its code line is a `raise`) and the message has words
    beyond its class."""
    template = identity(_QUOTED.sub(" <q> ", raw))
    if template is None or len(_WORD.findall(template)) < 3:
        return None
    above = rows[max(0, index - FRAME_BACK) : max(0, index)]
    for n in range(len(above) - 1, -1, -1):
        if m := _LIB_FRAME.match(above[n]):
            code = next((r.strip() for r in above[n + 1 :] if r.strip()), "")
            if not _RAISE.match(code):  # the frame called on (an import, an attribute): not a raise site
                return None
            return f"{template} @ {m.group(1).replace(chr(92), '/').lower()} in {m.group(2)}"
    return None


@dataclass(frozen=True)
class Seen:
    """An earlier paste of the same error, as the asker's channel may see it."""

    memory_id: int
    channel: str
    ts: str  # the earlier paste
    thread_ts: str  # its thread
    created_at: str
    solved: bool
    excerpt: str = ""  # the resolution's words (redacted), "" when none
    excerpt_user: str = ""
    kind: str = ""  # check (a reply marked ✅ or reacted to by the paster), worked, saved
    up: int = 0
    down: int = 0


def when(created_at: str) -> str:
    """`2026-12-03T…` → `Dec 3`."""
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    try:
        return f"{months[int(created_at[5:7]) - 1]} {int(created_at[8:10])}"
    except (ValueError, IndexError):
        return created_at[:10]


def _thread(link: str | None, lang: str) -> str:
    word = t("memory_thread", lang)
    return f"<{link}|{word}>" if link else word


def seen_line(seen: Seen, link: str | None, lang: str = "en") -> str:
    """The context line an answer gets: `Seen before in #channel on Dec 3 · solved · thread`."""
    state = t("memory_solved" if seen.solved else "memory_discussed", lang)
    return t("memory_seen", lang, channel=f"<#{seen.channel}>", when=when(seen.created_at), state=state) + (
        f" · {_thread(link, lang)}"
    )


def team_answer_blocks(seen: Seen, link: str | None, lang: str = "en") -> list[dict[str, object]]:
    """The answer when no record knows the error but the team solved it before: the link, the
    resolution's author and words, and Worked / Didn't work on it like any fix."""
    blocks: list[dict[str, object]] = [section(t("memory_heading" if seen.solved else "memory_heading_unsolved", lang))]
    if seen.excerpt:
        who = f"<@{seen.excerpt_user}>" if seen.excerpt_user else t("memory_someone", lang)
        blocks.append(section(t("memory_fix", lang, user=who, words=escape(cut(seen.excerpt, EXCERPT)))))
    if not seen.solved:
        return [*blocks, context(seen_line(seen, link, lang))]
    blocks.append(context(seen_line(seen, link, lang), t("memory_votes", lang, up=seen.up, down=seen.down)))
    if seen.solved:
        value = {"m": seen.memory_id, "lang": lang}
        blocks.append(
            actions(
                "memory",
                button(t("worked", lang), MEMORY_UP, value, "primary"),
                button(t("did_not_work", lang), MEMORY_DOWN, value),
            )
        )
    return blocks


def home_blocks(
    solved: list[tuple[str, int, str, str]],
    worth: list[tuple[str, str, str, str]],
    links: dict[tuple[str, str], str],
    lang: str = "en",
) -> list[dict[str, object]]:
    """The App Home's team memory: the errors the team solved most, each with its latest solved
    thread, and threads a reply solved that no record answers, each with *Save as errfix record*."""
    blocks: list[dict[str, object]] = [header(t("home_memory_solved", lang))]
    if solved:
        rows = []
        for line, n, channel, thread in solved:
            where = f"<{links[(channel, thread)]}|{t('memory_thread', lang)}>" if (channel, thread) in links else ""
            rows.append(f"• *{n}×* `{escape(cut(line, 150))}` {where}".rstrip())
        blocks.append(section("\n".join(rows)))
    else:
        blocks.append(context(t("home_memory_none", lang)))
    if worth:
        blocks.append(section(t("home_memory_worth", lang)))
        for n, (line, channel, thread, reply) in enumerate(worth):
            value = {"c": channel, "t": thread, "m": reply}
            save = button(t("teach_title", lang), f"{TEACH_OPEN}:m{n}", value)
            blocks.append(
                {
                    "type": "section",
                    "text": {"type": "mrkdwn", "text": f"`{escape(cut(line, 200))}`"},
                    "accessory": save,
                }
            )
    return blocks


def team_answer_text(seen: Seen, lang: str = "en") -> str:
    return t("memory_fallback" if seen.solved else "memory_fallback_unsolved", lang, when=when(seen.created_at))

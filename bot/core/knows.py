"""Does a record explain *this* error, or only its kind? (pure)

P(right record) (bot/core/matcher.py) answers "which record is this paste, if it is any?". In a
real channel most pasted errors are in no record, and a catch-all record (any `KeyError`, any
`'NoneType' object has no attribute`) wins its margin over the runner-up on every paste of its
class while its advice restates the exception (#35). So an unprompted answer also needs the record
to *know* the error:

* **Ecosystems.** A record bound to one language never answers a paste in another (a Python
  traceback is not answered with a Go or Java record), a product's record (Terraform, Redis…)
  answers a language's traceback only when the paste names it, and a record that is not a
  software error at all (safety, visa, legal… in the public corpus) answers nothing.
* **Knowing.** A record whose regex is a class's *template* for the paste (the error line's names
  left to its wildcards, or nothing said but the class, and few common words of its own) is
  general advice: it answers unprompted only when its fixes are commands on the environment and
  the name is a whole package, so the message decides the fix (`No module named 'yaml'`: install
  it), not changes to code the record cannot see (`use .get()` for `KeyError: 'token_type_ids'`).
  The two thresholds (`Knows`) were read off bench/fit_knows.py's grid over judged real pastes
  (bench/wild/) and the labelled sets.
* **What the regex says about the line.** A regex of alternatives says about a line only the
  alternatives that found it, and the class a line starts with is its class whatever its name
  (`KeyboardInterrupt`, `ArrowInvalid`), never an own word or a code of the record.
* **Catch-alls.** A record whose regex also recognises another error's signature or alias (one
  way; bot/core/vagueness.py), and every variant of it, is its class's catch-all in this database.
  When the line quotes a name the catch-all's wording lacks (`'NoneType' object has no attribute
  'reshape'`), that name is the error, and the catch-all answers unprompted only when its fixes
  act on the name as above.
* **Wrappers.** A line another record's wording prints *beside* its own error (git's `failed to
  push some refs` under `! [rejected] … (fetch first)`) says that an operation failed, not why: a
  record found on it, with that other error absent from the paste, guesses the cause.
* **A child process failed.** A line saying only that a build or a command exited non-zero
  (`returned non-zero exit status 1`, `Failed building wheel`, `make: *** [all] Error 2`) is a
  wrapper too: why is in that process's output. Advice on code guesses it; fixes on the
  environment (build tools, a version with a wheel) are what such a failure needs. A record that
  knows another line of the paste answers in its place.
* **A package's bug.** Python's own exception for a fault in code (`TypeError: 'module' object is
  not callable`, `IndexError`), raised by an installed package's code or a launcher's, is that
  package's bug or a mismatch of its versions: a record that does not name the package knows it
  only when its fixes change the environment (reinstall, another version), not one's own code.
* **A file of that machine.** A line quoting an absolute path the record does not name (a
  package's `METADATA`, a launcher's `__main__.py`, a node's input image) is about that file:
  which one, and why a program looked there, is the error. Advice on the code's paths answers it
  unprompted only when half its fixes are commands on the environment; a relative path is the
  code's own assumption, which such advice covers.
"""

from __future__ import annotations

import builtins
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import re2

from bot.core.draft import TEAM_TIER
from bot.core.extract import Extracted
from bot.core.packages import is_published, spellings
from bot.core.records import Record
from bot.core.regexset import re2_options
from bot.core.tokens import STOP_WORDS

# Domains of the public corpus that are not software errors (advice for people, not programs).
NON_SOFTWARE_DOMAINS = frozenset(
    {
        "banking",
        "communication-etiquette",
        "culture",
        "disaster",
        "emergency",
        "food-safety",
        "legal",
        "medical",
        "mental-health",
        "pet-safety",
        "policy",
        "safety",
        "visa",
    }
)

# A record's domain -> the language whose programs print its errors. Domains not listed are tools
# or platforms (docker, git, cuda, kubernetes, redis, terraform…) whose errors any language can meet.
LANGUAGE_OF_DOMAIN = {
    "python": "python",
    "pytorch": "python",
    "numpy": "python",
    "pandas": "python",
    "huggingface": "python",
    "jupyter": "python",
    "tensorflow": "python",
    "pip": "python",
    "conda": "python",
    "django": "python",
    "flask": "python",
    "fastapi": "python",
    "pydantic": "python",
    "uvicorn": "python",
    "celery": "python",
    "sqlalchemy": "python",
    "http": "python",
    "deepspeed": "python",
    "accelerate": "python",
    "bitsandbytes": "python",
    "flashattn": "python",
    "apex": "python",
    "diffusers": "python",
    "vllm": "python",
    "keras": "python",
    "jax": "python",
    "openai": "python",
    "langchain": "python",
    "lightning": "python",
    "ray": "python",
    "ultralytics": "python",
    "gradio": "python",
    "streamlit": "python",
    "comfyui": "python",
    "sdwebui": "python",
    "sklearn": "python",
    "matplotlib": "python",
    "scipy": "python",
    "opencv": "python",
    "uv": "python",
    "poetry": "python",
    "triton": "python",
    "pytest": "python",
    "mypy": "python",
    "spring": "jvm",
    "vite": "node",
    "webpack": "node",
    "eslint": "node",
    "jest": "node",
    "angular": "node",
    "node": "node",
    "nextjs": "node",
    "react": "node",
    "typescript": "node",
    "npm": "node",
    "java": "jvm",
    "android": "jvm",
    "kotlin": "jvm",
    "scala": "jvm",
    "go": "go",
    "rust": "rust",
    "dotnet": "dotnet",
    "unity": "dotnet",
    "php": "php",
    "ruby": "ruby",
}
# Products whose errors a language's traceback holds only when it names them (a Python traceback
# answered with a Terraform or Redis record shares only words with it). Docker, git and the OS
# are left out: their messages (`No space left on device`) reach every language's output.
# Anything else unknown (a team's own domain) is trusted.
TOOL_DOMAINS = frozenset(
    {
        "terraform",
        "redis",
        "kafka",
        "mongodb",
        "elasticsearch",
        "nginx",
        "cicd",
        "cmake",
        "ros2",
        "flutter",
        "embedded",
        "grpc",
        "kubernetes",
    }
)
# The rarity (Knowing.product_words) of the words a product's regex matched that makes them the
# product's own when the paste never names it: `FailedScheduling` (5.7) or kubectl's `connection
# to the server … was refused` (2.2) are, Terraform's `plugin.*exited` on a Helm plugin's install
# hook (1.3) is not (check18's pb021, read after its blind run)
UNNAMED_OWN = 1.5

# Evidence of the language a paste's program was written in: (language, pattern), each linear.
_LANGUAGE_EVIDENCE: list[tuple[str, re.Pattern[str]]] = [
    ("python", re.compile(r"Traceback \(most recent call last\)|^\s*File \"[^\"\n]{1,400}\", line \d+", re.M)),
    # a Python program run (`python train.py`, `python3 -c "import torch"`, `python -m pip`): what
    # follows is its output
    ("python", re.compile(r"\bpython[0-9.]{0,5}(?:\.exe)?[ \t]+(?:-[cm][ \t]|[^\s'\"]{1,300}\.py\b)")),
    # Python code pasted with its output: `import torch`, `from x.y import z` on a line of their own
    (
        "python",
        re.compile(
            r"^[ \t]*(?:import [a-z_][\w.]{0,100}(?: as \w+)?|from [a-z_.][\w.]{0,100} import [\w, ()*]{1,200})[ \t]*$",
            re.M,
        ),
    ),
    # cleo's frames (poetry, and other cleo programs): `at ~/…/site-packages/poetry/solver.py:159 in _solve`
    ("python", re.compile(r"^\s*at [^\s\n][^\n]{0,300}\.py:\d+ in \w+\s*$", re.M)),
    # an exception class only Python's builtins have, at a line's start (a log without traceback;
    # not ModuleNotFoundError, which webpack prints too)
    (
        "python",
        re.compile(
            r"^(?:ValueError|KeyError|AttributeError|ImportError|IndentationError|FileNotFoundError"
            r"|UnboundLocalError|NotImplementedError|RecursionError|UnicodeDecodeError|UnicodeEncodeError): ",
            re.M,
        ),
    ),
    ("node", re.compile(r"^\s*at [^\n]{0,200}\((?:file://)?[^()\n]{1,300}\.(?:m?js|cjs|ts|tsx|jsx):\d+:\d+\)", re.M)),
    ("node", re.compile(r"node:internal/|^\s*npm (?:ERR!|error) ", re.M)),
    (
        "jvm",
        re.compile(
            r"^\s*at [\w$.]{1,300}\((?:[\w$]{1,100}\.(?:java|kt|scala)|Native Method|Unknown Source)(?::\d+)?\)", re.M
        ),
    ),
    ("jvm", re.compile(r"^Exception in thread \"", re.M)),
    ("go", re.compile(r"^goroutine \d+ \[|^\s*/[^\s:]{1,300}\.go:\d+", re.M)),
    ("rust", re.compile(r"panicked at |^error\[E\d{4}\]|^\s*--> [^\s:]{1,300}\.rs:\d+:\d+", re.M)),
    ("dotnet", re.compile(r"\.cs:line \d+|^\s*at [\w.]{1,300}\([^)\n]{0,200}\) in ", re.M)),
]
_LANGUAGE_HEAD = 200_000  # evidence is read from the paste's tail (where errors are), bounded


def paste_language(text: str) -> str | None:
    """The language of the program that printed the paste, when the paste says so unambiguously."""
    tail = text[-_LANGUAGE_HEAD:]
    found = {lang for lang, pattern in _LANGUAGE_EVIDENCE if pattern.search(tail)}
    return found.pop() if len(found) == 1 else None


def is_software(rec: Record) -> bool:
    """False for records that are not software errors (they import, and never answer a paste)."""
    return rec.domain.lower() not in NON_SOFTWARE_DOMAINS


def curated(rec: Record, seeds: frozenset[str]) -> bool:
    """A bundled record (`seeds`: the matcher's) or one the team wrote, not one imported as found:
    `Knows` holds only the latter to the imported records' bar."""
    return rec.id in seeds or rec.verification_tier == TEAM_TIER


def crosses(
    rec: Record, language: str | None, named: bool, matched: bool = True, os_only: bool = False, own: float = math.inf
) -> bool:
    """The record is another ecosystem's than the paste's: never its answer.

    `language` is paste_language's; `named` whether the paste names the record's domain (the
    matcher's `domain` part); `matched` whether the record's regex matched the paste; `os_only`
    whether the words it matched there are only an OS error's message (Knowing.os_only); `own`
    how rare those words are among the records' wordings (Knowing.product_words). A product's
    record that a paste never names shares only words with it, whatever the paste's language,
    when its wording alone found it (a PyTorch `invalid combination of arguments` is not
    Terraform's `count` and `for_each`), when its regex matched only the OS's message, which
    reaches every program's output (a gRPC record's `connection refused` for a Celery worker's
    AMQP broker), or only common words (Terraform's `plugin.*exited` for a Helm plugin's install
    hook); a regex that matched the product's own words (`FailedScheduling`, `cannot re-use a
    name that is still in use`) is the product's error, named or not."""
    if not is_software(rec):
        return True
    domain = rec.domain.lower()
    if domain in TOOL_DOMAINS and not named and (not matched or os_only or own < UNNAMED_OWN):
        return True
    if language is None:
        return False
    bound = LANGUAGE_OF_DOMAIN.get(domain)
    if bound is not None:
        return bound != language
    return domain in TOOL_DOMAINS and not named


# ---- knowing ------------------------------------------------------------------------------

_WORD = re.compile(r"[a-z][a-z0-9_]{1,40}")
# The messages of the OS's errors (POSIX strerror and getaddrinfo, and their E-codes): every
# program on the machine prints them, whatever it is
_OS_MESSAGES = (
    "connection refused|connection reset by peer|connection timed out|connection aborted"
    "|no such file or directory|permission denied|operation not permitted|address already in use"
    "|no space left on device|broken pipe|network is unreachable|no route to host|too many open files"
    "|resource temporarily unavailable|cannot allocate memory|name or service not known"
    "|temporary failure in name resolution|econnrefused|econnreset|etimedout|enoent|eacces|eaddrinuse|errno"
)
_OS_WORDS = frozenset(_WORD.findall(_OS_MESSAGES))
# Where an error happened is not what it is: paths, file:line locations and addresses are left out
# of the words an error line is judged by.
_LOCATION = re.compile(
    r"(?:[a-z]:)?[\\/]?(?:[\w.@~+-]{1,100}[\\/]){1,40}[\w.@~+-]{0,100}|\b0x[0-9a-f]+\b|https?://\S+", re.I
)
# The names an error line gives (quoted, or shaped like identifiers): what a catch-all leaves out.
_CODE = re.compile(r"\b(?:[a-z]+[A-Z][a-z]+[A-Z]?\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z]+_[A-Za-z0-9_]+|[A-Z]{1,5}\d{2,})\b")
CODE_WEIGHT = 3
_CLASS_ENDINGS = ("error", "exception", "warning")
# A name the line quotes (`'reshape'`, `"packages"`): what fills a catch-all's slot
_SLOT = re.compile(r"['\"`]([A-Za-z_][\w.]{0,120})['\"`]")
# More quoted names than this in one line are a list the error reports (missing keys), not its slot
SLOT_NAMES = 2
# An absolute path (POSIX, a Windows drive or UNC, `~`): where a program, not its user, looked
_ABSOLUTE = re.compile(r"(?:/|~/|[A-Za-z]:[\\/]|\\\\)[^\s]")
# A traceback's frame names where code ran, not a file the error is about (a record's regex may
# recognise its library's frame: pandas' `indexes/base.py", line 3812, in get_loc`)
_FRAME_LINE = re.compile(r"^\s{0,12}File \"([^\"\n]{1,400})\", line ?\d+", re.M)  # group 1: its file
_QUOTED = re.compile(r"['\"`]([^'\"`\n]{1,300})['\"`]")
# A callable a regex names literally (`__call__\(\)`), and one a line names (`root()`): the call
# is the error's place as much as a quoted name is
_REGEX_CALL = re.compile(r"(\w{1,100})\\\(\\\)")
_LINE_CALL = re.compile(r"(\w{1,100})\(\)")
# A network address a line names that is no identifier (`127.0.0.1:8879`, `[::1]:443`, `minio:9000`;
# a dotted host, `api.github.com:443`, or a source location, `main.go:42`, is a dotted name already)
_ADDRESS = re.compile(r"(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]{2,39}\]|[a-z][\w-]{0,60}):\d{2,5}\b", re.I)
# A name a line holds: quoted, or an identifier by its shape (dotted, snake_case, camelCase, or
# private: `_pipfile` in Python 2's unquoted `No module named _pipfile`)
_NAME = re.compile(
    r"['\"`]([^'\"`\s]{1,120})['\"`]|\b([a-z_]\w{0,60}(?:\.[a-z_]\w{0,60})+|[a-z]\w{0,60}_\w{1,60}|[a-z]+[A-Z]\w{0,60}|_[a-z]\w{0,60})\b"
)
# A line of a fix that runs a command on the environment (an install, an upgrade, a variable set,
# an environment activated; `acts` leaves out those that only look): the named thing decides
# it, whatever the code.
_PROMPT = r"^\s*(?:\$\s*|#\s*)?(?:sudo\s+)?"  # a shell prompt or a comment mark, then sudo, before a command
_COMMAND = re.compile(
    _PROMPT + r"(?:[A-Z][A-Z0-9_]{1,40}=\S*\s+|export\s|set\s|setx\s)?"
    r"(?:python[0-9.]*\s+-[mc]\b|py\s+-[0-9.]+|pip[0-9.]*\s|pipx\s|uv\s|conda\s|mamba\s|micromamba\s|poetry\s|pyenv\s"
    r"|npm\s|npx\s|yarn\s|pnpm\s|node\s|nvm\s|corepack\s|apt(?:-get)?\s|brew\s|yum\s|dnf\s|apk\s|choco\s|winget\s"
    r"|export\s|setx?\s|source\s|\.\s+\S|which\s|where\s|cd\s|rm\s|mkdir\s|chmod\s|chown\s|ln\s|ls\s|cat\s|echo\s"
    r"|curl\s|wget\s|git\s|git-lfs\s|docker\s|docker-compose\s|kubectl\s|helm\s|systemctl\s|service\s|ulimit\s"
    r"|sysctl\s|go\s|cargo\s|rustup\s|nvidia-smi\b|nvcc\s|ollama\s|huggingface-cli\s|hf\s|jupyter\s|ipython\s"
    r"|make\b|cmake\s|gcc\s|[A-Z][A-Z0-9_]{1,40}=\S)",
)


# A command that only looks at the environment (which interpreter, which files, which versions);
# `echo … >> ~/.bashrc` writes a setting
_INSPECT = re.compile(
    _PROMPT + r"(?:python[0-9.]*\s+-c\s+['\"]import\s+[\w.]+\s*;\s*print\("
    r"|(?:(?:cat|echo)(?![^\n]*>)|which|where|ls|nvidia-smi|node\s+-v|npm\s+ls|pip[0-9.]*\s+(?:show|list|freeze|check)"
    r"|conda\s+(?:list|info)|git\s+(?:status|log|branch)|docker\s+(?:ps|logs|inspect)"
    r"|kubectl\s+(?:get|describe|logs)|systemctl\s+status)\b)"
)
# A command run by its path (`/path/to/that/python -m pip install x`, `.venv\Scripts\pip install`)
_PATH_PREFIX = re.compile(r"^[^\s'\"]{0,200}[/\\](?=[\w.-]+\s)")
_FIX_LINES = 6  # a fix's first lines read for a command that acts (a check, then the install)


def acts(how: str) -> bool:
    """A fix acts on the environment when one of its first lines runs a command that changes it
    (an install, an upgrade, a variable set, an environment activated); a command that only looks
    (`which python`, `ls *.py`, `pip show`, `python -c "import x; print(x.__version__)"`) is a
    diagnosis every error of a class shares, not a fix for the one named."""
    for line in how.splitlines()[:_FIX_LINES]:
        line = _PATH_PREFIX.sub("", line.lstrip())
        if _COMMAND.match(line) and not _INSPECT.match(line):
            return True
    return False


def shown_fixes(rec: Record) -> list[str]:
    """The record's fixes as an answer shows them: its first three, each as its command or words."""
    return [w.how or w.action for w in rec.workarounds[:3]]


def command_share(rec: Record) -> float:
    """The share of the record's fixes (as an answer shows them) that are commands on the
    environment rather than changes to code."""
    fixes = shown_fixes(rec)
    if not fixes:
        return 0.0
    return sum(1.0 for how in fixes if acts(how)) / len(fixes)


@dataclass(frozen=True)
class Knowing:
    """What the knowing decision reads of one paste and its top record."""

    absorbed: int  # the line's names (quoted, identifiers) its regex and wordings leave to wildcards
    dotted: bool  # one of those is a dotted name (`pkg.sub.mod`) or a path: a package's insides or a file
    own: float  # the regex's own words (not function words or the class name) the line holds, by rarity
    bare: bool  # the regex has no own words: it says nothing but the class (`AssertionError`)
    commands: float  # command_share: the fixes act on the environment, not on code
    matched: bool = True  # the record's regex matches the paste (not a look-alike by wording alone)
    other_name: bool = False  # the regex quotes or calls a name ('module', `__call__()`) the line does not
    slots: int = 0  # names the line quotes that the record's wording lacks ('reshape')
    catch_all: bool = False  # the regex also recognises other errors' signatures in this database
    abs_path: bool = False  # the line quotes an absolute path the record's wording lacks
    wrapper: bool = False  # its line is one other errors print beside theirs (none of them in the paste)
    line: str = ""  # the paste's line the record is about (principal_line)
    process_exit: bool = False  # its line says only that a child process failed (a build, an install)
    child_said: bool = False  # a process exit whose child's own error is in the paste too (`ImportError: …`)
    cause_words: int = 1000  # the words of the record's root cause
    foreign_panic: bool = False  # a Go panic raised in another module's package than the program's main
    os_only: bool = False  # the regex's own words in the line are only an OS error's message
    # `own` with every code the regex names and the line holds, its class too, weighed by its
    # rarity: a product's exception class (`ServerSelectionTimeoutError`) is the product's error
    # whether or not the paste names the product, Python's `ValueError` is every program's
    product_words: float = math.inf
    weight: float = 0.0  # the extractor's weight for the record's line (0: not one of its error lines)
    warning_beside: bool = False  # its line is a warning, and the paste holds an error line the extractor weighs more
    fragments: bool = False  # the regex matched the line by pieces of its words (a URL's, an identifier's)
    os_bare: bool = False  # the line is only an OS error's message, naming no file, socket or host
    in_build: bool = False  # the paste's traceback runs through a package's build (setup.py, a build backend)
    imports_itself: bool = False  # a catch-all, and a launcher cannot import its own package (a broken install)
    unpublished: bool = False  # its fixes are pip's (uv's, conda's), and none of the line's names is a PyPI project
    package_bug: bool = False  # Python's own exception, raised in an installed package the record does not name
    generated: bool = False  # a parse error in code a program compiled from a string, no file of the person's
    handled: bool = False  # its line says the program caught or ignored the error and went on
    deeper: bool = False  # past its regex's match the line wraps further errors its wording lacks
    curated: bool = True  # a bundled record or the team's own, not one imported as found
    other_class: bool = False  # the line's exception class is none of the record's signature's and aliases'
    address: bool = False  # the line names a network address (`127.0.0.1:8879`) its record's wording lacks


# A line saying the program caught or ignored an error and went on (xFormers' `Error caught was:
# No module named 'triton'`, Python's `Exception ignored in: <function …__del__>`, a harness's
# `Caught exception while trying to kill child processes: …`); not `Uncaught …`, which stopped it
_HANDLED = re.compile(
    r"\b(?:error|exception) caught\b|\bcaught (?:an? )?(?:error|exception)\b|^\s*exception ignored in\b"
    r"|\bignor(?:ing|ed) (?:the |an? )?(?:error|exception)\b",
    re.I,
)
# One more link of an error chain (Go's and containerd's `a: b: c`, innermost last): a clause that
# says something failed
_LINK = re.compile(r":\s+(?:[\w#.'\"-]{1,40}\s+){0,4}?(?:error|failed|unable|cannot|could not|exit status)\b", re.I)
_LINKS = 2  # links past the match that make the line's cause deeper than the record's


def deeper(pattern: str, line: str, wording: set[str]) -> bool:
    """The line wraps further errors past the regex's match (`OCI runtime create failed: …
    unable to start container process: error during container init: error running hook …`) whose
    words the record's wording lacks: the record is about an outer link, and its cause guesses the
    innermost one, which the line says."""
    if len(_LINK.findall(line)) < _LINKS:
        return False  # a line with fewer links has fewer past any match: no regex to run
    try:
        m = _re2(pattern).search(line)
    except re2.error:
        return False
    if m is None:
        return False
    rest = line[m.end() :]
    if len(_LINK.findall(rest)) < _LINKS:
        return False
    words = _own_words(rest)
    return len(words - wording) > len(words) / 2


# A line saying only that a child process (a build, an install, a command) failed, in the words
# of Python's subprocess, pip, setuptools, make and ninja: what went wrong is in that process's
# own output, above it (linear: no nested repetition)
_PROCESS_EXIT = re.compile(
    r"returned non-zero exit status|did not run successfully|subprocess-exited-with-error"
    r"|metadata-generation-failed|legacy-install-failure|failed building wheel|could not build wheels"
    r"|failed to build installable wheels|^\s*(?:error: )?failed to build [\w.\- ]{1,200}$"
    r"|command errored out with exit|encountered error while trying to install|\.\.\. error\s*$"
    r"|failed with (?:error|exit) (?:code|status)"
    r"|exited with (?:exit )?(?:code|status) [1-9]|\*\*\* \[[^\]\n]{1,200}\] error \d+|build stopped: subcommand failed"
    r"|^\s*(?:subprocess\.)?CalledProcessError\s*$"
    # the shell's report of a process a signal killed: which code crashed, and why, is above it
    r"|^\s*(?:[\w./-]{1,100}: )?(?:line \d+: +\d+ )?(?:segmentation fault|aborted|bus error|illegal instruction"
    r"|floating point exception)(?:\s+\(core dumped\))?(?:\s|$)"
    # git runs git-lfs as a filter process: its own output (a download, a server's answer) says why
    r"|external filter [^\n]{1,200} failed|(?:smudge|clean) filter [\w-]{1,40} failed"
    # pydantic's summary of a model's validation: which field failed, and why, is on the lines below
    r"|\b\d+ validation errors? for [\w.]{1,200}\s*$"
    # node's note under a rejection nobody caught: the rejection's own error is printed beside it
    r"|unhandled promise rejection\. this error originated"
    # node's older warning carries the rejection's own error after it: that error is the paste's
    r"|unhandled promise rejection \(rejection id: \d+\): \w",
    re.I,
)
# The weight (bot/core/extract.py) of a line that says why: a language's exception, a compiler's
# or a tool's `error: …` (1.0, 0.95), not the 0.9 of a tool's `ERROR: …` summary
CHILD_LINE = 0.95
_LINES_SEARCHED = 400  # the paste's last lines searched for the one a record's regex matched


def principal_line(ex: Extracted, matches: Callable[[str], bool]) -> str:
    """The paste's line the record is about: the best error line its regex matches, else the last
    line of the paste it matches (a regex may hit a line the extractor did not rank), else the best
    error line (a match on wording alone)."""
    for line in ex.lines:
        if matches(line.raw):
            return line.raw
    for raw in reversed(ex.searchable.rsplit("\n", _LINES_SEARCHED)[-_LINES_SEARCHED:]):
        if raw.strip() and matches(raw):
            return raw.strip()
    return ex.lines[0].raw if ex.lines else ""


def alternatives(pattern: str) -> list[str]:
    """A regex's top-level alternatives (`A|B|C`, or one group around the whole pattern,
    `(?:A|B)`): each is a wording of its own, and the one that found a line is what the record
    says about it. Bars inside groups, classes (`[|]`) and escapes (`\\|`) do not split."""
    body = pattern[4:] if pattern.startswith("(?i)") else pattern
    parts = _split_bars(body)
    if len(parts) == 1:
        for opening in ("(?:", "("):
            inner = body[len(opening) : -1]
            if body.startswith(opening) and body.endswith(")") and _balanced(inner):
                inner_parts = _split_bars(inner)
                if len(inner_parts) > 1:
                    return inner_parts
    return parts


_DEPTH = {"(": 1, ")": -1}  # what a character does to the group depth


def _scan(pattern: str) -> list[tuple[int, str, int]]:
    """(index, character, group depth before it) for each character outside escapes and classes."""
    out: list[tuple[int, str, int]] = []
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            # a `]` first in a class (`[]x]`, `[^]x]`) is a literal, not its end
            i += 2 if pattern[i + 1 : i + 2] == "]" else 3 if pattern[i + 1 : i + 3] == "^]" else 1
            continue
        else:
            out.append((i, c, depth))
            depth += _DEPTH.get(c, 0)
        i += 1
    return out


def _balanced(pattern: str) -> bool:
    """No group closes before it opens: `(?:A|B)` is one group around all, `(A)|(B)` is not."""
    depth = 0
    for _, c, _ in _scan(pattern):
        depth += _DEPTH.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def _split_bars(pattern: str) -> list[str]:
    cuts = [i for i, c, depth in _scan(pattern) if c == "|" and depth == 0]
    bounds = [-1, *cuts, len(pattern)]
    return [pattern[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]


@lru_cache(maxsize=512)  # the records that answer pastes are few; each RE2 keeps its own DFA cache
def _re2(pattern: str) -> re2._Regexp:
    """A record's whole regex compiled as production matches it (raises re2.error as RE2 does)."""
    return re2.compile(pattern, re2_options())


@lru_cache(maxsize=512)  # the records that answer pastes are few; each RE2 keeps its own DFA cache
def _compiled_alternatives(pattern: str) -> tuple[tuple[str, re2._Regexp], ...]:
    """Each alternative with its compiled RE2 (once per regex: answers see the same few records),
    or none when the regex has one, or one RE2 rejects alone."""
    parts = alternatives(pattern)
    if len(parts) == 1:
        return ()
    try:
        return tuple((part, re2.compile(part, re2_options())) for part in parts)
    except re2.error:
        return ()


def _whole_word(pattern: str, line: str) -> bool:
    """The regex's match on the line is one of the line's words (`building_Go_requires_Go_1_24_or_later`:
    an identifier matched whole); True when RE2 cannot tell."""
    try:
        m = _re2(pattern).search(line)
    except re2.error:
        return True
    return m is not None and m.group(0).lower() in _WORD.findall(line.lower())


def found_by(pattern: str, line: str) -> str:
    """The alternatives of the regex that find the line (RE2, as production matches), joined;
    else the whole regex: `ArrowInvalid|schema mismatch` says only the class about an
    `ArrowInvalid:` line, and both about `ArrowInvalid: schema mismatch`."""
    found = [part for part, compiled in _compiled_alternatives(pattern) if compiled.search(line)]
    return "|".join(found) if found else pattern


# The exception class a line starts with (`ArrowInvalid: …`, `KeyboardInterrupt`,
# `torch.OutOfMemoryError: …`): the class, whatever its name ends with, not a word of its message
_CLASS_AT = re.compile(r"^\s*(?:[A-Za-z_]\w*\.){0,8}([A-Z]\w{1,80})(?=:|\s*$)")
_CLASS_IN = re.compile(_CLASS_AT.pattern, re.I)  # in a normalised (lower-case) wording too


# The words of a traceback's header (`Traceback (most recent call last)`, which Jupyter prints
# beside the class: `ModuleNotFoundError   Traceback (most recent call last)`): every traceback's,
# no error's own
_TRACEBACK_HEAD = "Traceback (most recent call last)"
_TRACEBACK_WORDS = frozenset(_WORD.findall(_TRACEBACK_HEAD.lower()))


_SCOPED = re.compile(r"@[\w.-]{1,100}/[\w.-]{1,100}")  # an npm package of a scope (`@mui/material`)


# A program's source file (`server.js`, `train.py`), and the directories installs write to
_SOURCE_FILE = re.compile(r"\.(?:[cm]?js|jsx|tsx?|py)$", re.I)
_INSTALLED = re.compile(r"[\\/](?:node_modules|site-packages|dist-packages)[\\/]", re.I)


def _inside(name: str) -> bool:
    """A package's insides (`pkg.sub.mod`) or the code's own file, by a relative path
    (`./server/server.js`, `pkg/lib/x`) or by an absolute one to a source file outside the
    directories installs write to (`/Users/x/app/server.js`): not a whole package, and installing
    one does not reach it. (Any other file of the machine, by its absolute path, is what commands
    like `chmod` act on.)"""
    if _LOCATION.fullmatch(name):
        if _ABSOLUTE.match(name):
            return bool(_SOURCE_FILE.search(name)) and not _INSTALLED.search(name)
        return not name.startswith("http") and any(c in name for c in "/\\") and not _SCOPED.fullmatch(name)
    return "." in name.strip(".")


# A Go panic's first line (or a crash handler's report of one it recovered, as Kubernetes' logs
# it), and the header of a goroutine's stack in its trace
_GO_PANIC = re.compile(r"^\s*(?:panic: |fatal error: )|\b(?:Observed a|Recovered from) panic: ")
_GOROUTINE = re.compile(r"(?m)^goroutine \d+ \[[^\]\n]{1,80}\]:$")
# A crash handler's trace: one source file per line (after a log's prefix), `/…/src/k8s.io/…/x.go:76`
_FRAME_PATH = re.compile(r"(?:^|\s)(/[^\s:]{1,400}\.go):\d+\s*$")
# where a file's import path starts (a module's cache, GOPATH or GOROOT): after the last of them
_GO_ROOTS = ("/pkg/mod/", "/src/")
_TRACE_LINES = 60


def _module_package(first: str) -> bool | None:
    """Whether a package path's first segment is another module's (a module's path starts with a
    domain: `k8s.io`, `github.com`), the program's `main` (False), or Go's own library's (`runtime`:
    None, read on)."""
    if first == "main":
        return False
    return True if "." in first else None


def _path_frames(text: str, start: int) -> bool:
    """A crash handler's trace of file paths after `start`: its first frame outside Go's own library."""
    for line in text[start:].splitlines()[1 : _TRACE_LINES + 1]:
        m = _FRAME_PATH.search(line)
        if m is None:
            continue
        path = m.group(1)
        if path.rsplit("/", 1)[-1] == "main.go":
            return False
        root = max((path.rfind(r) + len(r) for r in _GO_ROOTS if r in path), default=-1)
        if root < 0:
            continue
        outside = _module_package(path[root:].split("/", 1)[0])
        if outside is not None:
            return outside
    return False


def panics_outside_main(text: str) -> bool:
    """The panicking goroutine's first frame outside Go's own library is in another module's
    package (`github.com/git-lfs/git-lfs/tq.(*adapter).Do`, `k8s.io/kubernetes/pkg/…`), not the
    program's `main`: a runtime panic is a bug where it happened, so the paste comes from running
    someone's tool, and advice on one's own code (check for nil, bounds) is not for its reader.
    A crash handler's trace (`Observed a panic: …` over one file path per line) is read the same way."""
    head = _GOROUTINE.search(text)
    if head is None:
        reported = next((m for m in re.finditer(r"(?m)^.*$", text) if _GO_PANIC.search(m.group(0))), None)
        return reported is not None and _path_frames(text, reported.start())
    for line in text[head.end() :].splitlines()[:_TRACE_LINES]:
        if not line.strip() or line[:1].isspace() or line.startswith("created by"):
            continue
        name = line.split("(", 1)[0].rstrip(".")
        last = name.rsplit("/", 1)
        package = (last[0] + "/" if len(last) == 2 else "") + last[-1].split(".", 1)[0]
        outside = _module_package(package.split("/", 1)[0])
        if outside is not None:
            return outside
    return False


_CODE_SPAN = re.compile(r"`([^`\n]{1,2000})`")


# Python 2 names the missing module bare (`ImportError: No module named req`): the name Python 3
# quotes, so it is read as one (a slot, a dotted name, a project or not)
_BARE_MODULE = re.compile(r"(\bNo module named )([A-Za-z_][\w.]{0,120})\s*$")


def _unwrapped(line: str) -> str:
    """The line less the backticks chat wraps code in (`` `TypeError: … argument: 'model'` ``):
    a span holding quotes of its own is the message, not a quoted name (rustc's `tokio::time` is)."""
    return _CODE_SPAN.sub(lambda m: f" {m.group(1)} " if any(q in m.group(1) for q in "'\"") else m.group(0), line)


def _same_line(line: str) -> str:
    """A line less what varies between machines (a quoted remote or path, any path or URL,
    spacing): two printings of one message compare equal, another name or code does not."""
    # a quoted remote (`host:repo.git`, a URL) as a whole; paths the location pattern takes
    line = _QUOTED.sub(lambda m: "'~'" if ":" in m.group(1) else m.group(0), line.strip().lower())
    return " ".join(_LOCATION.sub("~", line).split())


def _own_words(text: str) -> set[str]:
    """Content words, less function words and exception class names (`…Error`, `…Exception`)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and not w.endswith(_CLASS_ENDINGS)}


def _quoted_literals(pattern: str) -> list[set[str]]:
    """The names a regex quotes literally, one set per quoted place (`'module' object is not
    callable`: [{module}]; `'(?:gpus|tpu_cores)'`: each alternative is a name for that place)."""
    places: list[set[str]] = []
    for m in _QUOTED.finditer(pattern):
        quoted = m.group(1).replace("\\", "").lower()  # jax\.random: jax.random
        alternatives = quoted[3:-1].split("|") if quoted.startswith("(?:") and quoted.endswith(")") else [quoted]
        names = {n for n in alternatives if re.fullmatch(r"[\w.-]+", n)}
        if names:
            places.append(names)
    return places


# A code an error gives (`exitcode: -9`, `errno 13`, `status 404`, `signal 11`): which one is the
# error's identity, as much as a quoted name (a count, `takes 3 positional arguments`, is not)
_NUMBERED = re.compile(r"\b(exit ?code|status|code|errno|error|signal)\W{1,3}(\d{1,6})\b", re.I)
_NUMBERS_READ = 20_000  # the paste's last characters read for the numbers it gives


# A native library's file (`libcuda.so.1`, `cudnn64_8.dll`, `libomp.dylib`): which one failed to
# load is the error's identity
_LIBRARY = re.compile(r"\b[\w+-]{1,100}(?:\.[\w+-]{1,40})*?\.(?:so(?:\.\d+)*|dll|dylib|pyd)\b", re.I)


@lru_cache(maxsize=4096)
def _regex_libraries(regex: str) -> frozenset[str]:
    """The native libraries a regex names (`libcuda\\.so\\.1`: libcuda.so.1), read once per regex."""
    return frozenset(_LIBRARY.findall(regex.replace("\\", "")))


@lru_cache(maxsize=4096)
def _pinned_codes(regex: str) -> dict[str, frozenset[str]]:
    """The codes a regex pins, by the word before them (`exitcode` -> {"9"}); cached: a record's
    regex is read once, not for every paste it is a candidate for."""
    pinned: dict[str, set[str]] = {}
    for word, number in _NUMBERED.findall(regex.replace("\\", "")):
        pinned.setdefault(word.lower().replace(" ", ""), set()).add(number)
    return {word: frozenset(numbers) for word, numbers in pinned.items()}


def _other_number(regex: str, text: str) -> bool:
    """The regex pins a number after a word (`failed \\(exitcode: -9\\)`) and the paste's tail gives
    that word only other numbers (`failed (exitcode: -11)`): a sibling error (a segfault, not the
    OOM killer's SIGKILL)."""
    pinned = _pinned_codes(regex)
    if not pinned:
        return False
    given: dict[str, set[str]] = {}
    for word, number in _NUMBERED.findall(text[-_NUMBERS_READ:]):
        key = word.lower().replace(" ", "")
        if key in pinned:
            given.setdefault(key, set()).add(number)
    return any(numbers and not numbers & pinned[word] for word, numbers in given.items())


# A frame of a package's build script or of a build backend's hooks (PEP 517), as pip and uv print
# them when a build fails: the error was raised in the build's own, isolated environment
_BUILD = re.compile(
    r"[\\/\"](?:setup|build_meta|_in_process)\.py\"?, line \d+"
    r"|\b(?:prepare_metadata_for_build|get_requires_for_build|build)_(?:wheel|editable)\b"
)
_BUILD_READ = 20_000  # the paste's last characters read for a build's frames


def in_build(text: str) -> bool:
    """The paste's error was raised while a package was being built: its traceback runs through a
    `setup.py` or a build backend's hook (pip's and uv's build output)."""
    return bool(_BUILD.search(text[-_BUILD_READ:]))


# The import a launcher's frame shows, and the module Python did not find
_IMPORT_SHOWN = re.compile(r"^\s{0,12}(?:from\s+([\w.]{1,200})\s+import\b|import\s+([\w.]{1,200}))")
_NOT_FOUND = re.compile(r"No module named ['\"]?([\w.]{1,200})")
_LAUNCHER_READ = 4_000  # the paste's last characters read for the launcher's frame


def _launcher(path: str) -> str | None:
    """The command a console-script launcher runs (`/usr/bin/pip` -> `pip`), None for a source
    file: a user's `yaml.py` importing yaml is a shadowing, not a broken install."""
    parts = path.replace("\\", "/").rstrip("/").split("/")
    base = parts[-1].lower()
    if base == "__main__.py" and len(parts) > 1 and parts[-2].lower().endswith(".exe"):
        return parts[-2].lower().removesuffix(".exe")
    for suffix in ("-script.pyw", "-script.py", ".exe"):
        if base.endswith(suffix):
            return base.removesuffix(suffix)
    if "." not in base and len(parts) > 1 and parts[-2].lower() in ("bin", "scripts"):
        return base
    return None


def imports_itself(text: str) -> bool:
    """The paste's last frame is a command's launcher failing to import that command's own package
    (`/usr/local/bin/pip`: `from pip._internal import main`, `No module named _internal`): the
    tool's installation is broken (two versions mixed, a half-removed package), not a dependency
    missing from the interpreter."""
    tail = text[-_LAUNCHER_READ:]
    last = max(_FRAME_LINE.finditer(tail), key=lambda m: m.start(), default=None)
    command = _launcher(last.group(1)) if last else None
    if not last or not command:
        return False
    after = tail[last.end() :]
    shown = [_IMPORT_SHOWN.match(ln) for ln in after.splitlines()[1:2]]
    names = [m.group(1) or m.group(2) for m in shown if m] + [m.group(1) for m in _NOT_FOUND.finditer(after)]
    return command in {name.split(".")[0].lower() for name in names}


# A tool of Python's packages named in a fix (`pip install`, `python -m pip`, `uv add`, `conda list`):
# the fixes are about which projects the interpreter has
_PACKAGE_TOOL = re.compile(r"\b(?:pip[0-9.]*|pipx|uv|poetry|conda|mamba)\s")


# An installed package's directory in a Python frame's file, and the package: under site-packages,
# or inside a zipped or frozen bundle (pip's own `pip.zip/pip/…` under get-pip, an egg, a
# PyInstaller `….pyz/compose.cli.main`)
_PACKAGE_DIR = re.compile(r"(?:[\\/](?:site|dist)-packages|\.(?:zip|egg|pyz))[\\/]([\w-]{1,100})", re.I)
# Python's own exceptions for a fault in code (a wrong type, index, name or value), as this
# interpreter has them: raised by the runtime (or by code that reuses them) wherever the bug is,
# unlike a library's own classes; not what the machine lacks (an OSError: a file, a socket), nor
# which modules the interpreter finds (an ImportError: a shadowing file, a missing install), which
# are about the environment wherever they are raised (a warning made an error, `-W error`, is
# the package's use of a changed API: its own too)
CODE_ERRORS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception) and not issubclass(value, (OSError, ImportError))
)
_FRAME_READ = 20_000  # the characters before the line searched for its traceback's last frame


def _last_frame(text: str, line: str) -> tuple[re.Match[str] | None, int]:
    """The traceback frame printed last before the line's last print (within `_FRAME_READ`
    characters), and where that print starts."""
    at = text.rfind(line.strip())  # the line is one of the paste's, so it is found
    frames = list(_FRAME_LINE.finditer(text, max(0, at - _FRAME_READ), at))
    return (frames[-1] if frames else None), at


def raised_in(text: str, line: str) -> str | None:
    """The installed package (or the command of a console-script launcher, `pip.exe`) whose code
    raised the line's exception: its traceback's last frame that ran code (`File …, line 9, in
    <module>`; a SyntaxError's `File …, line 3` is where a file failed to parse, not a raise).
    None for a frame of one's own code, the standard library, or no traceback."""
    last, at = _last_frame(text, line)
    if last is None or _TRACEBACK_HEAD in text[last.end() : at] or not text.startswith(", in ", last.end()):
        return None
    installed = _PACKAGE_DIR.search(last.group(1))
    return installed.group(1) if installed else _launcher(last.group(1))


# the names Python gives code no file holds: `<string>` (exec or compile of a string), `<unknown>`
# (ast.parse without a file name); `<stdin>` is what the person typed, so it is not among them
_GENERATED_FILES = ("<string>", "<unknown>")


def parsed_generated(text: str, line: str) -> bool:
    """The line is a parse error in code a program built and compiled (gradio parsing a stub it
    wrote, pybind11 running an embedded snippet): its location, the last frame before it that ran
    no code (`File "<unknown>", line 85`) or the file its message names (`('<string>', 2, 1, …)`),
    is a pseudo-file. The program that generated the code is at fault, not the person's source."""
    if any(f"('{name}', " in line for name in _GENERATED_FILES):
        return True
    last, _ = _last_frame(text, line)
    return last is not None and last.group(1) in _GENERATED_FILES and not text.startswith(", in ", last.end())


def package_bug(rec: Record, line: str, text: str) -> bool:
    """The line is one of Python's own exceptions (`TypeError: 'module' object is not callable`,
    `IndexError: list index out of range`) raised inside an installed package the record does not
    name: that package's bug, or a mismatch of its versions, which advice on one's own code (check
    the index, guard against None) cannot reach. A record about the package (`pandas/…` for
    pandas' `ValueError: The truth value of a DataFrame is ambiguous`) knows its errors."""
    said = _unwrapped(line)
    klass = _CLASS_AT.match(said)
    if klass is None or klass.group(1) not in CODE_ERRORS:
        return False
    package = raised_in(text, line)
    if package is None:
        return False
    wording = " ".join([rec.id, rec.domain, rec.regex, rec.signature, *rec.aliases]).lower().replace("_", " ")
    words = set(_WORD.findall(wording))
    return not any(set(name.split("-")) <= words for name in spellings(package))


def installs_unpublished(rec: Record, names: Sequence[str]) -> bool:
    """The record's line names a module (its regex says so), its fixes are about the interpreter's
    installed projects (pip, uv, conda), and none of the line's names (a module, or the package a
    dotted name is inside) is a project on PyPI or one the fixes name: `No module named 'models'`
    is the program's own package, `'pwd'` a module of another platform, and installing either
    finds nothing, or another project of that name. (A path among the names is no project either.)"""
    if not names or "module" not in _WORD.findall(rec.regex.lower()):
        return False
    fixes = "\n".join(shown_fixes(rec))
    if not _PACKAGE_TOOL.search(fixes):
        return False
    told = set(_WORD.findall(fixes.lower()))
    # a name with a hyphen is no module at all (`import django-celery-beat` cannot parse): the code
    # or a setting names a project where Python wants its import name, and no install makes it one
    return not any((is_published(n) or n in told) and "-" not in n for n in names)


def knowing(
    rec: Record,
    ex: Extracted,
    matches: Callable[[str], bool],
    rarity: Callable[[str], float] = lambda w: 1.0,
    catch_all: bool = False,
    wrapped_lines: Sequence[str] = (),
    curated: bool = True,
    taught: Sequence[str] = (),
) -> Knowing:
    """What `Knows` reads of a record as the answer to a paste; `matches(line)` tells whether the
    record's regex matches a line, `rarity(word)` how rare a word is among the records' wordings
    (0..1): a class's template is worded in words every record of the class shares; `catch_all`
    whether its regex also recognises other errors' signatures (the matcher's `catch_all`);
    `wrapped_lines` the lines other errors, absent from the paste, print beside their own that
    its regex recognises (the matcher's `wrapped_lines`); `taught` its wordings as the matcher has
    them, with the aliases the team taught it (the matcher's `wordings`)."""
    raw = principal_line(ex, matches)
    regex = found_by(rec.regex, raw)
    process_exit = bool(_PROCESS_EXIT.search(raw))
    said = _BARE_MODULE.sub(r"\1'\2'", _unwrapped(raw))
    klass = {m.group(1).lower() for m in [_CLASS_AT.match(said)] if m}
    text = _LOCATION.sub(" ", said)
    worded = " ".join([rec.regex, rec.signature, *rec.aliases]).lower()
    wording = set(_WORD.findall(worded))
    # quoted names (a quoted path too: which file is missing is the error's identity), then
    # identifiers outside paths
    quoted_all = [m.group(1) for m in _QUOTED.finditer(said)]
    quoted_raw = [q for q in quoted_all if not any(c.isspace() for c in q)]
    quoted = {q.lower() for q in quoted_raw}
    # a call the line names (`root() takes 0 positional arguments`) is a name a wildcard may hold
    names = (
        quoted
        | {n.lower() for m in _NAME.finditer(text) for n in m.groups() if n}
        | {c.lower() for c in _LINE_CALL.findall(said)}
    )
    absorbed = [n for n in names if not set(_WORD.findall(n)) <= wording]
    # the line's class is not an own word, nor a code (KeyboardInterrupt, ArrowInvalid)
    own = _own_words(regex) - klass - _TRACEBACK_WORDS
    line_words = set(_WORD.findall(text.lower())) - klass
    # a code the regex names (cudaErrorLaunchTimeout, CUDA_ERROR_…, WinError, E0382) is an error's
    # identity, not a class's template: it counts as much as the template's words allow
    codes = {c.lower() for c in _CODE.findall(regex) if not c.lower().endswith(_CLASS_ENDINGS)} & line_words
    # `root() takes 0 positional arguments` is not `Flask.__call__() takes 3 positional arguments`
    regex_calls, line_calls = set(_REGEX_CALL.findall(regex)), set(_LINE_CALL.findall(said))
    other_call = bool(regex_calls and line_calls and not regex_calls & line_calls)
    other_number = _other_number(regex, ex.text)
    # a native library the regex names (`libcuda\.so\.1`) and the line names another (`libbitsandbytes_cpu.so`)
    regex_libs = _regex_libraries(regex)
    line_libs = set(_LIBRARY.findall(said)) if regex_libs else set()
    other_library = bool(line_libs) and not regex_libs & line_libs
    # the record's domain named only inside a name the line quotes (`module 'tensorflow.keras' has
    # no attribute`) is that name, the error's place, not a word of its message
    domain = rec.domain.lower()
    if domain in own and domain not in _WORD.findall(_QUOTED.sub(" ", text).lower()):
        own = own - {domain}
    in_line = (own - codes) & line_words
    in_line_rarity = sum(rarity(w) for w in in_line)
    line_of = next((ln for ln in ex.lines if ln.raw == raw), None)
    return Knowing(
        weight=line_of.weight if line_of else 0.0,
        # a warning printed beside the error (ComfyUI's `WARNING: PlaySound.IS_CHANGED() missing 1
        # required positional argument: 'self'` above the node's exception) is not the error
        warning_beside=line_of is not None
        and line_of.kind == "warning"
        and any(ln.kind != "warning" and ln.weight > line_of.weight for ln in ex.lines),
        absorbed=len(absorbed),
        dotted=any(_inside(n) for n in absorbed),
        own=round(in_line_rarity + CODE_WEIGHT * len(codes), 4),
        bare=not own,
        commands=round(command_share(rec), 4),
        matched=matches(raw),
        # a place the regex quotes a name for holds none of its names in the line
        other_name=other_call
        or other_number
        or other_library
        or bool(quoted)
        and any(not names & quoted for names in _quoted_literals(regex)),
        slots=sum(
            1 for n in {m.group(1).lower() for m in _SLOT.finditer(said)} if not set(_WORD.findall(n)) <= wording
        ),
        catch_all=catch_all,
        wrapper=bool(wrapped_lines) and _same_line(raw) in {_same_line(w) for w in wrapped_lines},
        process_exit=process_exit,
        child_said=process_exit
        and any(ln.weight >= CHILD_LINE and not _PROCESS_EXIT.search(ln.raw) for ln in ex.lines),
        cause_words=len((rec.root_cause or "").split()),
        foreign_panic=bool(_GO_PANIC.search(said)) and panics_outside_main(ex.text),
        os_only=bool(in_line) and not codes and in_line <= _OS_WORDS,
        product_words=round(
            in_line_rarity
            + CODE_WEIGHT * sum(rarity(c) for c in {c.lower() for c in _CODE.findall(regex)} & (line_words | klass)),
            4,
        ),
        # a regex with words of its own none of which is a word of the line (paths and URLs too)
        # matched pieces of its words: `dataset.*stream.*error` in `…/datasets/x, StreamingRowsError`
        fragments=bool(own)
        and not codes
        and not own & set(_WORD.findall(said.lower()))
        and matches(raw)
        and not _whole_word(regex, raw),
        os_bare=bool(line_words) and line_words <= _OS_WORDS and not names and text == said,
        in_build=catch_all and in_build(ex.text),
        imports_itself=catch_all and imports_itself(ex.text),
        unpublished=installs_unpublished(rec, absorbed),
        package_bug=package_bug(rec, raw, ex.text),
        generated=parsed_generated(ex.text, raw),
        handled=bool(_HANDLED.search(raw)),
        deeper=deeper(regex, said, wording),
        curated=curated,
        # a class by its name (`ValueError`), not a log's level (`Error:`)
        other_class=any(c.endswith(_CLASS_ENDINGS) and c not in _CLASS_ENDINGS for c in klass)
        and not klass
        & {m.group(1).lower() for w in [rec.signature, *rec.aliases, *taught] for m in [_CLASS_IN.match(w)] if m},
        # an address the record names (its regex unescaped: `127\.0\.0\.1`) is its own, not a wildcard's
        address=any(a.lower() not in worded.replace("\\", "") for a in _ADDRESS.findall(said)),
        line=raw,
        abs_path=not _FRAME_LINE.match(raw)
        # a Windows folder's name may hold spaces (`C:\\Program Files\\…`, `…\\Stable Diffusion WebUI Forge\\…`)
        and any(_ABSOLUTE.match(q) and not set(_WORD.findall(q.lower())) <= wording for q in quoted_all),
    )


@dataclass(frozen=True)
class Knows:
    """Whether the record knows this very error, not only its kind (thresholds chosen by
    bench/fit_knows.py on judged real pastes, bench/wild/).

    A record is general advice for the paste's kind of error when its regex is a class's template
    for it: the line's names are left to its wildcards (or it says nothing but the class) and the
    regex's own words in the line are few (`object has no attribute`, not `Pool overlaps with
    other one on this address space`). Such a record still knows the error when its fixes are
    commands on the environment, its regex matched the paste, and the name is a whole package, not
    a path inside one: the message decides the fix (`No module named 'yaml'`: install it where the
    code runs).
    """

    # a regex whose own words in the line are at most this many is a template (1.25 with 201 seeds;
    # words grow commoner as records are added: with 412, "can't load tokenizer for" summed 1.24)
    template_words: float = 1.2
    commands: float = 0.5  # fixes at least this much commands act on the named thing
    # an imported record's regex must have matched at least this much of the line's rarer words
    # (by `own`): the public corpus writes a class's template once per environment, in the words
    # every program of the class prints (`connect: connection refused`, `undefined:`); 1.96 was
    # a Go TLS timeout judged general advice, 2.1 an asyncio `Event loop is closed` judged right
    imported_words: float = 2.0
    # and at least this much when the line holds a name its regex leaves to a wildcard: 2.3 to 2.9
    # were Go's `connection refused` to a named host and Python's `f() takes 0 positional
    # arguments`, all general advice; 3.8 to 5.9 BuildKit's cache key and S3's AccessDenied, right
    imported_named_words: float = 3.0

    def knows(self, k: Knowing) -> bool:
        template = (k.absorbed > 0 or k.bare) and k.own <= self.template_words
        # the fixes act on the named thing only when the regex did name it: a record that matched
        # the paste by wording alone ('DeepSpeedCPUAdam' object has no attribute … for 'Trainer'
        # object has no attribute 'test') has no say over its name
        if not k.matched and k.other_name:
            return False  # like the error in wording, but about another name: a look-alike
        if not k.matched and k.own == 0 and k.other_class:
            # found by wording alone (nni's `'ModuleWrapper' object has no attribute` for DeepSpeed's
            # `'DeepSpeedCPUAdam' object has no attribute`), and the line it would answer is of an
            # exception class none of its wordings has, holding none of its regex's words: a
            # look-alike of another error (a line the team taught it as an alias has its class)
            return False
        if k.catch_all and not k.matched and k.own <= self.template_words:
            # a catch-all is its regex: found by wording alone (its regex missed the line) and
            # sharing only a template's words with it, it is a look-alike of the class
            return False
        acts_on_name = k.matched and k.commands >= self.commands and not k.dotted and not k.unpublished
        if k.catch_all and 0 < k.slots <= SLOT_NAMES and not acts_on_name:
            # a catch-all (other records are the specific errors of its class) whose slot holds a
            # name it does not know ('NoneType' object has no attribute 'reshape'): which thing is
            # None, and why, is the error, and its code-side advice cannot say
            return False
        if k.generated and k.commands < self.commands:
            # a parse error in code a program generated (a stub it wrote, a snippet it embeds): the
            # program's bug, or its version's; advice on re-indenting one's own file cannot reach it
            return False
        if k.package_bug and k.commands < self.commands:
            # Python's own exception raised in an installed package's code (a launcher's, a
            # library's) that the record does not name: the package's bug or a mismatch of its
            # versions, which a reinstall or another version mends; advice on one's own code cannot
            return False
        if not k.curated and k.matched and k.own < self.imported_words:
            # a record imported as found (not bundled, not the team's) whose regex matched only
            # words many records share (`Exec format error`, `dial tcp … connection refused`,
            # `Cannot find module`): the line's own names and context are the error, and a
            # machine-made template's cause is a guess at them; judged, such answers were general
            # advice four times in five (bench/wild/README.md)
            return False
        if not k.curated and k.matched and (k.absorbed > 0 or k.address) and k.own < self.imported_named_words:
            # an imported record whose regex left the line's names to its wildcards (`\w+\(\) takes
            # \d+ positional arguments`, `dial tcp \S+: connect: connection refused` to a named host
            # or an address) is the language's or the tool's message with a slot for what failed,
            # and what failed (which function, which service) is the error; judged, such answers
            # below this many rare words were general advice or another error nine times in ten
            return False
        if k.handled:
            # the program caught the error on its line and went on (a probe for an optional
            # package, a cleanup at exit): what stopped it, if anything did, is elsewhere in the
            # paste or not in it, and advice on the caught error answers what was not asked
            return False
        if k.deeper:
            # its line is an error chain (`a: b: c`, innermost last) that goes on past what its
            # regex covers, in words its wording lacks (docker's `unable to start container
            # process: error during container init: error running hook …: nvml error`): the record
            # knows an outer link, and its cause is a guess at the inner one the line names
            return False
        if k.warning_beside:
            # its line is a warning, and the paste's error is another line: advice on the warning
            # answers what the person did not ask
            return False
        if k.fragments:
            # its regex's words are not the line's words, only pieces of a URL or an identifier:
            # a sloppy regex's accident, not this error
            return False
        if k.os_bare and not acts_on_name:
            # the line is only the OS's message (`FileNotFoundError: [Errno 2] No such file or
            # directory`), naming nothing: which file, socket or host, and which program asked, is
            # the error (docker's client finding no daemon socket), and code-side advice guesses it
            return False
        if k.catch_all and k.in_build:
            # a catch-all (`No module named`, `cannot import name`) raised inside a package's build
            # (setup.py, a build backend): the build runs in its own isolated environment, so advice
            # for the interpreter that runs the code does not reach it; what the build needs (a build
            # requirement, a pinned setuptools, a release with a wheel) is the error, and it cannot say
            return False
        if k.imports_itself:
            # a catch-all (`No module named`) where a command's launcher cannot import the command's
            # own package (`bin/conda`: `No module named 'conda'`): the tool's install is broken or
            # mixed (a pip script over another pip), which reinstalling that tool mends; advice to
            # install a missing dependency into the right interpreter does not reach it
            return False
        if k.wrapper:
            # its line is one another error prints beside its own (git's `failed to push some
            # refs` after `! [rejected] … (fetch first)`), and that error is not in the paste:
            # the line says an operation failed, not why, and the record's cause is a guess
            return False
        if k.process_exit and (k.commands < self.commands or k.child_said):
            # the line says a child process failed (`returned non-zero exit status 1`, `Failed
            # building wheel`): why is in that process's output, and advice on code guesses it;
            # fixes on the environment (build tools, a version with a wheel) are what such a
            # failure needs when its output is not in the paste; when it is (`ImportError: cannot
            # import name 'packaging' from 'pkg_resources'` above pip's `metadata-generation-
            # failed`), that line is the error, and a record of the exit guesses past it
            return False
        if k.foreign_panic and k.commands < self.commands:
            # a Go runtime panic inside a tool's own package (git-lfs, kubectl): the tool's bug, which
            # advice on one's own code cannot fix; an upgrade or a setting can
            return False
        if k.abs_path and k.commands < self.commands:
            # the line names a file of that machine by its absolute path (a package's METADATA, a
            # launcher's __main__.py, a node's input image): which file, and why a program looked
            # there, is the error; advice on the code's paths cannot say (a relative path can)
            return False
        return not template or acts_on_name


Candidate = TypeVar("Candidate")


def _promoted(judged: list[tuple[Candidate, Knowing]], i: int) -> list[tuple[Candidate, Knowing]]:
    """The candidates with the `i`th first, the others in their order."""
    return [judged[i], *judged[:i], *judged[i + 1 :]]


# A root cause shorter than this many words states the error's class in a sentence or two
EXPLAINED = 25

# A compiler's diagnostic (rustc `error[E0432]:`, gcc/clang `f.c:3:5: error:`, tsc `error TS2589:`,
# go `main.go:4:2:`): a compiler reports its errors in order, and later ones often follow from the
# first (an unresolved import leaves types to infer)
_DIAGNOSTIC = re.compile(
    r"^\s*error(?:\[E\d{4}\])?: |^\s*[^\s:]{1,400}:\d+:\d+: (?:fatal )?error: "
    r"|\berror TS\d{4}: |^\s*[^\s:]{1,400}\.go:\d+:\d+: "
)


def explained_first(
    judged: list[tuple[Candidate, Knowing]],
    knows: Sequence[bool],
    same: Callable[[int], bool],
    bundled: Sequence[bool],
    words: int = EXPLAINED,
) -> list[tuple[Candidate, Knowing]]:
    """The candidates, in order, less that when the first is an imported record that states its
    cause in a sentence or two (fewer than `words` words: "Tuple unpacking mismatch. Common in for
    loops over dicts"), a bundled record of the same error (`same(i)`: the `i`th candidate's regex
    recognises the first's signature or the other way round; asked only of likely ones), found on
    the same line, that knows it and explains how it comes about
    answers first: both name the error, and the explanation is what moves the person forward."""
    if not judged or not knows[0] or bundled[0] or judged[0][1].cause_words >= words:
        return judged
    first = judged[0][1]
    for i, (_, k) in enumerate(judged[1:], start=1):
        explains = bundled[i] and k.cause_words >= words
        if explains and knows[i] and k.matched and k.line == first.line and same(i):
            return _promoted(judged, i)
    return judged


def first_diagnostic(
    judged: list[tuple[Candidate, Knowing]], knows: Sequence[bool], text: str
) -> list[tuple[Candidate, Knowing]]:
    """The candidates, in order, less that when the first is about a compiler's diagnostic, one
    that knows an earlier diagnostic of the same output goes first: the first error a compiler
    reports is the cause its later ones follow from (`unresolved import tokio::time`, then `type
    annotations needed` where the import's types were)."""
    if not judged or not _DIAGNOSTIC.search(judged[0][1].line):
        return judged
    at = text.find(judged[0][1].line.strip())
    best, best_at = 0, at
    for i, (_, k) in enumerate(judged[1:], start=1):
        if knows[i] and k.matched and _DIAGNOSTIC.search(k.line):
            where = text.find(k.line.strip())
            if 0 <= where < best_at:
                best, best_at = i, where
    return _promoted(judged, best)


def raised_at(frame: str, line: str, text: str) -> bool:
    """`frame` is a frame of the traceback that ends in `line` (no other traceback begins between
    them): where the exception was raised (pandas' `get_loc`) tells which error of its class the
    line is, as much as the line's own words."""
    if not _FRAME_LINE.match(frame):
        return False
    start = text.find(frame.strip())
    if start < 0:
        return False
    end = text.find(line.strip(), start + len(frame.strip()))
    return end >= 0 and _TRACEBACK_HEAD not in text[start:end]


def knowing_first(
    judged: list[tuple[Candidate, Knowing]], knows: Sequence[bool], text: str = ""
) -> list[tuple[Candidate, Knowing]]:
    """The candidates, in order, with whether each knows the error (`knows`): when the first only
    knows the kind of error, a later one whose regex found the very line of the paste the first is
    about (the line its regex found, else the paste's best error line), and knows this error, goes
    first. Both are records of this error (the public corpus holds a class's template once per
    environment, and they outscore a team's or a bundled record by wording), and the one that
    knows it answers. A record found on another line is about another error, however sure of it,
    unless the first's line is a wrapper's (`failed to push some refs`: an operation failed, and
    another line says why). A frame of the traceback that ends in the first's line is that
    line's error: where it was raised (`text` is the paste)."""
    if not judged or knows[0]:
        return judged
    first = judged[0][1]
    for i, (_, k) in enumerate(judged[1:], start=1):
        same = k.line == first.line or raised_at(k.line, first.line, text)
        # past an exit, the line that says why is the child's own error (CHILD_LINE), or another
        # exit whose record's fixes act on it; not a tool's `fatal:` aside nor a command typed
        why = first.wrapper or first.process_exit and (k.weight >= CHILD_LINE or k.process_exit)
        if knows[i] and k.matched and (same or why):
            return _promoted(judged, i)
    return judged

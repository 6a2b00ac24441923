"""The teach draft (#17): a paste → the record errfix would prefill, and its generated regex.

The pastes are written for these tests (not the eval sets). What matters to a person: the regex
recognises the next paste of the same error with other numbers, paths and names, never a paste of
another error, and is always safe to store (RE2, Python's `re`, no catastrophic backtracking).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.draft import clauses, draft, error_text, guess_domain, regex_for, split_fix
from bot.store.lint import python_re_problem
from bot.store.redos import compile_re2, redos_problem


def finds(pattern: str, text: str) -> bool:
    return compile_re2(pattern).search(text) is not None


TRACEBACK = """\
Traceback (most recent call last):
  File "/home/ana/proj/load.py", line 12, in <module>
    cfg = read("/home/ana/proj/conf/settings.yaml")
  File "/home/ana/proj/load.py", line 7, in read
    raise FileNotFoundError(path)
FileNotFoundError: [Errno 2] No such file or directory: '/home/ana/proj/conf/settings.yaml'
"""
OTHER_TRACEBACK = """\
Traceback (most recent call last):
  File "C:\\Users\\bo\\work\\run.py", line 88, in <module>
FileNotFoundError: [Errno 2] No such file or directory: 'C:\\\\data\\\\input-2024.csv'
"""


def test_a_traceback_gives_its_last_exception_line_and_a_regex_for_the_next_one() -> None:
    d = draft(TRACEBACK)
    assert d is not None
    assert d.signature.startswith("FileNotFoundError: [Errno 2] No such file or directory")
    assert finds(d.regex, d.signature)
    assert finds(d.regex, OTHER_TRACEBACK)  # other path, other machine
    assert not finds(d.regex, "PermissionError: [Errno 13] Permission denied: '/etc/shadow'")
    assert d.domain == "python"
    assert d.id.startswith("team/python/filenotfounderror")
    assert re.fullmatch(r"team/[a-z0-9-]+/[a-z0-9-]+", d.id)


@pytest.mark.parametrize(
    ("paste", "again", "other"),
    [
        (
            "2026-01-04T10:22:01.123Z ERROR: connection to 10.0.3.17:6379 refused after 3 retries",
            "2026-02-11T08:00:00Z ERROR: connection to 192.168.1.2:6380 refused after 12 retries",
            "ERROR: connection to 10.0.3.17:6379 timed out",
        ),
        (  # the thing a message opens with changes; what is wrong with it does not
            "error[E0599]: widget_pool cannot be borrowed as mutable more than once at a time",
            "error[E0599]: `Rc<RefCell<Pool>>` cannot be borrowed as mutable more than once at a time",
            "error[E0599]: widget_pool cannot be borrowed as immutable here",
        ),
        (  # too few words to generalise: the line is the error, name and all
            "KeyError: 'user_id'",
            "Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'user_id'",
            "KeyError: 'account'",
        ),
        (
            "Segmentation fault at address 0x7ffd3a2b10c8 in worker 12",
            "Segmentation fault at address 0x0000deadbeef in worker 3",
            "Bus error at address 0x7ffd3a2b10c8 in worker 12",
        ),
        (
            "error: package `serde v1.0.190` cannot be built because it requires rustc 1.75.0 or newer",
            "error: package `tokio v1.35.1` cannot be built because it requires rustc 1.70 or newer",
            "error: package `serde v1.0.190` could not be downloaded",
        ),
        (
            "npm ERR! code ENOENT\nnpm ERR! enoent Could not read package.json: Error: ENOENT: no such file or "
            "directory, open '/srv/app/package.json'",
            "npm ERR! enoent Could not read package.json: Error: ENOENT: no such file or directory, open "
            "'/home/x/site/package.json'",
            "npm ERR! code E404 Not Found - GET https://registry.npmjs.org/left-padd",
        ),
    ],
)
def test_the_regex_generalises_what_changes_and_keeps_what_does_not(paste: str, again: str, other: str) -> None:
    d = draft(paste)
    assert d is not None
    assert finds(d.regex, paste)
    assert finds(d.regex, again), d.regex
    assert not finds(d.regex, other), d.regex


def test_framing_is_dropped_and_the_exception_name_is_optional() -> None:
    assert error_text("[2026-01-04 10:00:01] ERROR: disk quota exceeded") == ("disk quota exceeded", None)
    assert error_text("src/a.ts:3:9 - error TS2322: Type 'string' is not assignable to type 'number'.") == (
        "Type 'string' is not assignable to type 'number'.",
        "error TS2322",
    )
    rx = regex_for("RuntimeError: CUDA error: an illegal memory access was encountered")
    assert finds(rx, "CUDA error: an illegal memory access was encountered")  # printed without the class
    assert finds(rx, "torch.RuntimeError: CUDA error: an illegal memory access was encountered")


def test_a_regex_stops_where_the_advice_begins() -> None:
    line = "Model weights are not a local folder and not on the hub. If this is a private repository, log in."
    assert clauses(line)[0] == "Model weights are not a local folder and not on the hub."
    assert not finds(regex_for(line), "private repository")  # the advice is not part of the error
    assert finds(regex_for(line), "model weights are not a local folder and not on the hub")


def test_a_summary_line_gives_way_to_the_error_it_summarises() -> None:
    paste = (
        "remote: error: GH999: Files over 50 MB are refused by this server.\n"
        "To github.com:team/repo.git\n"
        " ! [remote rejected] main -> main (pre-receive hook declined)\n"
        "error: failed to push some refs to 'github.com:team/repo.git'\n"
    )
    d = draft(paste)
    assert d is not None and "GH999" in d.regex
    assert d.domain == "git"


def test_chat_around_a_paste_is_not_the_error() -> None:
    paste = "I get this error when I run the build, any idea?\nOSError: [Errno 28] No space left on device"
    d = draft(paste)
    assert d is not None
    assert d.signature == "OSError: [Errno 28] No space left on device"


def test_no_error_line_no_draft() -> None:
    assert draft("thanks, that worked! see you tomorrow") is None
    assert draft("") is None


def test_domain_comes_from_the_hint_then_the_line_then_the_paste() -> None:
    assert guess_domain("pip install x", "ValueError: bad", hint="pytorch") == "pytorch"
    assert guess_domain("", "docker: Error response from daemon: no such image") == "docker"
    assert guess_domain("$ pip install flask==9\n", "ERROR: something odd happened") == "pip"
    assert guess_domain("", "something odd happened") == "general"


def test_a_reply_gives_the_fix_and_its_code_blocks_as_how() -> None:
    action, how = split_fix("Free some space first:\n```\ndocker system prune -af\n```\nthen rerun")
    assert action == "Free some space first: then rerun"
    assert how == "docker system prune -af"
    assert split_fix("run `pip install -U pip` and retry") == (
        "run `pip install -U pip` and retry",
        "pip install -U pip",
    )
    d = draft("OSError: [Errno 28] No space left on device", fix="prune: `docker system prune`")
    assert d is not None and d.fix == "prune: `docker system prune`" and d.how == "docker system prune"


# ---- properties: whatever the line, the regex is safe and finds the line -------------------------

_word = st.sampled_from(
    [
        "cannot",
        "open",
        "file",
        "device",
        "failed",
        "to",
        "load",
        "module",
        "the",
        "is",
        "not",
        "found",
        "timeout",
        "key",
    ]
)
_variable = st.one_of(
    st.integers(0, 10**9).map(str),
    st.from_regex(r"/[a-z]{1,8}(/[a-z0-9_.-]{1,12}){1,4}", fullmatch=True),
    st.from_regex(r"'[A-Za-z0-9_.]{1,20}'", fullmatch=True),
    st.from_regex(r"\"[a-z]{1,10}\"", fullmatch=True),
    st.from_regex(r"0x[0-9a-f]{4,12}", fullmatch=True),
    st.from_regex(r"v?[0-9]{1,2}\.[0-9]{1,3}(\.[0-9]{1,3})?", fullmatch=True),
    st.from_regex(r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{12}", fullmatch=True),
    st.from_regex(r"[A-Z][a-z]{2,6}[A-Z][a-z]{2,6}", fullmatch=True),
    st.sampled_from(["(", ")", "[x]", "{}", "a+b", "*", "?", "|", "$HOME", "^", "\\n", "C:\\Temp\\x"]),
)
_prefix = st.sampled_from(
    ["", "ValueError: ", "ERROR: ", "error[E0502]: ", "2026-01-01 10:00:00 ERROR ", "app.py:3: ", "npm ERR! "]
)
_line = st.builds(
    lambda prefix, parts, sep: prefix + sep.join(parts),
    _prefix,
    st.lists(st.one_of(_word, _word, _variable), min_size=3, max_size=30),
    st.sampled_from([" ", "  ", ", ", ": ", ". "]),
).filter(lambda s: bool(s.strip()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_line)
def test_the_regex_finds_its_own_line_compiles_in_both_engines_and_cannot_stall(line: str) -> None:
    rx = regex_for(line)
    assert finds(rx, line), rx  # RE2, case-insensitive, as production runs it
    assert re.search(rx, line, re.I), rx  # Python's re, as tools sharing records run it
    assert python_re_problem(rx) is None
    # "cannot stall": 2 s, not lint's 0.1 s, so a loaded machine cannot fail a linear pattern
    # (a catastrophic one takes far longer than 2 s on 10,000 pumped characters)
    assert redos_problem(rx, line, timeout=2.0) is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=300))
def test_any_text_gives_a_safe_regex_that_finds_it(text: str) -> None:
    d = draft(text + "\nRuntimeError: " + text)
    assert d is not None
    assert finds(d.regex, d.signature), d.regex
    assert python_re_problem(d.regex) is None

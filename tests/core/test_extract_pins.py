"""What makes a line an error line, and how strongly: each rule's kind and weight, in numbers of
its own (never read from bot/core/extract.py), so changing one weight or the order of the rules
fails here (#20).

Weights decide what users see: a paste counts as an error (and may be answered unprompted) only
when some line weighs 0.8 or more, and a paste whose only error-looking lines are deprecation
notices is never answered in a channel.
"""

from __future__ import annotations

import pytest

from bot.core.extract import clean, environment, extract

RULES = [
    ("ValueError: the value is bad", "python", 1.0),
    ("Caused by: java.io.IOException: the disk is gone", "java-cause", 0.95),
    ("error: could not compile `demo` due to 2 previous errors", "summary", 0.5),
    ("error[E0382]: borrow of moved value: `x`", "rust", 1.0),
    ("src/app.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.", "ts", 1.0),
    ("panic: runtime error: index out of range [3] with length 3", "panic", 1.0),
    ("npm ERR! code ERESOLVE", "npm", 0.8),
    ("main.c:3:10: fatal error: stdio.h: No such file or directory", "cc", 0.95),
    ("fatal: not a git repository (or any of the parent directories): .git", "fatal", 0.9),
    ("/app/train.py:3: FutureWarning: this option will change in the next release", "deprecation", 0.3),
    ("warning: unused variable `x`", "warning", 0.45),
    ("the kernel reported CUDA error: device-side assert triggered", "cuda", 0.85),
    ("sync worker stopped: SomeException (code 5)", "exception", 0.8),
    ("the connection was refused by the server", "keyword", 0.6),
    ("pod/web-1 is in CrashLoopBackOff", "status", 0.7),
]


@pytest.mark.parametrize(("line", "kind", "weight"), RULES)
def test_each_rule_gives_its_kind_and_weight(line: str, kind: str, weight: float) -> None:
    ex = extract(line)
    assert [(ln.kind, ln.weight) for ln in ex.lines] == [(kind, weight)]
    assert ex.is_error is (weight >= 0.8)  # "an error" starts at 0.8


def test_an_exception_line_outside_a_traceback_makes_the_paste_an_error() -> None:
    """`…: SomeException (code 5)` in a log, no traceback around it: an error line of weight 0.8."""
    ex = extract("12:00:01 starting sync\n12:00:02 sync worker stopped: SomeException (code 5)\n12:00:03 bye")
    assert ex.is_error
    assert [(ln.raw, ln.kind, ln.weight) for ln in ex.lines] == [
        ("12:00:02 sync worker stopped: SomeException (code 5)", "exception", 0.8)
    ]


def test_a_traceback_s_last_exception_line_weighs_more_than_any_rule() -> None:
    ex = extract(
        "Traceback (most recent call last):\n"
        '  File "job.py", line 3, in <module>\n'
        "ValueError: first\n"
        "warning: something else"
    )
    assert [(ln.kind, ln.weight) for ln in ex.lines] == [("python", 1.1), ("warning", 0.45)]


def test_keyword_lines_alone_are_not_an_error() -> None:
    ex = extract("the build failed\nthe upload timed out")
    assert [ln.weight for ln in ex.lines] == [0.6, 0.6]
    assert not ex.is_error


@pytest.mark.parametrize(
    ("paste", "only"),
    [
        ("/app/a.py:3: FutureWarning: `old()` is deprecated, use `new()`", True),
        ("/app/a.py:3: DeprecationWarning: x is deprecated\n/app/b.py:9: PendingDeprecationWarning: y", True),
        ("/app/a.py:3: FutureWarning: `old()` is deprecated\nValueError: the value is bad", False),
        ("/app/a.py:3: FutureWarning: `old()` is deprecated\nnpm ERR! code ERESOLVE", False),  # 0.8 counts
        ("/app/a.py:3: FutureWarning: `old()` is deprecated\nthe build failed", True),  # 0.6 does not
        ("ValueError: the value is bad", False),
        ("warning: unused variable `x`", False),
    ],
)
def test_deprecation_only(paste: str, only: bool) -> None:
    assert extract(paste).deprecation_only is only


# ---- the rules inside `extract` that mutation testing found untested (#20) ----------------------


def test_a_raise_line_without_its_exception_line_gives_the_error() -> None:
    """A paste cut after the last frame: `raise ValueError('…')` is read as `ValueError: …`."""
    ex = extract("  File \"job.py\", line 3, in load\n    raise ValueError('the value is bad')")
    assert [(ln.raw, ln.kind, ln.weight) for ln in ex.lines] == [("ValueError: the value is bad", "python", 1.0)]
    assert ex.is_error


@pytest.mark.parametrize(
    "paste",
    [
        # the message is the paste's last line, and a blank line comes before the panic
        "\nthread 'main' panicked at src/main.rs:2:5:\nindex out of bounds: the len is 3 but the index is 5",
        "thread 'main' panicked at src/main.rs:2:5:\nindex out of bounds: the len is 3 but the index is 5\n",
        # pasted from Windows: CRLF line ends are one line break, not two
        "thread 'main' panicked at src/main.rs:2:5:\r\nindex out of bounds: the len is 3 but the index is 5\r\n",
    ],
)
def test_a_rust_panic_takes_its_message_from_the_next_line(paste: str) -> None:
    ex = extract(paste)
    assert ex.lines[0].raw == (
        "thread 'main' panicked at src/main.rs:2:5: index out of bounds: the len is 3 but the index is 5"
    )
    assert (ex.lines[0].kind, ex.lines[0].weight) == ("panic", 1.0)


def test_a_panic_line_with_nothing_after_it_stays_as_it_is() -> None:
    ex = extract("thread 'main' panicked at src/main.rs:2:5:\n\nnote: run with `RUST_BACKTRACE=1`")
    assert ex.lines[0].raw == "thread 'main' panicked at src/main.rs:2:5:"


def test_an_exception_line_ending_a_traceback_is_its_error() -> None:
    """The final line of a traceback weighs 1.1 also when it is an `exception` line, not `python`."""
    ex = extract(
        "Traceback (most recent call last):\n"
        '  File "job.py", line 3, in <module>\n'
        "sync worker stopped: SomeException (code 5)\n"
        "ValueError: a later, unrelated line"
    )
    assert [(ln.kind, ln.weight) for ln in ex.lines] == [("exception", 1.1), ("python", 1.0)]


def test_among_lines_of_one_weight_the_later_comes_first() -> None:
    """The last error in a log is usually the one that stopped it."""
    ex = extract("ValueError: first\nthe build failed\nKeyError: second\nthe upload timed out")
    assert [ln.raw for ln in ex.lines] == [
        "KeyError: second",
        "ValueError: first",
        "the upload timed out",
        "the build failed",
    ]


def test_a_paste_of_exactly_a_million_characters_is_kept_whole() -> None:
    """The cut is past 1,000,000 characters: one more and only the tail is kept."""
    line = "INFO step 12 ok\n"  # 16 characters
    whole = line * 62_500  # 1,000,000 characters
    assert clean(whole) == (whole, False)
    text, truncated = clean("!" + whole)
    assert truncated and text == whole


@pytest.mark.parametrize(
    ("paste", "line"),
    [
        ("step 1/9\rstep 2/9\rValueError: the value is bad", "ValueError: the value is bad"),  # a progress bar's \r
        ("ValueError: the\x07 value\x00 is bad", "ValueError: the value is bad"),  # control characters go
    ],
)
def test_carriage_returns_break_lines_and_control_characters_vanish(paste: str, line: str) -> None:
    assert [ln.raw for ln in extract(paste).lines] == [line]


def _at(size: int, where: int, word: str = " ubuntu ") -> str:
    """`size` characters of filler with `word` starting at `where`."""
    return ("a" * where + word).ljust(size, "a")


def test_environment_hints_of_a_long_paste_come_from_its_first_and_last_20000_characters() -> None:
    assert len(_at(40_000, 19_997)) == 40_000
    assert "os:linux" in environment(_at(40_000, 19_997))  # up to 40,000 characters: all of it
    assert "os:linux" not in environment(_at(50_000, 25_000))  # longer: not its middle
    assert "os:linux" in environment(_at(50_000, 100))
    assert "os:linux" in environment(_at(50_000, 40_000))
    assert "os:linux" not in environment(_at(40_001, 19_997))  # one past 40,000 is cut
    # the edges: a word must lie wholly within the first 20,000 or the last 20,000
    assert "os:linux" in environment(_at(50_000, 19_993))  # "ubuntu" is characters 19,994-19,999
    assert "os:linux" not in environment(_at(50_000, 19_994))  # its last "u" is the 20,001st
    assert "os:linux" in environment(_at(50_000, 29_999))  # "ubuntu" starts the last 20,000
    assert "os:linux" not in environment(_at(50_000, 29_998))  # one character earlier


def test_environment_names_are_canonical() -> None:
    """`PyTorch 2.1`, `nodejs 18`, `k8s 1.29` and a `cp311` wheel tag name torch, node, kubernetes, Python 3."""
    assert environment("PyTorch 2.1 on nodejs 18 and k8s 1.29") == {
        "torch:2",
        "torch:2.1",
        "node:18",
        "kubernetes:1",
        "kubernetes:1.29",
    }
    assert environment("numpy-1.26.4-cp311-cp311-manylinux_x86_64.whl") >= {"python:3", "python:3.11", "numpy:1"}


def test_the_matcher_gets_the_twelve_best_error_lines() -> None:
    """Pinned with this test's own number (#20): twelve lines, the later first among equals."""
    paste = "\n".join(f"ValueError: step {n} failed" for n in range(20))
    lines = extract(paste).lines
    assert [ln.raw for ln in lines] == [f"ValueError: step {n} failed" for n in range(19, 7, -1)]


def test_a_line_is_cut_at_two_thousand_characters() -> None:
    """A minified or base64 line keeps its first 2,000 characters (#20)."""
    head = "ValueError: "
    whole = head + "x" * (2000 - len(head))
    assert extract(whole).lines[0].raw == whole
    assert extract(whole + "yyyy").lines[0].raw == whole

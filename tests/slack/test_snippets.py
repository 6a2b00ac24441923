"""Which shared files errfix reads, and how a big one is cut to its head and tail."""

from __future__ import annotations

import pytest

from bot.slack.snippets import head_and_tail, needs_reading, text_like


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ({"mode": "snippet", "filetype": "text"}, True),
        ({"filetype": "python", "name": "train.py"}, True),
        ({"mimetype": "text/plain", "name": "x"}, True),
        ({"mimetype": "application/octet-stream", "name": "run.log"}, True),
        ({"mimetype": "image/png", "name": "loss.png", "filetype": "png"}, False),
        ({"mimetype": "image/png", "name": "fake.txt"}, False),
        ({"mimetype": "application/pdf", "name": "paper.pdf", "filetype": "pdf"}, False),
        ({"mimetype": "application/zip", "name": "logs.zip", "filetype": "zip"}, False),
    ],
)
def test_text_like(file: dict[str, str], text: bool) -> None:
    assert text_like(file) is text


def test_only_what_the_event_does_not_show_in_full_is_read() -> None:
    assert needs_reading({"id": "F1", "file_access": "check_file_info"})
    assert needs_reading({"mode": "snippet", "preview": "a\nb", "preview_is_truncated": True})
    assert needs_reading({"mode": "snippet"})  # no preview at all
    assert not needs_reading({"mode": "snippet", "preview": "all of it", "preview_is_truncated": False})
    assert not needs_reading({"mimetype": "image/jpeg", "name": "x.jpg"})


def test_a_small_file_is_kept_whole() -> None:
    assert head_and_tail(b"a\nb\n", 4) == (b"a\nb\n", False)


def test_a_big_file_keeps_a_quarter_head_and_three_quarters_tail_at_line_ends() -> None:
    data = b"".join(b"%03d\n" % n for n in range(100))  # 400 bytes, 4 a line
    kept, partial = head_and_tail(data, 80)  # head 20 bytes, tail 60 (its first line may be cut: dropped)
    assert partial
    head, tail = kept.split(b"\n[...]\n")
    assert head == b"000\n001\n002\n003\n004"
    assert tail == b"086\n087\n088\n089\n090\n091\n092\n093\n094\n095\n096\n097\n098\n099\n"


def test_cuts_inside_a_line_drop_the_broken_line() -> None:
    data = b"first line\n" + b"x" * 50 + b"\nlast line\n"
    kept, _ = head_and_tail(data, 40)  # head 10 bytes: inside the first line, kept as is
    assert kept.endswith(b"\n[...]\nlast line\n")

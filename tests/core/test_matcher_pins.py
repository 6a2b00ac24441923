"""The matcher's reach into a long paste, pinned with this test's own numbers (#20): the
whole-paste regex pass reads the last 100,000 characters (an error's own line is found wherever it
is, by the pass over the error lines), and runs at most 250 filtered regexes. REGEX_TEXT_LIMIT
100,000 -> 10,000 and REGEX_BUDGET 250 -> 25 each passed the suite."""

from __future__ import annotations

from bot.core.budget import Budget
from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.records import Record

WANTED = Record(
    id="lib/gateway-throttled", signature="gateway throttled bucket uploads", regex="gateway throttled bucket"
)
OTHER = Record(id="lib/other", signature="unrelated parser failure", regex="zzqq never matches")
NOTE = "the gateway throttled bucket uploads tonight\n"  # not an error line: only the whole-paste pass sees it


def rx_text(chars_after: int) -> float:
    """The wanted record's whole-paste regex part, with `chars_after` characters of log after the note."""
    filler = "".join(f"batch {n:06d} done\n" for n in range(chars_after // 18 + 1))[:chars_after]
    paste = "RuntimeError: upload stopped\n" + NOTE + filler
    found = {c.id: c.parts for c in Matcher([WANTED, OTHER]).match(extract(paste), limit=2)}
    return found.get(WANTED.id, {}).get("rx_text", 0.0)


def test_the_whole_paste_regex_pass_reads_its_last_hundred_thousand_characters() -> None:
    assert rx_text(0) == 1.0
    assert rx_text(100_000 - len(NOTE)) == 1.0  # the note is the first thing in the last 100,000
    assert rx_text(100_000) == 0.0  # its last character is 100,001 from the end


def test_a_paste_runs_at_most_two_hundred_fifty_filtered_regexes_per_text() -> None:
    """300 records whose regexes all match one paste: the pass over the paste runs the 250 most
    selective and skips the rest (REGEX_BUDGET 250 -> 25 passed the suite). A clock that never
    moves keeps the seconds budget out of it."""
    words = [f"{a}{b}{c}" for a in "bcdfg" for b in "aeiou" for c in "klmnprstvwxz"][:300]
    records = [
        Record(id=f"t/r{k:03d}", signature=f"widget failed {w}", regex=f"widget failed {w}")
        for k, w in enumerate(words)
    ]
    paste = "\n".join(f"widget failed {w}" for w in words)
    hits = Matcher(records)._hits(extract(paste), Budget(clock=lambda: 0.0))
    assert len(hits.text_hits) == 250
    short = [Record(id=f"t/s{k:03d}", signature=f"widget failed zq{w}", regex=f"zq{w}") for k, w in enumerate(words)]
    one_line = "RuntimeError: " + " ".join(f"zq{w}" for w in words)  # 300 hits on one error line
    on_line = Matcher(short)._hits(extract(one_line), Budget(clock=lambda: 0.0))
    assert len(on_line.line_hits) == 250  # the pass over the error lines has the same 250


def test_a_paste_with_no_error_line_has_no_regex_hit_on_one() -> None:
    """A sloppy regex that matches the empty string (the corpus has such) must not count as a hit
    on the error lines of a chat message that has none."""
    sloppy = Record(id="t/sloppy", signature="gateway throttled bucket uploads", regex="(?:gateway throttled)?")
    chat = "so the gateway throttled bucket uploads again last night, any idea why"
    found = {c.id: c.parts for c in Matcher([sloppy, OTHER]).match(extract(chat), limit=2)}
    assert extract(chat).lines == [] and found[sloppy.id]["rx_line"] == 0.0

"""A "Not this error" in the matcher: a penalty for pastes like the rejected one, by distinct users, bounded."""

from __future__ import annotations

from bot.core.extract import extract, normalize
from bot.core.matcher import Matcher
from bot.core.records import Record
from bot.core.rejections import rejection_penalty, similar
from tests.conftest import full

PER_USER = 2.0  # logits per user who said "Not this error" (this test's own numbers)
MAX_USERS = 3  # users beyond this add nothing

LINE = "FluxError: capacitor desynchronised at 88 mph in module timeline"
PASTE = f'Traceback (most recent call last):\n  File "car.py", line 3, in <module>\n{LINE}'


def _records() -> list[Record]:
    return [
        Record.model_validate(full("t/flux", signature="FluxError: capacitor desynchronised", regex="FluxError: cap")),
        Record.model_validate(full("t/warp", signature="WarpError: coil misaligned", regex="WarpError: coil")),
    ]


def test_similar_is_exact_or_a_few_characters_apart() -> None:
    a = normalize(LINE)
    assert similar(a, a)
    assert similar(a, normalize(LINE.replace("desynchronised", "desynchronized")))  # US spelling
    assert similar(a, normalize(LINE.replace("88", "121")))  # numbers are placeholders already
    assert not similar(a, normalize("WarpError: coil misaligned at 88 mph in module timeline"))
    assert not similar(a, "") and not similar("", a)


def test_the_penalty_counts_distinct_users_with_a_similar_line_and_is_bounded() -> None:
    line = normalize(LINE)
    assert rejection_penalty([], [line]) == 0.0
    assert rejection_penalty([(line, "U1")], []) == 0.0  # a paste without error lines
    assert rejection_penalty([(line, "U1")], [line]) == PER_USER
    assert rejection_penalty([(line, "U1"), (line.replace("mph", "kmh"), "U1")], [line]) == PER_USER  # same user
    assert rejection_penalty([(line, "U1"), (line, "U2")], [line]) == 2 * PER_USER
    many = [(line, f"U{i}") for i in range(10)]
    assert rejection_penalty(many, [line]) == MAX_USERS * PER_USER
    assert rejection_penalty([(normalize("WarpError: coil misaligned"), "U1")], [line]) == 0.0  # another error


def test_the_matcher_lowers_only_the_rejected_record_for_similar_pastes() -> None:
    ex = extract(PASTE)
    before = {c.id: c for c in Matcher(_records()).match(ex)}
    assert "rejected" not in before["t/flux"].parts
    rejections = {"t/flux": [(ex.lines[0].norm, "U1"), (ex.lines[0].norm, "U2")]}
    matcher = Matcher(_records(), rejections=rejections)
    after = {c.id: c for c in matcher.match(ex)}
    assert after["t/flux"].parts["rejected"] == -2 * PER_USER
    assert after["t/flux"].parts["z"] == round(before["t/flux"].parts["z"] - 2 * PER_USER, 4)
    assert after["t/flux"].score < before["t/flux"].score
    # the same error with other numbers is the same paste; another error is not touched
    again = {c.id: c for c in matcher.match(extract(PASTE.replace("88", "42")))}
    assert again["t/flux"].parts["rejected"] == -2 * PER_USER
    other = matcher.match(extract("WarpError: coil misaligned near the flux capacitor"))
    assert other and all("rejected" not in c.parts for c in other)


def test_lines_exactly_ninety_percent_alike_count_as_the_same_error() -> None:
    # rapidfuzz ratio of two 10-character lines one character apart: 1 - 2/20 = 90.0, on the cut
    assert similar("abcdefghij", "abcdefghiX")
    # two 9-character lines one character apart: 1 - 2/18 = 88.9, under it
    assert not similar("abcdefghi", "abcdefghX")

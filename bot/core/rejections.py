"""A "Not this error" as a matching signal: a logit penalty for pastes like a rejected one (pure).

When a user says a reply's record is not their error, the paste's best error line is stored
(normalised, see bot/store/learning.py `reject`). From then on, a paste whose error lines are
the same or nearly the same (rapidfuzz ratio >= SIMILAR on the normalised text) scores that
record lower, by PER_USER logits for each distinct user who rejected it for such a line, at
most MAX_USERS users' worth. Other pastes, and other records for the same paste, are untouched.

Why these numbers: one person may click the wrong button, so one rejection only lowers the
record (a top answer's logit is typically 3.4-5.4, 3-5 above the runner-up); each further person
lowers it more, and three bury it. On the ~310 seed examples errfix answers, with the paste's
line rejected by 1 / 2 / 3 users the same paste is still answered with that record in 80-94% /
0-75% / at most 1% of cases (the ranges: two fits of the matching weights; rerun when refitted).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz

SIMILAR = 90.0
"""rapidfuzz ratio (0-100) of two normalised lines from which they count as the same error."""
PER_USER = 2.0
"""Logit subtracted per distinct user who rejected the record for a similar line."""
MAX_USERS = 3
"""Users beyond this add nothing: the penalty is bounded at PER_USER * MAX_USERS."""


def similar(a: str, b: str) -> bool:
    """Same normalised error line, or one differing by a few characters."""
    return a == b or (bool(a) and bool(b) and fuzz.ratio(a, b, score_cutoff=SIMILAR) >= SIMILAR)


def rejection_penalty(rejected: Iterable[tuple[str, str]], lines: Sequence[str]) -> float:
    """Logit to subtract from a record for a paste with normalised error `lines`.

    `rejected` holds the record's (normalised line, user id) rejections.
    """
    if not lines:
        return 0.0
    users = {user for line, user in rejected if any(similar(line, ln) for ln in lines)}
    return PER_USER * min(len(users), MAX_USERS)

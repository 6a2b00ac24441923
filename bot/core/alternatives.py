"""Where a regex's top-level alternatives are, so that alternatives shared by many patterns are
searched once (pure)."""

from __future__ import annotations


def class_end(pattern: str, i: int) -> int:
    """Index just past the character class that starts at pattern[i] == '['."""
    n, j = len(pattern), i + 1
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1  # a `]` first in a class is a literal
    while j < n:
        c = pattern[j]
        if c == "\\":
            j += 2
        elif pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            j = n if end < 0 else end + 2
        elif c == "]":
            return j + 1
        else:
            j += 1
    return n


def _bars(pattern: str) -> tuple[list[int], int] | None:
    """Positions of the top-level `|` and where the group opened at 0 closes (-1 if none), or
    None when the parentheses do not balance."""
    bars: list[int] = []
    first_close = -1
    depth, i, n = 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = class_end(pattern, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and first_close < 0 and pattern[0] == "(":
                first_close = i
        elif c == "|" and depth == 0:
            bars.append(i)
        i += 1
    return (bars, first_close) if depth == 0 else None


def branch_spans(pattern: str) -> list[tuple[int, int]]:
    """Where the top-level alternatives of `pattern` are, a group around the whole unwrapped
    (`(a|b)` -> a, b); the whole pattern when there are none or the syntax could mean something
    else here.

    A pattern matches where one of its alternatives does, and its leftmost match is the leftmost
    of theirs (the earlier alternative on a tie), so alternatives shared by many records (per
    environment copies of one error) can be searched once for all of them.
    """
    whole = [(0, len(pattern))]
    if "\\Q" in pattern or "(?" in pattern.replace("(?:", "").replace("(?P<", ""):
        return whole  # inline flags apply across alternatives; \Q..\E quotes `|`: do not split
    lo, hi = 0, len(pattern)
    for _ in range(8):  # `((a|b))`: unwrap a few levels
        body = pattern[lo:hi]
        found = _bars(body)
        if found is None:
            return whole
        bars, first_close = found
        if bars or first_close != len(body) - 1:
            break
        if body.startswith("(?:"):
            lo += 3
        elif body.startswith("(?P<"):
            lo += body.find(">") + 1
        else:
            lo += 1
        hi -= 1
    else:
        return whole
    if not bars:
        return whole
    edges = [-1, *bars, hi - lo]
    return [(lo + a + 1, lo + b) for a, b in zip(edges, edges[1:], strict=False)]


def branches(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (see branch_spans)."""
    return [pattern[a:b] for a, b in branch_spans(pattern)]

"""The regex budget in numbers of its own (#20): a paste may spend 50 ms on regexes in all, and
one pattern the regex engine cannot bound (RE2 rejects it, the backtracking fallback runs it) at
most 20 ms of that. Measured on a fake clock: each hostile search "runs" until its timeout, which
advances the clock by exactly that timeout, so the cost of a paste is read off the clock.
"""

from __future__ import annotations

from typing import Any

import pytest
import regex

import bot.core.matcher as match_module
from bot.core.budget import Budget
from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.records import Record
from bot.core.regexset import RegexSet


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


class Hostile:
    """A compiled pattern that always backtracks until it is stopped: it costs its timeout."""

    def __init__(self, clock: Clock, timeouts: list[float | None]) -> None:
        self.clock, self.timeouts = clock, timeouts

    def search(self, text: str, *args: Any, timeout: float | None = None, **kw: Any) -> None:
        self.timeouts.append(timeout)
        assert timeout is not None, "a fallback search without a timeout can stall a paste forever"
        self.clock.now += timeout
        raise TimeoutError("regex timed out")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def timeouts() -> list[float | None]:
    return []


@pytest.fixture
def hostile_set(monkeypatch: pytest.MonkeyPatch, clock: Clock, timeouts: list[float | None]) -> Any:
    """`hostile_set(n)`: a RegexSet of n look-behind patterns (RE2 rejects them) that all backtrack."""

    def make(n: int) -> RegexSet:
        with monkeypatch.context() as m:
            m.setattr(regex, "compile", lambda pattern, flags=0: Hostile(clock, timeouts))
            rs = RegexSet([rf"(?<=x)y{{1,{k + 1}}}" for k in range(n)])
        timeouts.clear()
        return rs

    return make


def test_a_paste_has_fifty_milliseconds_by_default(clock: Clock) -> None:
    budget = Budget(clock=clock)
    assert budget.remaining() == pytest.approx(0.05)
    clock.now = 500.049
    assert not budget.spent()
    clock.now = 500.0501
    assert budget.spent()


def test_one_hostile_pattern_costs_at_most_twenty_milliseconds(
    hostile_set: Any, clock: Clock, timeouts: list[float | None]
) -> None:
    rs = hostile_set(1)
    start = clock.now
    assert rs.search("xy", time_budget=Budget(10.0, clock)) == []  # a generous budget: the pattern's own bound
    assert timeouts == [pytest.approx(0.02)]
    assert clock.now - start == pytest.approx(0.02)


def test_building_the_index_bounds_each_pattern_too(hostile_set: Any, timeouts: list[float | None]) -> None:
    rs = hostile_set(3)
    assert rs.search("xy") == []  # no paste budget (index build): each pattern still has its 20 ms
    assert timeouts == [pytest.approx(0.02)] * 3


def test_a_thousand_hostile_patterns_cost_a_paste_fifty_milliseconds(
    hostile_set: Any, clock: Clock, timeouts: list[float | None]
) -> None:
    rs = hostile_set(1000)
    start = clock.now
    budget = Budget(clock=clock)
    assert rs.search("xy", time_budget=budget) == []
    assert clock.now - start == pytest.approx(0.05)
    assert timeouts == [pytest.approx(0.02), pytest.approx(0.02), pytest.approx(0.01)]
    assert budget.skipped == 997


def test_a_paste_matched_without_a_budget_of_its_own_gets_the_fifty_milliseconds(
    monkeypatch: pytest.MonkeyPatch, clock: Clock, timeouts: list[float | None]
) -> None:
    """`Matcher.match` called without a budget (as the CLI and the search do) still bounds the
    paste: a store of 100 hostile patterns costs it 50 ms on the clock, not 100 × 20 ms."""
    records = [
        Record(id=f"h/{k:03d}", signature=f"HostileError: case {k}", regex=rf"(?<=x)y{{1,{k + 1}}}") for k in range(100)
    ]
    with monkeypatch.context() as m:
        m.setattr(regex, "compile", lambda pattern, flags=0: Hostile(clock, timeouts))
        matcher = Matcher(records)
    monkeypatch.setattr(match_module, "Budget", lambda: Budget(clock=clock))
    timeouts.clear()
    start = clock.now
    matcher.match(extract("ValueError: xy went wrong\nxy again"))
    assert timeouts and clock.now - start == pytest.approx(0.05)

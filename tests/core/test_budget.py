"""One regex budget per paste, whatever the number of patterns (#14.2).

Bounds are checked by counting steps on a fake clock, never by wall time: a store holding a
thousand backtracking patterns must cost a paste a bounded number of searches.
"""

from __future__ import annotations

from bot.core.budget import Budget
from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.records import Record
from bot.core.regexset import RegexSet

EVIL_TEXT = "a" * 30_000 + "!"


class StepClock:
    """Advances by `step` seconds on every reading and counts the readings."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 100.0, step, 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def lookbehinds(n: int) -> list[str]:
    """n patterns RE2 rejects (look-behind), all matching "xy"."""
    return [rf"(?<=x)y{{1,{k + 1}}}" for k in range(n)]


def test_a_thousand_fallback_patterns_share_one_budget() -> None:
    rs = RegexSet(lookbehinds(1000))
    assert len(rs._fallback) == 1000
    clock = StepClock(0.001)  # each reading: 1 ms later
    budget = Budget(0.05, clock)
    found = rs.search("xy", time_budget=budget)
    # 50 ms at 1 ms a reading (one per search): about 50 searches, never 1000
    assert 40 <= len(found) <= 55
    assert budget.skipped == 1000 - len(found)
    assert clock.reads <= 60


def test_a_smaller_budget_runs_fewer_searches() -> None:
    rs = RegexSet(lookbehinds(200))
    small, large = Budget(0.01, StepClock(0.001)), Budget(0.04, StepClock(0.001))
    assert len(rs.search("xy", time_budget=small)) < len(rs.search("xy", time_budget=large))


def test_without_a_budget_every_fallback_pattern_runs() -> None:
    rs = RegexSet(lookbehinds(300))
    assert len(rs.search("xy")) == 300


def test_a_spent_budget_also_stops_re2_searches() -> None:
    rs = RegexSet([f"alpha{k}|beta" for k in range(50)])
    spent = Budget(0.0, StepClock(0.001))
    assert rs.search("alpha1 beta", time_budget=spent) == []
    assert spent.skipped == 2  # the alternatives the paste selects: `alpha1` and the shared `beta`
    assert len(rs.search("alpha1 beta")) == 50


def test_backtracking_patterns_cost_a_paste_only_its_budget() -> None:
    # `^(?=(a+)+$)` is catastrophic on the backtracking engine; with a per-pattern timeout
    # alone, 1,000 of them cost a paste 1,000 timeouts. With one budget, a handful run.
    rs = RegexSet([rf"^(?=(a+)+$)a{{0,{k}}}" for k in range(1000)])
    assert len(rs._fallback) == 1000
    budget = Budget(0.05)
    assert rs.search(EVIL_TEXT, time_budget=budget) == []
    assert budget.skipped >= 900


def _record(i: int, regex: str, signature: str) -> Record:
    return Record(id=f"rec-{i}", regex=regex, signature=signature)


def test_one_budget_for_every_search_of_a_paste() -> None:
    records = [_record(i, rf"(?<=x)y{{1,{i + 1}}}", f"xy error number {i}") for i in range(400)]
    matcher = Matcher(records)
    clock = StepClock(0.001)
    budget = Budget(0.05, clock)
    matcher.match(extract("ValueError: xy happened\nxy again"), regex_budget=budget)
    # three searches (error lines, tail, wrapped sentences) share 50 readings' worth
    assert budget.skipped >= 3 * 400 - 60
    assert clock.reads <= 80

"""Tests for bot/core/rank.py: the votes must move the ranking the way the issue demands."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core import rank
from bot.core.rank import Posterior

EVIDENCE_COUNTS = (0, 1, 3, 10, 100, 10_000)

# seeds/pytorch/loss-nan-step.json: workarounds 0.85 / 0.8 / 0.9, evidence_count 1.
USER_RATES = (0.85, 0.8, 0.9)
USER_EVIDENCE = 1


def ranked(rates: tuple[float, ...], evidence: int, votes: dict[int, tuple[int, int]]) -> list[int]:
    """Order of a record's workarounds given {index: (up, down)} team votes."""
    posts = [rank.posterior(r, evidence, *votes.get(i, (0, 0))) for i, r in enumerate(rates)]
    return rank.order(posts)


def test_user_record_three_didnt_work_votes_move_another_workaround_to_the_top() -> None:
    """Acceptance check of the issue, on the user's own example record."""
    before = ranked(USER_RATES, USER_EVIDENCE, {})
    top = before[0]
    assert USER_RATES[top] == 0.9  # the record's own best is shown first
    after = ranked(USER_RATES, USER_EVIDENCE, {top: (0, 3)})
    assert after[0] != top
    assert after.index(top) > after.index(0)  # 0.85 now above the failed 0.9 fix


@pytest.mark.parametrize("evidence", EVIDENCE_COUNTS)
def test_zero_of_six_worked_falls(evidence: int) -> None:
    """Issue example: a 0.85 workaround with 0 of 6 "worked" must fall."""
    untouched = rank.posterior(0.85, evidence, 0, 0)
    failed = rank.posterior(0.85, evidence, 0, 6)
    assert failed.mean < untouched.mean
    assert failed.mean < 0.5
    assert ranked((0.85, 0.6), evidence, {0: (0, 6)}) == [1, 0]


@pytest.mark.parametrize("evidence", EVIDENCE_COUNTS)
def test_nine_of_ten_worked_rises_above_untouched_higher_prior(evidence: int) -> None:
    """Issue example: a 0.6 workaround with 9 of 10 must rise above an untouched 0.8 one."""
    assert ranked((0.8, 0.6), evidence, {}) == [0, 1]
    assert ranked((0.8, 0.6), evidence, {1: (9, 1)}) == [1, 0]


def test_prior_weight_is_bounded_for_huge_evidence() -> None:
    """10,000 claimed reports count for at most a handful of team votes."""
    assert rank.prior_weight(10_000) == 4.5
    assert rank.prior_weight(10_000) <= 10.0
    assert rank.prior_weight(10**400) == 4.5  # beyond float range: no OverflowError
    # The team's 10 "didn't work" votes beat a 0.9 claimed by 10,000 reports.
    assert rank.posterior(0.9, 10_000, 0, 10).mean < 0.5


def test_prior_weight_grows_with_evidence() -> None:
    """More reports make the record harder to overturn (up to the cap)."""
    weights = [rank.prior_weight(e) for e in EVIDENCE_COUNTS]
    assert weights == sorted(weights)
    assert weights[0] < weights[-1]
    assert weights[0] > 0.0


def test_negative_or_odd_counts_are_treated_as_none() -> None:
    """Bad counts from a hand-edited record or a buggy caller must not crash or flip signs."""
    assert rank.prior_weight(-5) == rank.prior_weight(0)
    p = rank.posterior(0.7, -3, -2, -1)
    assert p == rank.posterior(0.7, 0, 0, 0)
    assert (p.votes_up, p.votes_down) == (0, 0)
    assert rank.updated_evidence_count(-4, -1, -1) == 0


@pytest.mark.parametrize(("given_rate", "clamped"), [(1.7, 1.0), (-0.2, 0.0), (math.inf, 1.0), (-math.inf, 0.0)])
def test_prior_rate_is_clamped(given_rate: float, clamped: float) -> None:
    """Rates outside [0, 1] are clamped, so the posterior stays a valid Beta."""
    assert rank.posterior(given_rate, 3, 2, 1) == rank.posterior(clamped, 3, 2, 1)
    assert 0.0 <= rank.posterior(given_rate, 3, 0, 0).mean <= 1.0


def test_nan_prior_rate_is_uninformative() -> None:
    """A NaN rate carries no information: treat it as 0.5, never propagate NaN into scores."""
    assert rank.posterior(math.nan, 10, 0, 0).mean == pytest.approx(0.5)


def test_order_is_stable_on_ties() -> None:
    """Equal scores keep the record's own order, so the Slack message does not shuffle."""
    same = rank.posterior(0.7, 1, 0, 0)
    assert rank.order([same, same, same]) == [0, 1, 2]
    better = rank.posterior(0.9, 1, 0, 0)
    assert rank.order([same, better, same, better]) == [1, 3, 0, 2]
    assert rank.order([]) == []


def test_order_is_deterministic() -> None:
    """Same votes, same message: the rule must not be randomised."""
    posts = [rank.posterior(r, 3, u, d) for r, u, d in ((0.5, 2, 1), (0.8, 0, 1), (0.6, 1, 0))]
    assert rank.order(posts) == rank.order(list(posts))


def test_updated_evidence_count_adds_team_votes() -> None:
    """Export writes the record's reports plus every team vote."""
    assert rank.updated_evidence_count(1, 3, 2) == 6
    assert rank.updated_evidence_count(0, 0, 0) == 0


def test_record_fix_rate_uses_all_votes() -> None:
    """fix_success_rate starts at the record's value and follows the combined votes."""
    assert rank.record_fix_rate(0.85, 1, 0, 0) == pytest.approx(0.85)
    assert rank.record_fix_rate(0.85, 1, 0, 5) < 0.5
    assert rank.record_fix_rate(0.3, 1, 8, 0) > 0.75


def test_posterior_fields_and_bounds() -> None:
    """Posterior carries its votes and its pseudo-counts."""
    p = rank.posterior(0.6, 1, 4, 2)
    assert (p.votes_up, p.votes_down) == (4, 2)
    w = rank.prior_weight(1)
    assert p.alpha == pytest.approx(0.6 * w + 4)
    assert p.beta == pytest.approx(0.4 * w + 2)
    assert p.weight == pytest.approx(w + 6)
    empty = Posterior(alpha=0.0, beta=0.0)
    assert empty.mean == 0.5


rates = st.floats(min_value=-1.0, max_value=2.0, allow_nan=False)
counts = st.integers(min_value=0, max_value=100_000)
votes = st.integers(min_value=0, max_value=500)


@given(rate=rates, evidence=counts, up=votes, down=votes, extra=st.integers(1, 50))
def test_more_up_votes_never_lower_the_mean(rate: float, evidence: int, up: int, down: int, extra: int) -> None:
    """Monotonicity: a "worked" vote can only help a workaround; a "didn't work" only hurt."""
    base = rank.posterior(rate, evidence, up, down)
    assert rank.posterior(rate, evidence, up + extra, down).mean >= base.mean
    assert rank.posterior(rate, evidence, up, down + extra).mean <= base.mean
    assert rank.rank_score(rank.posterior(rate, evidence, up + extra, down)) >= rank.rank_score(base)


@given(rate=rates, evidence=counts, up=votes, down=votes)
def test_scores_stay_in_unit_interval(rate: float, evidence: int, up: int, down: int) -> None:
    """Every score is a probability, whatever the inputs."""
    p = rank.posterior(rate, evidence, up, down)
    assert 0.0 <= p.mean <= 1.0
    assert 0.0 <= rank.rank_score(p) <= 1.0

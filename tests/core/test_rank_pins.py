"""The prior's pseudo-counts in numbers of their own (#20): a record's rate is worth 3 team votes
with no evidence behind it, half a vote more per e-fold of evidence_count, never more than 4.5.
Changing any of the three moves how fast a new record's rates give way to the team's votes.
"""

from __future__ import annotations

import math

import pytest

from bot.core import rank


@pytest.mark.parametrize(
    ("evidence", "weight"),
    [
        (0, 3.0),
        (1, 3.0 + 0.5 * math.log(2)),  # 3.347
        (3, 3.0 + 0.5 * math.log(4)),  # 3.693
        (10, 3.0 + 0.5 * math.log(11)),  # 4.199
        (19, 3.0 + 0.5 * math.log(20)),  # 4.498: just under the cap
        (20, 4.5),  # 4.522 capped
        (10_000, 4.5),
    ],
)
def test_prior_weight(evidence: int, weight: float) -> None:
    assert rank.prior_weight(evidence) == pytest.approx(weight, abs=1e-9)


def test_three_failures_halve_an_untested_record_s_rate() -> None:
    """0.8 on no evidence is 2.4 of 3 pseudo-votes; three "didn't work" make it 2.4 / 6 = 0.4."""
    assert rank.posterior(0.8, 0, 0, 0).mean == pytest.approx(0.8)
    assert rank.posterior(0.8, 0, 0, 3).mean == pytest.approx(0.4)
    assert rank.posterior(0.8, 0, 3, 0).mean == pytest.approx((2.4 + 3) / 6)


def test_nine_of_ten_worked_beats_an_untouched_better_rate_whatever_the_evidence() -> None:
    """The cap: (0.6 * 4.5 + 9) / 14.5 = 0.807 > 0.8, even for a record claiming 10,000 reports."""
    voted = rank.posterior(0.6, 10_000, 9, 1)
    untouched = rank.posterior(0.8, 10_000, 0, 0)
    assert voted.mean == pytest.approx((0.6 * 4.5 + 9) / 14.5)
    assert rank.order([untouched, voted]) == [1, 0]


def test_a_rate_that_is_no_number_counts_as_one_half() -> None:
    assert rank.posterior("n/a", 0, 0, 0).mean == 0.5  # type: ignore[arg-type]
    assert rank.posterior(float("nan"), 0, 0, 0).mean == 0.5


@pytest.mark.parametrize("weight", [-2.0, float("nan"), float("inf")])
def test_a_prior_weight_that_is_no_weight_counts_as_none(weight: float) -> None:
    """Only the votes are left: one "worked" is a rate of 1."""
    assert rank.posterior_with_weight(0.8, weight, 1, 0).mean == 1.0


def test_the_record_fix_rate_uses_the_record_s_evidence() -> None:
    """evidence_count 100 caps the prior at 4.5 pseudo-votes: (0.6 * 4.5 + 2) / (4.5 + 3)."""
    assert rank.record_fix_rate(0.6, 100, 2, 1) == pytest.approx((0.6 * 4.5 + 2) / 7.5)


def test_counts_given_as_floats_are_counted_as_such() -> None:
    assert rank.posterior(0.8, 0, 2.0, 0).mean == pytest.approx((2.4 + 2) / 5)  # type: ignore[arg-type]
    assert rank.prior_weight(float("inf")) == 4.5  # type: ignore[arg-type]


def test_a_small_prior_weight_is_kept() -> None:
    assert rank.posterior_with_weight(0.8, 0.5, 0, 0).mean == pytest.approx(0.8)
    assert rank.posterior_with_weight(0.8, 0.5, 0, 1).mean == pytest.approx(0.4 / 1.5)

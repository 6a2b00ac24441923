"""The Wilson bounds the feedback simulation compares errfix's ranking rule with."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.rank_bounds import lower_bound, upper_bound
from bot.core import rank
from bot.core.rank import Posterior


def test_bounds_of_a_known_belief() -> None:
    # 3 of 4: mean 0.75; at one standard deviation Wilson gives 0.5 and 0.9 exactly
    p = Posterior(alpha=3.0, beta=1.0)
    assert lower_bound(p) == pytest.approx(0.5)
    assert upper_bound(p) == pytest.approx(0.9)
    assert lower_bound(p, z=2.0) < lower_bound(p) < p.mean < upper_bound(p) < upper_bound(p, z=2.0)


def test_no_information_bounds_nothing() -> None:
    empty = Posterior(alpha=0.0, beta=0.0)
    assert (lower_bound(empty), upper_bound(empty)) == (0.0, 1.0)


@given(
    rate=st.floats(min_value=-1.0, max_value=2.0, allow_nan=False),
    evidence=st.integers(min_value=0, max_value=100_000),
    up=st.integers(min_value=0, max_value=500),
    down=st.integers(min_value=0, max_value=500),
)
def test_the_mean_lies_between_the_bounds(rate: float, evidence: int, up: int, down: int) -> None:
    p = rank.posterior(rate, evidence, up, down)
    assert 0.0 <= lower_bound(p) <= p.mean <= upper_bound(p) <= 1.0

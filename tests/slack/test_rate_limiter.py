"""The unprompted budget: at most N answers per channel in any 60 s window (a sliding log).

Every number here is the test's own (#20): a 60 s window (not 6, not 600), counted per key, and
the N-th answer allowed while the (N+1)-th is not. Time comes from a fake clock, never a sleep.
"""

from __future__ import annotations

from bot.slack.middleware import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_is_exactly_n_per_window() -> None:
    clock = Clock()
    limiter = RateLimiter(3, clock)
    assert [limiter.take("C1") for _ in range(4)] == [True, True, True, False]
    assert limiter.full("C1")


def test_a_budget_of_one_allows_one() -> None:
    limiter = RateLimiter(1, Clock())
    assert not limiter.full("C1")
    assert limiter.take("C1")
    assert limiter.full("C1") and not limiter.take("C1")


def test_the_window_is_sixty_seconds() -> None:
    clock = Clock()
    limiter = RateLimiter(2, clock)
    assert limiter.take("C1") and limiter.take("C1")
    for later in (1.0, 6.0, 30.0, 59.0, 59.999):
        clock.now = 1000.0 + later
        assert limiter.full("C1"), f"budget back after {later} s"
        assert not limiter.take("C1")
    clock.now = 1060.0  # the first two answers leave the window exactly 60 s later
    assert not limiter.full("C1")
    assert limiter.take("C1") and limiter.take("C1") and not limiter.take("C1")


def test_the_window_slides_one_answer_at_a_time() -> None:
    clock = Clock()
    limiter = RateLimiter(2, clock)
    assert limiter.take("C1")  # t = 0
    clock.now += 30.0
    assert limiter.take("C1")  # t = 30
    clock.now += 30.0  # t = 60: only the first has left
    assert limiter.take("C1") and not limiter.take("C1")
    clock.now += 29.0  # t = 89: the one from t = 30 is still in
    assert not limiter.take("C1")
    clock.now += 1.0  # t = 90
    assert limiter.take("C1")


def test_each_channel_has_its_own_budget() -> None:
    clock = Clock()
    limiter = RateLimiter(1, clock)
    assert limiter.take("C1")
    assert limiter.full("C1")
    assert not limiter.full("C2") and limiter.take("C2")
    assert not limiter.full("C3")
    assert limiter.full("C1") and limiter.full("C2")


def test_refused_answers_use_nothing() -> None:
    clock = Clock()
    limiter = RateLimiter(1, clock)
    assert limiter.take("C1")
    clock.now += 59.0
    assert not limiter.take("C1")  # refused at t = 59: must not push the window on
    clock.now += 1.0
    assert limiter.take("C1")

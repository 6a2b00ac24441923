"""Wilson bounds on a rate's posterior: rules `feedback_sim.py` compares with errfix's, which errfix
itself does not use (bot/core/rank.py orders by the posterior mean; its docstring says why)."""

from __future__ import annotations

import math

from bot.core.rank import Posterior

DEFAULT_Z = 1.0
"""Width of the bound in standard deviations (~84% one-sided)."""


def lower_bound(p: Posterior, z: float = DEFAULT_Z) -> float:
    """Wilson lower bound of `p`'s mean: a rate we are fairly sure the truth exceeds.

    Wilson rather than mean - z*sd because it stays inside [0, 1] and is monotone in the mean
    for small n (a record prior is only a few pseudo-trials).
    """
    n = p.weight
    if n <= 0.0:
        return 0.0
    mean = p.mean
    z2 = z * z
    centre = mean + z2 / (2.0 * n)
    spread = z * math.sqrt(max(0.0, mean * (1.0 - mean) / n + z2 / (4.0 * n * n)))
    # the bound never exceeds the mean; clamp the rounding error at p = 0 or 1
    return min(mean, max(0.0, (centre - spread) / (1.0 + z2 / n)))


def upper_bound(p: Posterior, z: float = DEFAULT_Z) -> float:
    """Wilson upper bound of `p`'s mean: the lower bound of the flipped belief, mirrored."""
    return 1.0 - lower_bound(Posterior(p.beta, p.alpha), z)

"""Success rates that learn from the team's votes, and the order workarounds are shown in.

Why: a record's ``success_rate`` / ``fail_rate`` / ``fix_success_rate`` come from elsewhere
(often AI-generated, ``evidence_count`` reports behind them). They are a fair first guess but
must give way to what *this* team observes. So each rate is a Beta prior and the team's votes
are Bernoulli evidence on top of it.

Formula (p = record rate clamped to [0, 1], e = record ``evidence_count``, u/d = team votes)::

    n0(e)      = min(PRIOR_CAP, PRIOR_BASE + PRIOR_PER_LOG_EVIDENCE * ln(1 + e))
               = min(4.5, 3 + 0.5 * ln(1 + e))     # 3.0 @ e=0, 3.35 @ 1, 4.2 @ 10, 4.5 @ >=19
    alpha      = n0 * p + u
    beta       = n0 * (1 - p) + d
    mean       = alpha / (alpha + beta)
    rank_score = mean                               # posterior mean

Why n0 grows like log(e) and is capped at 4.5: more reports should make a record harder to
overturn, but the reports behind public/AI records are neither independent nor about *our*
setup, so no record is worth more than ~4.5 team votes. The cap is what lets 9 "worked" of 10
on a 0.6 workaround beat an untouched 0.8 one whatever evidence_count says ((0.6*n0+9)/(n0+10)
> 0.8 needs n0 < 5). It also matches the simulated record error (±0.3 uniform, sd 0.17: about
the spread of a Beta with 3-6 pseudo-counts at p = 0.7-0.85). In the simulation's sweep any n0
between 4 and 8 gives the same regret within noise; 1-2 is clearly worse (votes too jumpy).

Why this rule (posterior mean, deterministic): in ``bench/feedback_sim.py`` (records with 2-5
workarounds, record rates off by up to ±0.3, users try the top one, 10% of votes flipped) it
puts the truly best workaround first for good after a median of 2 votes (target <= 10) and has
regret@50 of 1.44 vs 1.86 for static record rates and 3.26-4.26 for raw vote share. The Wilson
lower bound (bench/rank_bounds.py) is worse (1.62: it keeps a proven-but-mediocre fix on top because untried ones
never get tried), the Wilson upper bound ties on regret but explores so much that the best is
first for good only after a median 24 votes, and Thompson sampling (2.82) reshuffles the Slack
message on every render. When record rates are accurate or votes very noisy (20% flipped) the
posterior mean only ties static rates; it never did clearly worse. Figures: the README section
"How votes change the ranking".

Dead ends use the same machinery for ``fail_rate``: there "up" means a report that the dead end
did fail, "down" one that it worked. A "didn't work" on a *workaround* is not a vote on a dead
end; mapping votes to the right rate is the caller's job. ``record_fix_rate`` takes the sums of
all votes on the record's workarounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PRIOR_BASE = 3.0
"""Pseudo-count of a record with no evidence: a guess, worth three votes."""
PRIOR_PER_LOG_EVIDENCE = 0.5
"""Extra pseudo-count per e-fold of evidence_count: diminishing returns for more reports."""
PRIOR_CAP = 4.5
"""Upper bound on the prior's pseudo-count, whatever evidence_count claims."""

_MAX_COUNT = 10**300  # larger ints cannot be turned into floats; far beyond the cap anyway


def _count(value: int) -> int:
    """Votes/evidence as a non-negative int: negative or garbage counts mean "none"."""
    if isinstance(value, float) and value == math.inf:
        return _MAX_COUNT
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
    return max(0, number)


def _rate(value: float) -> float:
    """Rate clamped into [0, 1]; NaN (or a non-number) becomes the uninformative 0.5."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.5
    if math.isnan(number):
        return 0.5
    return min(1.0, max(0.0, number))


@dataclass(frozen=True)
class Posterior:
    """Beta(alpha, beta) belief about one rate, plus the team votes it includes."""

    alpha: float
    beta: float
    votes_up: int = 0
    votes_down: int = 0

    @property
    def weight(self) -> float:
        """Total pseudo-trials (prior weight plus votes): how sure the belief is."""
        return max(0.0, self.alpha) + max(0.0, self.beta)

    @property
    def mean(self) -> float:
        """Expected rate; 0.5 when there is no information at all."""
        n = self.weight
        if n <= 0.0:
            return 0.5
        return max(0.0, self.alpha) / n


def prior_weight(evidence_count: int) -> float:
    """Pseudo-count the record's rate is worth: grows like log(evidence), never above the cap."""
    e = min(_count(evidence_count), _MAX_COUNT)
    return min(PRIOR_CAP, PRIOR_BASE + PRIOR_PER_LOG_EVIDENCE * math.log1p(e))


def posterior_with_weight(prior_rate: float, weight: float, up: int, down: int) -> Posterior:
    """Beta posterior for an explicit prior pseudo-count (`posterior` with prior_weight; the
    simulation's sweeps pass others)."""
    p = _rate(prior_rate)
    n0 = weight if math.isfinite(weight) and weight > 0.0 else 0.0
    u, d = _count(up), _count(down)
    return Posterior(alpha=n0 * p + u, beta=n0 * (1.0 - p) + d, votes_up=u, votes_down=d)


def posterior(prior_rate: float, evidence_count: int, up: int, down: int) -> Posterior:
    """Belief about a rate after the team's votes: record rate as a bounded prior, votes on top."""
    return posterior_with_weight(prior_rate, prior_weight(evidence_count), up, down)


def rank_score(p: Posterior) -> float:
    """Score workarounds are ordered by: the posterior mean (see module docstring for why)."""
    return p.mean


def order(posteriors: Sequence[Posterior]) -> list[int]:
    """Indices best first; ties keep the record's own order (Python's sort is stable)."""
    scores = [rank_score(p) for p in posteriors]
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def updated_evidence_count(evidence_count: int, up: int, down: int) -> int:
    """Evidence count export writes: the record's reports plus every team vote.

    A re-imported export already contains these votes: start its vote tallies from zero.
    """
    return _count(evidence_count) + _count(up) + _count(down)


def record_fix_rate(prior: float, evidence_count: int, up: int, down: int) -> float:
    """Updated ``fix_success_rate``: the record prior plus all votes on all its workarounds."""
    return posterior(prior, evidence_count, up, down).mean

"""Simulate team feedback to choose how errfix ranks workarounds (bot/core/rank.py).

Why: the rule that orders workarounds decides which fix people try first, and so which votes
come in. This replays many synthetic records through each candidate rule and measures how fast
the truly best workaround reaches the top of the Slack message and how many failed attempts
people suffer on the way.

World (one per run, identical for every policy so comparisons are paired):
  * 2-5 workarounds, hidden true success probability ~ U(0.05, 0.95) each;
  * record rate = truth + U(-0.3, 0.3), clamped to [0, 1] ("flat" error model), or, with
    ``--error-model evidence``, an error bound that shrinks as evidence_count grows;
  * evidence_count drawn from {0, 1, 3, 10, 100, 10000}.
Each step one user tries the workaround ranked first and votes "worked" with its true
probability; ``--flip`` (10%) of votes are then flipped at random. The uniform draw behind
each vote is shared across policies (common random numbers).

Metrics per policy, over ``--runs`` runs:
  * votes until the truly best workaround is first and stays first up to ``--horizon``
    (median over all runs, and over the runs where the record's own rates put a wrong one first);
  * share of runs where that happened within 10 votes;
  * mean cumulative regret after ``--regret-at`` votes: sum of (best p - tried p).

Deciding figure: the wrong-first runs (where the record's own rates put a worse workaround
first), which is what learning from votes is for; most other runs need no votes at all. Targets,
printed per error model: in the wrong-first runs the chosen rule's regret@N is below static record
rates' (paired, beyond 2 standard errors), and over all runs it is not worse than them. The run
exits 1 when a target is missed.

Run: ``python bench/feedback_sim.py [--runs 2000] [--seed 1] [--sweep]``; stdlib only.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rank_bounds import lower_bound, upper_bound  # noqa: E402
from bot.core import rank  # noqa: E402

EVIDENCE_COUNTS = (0, 1, 3, 10, 100, 10000)
PRIOR_ERROR = 0.3

Key = tuple[float, ...]


@dataclass(frozen=True)
class World:
    """One synthetic record: hidden truth, what the record claims, and how much it claims."""

    truth: tuple[float, ...]
    prior: tuple[float, ...]
    evidence: int
    draws: tuple[float, ...]  # one uniform per step: vote = worked if draw < P(worked)
    flips: tuple[float, ...]  # one uniform per step: flip the vote if below --flip


@dataclass(frozen=True)
class State:
    """What a ranking rule may look at: the record and the team's votes so far."""

    prior: tuple[float, ...]
    evidence: int
    up: list[int]
    down: list[int]


Scorer = Callable[[State, int, random.Random], Key]
"""Sort key of workaround i (higher = shown earlier); ties keep record order."""


def make_world(rng: random.Random, horizon: int, error_model: str) -> World:
    """Draw a record whose rates are noisy, evidence-weighted guesses of the hidden truth."""
    k = rng.randint(2, 5)
    truth = tuple(rng.uniform(0.05, 0.95) for _ in range(k))
    evidence = rng.choice(EVIDENCE_COUNTS)
    bound = PRIOR_ERROR
    if error_model == "evidence":  # more reports -> more accurate rates (0.3 at 0, ~0.07 at 1e4)
        bound = PRIOR_ERROR / (1.0 + math.log1p(evidence) / 3.0)
    prior = tuple(min(1.0, max(0.0, t + rng.uniform(-bound, bound))) for t in truth)
    draws = tuple(rng.random() for _ in range(horizon))
    flips = tuple(rng.random() for _ in range(horizon))
    return World(truth, prior, evidence, draws, flips)


# ---- ranking rules -----------------------------------------------------------------------


def static(s: State, i: int, _: random.Random) -> Key:
    """Baseline: the record's rates, votes ignored."""
    return (s.prior[i],)


def share_untried_first(s: State, i: int, _: random.Random) -> Key:
    """Baseline: raw up/(up+down); untried workarounds first (by record rate)."""
    n = s.up[i] + s.down[i]
    return (1.0, s.prior[i]) if n == 0 else (0.0, s.up[i] / n, s.prior[i])


def share_half(s: State, i: int, _: random.Random) -> Key:
    """Baseline: raw up/(up+down); untried count as 0.5 (record rate breaks ties)."""
    n = s.up[i] + s.down[i]
    return (0.5 if n == 0 else s.up[i] / n, s.prior[i])


def post(s: State, i: int, weight: float | None) -> rank.Posterior:
    """Posterior with rank.py's prior weight, or an explicit one for the sweep."""
    if weight is None:
        return rank.posterior(s.prior[i], s.evidence, s.up[i], s.down[i])
    return rank.posterior_with_weight(s.prior[i], weight, s.up[i], s.down[i])


def mean_rule(weight_fn: Callable[[int], float] | None = None) -> Scorer:
    """Posterior mean (greedy on the best estimate)."""

    def score(s: State, i: int, _: random.Random) -> Key:
        w = None if weight_fn is None else weight_fn(s.evidence)
        return (post(s, i, w).mean,)

    return score


def lcb_rule(z: float, weight_fn: Callable[[int], float] | None = None) -> Scorer:
    """Wilson lower bound (prefers proven fixes)."""

    def score(s: State, i: int, _: random.Random) -> Key:
        w = None if weight_fn is None else weight_fn(s.evidence)
        return (lower_bound(post(s, i, w), z),)

    return score


def ucb_rule(z: float) -> Scorer:
    """Wilson upper bound (optimism: tries uncertain fixes first), deterministic."""

    def score(s: State, i: int, _: random.Random) -> Key:
        return (upper_bound(post(s, i, None), z),)

    return score


def thompson(s: State, i: int, rng: random.Random) -> Key:
    """Thompson sampling: a random draw from each posterior (a new order on every render)."""
    p = post(s, i, None)
    return (rng.betavariate(max(p.alpha, 1e-9), max(p.beta, 1e-9)),)


# ---- simulation --------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """Per-run result of one rule."""

    settle: float  # votes until the best is first for good; inf if not first at the horizon
    regret: float
    prior_top_wrong: bool


def rank_order(score: Scorer, s: State, rng: random.Random) -> list[int]:
    """Indices best first, stable on ties (as rank.order)."""
    keys = [score(s, i, rng) for i in range(len(s.prior))]
    return sorted(range(len(keys)), key=lambda i: tuple(-x for x in keys[i]))


def simulate(world: World, score: Scorer, flip: float, regret_at: int, seed: int) -> Outcome:
    """Replay one record's feedback loop under one rule."""
    rng = random.Random(seed)
    best = max(range(len(world.truth)), key=lambda i: world.truth[i])
    s = State(world.prior, world.evidence, [0] * len(world.truth), [0] * len(world.truth))
    top_is_best: list[bool] = []
    regret = 0.0
    for step, (draw, flip_draw) in enumerate(zip(world.draws, world.flips, strict=True)):
        tried = rank_order(score, s, rng)[0]
        top_is_best.append(tried == best)
        if step < regret_at:
            regret += world.truth[best] - world.truth[tried]
        worked = draw < world.truth[tried]
        if flip_draw < flip:
            worked = not worked
        if worked:
            s.up[tried] += 1
        else:
            s.down[tried] += 1
    top_is_best.append(rank_order(score, s, rng)[0] == best)
    settle = math.inf
    if top_is_best[-1]:
        settle = float(len(top_is_best) - 1)
        while settle > 0 and top_is_best[int(settle) - 1]:
            settle -= 1
    prior_top = max(range(len(world.prior)), key=lambda i: (world.prior[i], -i))
    return Outcome(settle, regret, prior_top != best)


def fmt_median(values: Sequence[float], horizon: int) -> str:
    """Median, shown as '>H' when most runs never settled."""
    if not values:
        return "-"
    m = statistics.median_low(sorted(values))
    return f">{horizon}" if math.isinf(m) else f"{m:.0f}"


def report(outcomes: Sequence[Outcome], reference: Sequence[Outcome], horizon: int) -> str:
    """One table row's figures; the last column is paired against the reference rule."""
    wrong = [o for o in outcomes if o.prior_top_wrong]
    med_all = fmt_median([o.settle for o in outcomes], horizon)
    med_wrong = fmt_median([o.settle for o in wrong], horizon)
    within_all = sum(o.settle <= 10 for o in outcomes) / len(outcomes)
    within_wrong = sum(o.settle <= 10 for o in wrong) / max(1, len(wrong))
    regret = statistics.fmean(o.regret for o in outcomes)
    regret_wrong = statistics.fmean(o.regret for o in wrong) if wrong else math.nan
    diffs = [o.regret - r.regret for o, r in zip(outcomes, reference, strict=True)]
    delta = statistics.fmean(diffs)
    two_se = 2.0 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return (
        f"{med_all:>7} {med_wrong:>7} {within_all:>8.0%} {within_wrong:>8.0%} "
        f"{regret:>8.2f} {regret_wrong:>8.2f} {delta:>+7.2f} ±{two_se:.2f}"
    )


def paired(outcomes: Sequence[Outcome], reference: Sequence[Outcome], wrong_only: bool) -> tuple[float, float]:
    """Mean regret difference against the reference rule on the same worlds, and 2 standard errors."""
    diffs = [
        o.regret - r.regret for o, r in zip(outcomes, reference, strict=True) if r.prior_top_wrong or not wrong_only
    ]
    if len(diffs) < 2:
        return (statistics.fmean(diffs) if diffs else 0.0), 0.0
    return statistics.fmean(diffs), 2.0 * statistics.stdev(diffs) / math.sqrt(len(diffs))


def verdict(
    chosen: Sequence[Outcome], static_rates: Sequence[Outcome], model: str, min_gain: float = 0.0
) -> tuple[bool, list[str]]:
    """The targets the chosen rule must meet against not learning at all (static record rates).

    Deciding: in the wrong-first runs (where learning is for) its regret@N is lower than static
    rates' beyond 2 standard errors of the paired difference. Overall: it is not worse than static
    rates beyond 2 standard errors.
    """
    wrong_delta, wrong_se = paired(chosen, static_rates, wrong_only=True)
    all_delta, all_se = paired(chosen, static_rates, wrong_only=False)
    wrong_ok = wrong_delta + wrong_se < -min_gain
    all_ok = all_delta - all_se <= 0.0
    lines = [
        f"target [{model}] wrong-first runs (deciding): chosen regret - static {wrong_delta:+.2f} ±{wrong_se:.2f} "
        f"< {-min_gain:g}: {'met' if wrong_ok else 'MISSED'}",
        f"target [{model}] all runs: chosen regret - static {all_delta:+.2f} ±{all_se:.2f} not above 0: "
        f"{'met' if all_ok else 'MISSED'}",
    ]
    return wrong_ok and all_ok, lines


def run_policies(
    policies: Sequence[tuple[str, Scorer]], args: argparse.Namespace, error_model: str
) -> list[tuple[str, list[Outcome]]]:
    """Simulate every policy on the same worlds and print a table (first policy = reference)."""
    worlds = [make_world(random.Random(args.seed * 1_000_003 + r), args.horizon, error_model) for r in range(args.runs)]
    wrong = sum(
        max(range(len(w.prior)), key=lambda i: (w.prior[i], -i)) != max(range(len(w.truth)), key=lambda i: w.truth[i])
        for w in worlds
    )
    print(
        f"\nerror model: {error_model}; runs={args.runs} seed={args.seed} flip={args.flip} "
        f"horizon={args.horizon}; record puts a wrong workaround first in {wrong} runs "
        f"({wrong / len(worlds):.0%})"
    )
    at = str(args.regret_at)
    print(f"{'':<27}{'median votes':^15} {'best first <=10':^17} {'regret@' + at:^17} {'regret - row 1':>14}")
    header = (
        f"{'policy':<27}{'all':>7} {'wrong':>7} {'all':>8} {'wrong':>8} {'all':>8} {'wrong':>8} {'(paired, 2se)':>14}"
    )
    print(header)
    print("-" * len(header))
    results = [
        (
            name,
            [simulate(w, score, args.flip, args.regret_at, args.seed * 7919 + r) for r, w in enumerate(worlds)],
        )
        for name, score in policies
    ]
    for name, outcomes in results:
        print(f"{name:<27}{report(outcomes, results[0][1], args.horizon)}")
    print(
        "('wrong' = runs where the record's own rates put a worse workaround first; "
        f"'>{args.horizon}' = not first for good within the horizon)"
    )
    ref = results[0][1]
    print(f"wrong-first runs, the deciding figure: regret@{at} minus row 1's, paired on the same worlds")
    for name, outcomes in results[1:]:
        delta, se = paired(outcomes, ref, wrong_only=True)
        print(f"  {name:<27}{delta:>+7.2f} ±{se:.2f}")
    return results


def weight_fn(base: float, per_log: float, cap: float) -> Callable[[int], float]:
    """Prior pseudo-count min(cap, base + per_log * ln(1 + e)) for the sweep."""
    return lambda e: min(cap, base + per_log * math.log1p(e))


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the comparison (and optionally the prior-weight sweep)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=2000, help="records simulated per table")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--horizon", type=int, default=100, help="votes per record")
    ap.add_argument("--regret-at", type=int, default=50, help="votes counted in regret")
    ap.add_argument("--flip", type=float, default=0.1, help="share of votes flipped")
    ap.add_argument(
        "--error-model",
        choices=("flat", "evidence", "both"),
        default="both",
        help="record-rate error: flat ±0.3, or shrinking with evidence_count",
    )
    ap.add_argument("--sweep", action="store_true", help="also sweep the prior weight")
    ap.add_argument(
        "--min-gain",
        type=float,
        default=0.0,
        help="regret the chosen rule must save over static rates in wrong-first runs",
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()

    policies: list[tuple[str, Scorer]] = [
        ("posterior mean [chosen]", mean_rule()),
        ("static record rates", static),
        ("vote share, untried first", share_untried_first),
        ("vote share, untried 0.5", share_half),
        ("Wilson lower bound z=1", lcb_rule(1.0)),
        ("Wilson upper bound z=1", ucb_rule(1.0)),
        ("Thompson (randomised)", thompson),
    ]
    models = ("flat", "evidence") if args.error_model == "both" else (args.error_model,)
    met = True
    targets: list[str] = []
    for model in models:
        results = dict(run_policies(policies, args, model))
        ok, lines = verdict(results["posterior mean [chosen]"], results["static record rates"], model, args.min_gain)
        met &= ok
        targets += lines

    if args.sweep:
        sweep: list[tuple[str, Scorer]] = []
        for base, per_log, cap in (
            (rank.PRIOR_BASE, rank.PRIOR_PER_LOG_EVIDENCE, rank.PRIOR_CAP),
            (1.0, 0.0, 1.0),
            (2.0, 0.0, 2.0),
            (4.5, 0.0, 4.5),
            (8.0, 0.0, 8.0),
            (2.0, 1.0, 8.0),
            (2.0, 1.0, 1e9),
        ):
            label = f"mean n0={base:g}+{per_log:g}ln,cap{cap:g}"
            sweep.append((label, mean_rule(weight_fn(base, per_log, cap))))
        for model in models:
            run_policies(sweep, args, model)
    print()
    print("\n".join(targets))
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

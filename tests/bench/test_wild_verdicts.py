"""bench/wild_bench.py's choice of verdict for a (paste, record) pair judged more than once."""

import json
from pathlib import Path

import pytest

import bench.wild_bench as wb


def test_a_rewording_judgment_replaces_the_pairs_earlier_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict is on the words the judge read: once the record is reworded and the pair judged
    again, the new verdict counts, over the file's earlier one and over the row's own."""
    lines = [
        {"id": "p1", "record": "r", "verdict": "generic", "judge": "a"},
        {"id": "p1", "record": "r", "verdict": "wrong", "judge": "b"},
        {"id": "p2", "record": "r", "verdict": "generic", "judge": "a"},
        {"id": "p2", "record": "r", "verdict": "specific", "judge": "c", "rewording": "abc1234"},
        {"id": "p3", "record": "r", "verdict": "specific", "judge": "c", "rewording": "abc1234"},
    ]
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    monkeypatch.setattr(wb, "JUDGMENTS", path)
    rows = [{"id": "p3", "judged": [{"record": "r", "verdict": "generic"}]}]
    got = {k: v["verdict"] for k, v in wb.verdicts(rows).items()}
    assert got == {("p1", "r"): "generic", ("p2", "r"): "specific", ("p3", "r"): "specific"}

"""Fixtures and checks the CLI tests share: a seeded database, the shape of a match result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_db, full, invoke, minimal, write_jsonl

NAN_PASTE = "RuntimeError: Loss is NaN or Inf at step 1000"


@pytest.fixture(scope="session")
def cli_template(tmp_path_factory: pytest.TempPathFactory, seeded_template: Path) -> Path:
    """The seeded template plus two records of our own through `errfix import`, once per test
    process (55 tests start from it); tests get a copy, never this file."""
    base = tmp_path_factory.mktemp("seeded")
    db = copy_db(seeded_template, base / "seeded.db")
    own_a = full("own/a", signature="OwnError: the team's own error", regex="OwnError: the team")
    r = invoke("import", write_jsonl(base / "own.jsonl", [own_a, minimal("own/b")]), "--db", db)
    assert r.code == 0, r.err
    return db


@pytest.fixture
def seeded_db(tmp_path: Path, cli_template: Path) -> Path:
    """A database with the bundled seeds and two records of our own (a copy: write freely)."""
    return copy_db(cli_template, tmp_path / "seeded.db")


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and 'File "' not in err, err


def check_match_shape(result: dict[str, Any]) -> None:
    assert isinstance(result["is_error"], bool) and isinstance(result["reply"], bool)
    assert isinstance(result["matches"], list)
    scores = [m["score"] for m in result["matches"]]
    assert scores == sorted(scores, reverse=True)
    for m in result["matches"]:
        assert {"id", "score", "signature", "root_cause", "workarounds", "dead_ends"} <= set(m)
        assert isinstance(m["id"], str) and isinstance(m["signature"], str) and isinstance(m["root_cause"], str)
        assert isinstance(m["score"], float | int) and 0.0 <= m["score"] <= 1.0
        assert isinstance(m["dead_ends"], list)
        for w in m["workarounds"]:
            assert {"action", "how", "success_rate", "votes_up", "votes_down"} <= set(w)
            assert 0.0 <= w["success_rate"] <= 1.0
            assert isinstance(w["votes_up"], int) and isinstance(w["votes_down"], int)

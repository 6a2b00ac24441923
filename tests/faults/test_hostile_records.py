"""Import and sync refuse regexes production cannot run safely (#14.2, #14.3): one that compiles
in no engine, or one RE2 rejects and the backtracking fallback stalls on. Exit 2 with
`file:line: id: regex: message`, nothing written; `--skip-invalid` skips them with a warning."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.store import open_store
from tests.conftest import PROBLEM_LINE, CliRunner, db_state, minimal, write_jsonl
from tests.ops.conftest import Upstream, upstream  # noqa: F401 - fixture

CATASTROPHIC = r"^(?=(a+)+$)a{0,9}"  # RE2 rejects the look-ahead; `regex` backtracks for ever


def valid(n: int) -> list[dict[str, str]]:
    return [minimal(f"ok/{k}") for k in range(n)]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("([a-", "regex does not compile"),
        ("(", "regex does not compile"),
        (CATASTROPHIC, "backtrack catastrophically"),
    ],
    ids=["unclosed-class", "open-paren", "catastrophic"],
)
def test_one_bad_regex_among_a_thousand_writes_nothing(
    tmp_path: Path, cli: CliRunner, db: Path, bad: str, message: str
) -> None:
    records = [*valid(500), minimal("bad/one", regex=bad, signature="aaaa"), *valid(1000)[500:]]
    path = write_jsonl(tmp_path / "in.jsonl", records)
    before = db_state(db)
    r = cli("import", path, "--db", db)
    assert r.code == 2
    problem = next(line for line in r.err_lines if "bad/one" in line)
    found = re.match(PROBLEM_LINE, problem)
    assert found is not None, problem
    assert (found["file"], found["line"], found["id"], found["field"]) == (str(path), "501", "bad/one", "regex")
    assert message in found["msg"]
    assert db_state(db) == before  # no database, or the same one: nothing written


def test_skip_invalid_imports_the_rest_with_a_warning(tmp_path: Path, cli: CliRunner, db: Path) -> None:
    records = [*valid(20), minimal("bad/open", regex="("), minimal("bad/evil", regex=CATASTROPHIC, signature="aaa")]
    r = cli("import", write_jsonl(tmp_path / "in.jsonl", records), "--db", db, "--skip-invalid")
    assert r.code == 0, r.err
    skipped = [line for line in r.err_lines if line.startswith("skipped: ")]
    assert len(skipped) == 2 and any("bad/open: regex:" in s for s in skipped)
    assert cli("show", "ok/3", "--db", db).code == 0
    assert cli("show", "bad/open", "--db", db).code != 0


def test_a_regex_only_the_fallback_runs_and_runs_safely_is_imported(tmp_path: Path, cli: CliRunner, db: Path) -> None:
    record = minimal("fine/lookbehind", regex=r"(?<=Error: )disk full", signature="Error: disk full")
    assert cli("import", write_jsonl(tmp_path / "in.jsonl", [record]), "--db", db).code == 0


async def test_sync_refuses_the_same_and_skip_invalid_writes_the_rest(
    upstream: Upstream,  # noqa: F811 - the fixture
    db: Path,
    cli: CliRunner,
) -> None:
    upstream.serve_records([*valid(30), minimal("up/evil", regex=CATASTROPHIC, signature="aaaa")])
    open_store(str(db)).close()  # the seeded store a sync starts from
    before = db_state(db)
    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db)
    assert r.code == 2 and "nothing was written" in r.err_lines[-1]
    assert any(line.startswith(f"{upstream.url()}:31: up/evil: regex: ") for line in r.err_lines), r.err
    assert db_state(db) == before

    r = await asyncio.to_thread(cli, "sync", upstream.url(), "--db", db, "--skip-invalid")
    assert r.code == 0, r.err
    assert "30 added" in r.out
    assert any(line.startswith("warning: skipped: ") and "up/evil" in line for line in r.err_lines), r.err

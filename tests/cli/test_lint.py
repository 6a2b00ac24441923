"""`errfix lint PATH…`: one line per problem and exit 2, `--db` for links, the bundled seeds clean."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

from bot.core.records import Record
from bot.store import open_store
from tests.conftest import Cli
from tests.store.test_lint import SEEDS, good, redis_record, timeout_record, write

# ---- the command ---------------------------------------------------------------------------------


def test_cli_reports_one_line_per_problem_and_exits_2(tmp_path: Path, cli: Cli) -> None:
    write(tmp_path / "bad.json", good("test/bad", dead_ends=[], resolvable="yes"))
    write(tmp_path / "ok.json", good("test/ok"))
    code, out, err = astuple(cli("lint", tmp_path))
    assert code == 2
    lines = out.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"{tmp_path / 'bad.json'}:1: test/bad: ") for line in lines)
    assert "2 records, 2 problem(s)" in err


def test_cli_clean_files_exit_0(tmp_path: Path, cli: Cli) -> None:
    write(tmp_path / "ok.json", good("test/ok"))
    assert astuple(cli("lint", tmp_path)) == (0, "1 records, no problems\n", "")


def test_cli_db_links(tmp_path: Path, cli: Cli) -> None:
    rec = write(tmp_path / "recs" / "a.json", good("test/a", transition_graph={"leads_to": ["team/other"]}))
    code, out, _ = astuple(cli("lint", rec))
    assert code == 2 and "unknown id 'team/other'" in out

    db = tmp_path / "team.db"
    store = open_store(db, seed=False)
    store.import_records([Record.model_validate(good("team/other"))])
    store.close()
    assert astuple(cli("lint", rec, "--db", db))[:2] == (0, "1 records, no problems\n")


def test_cli_db_records_examples_count(tmp_path: Path, cli: Cli) -> None:
    """A regex that matches a database record's example is reported only with `--db`."""
    rec = write(tmp_path / "recs" / "loose.json", timeout_record("test/any-timeout"))
    assert astuple(cli("lint", rec))[:2] == (0, "1 records, no problems\n")

    db = tmp_path / "team.db"
    store = open_store(db, seed=False)
    store.import_records([Record.model_validate(redis_record("team/redis-timeout"))])
    store.close()
    code, out, _ = astuple(cli("lint", rec, "--db", db))
    assert code == 2
    assert out.startswith(f"{rec}:1: test/any-timeout: regex also matches team/redis-timeout's example ")


def test_cli_db_that_does_not_exist_is_not_created(tmp_path: Path, cli: Cli) -> None:
    rec = write(tmp_path / "a.json", good("test/a"))
    code, _, err = astuple(cli("lint", rec, "--db", tmp_path / "nope.db"))
    assert code == 2 and "no such database" in err
    assert not (tmp_path / "nope.db").exists()


def test_cli_missing_path(tmp_path: Path, cli: Cli) -> None:
    code, _, err = astuple(cli("lint", tmp_path / "missing"))
    assert code == 2 and "no such file or folder" in err


def test_lint_has_help(cli: Cli) -> None:
    r = cli("lint", "--help")
    assert r.code == 0 and "quality problems" in r.out


def test_bundled_seeds_are_clean(cli: Cli) -> None:
    """`errfix lint seeds/` reports nothing: the acceptance check of the seeds issue (#37: no regex
    matches chat or another record's examples unless it says it is generic or a confused-with pair)."""
    code, out, err = astuple(cli("lint", SEEDS))
    assert code == 0, out + err
    assert out.endswith("records, no problems\n")

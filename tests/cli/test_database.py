"""`errfix import`, `export` and `stats`: all-or-nothing imports, one clear line per bad file.

Most tests run the CLI in-process through click's CliRunner (fast); the ones about stderr and
tracebacks, and the issue's done-when check, run `python -m bot` in a subprocess, the real entry point.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core.records import Record
from bot.core.views import workaround_key
from bot.store.store import Store
from tests.cli.conftest import NAN_PASTE, check_match_shape, no_traceback
from tests.conftest import (
    CORPUS_SIZE,
    PROBLEM_LINE,
    SEED_ID,
    Cli,
    db_state,
    full,
    minimal,
    run_module,
    write_json,
    write_jsonl,
)

SUMMARY = re.compile(r"^errfix: \d+ problem\(s\) in the records; nothing was written$")


# ---- import: all or nothing ---------------------------------------------------------------------


def _mixed_files(tmp_path: Path) -> tuple[list[Path], list[str], list[str]]:
    """Two files with valid and invalid records: (paths, valid ids, expected problem lines)."""
    a = write_jsonl(
        tmp_path / "in" / "a.jsonl",
        [
            minimal("new/1"),
            minimal("new/2", workarounds=[{"action": "x", "success_rate": "0.5"}], evidence_count=-1),
            minimal("new/3"),
            full("new/4"),
        ],
    )
    b = write_json(tmp_path / "in" / "b.json", [minimal("new/5"), minimal("new/6", first_seen="last tuesday")])
    b_second_line = [n for n, line in enumerate(b.read_text().split("\n"), 1) if line == "  {"][1]
    problems = [
        f"{a}:2: new/2: workarounds.0.success_rate: Input should be a valid number",
        f"{a}:2: new/2: evidence_count: Input should be greater than or equal to 0",
        f"{b}:{b_second_line}: new/6: first_seen: Value error, not an ISO date: 'last tuesday'",
    ]
    return [a, b], ["new/1", "new/3", "new/4", "new/5"], problems


def test_one_invalid_record_and_nothing_is_written(tmp_path: Path, cli: Cli, seeded_db: Path) -> None:
    paths, _, problems = _mixed_files(tmp_path)
    before = db_state(seeded_db)
    r = cli("import", *paths, "--db", seeded_db)
    assert r.code == 2
    assert r.err_lines[:-1] == problems
    assert SUMMARY.match(r.err_lines[-1])
    for line in r.err_lines[:-1]:
        assert re.match(PROBLEM_LINE, line), line
    assert r.out == ""
    assert db_state(seeded_db) == before


def test_a_refused_import_does_not_create_the_database(tmp_path: Path, cli: Cli) -> None:
    paths, _, _ = _mixed_files(tmp_path)
    db = tmp_path / "never.db"
    assert cli("import", *paths, "--db", db).code == 2
    assert not db.exists()


def test_skip_invalid_imports_the_valid_ones_and_lists_the_rest(tmp_path: Path, cli: Cli, seeded_db: Path) -> None:
    paths, valid, problems = _mixed_files(tmp_path)
    before = db_state(seeded_db)
    assert before is not None
    r = cli("import", "--skip-invalid", *paths, "--db", seeded_db)
    assert r.code == 0
    assert r.err_lines == [f"skipped: {p}" for p in problems]
    assert r.out.splitlines() == [
        "imported 4 record(s): 4 added, 0 changed, 0 unchanged, 0 removed",
        "3 problem(s) skipped",
    ]
    store = Store(seeded_db)
    try:
        assert all(store.has(rid) for rid in valid)
        assert not store.has("new/2") and not store.has("new/6")
        assert store.count() == before.records + 4
    finally:
        store.close()


def test_records_that_are_not_software_errors_import_counted_and_named(
    tmp_path: Path, cli: Cli, seeded_db: Path
) -> None:
    recs = [full("visa/a", domain="visa"), full("team/ok"), full("safety/b", domain="safety")]
    r = cli("import", write_jsonl(tmp_path / "mixed.jsonl", recs), "--db", seeded_db)
    assert r.code == 0
    assert r.out.strip() == (
        "imported 3 record(s): 3 added, 0 changed, 0 unchanged, 0 removed; "
        "2 not software errors, never an answer to a paste: safety/b, visa/a"
    )


def test_duplicate_ids_in_one_import_are_an_error(tmp_path: Path, cli: Cli, seeded_db: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [minimal("dup/x"), minimal("dup/y")])
    b = write_json(tmp_path / "b.json", minimal("dup/x", root_cause="the other one"))
    before = db_state(seeded_db)
    r = cli("import", a, b, "--db", seeded_db)
    assert r.code == 2
    assert r.err_lines[0] == f"{b}:1: dup/x: id: duplicate id (first at {a}:1)"
    assert db_state(seeded_db) == before


def test_reimport_is_an_idempotent_upsert_that_keeps_votes(tmp_path: Path, cli: Cli, seeded_db: Path) -> None:
    path = write_jsonl(tmp_path / "team.jsonl", [full("team/nan")])
    assert cli("import", path, "--db", seeded_db).code == 0
    rec = Record.model_validate(full("team/nan"))
    keys = [workaround_key(w.action) for w in rec.workarounds]
    store = Store(seeded_db)
    for user in ("U1", "U2", "U3"):
        store.vote("C1:1.0", "team/nan", keys[0], user, 1)
    store.vote("C1:1.0", "team/nan", keys[1], "U1", -1)
    tallies = store.tallies("team/nan")
    store.close()
    shown = cli("show", "team/nan", "--json", "--db", seeded_db).json()

    # same record again: nothing changes
    r = cli("import", path, "--db", seeded_db)
    assert r.out.strip() == "imported 1 record(s): 0 added, 0 changed, 1 unchanged, 0 removed"
    assert cli("show", "team/nan", "--json", "--db", seeded_db).json() == shown

    # a changed record (new root cause, workarounds reordered): an update, and the votes stay
    changed = full("team/nan", root_cause="updated by the team")
    changed["workarounds"] = changed["workarounds"][::-1]
    write_jsonl(path, [changed])
    r = cli("import", path, "--db", seeded_db)
    assert r.out.strip() == "imported 1 record(s): 0 added, 1 changed, 0 unchanged, 0 removed"
    store = Store(seeded_db)
    assert store.tallies("team/nan") == tallies
    assert store.get("team/nan").root_cause == "updated by the team"
    store.close()
    after = cli("show", "team/nan", "--json", "--db", seeded_db).json()
    votes = {w["action"]: (w["votes_up"], w["votes_down"], w["success_rate"]) for w in after["workarounds"]}
    assert votes == {w["action"]: (w["votes_up"], w["votes_down"], w["success_rate"]) for w in shown["workarounds"]}


# ---- bad files: one clear line, exit 2, no traceback, database unchanged ---------------------------------


def _write_50mb(path: Path) -> None:
    line = json.dumps(minimal("big/x", root_cause="y" * 900)) + "\n"
    path.write_text(line * (50 * 1024 * 1024 // len(line) + 1), encoding="utf-8")


BAD_FILES: list[tuple[str, Any, str]] = [
    ("not-json.jsonl", b"RuntimeError: this is a log, not JSON\n", ":1: not valid JSON: Expecting value"),
    (
        "wrong-types.json",
        {"id": "t/w", "signature": "x", "regex": "x", "confidence": "high"},
        ":1: t/w: confidence: Input should be a valid number",
    ),
    ("not-an-object.json", [["a", "b"]], ":2: ?: (record): expected an object, got list"),
    ("big.jsonl", _write_50mb, ": file too large (52.4 MB; the limit is 34 MB)"),
    ("junk.jsonl", bytes(range(256)) * 64, ": binary data, not a JSON text file"),
    ("empty.json", b"", ": empty file, no records in it"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_are_one_clear_line_and_leave_the_database_unchanged(
    tmp_path: Path, seeded_db: Path, name: str, content: Any, message: str
) -> None:
    path = tmp_path / name
    if callable(content):
        content(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        write_json(path, content)
    before = db_state(seeded_db)
    r = run_module("import", path, "--db", seeded_db)
    assert r.code == 2
    no_traceback(r.err)
    assert r.err_lines[0] == f"{path}{message}"
    assert len(r.err_lines) == 2 and SUMMARY.match(r.err_lines[1])
    assert r.out == ""
    assert db_state(seeded_db) == before


def test_bad_arguments_are_one_line_too(tmp_path: Path, seeded_db: Path) -> None:
    cases: list[tuple[tuple[str | Path, ...], str | None]] = [
        (("import", tmp_path / "missing.jsonl"), f"errfix: {tmp_path / 'missing.jsonl'}: no such file or folder"),
        (("show", "no/such-record"), "errfix: no record with id 'no/such-record'"),
        (("search",), "errfix: search needs some words, e.g. errfix search loss nan"),
        (("export", "-o", tmp_path / "no-dir" / "out.jsonl"), None),
    ]
    for argv, message in cases:
        r = run_module(*argv, "--db", seeded_db)
        assert r.code == 2, argv
        no_traceback(r.err)
        assert len(r.err_lines) == 1, r.err
        if message:
            assert r.err_lines[0] == message
        else:
            assert r.err_lines[0].startswith("errfix: ") and "no-dir" in r.err_lines[0]


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 200)
    r = run_module("stats", "--db", notes)
    assert r.code == 2
    no_traceback(r.err)
    assert len(r.err_lines) == 1 and "not a usable errfix database" in r.err


# ---- stats ----------------------------------------------------------------------------------------


def test_stats(cli: Cli, seeded_db: Path) -> None:
    store = Store(seeded_db)
    rec = store.get("own/a")
    store.vote("C:1", "own/a", workaround_key(rec.workarounds[0].action), "U1", 1)
    store.vote("C:1", "own/a", workaround_key(rec.workarounds[1].action), "U1", -1)
    store.vote("C:1", "own/a", workaround_key(rec.workarounds[2].action), "U2", -1)
    count = store.count()
    store.close()
    stats = cli("stats", "--json", "--db", seeded_db).json()
    assert stats["records"] == count
    assert sum(stats["by_domain"].values()) == count
    assert stats["by_domain"]["pytorch"] >= 2  # the seed and own/a
    assert (stats["votes_up"], stats["votes_down"], stats["replies"]) == (1, 2, 0)
    text = cli("stats", "--db", seeded_db).out
    assert text.startswith(f"records: {count}   votes: +1 / -2   replies: 0")


# ---- database path: --db, else ERRFIX_DB, else ./errfix.db -------------------------------------------------


def test_db_path_precedence(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    record = write_jsonl(tmp_path / "r.jsonl", [minimal("where/am-i")])
    flag, env = tmp_path / "flag.db", tmp_path / "env.db"
    for name in ("cwd1", "cwd2", "cwd3"):
        (tmp_path / name).mkdir()

    monkeypatch.delenv("ERRFIX_DB", raising=False)
    monkeypatch.chdir(tmp_path / "cwd1")
    assert cli("import", record).code == 0
    assert (tmp_path / "cwd1" / "errfix.db").exists()

    monkeypatch.setenv("ERRFIX_DB", str(env))
    monkeypatch.chdir(tmp_path / "cwd2")
    assert cli("import", record).code == 0
    assert env.exists() and not (tmp_path / "cwd2" / "errfix.db").exists()

    monkeypatch.chdir(tmp_path / "cwd3")
    assert cli("import", record, "--db", flag).code == 0
    assert flag.exists() and not (tmp_path / "cwd3" / "errfix.db").exists()

    # and each command reads from the one it chose
    env_count = cli("stats", "--json").json()["records"]
    assert cli("stats", "--json", "--db", flag).json()["records"] == env_count
    assert cli("show", "where/am-i", "--json").code == 0
    monkeypatch.delenv("ERRFIX_DB")
    assert cli("show", "where/am-i", "--json").code == 2  # cwd3 has no errfix.db yet: a new, seeded one


# ---- the done-when check ----------------------------------------------------------------------------


def test_done_when_corpus_import_then_match_puts_the_seed_first(tmp_path: Path, corpus_path: Path) -> None:
    db = tmp_path / "x.db"
    r = run_module("import", corpus_path, "--db", db)
    assert r.code == 0, r.err
    no_traceback(r.err)
    assert f"imported {CORPUS_SIZE} record(s): {CORPUS_SIZE} added" in r.out
    r = run_module("match", "--json", "--db", db, stdin=NAN_PASTE + "\n")
    assert r.code == 0, r.err
    result = r.json()
    check_match_shape(result)
    assert result["matches"][0]["id"] == SEED_ID
    assert result["is_error"] is True

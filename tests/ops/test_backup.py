"""`errfix backup` and `errfix restore`: consistent copies while another connection writes, and
restores that refuse what is not an errfix database or comes from a newer errfix."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.errors import StoreError
from bot.ops.backup import backup, inspect, restore
from bot.store import open_store
from bot.store.schema import SCHEMA_VERSION
from bot.store.store import Store
from tests.conftest import Cli, db_state, minimal


def test_backup_and_restore_round_trip_through_the_cli(db: Path, tmp_path: Path, cli: Cli) -> None:
    assert cli("stats", "--db", db).code == 0  # a new, seeded database
    copy = tmp_path / "backups" / "errfix.bak"
    copy.parent.mkdir()
    r = cli("backup", copy, "--db", db)
    assert r.code == 0, r.err
    assert f"to {copy}" in r.out and f"schema v{SCHEMA_VERSION}" in r.out
    saved = db_state(db)
    assert db_state(copy) == saved and not Path(f"{copy}-wal").exists()

    store = Store(db)
    store.import_records([Record.model_validate(minimal("later/one"))])
    store.close()
    assert db_state(db) != saved

    r = cli("restore", copy, "--db", db)
    assert r.code == 0, r.err
    assert db_state(db) == saved
    kept = Path(f"{db}.before-restore")
    assert f"kept as {kept}" in r.out and Store(kept).has("later/one")


def test_a_backup_is_consistent_while_another_connection_writes(db: Path, tmp_path: Path) -> None:
    """A writer adds records in batches (one transaction each); every backup holds whole batches."""
    open_store(db).close()
    batch = 25
    done = threading.Event()

    def write() -> None:
        store = Store(db)
        n = 0
        while not done.is_set() and n < 200:
            store.import_records([Record.model_validate(minimal(f"w/{n}-{i}")) for i in range(batch)])
            n += 1
        store.close()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        counts = []
        for k in range(5):
            info = backup(db, tmp_path / f"b{k}.db")
            copy = Store(tmp_path / f"b{k}.db")
            written = int(copy.db.execute("SELECT count(*) FROM records WHERE id LIKE 'w/%'").fetchone()[0])
            copy.close()
            assert written % batch == 0 and info.records >= written
            counts.append(written)
    finally:
        done.set()
        writer.join()
    assert counts == sorted(counts)


def test_restore_refuses_a_file_that_is_not_an_errfix_database(db: Path, tmp_path: Path, cli: Cli) -> None:
    open_store(db).close()
    before = db_state(db)
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    for path, why in ((text, "not a SQLite database"), (other, "not an errfix one")):
        r = cli("restore", path, "--db", db)
        assert r.code == 2 and why in r.err and len(r.err_lines) == 1, r.err
    assert db_state(db) == before and not Path(f"{db}.before-restore").exists()


def test_restore_refuses_a_backup_from_a_newer_errfix(db: Path, tmp_path: Path) -> None:
    open_store(db).close()
    newer = tmp_path / "newer.db"
    backup(db, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('errfix', 'm999_future', 'x')"
        )
    conn.close()
    before = db_state(db)
    with pytest.raises(StoreError, match="newer errfix .*m999_future"):
        restore(newer, db)
    assert db_state(db) == before


def test_restore_upgrades_a_backup_with_an_older_schema(db: Path, tmp_path: Path) -> None:
    open_store(db).close()
    old = tmp_path / "old.db"
    backup(db, old)
    with sqlite3.connect(old) as conn:  # as errfix was before m003
        conn.execute("DROP TABLE sync_state")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm003_sync_state'")
    conn.close()
    assert inspect(old).schema_version == SCHEMA_VERSION - 1
    info, _ = restore(old, db)
    assert info.schema_version == SCHEMA_VERSION


def test_backup_refuses_to_overwrite_the_database_itself(db: Path, cli: Cli) -> None:
    open_store(db).close()
    r = cli("backup", db, "--db", db)
    assert r.code == 2 and "the database itself" in r.err

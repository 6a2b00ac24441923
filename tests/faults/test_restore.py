"""`errfix restore` never fights a running server and never harms the live database (#14.8):
it refuses while a process serves the database, and a backup that cannot be upgraded leaves the
live database exactly as it was, and usable."""

from __future__ import annotations

import asyncio
import hashlib
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.core.records import Record
from bot.fakeslack.web_api import FakeSlack
from bot.store import open_store
from bot.store.store import Store
from tests.conftest import CliRunner, db_state, minimal
from tests.ops.conftest import fake  # noqa: F401 - fixture
from tests.ops.test_serve import serve  # noqa: F401 - fixture
from tests.procs import clean_env

HOLD = (
    "import sys\n"
    "from bot.ops.serving_lock import serving\n"
    "with serving(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def seeded_with_backup(db: Path, cli: CliRunner, tmp_path: Path) -> Path:
    assert cli("stats", "--db", db).code == 0
    copy = tmp_path / "errfix.bak"
    assert cli("backup", copy, "--db", db).code == 0
    store = Store(db)
    store.import_records([Record.model_validate(minimal("later/one"))])
    store.close()
    return copy


async def hold(db: Path) -> asyncio.subprocess.Process:
    """Another process that holds the database for serving, as `errfix serve` does."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HOLD,
        str(db),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=clean_env(),
    )
    assert proc.stdout is not None
    assert await asyncio.wait_for(proc.stdout.readline(), 60) == b"held\n"
    return proc


async def test_restore_refuses_while_another_process_serves_the_database(
    db: Path, cli: CliRunner, tmp_path: Path
) -> None:
    copy = seeded_with_backup(db, cli, tmp_path)
    before = db_state(db)
    holder = await hold(db)
    try:
        r = await asyncio.to_thread(cli, "restore", copy, "--db", db)
        assert r.code == 2
        assert "errfix serve is using this database" in r.err and f"pid {holder.pid}" in r.err
        assert db_state(db) == before and not Path(f"{db}.before-restore").exists()
    finally:
        holder.send_signal(signal.SIGKILL)  # a crash: the kernel drops the lock with the process
        await holder.wait()
    r = await asyncio.to_thread(cli, "restore", copy, "--db", db)
    assert r.code == 0, r.err
    assert not Store(db).has("later/one")


async def test_restore_refuses_under_a_running_errfix_serve(
    serve: Any,  # noqa: F811 - the fixture
    fake: FakeSlack,  # noqa: F811 - the fixture
    cli: CliRunner,
    tmp_path: Path,
) -> None:
    db = tmp_path / "errfix.db"  # the serve fixture's database
    served = await serve("--http")
    copy = tmp_path / "errfix.bak"
    assert (await asyncio.to_thread(cli, "backup", copy, "--db", db)).code == 0
    r = await asyncio.to_thread(cli, "restore", copy, "--db", db)
    assert r.code == 2 and "stop it before restoring" in r.err
    assert await served.stop() == 0
    r = await asyncio.to_thread(cli, "restore", copy, "--db", db)
    assert r.code == 0, r.err


def _old_and_unupgradable(good: Path, dest: Path) -> Path:
    """A backup that passes every check but whose upgrade fails: it claims an older schema (only
    the first migration) while already holding a later migration's table."""
    with sqlite3.connect(good) as a, sqlite3.connect(dest) as b:
        a.backup(b)
    a.close()
    with sqlite3.connect(dest) as conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name != 'm001_records'")
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    return dest


def test_a_backup_that_cannot_be_upgraded_leaves_the_live_database_alone(
    db: Path, cli: CliRunner, tmp_path: Path
) -> None:
    good = seeded_with_backup(db, cli, tmp_path)
    bad = _old_and_unupgradable(good, tmp_path / "old.bak")
    store = Store(db)
    store.close()  # checkpointed: the file alone is the database
    before, state = digest(db), db_state(db)
    r = cli("restore", bad, "--db", db)
    assert r.code == 2
    assert "cannot be upgraded" in r.err and "was not touched" in r.err
    assert digest(db) == before and db_state(db) == state
    assert not Path(f"{db}.restoring").exists()
    store = open_store(str(db))  # still usable
    assert store.has("later/one")
    store.close()


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_a_truncated_backup_is_refused_before_anything_is_touched(
    db: Path, cli: CliRunner, tmp_path: Path, cut: float
) -> None:
    good = seeded_with_backup(db, cli, tmp_path)
    data = good.read_bytes()
    torn = tmp_path / "torn.bak"
    torn.write_bytes(data[: int(len(data) * cut)])
    Store(db).close()
    before = digest(db)
    assert cli("restore", torn, "--db", db).code == 2
    assert digest(db) == before


def test_restore_drops_the_cached_index_of_the_replaced_store(db: Path, cli: CliRunner, tmp_path: Path) -> None:
    copy = seeded_with_backup(db, cli, tmp_path)
    index = Path(f"{db}.index")
    index.write_bytes(b"an index of the store being replaced")
    assert cli("restore", copy, "--db", db).code == 0
    assert not index.exists()

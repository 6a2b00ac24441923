"""`errfix backup FILE` and `errfix restore FILE`, through SQLite's online backup API.

A backup is a consistent snapshot even while `errfix serve` writes (the copy is made in one step
under a read transaction; in WAL mode that does not block the server), checked with
`integrity_check`, written to FILE.tmp and renamed, so FILE is never half-written. It is a
single file (journal mode DELETE), ready to copy elsewhere.

A restore refuses anything that is not an errfix database, is damaged, or was written by a newer
errfix (a migration this errfix does not know), and refuses while `errfix serve` holds the
database (bot/ops/serving_lock.py: a restore under a live server silently rolled back the votes
it had acknowledged). The backup is first copied to `DB.restoring`, upgraded there and checked
again; only then is the live database touched: kept as `DB.before-restore`, overwritten through
the backup API (correct with its WAL), and its cached index (`DB.index`) dropped. A backup that
cannot be upgraded leaves the live database exactly as it was.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.errors import InvalidInput, StoreError
from bot.ops.serving_lock import exclusive
from bot.service.index_cache import cache_path
from bot.store import audit
from bot.store.schema import SCHEMA_VERSION, migrations, unknown_migrations
from bot.store.store import Store

SQLITE_HEADER = b"SQLite format 3\x00"
MIGRATIONS_TABLE = "_sqlite_migrations"


@dataclass(frozen=True)
class DbInfo:
    path: str
    schema_version: int  # errfix migrations applied
    records: int
    bytes: int

    def line(self) -> str:
        return f"{self.records} record(s), schema v{self.schema_version}, {self.bytes / 1e6:.1f} MB"


@contextlib.contextmanager
def _connect(path: str | Path, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    uri = f"file:{Path(path).resolve()}?mode={'ro' if read_only else 'rw'}"
    conn = sqlite3.connect(uri, uri=True, timeout=30)
    try:
        yield conn
    finally:
        conn.close()


def inspect(path: str | Path) -> DbInfo:
    """What an errfix database holds; raises StoreError for anything else (nothing is written)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"{p}: no such file")
    with p.open("rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise StoreError(f"{p}: not a SQLite database")
    try:
        with _connect(p, read_only=True) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {MIGRATIONS_TABLE, "records", "meta"} <= tables:
                raise StoreError(f"{p}: a SQLite database, but not an errfix one (no errfix tables)")
            applied = [
                r[0]
                for r in conn.execute(
                    f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = ? ORDER BY rowid", [migrations.name]
                )
            ]
            if newer := unknown_migrations(applied):
                raise StoreError(
                    f"{p}: written by a newer errfix (schema has {', '.join(newer)}; this errfix knows "
                    f"v{SCHEMA_VERSION}); upgrade errfix first"
                )
            if not applied:
                raise StoreError(f"{p}: not an errfix database (no errfix migrations)")
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise StoreError(f"{p}: damaged ({'; '.join(problems[:3])})")
            records = int(conn.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{p}: not a usable errfix database ({e})") from None
    return DbInfo(str(p), len(applied), records, p.stat().st_size)


def _copy(src: sqlite3.Connection, dest: sqlite3.Connection) -> None:
    src.backup(dest)  # pages=-1: one step under one read transaction, a consistent snapshot


def backup(db_path: str | Path, dest: str | Path) -> DbInfo:
    """A consistent copy of the errfix database at `db_path` in `dest` (replaced atomically)."""
    inspect(db_path)
    target = Path(dest)
    if target.resolve() == Path(db_path).resolve():
        raise InvalidInput(f"{target}: that is the database itself; back up to another file")
    tmp = target.with_name(target.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        with _connect(db_path) as src, contextlib.closing(sqlite3.connect(tmp)) as out:
            _copy(src, out)
            out.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            if [r[0] for r in out.execute("PRAGMA integrity_check")] != ["ok"]:
                raise StoreError(f"{tmp}: the copy failed its integrity check; {target} was not touched")
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return inspect(target)


def restore(backup_file: str | Path, db_path: str | Path, *, actor: str = audit.SYSTEM) -> tuple[DbInfo, Path | None]:
    """Replace the database at `db_path` with `backup_file`; (what is there now, the kept old copy).

    The restored database's audit trail is the backup's plus an entry for this restore (`actor`'s):
    entries written after the backup are in the kept copy, not here."""
    inspect(backup_file)
    target = Path(db_path)
    if target.resolve() == Path(backup_file).resolve():
        raise InvalidInput(f"{target}: that is the database itself")
    with exclusive(target):
        staged = _staged(Path(backup_file), target)
        try:
            kept = _keep_old(target)
            with _connect(staged, read_only=True) as src, contextlib.closing(sqlite3.connect(target)) as out:
                _copy(src, out)
            restored = Store(target)  # turns WAL back on (the migrations already ran on the copy)
            try:
                with restored.write_transaction():
                    detail = {"from": str(backup_file), "records": restored.count(), "kept": str(kept or "")}
                    audit.write(restored.db, actor=actor, action="restore", target=str(target), detail=detail)
            finally:
                restored.close()
            cache_path(target).unlink(missing_ok=True)  # an index of the replaced store
        finally:
            _remove(staged)
    return inspect(target), kept


def _staged(backup_file: Path, target: Path) -> Path:
    """The backup copied next to `target`, upgraded to this errfix's schema and checked again;
    raises StoreError (with `target` untouched) when it cannot be."""
    staged = target.with_name(target.name + ".restoring")
    _remove(staged)
    try:
        with _connect(backup_file, read_only=True) as src, contextlib.closing(sqlite3.connect(staged)) as out:
            _copy(src, out)
        try:
            Store(staged).close()  # applies the migrations an older backup lacks
            with contextlib.closing(sqlite3.connect(staged)) as conn:
                conn.execute("PRAGMA journal_mode = DELETE")  # one file to copy from
        except (sqlite3.Error, StoreError) as e:
            raise StoreError(
                f"{backup_file}: cannot be upgraded to this errfix's schema ({e}); {target} was not touched"
            ) from None
        inspect(staged)
    except BaseException:
        _remove(staged)
        raise
    return staged


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _keep_old(target: Path) -> Path | None:
    """Keep the database a restore replaces as TARGET.before-restore: a backup when it is sound,
    else (damaged, not errfix) the files themselves, moved aside so the restore starts afresh."""
    if not target.exists():
        return None
    kept = target.with_name(target.name + ".before-restore")
    try:
        backup(target, kept)
    except StoreError:
        for suffix in ("", "-wal", "-shm"):
            old = Path(f"{target}{suffix}")
            if old.exists():
                old.replace(f"{kept}{suffix}")
    return kept

"""Shared fixtures: real SQLite databases in tmp_path, the CLI in-process, the public corpus.

Nothing here mocks SQLite. The corpus database is built once per session (importing 2,460
records costs about a second) and must only be read by tests; a test that writes copies it first
with `copy_db`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import settings

from bot.cli.main import errfix
from bot.store import open_store
from bot.store.store import Store

# Property tests check what holds, not how fast: hypothesis's default 200 ms deadline per example
# failed on a loaded 2-core machine (redaction idempotence), which is a timed test by another name.
settings.register_profile("errfix", deadline=None)
settings.load_profile("errfix")

REPO = Path(__file__).resolve().parents[1]
# CI clones the repo with ../shared beside it; tests read the public corpus from there. The first
# `shared` beside an enclosing folder, so a copy of the tree one level down (mutmut's mutants/) finds it.
SHARED = next((p / "shared" for p in REPO.parents if (p / "shared" / "corpus").is_dir()), REPO / ".." / "shared")
CORPUS = SHARED / "corpus" / "deadends-records.jsonl"
CORPUS_SIZE = 2460
SEED = REPO / "seeds" / "pytorch" / "loss-nan-step.json"
SEED_ID = "pytorch/loss-nan-step"

# `file:line: id: field: message`: the one shape every record problem is reported in.
PROBLEM_LINE = r"^(?P<file>[^:\n]+):(?P<line>\d+): (?P<id>[^\n]+?): (?P<field>[\w.\[\]()]+): (?P<msg>[^\n]+)$"


def seed_json() -> dict[str, Any]:
    """The user's example record, as a fresh dict."""
    data: dict[str, Any] = json.loads(SEED.read_text(encoding="utf-8"))
    return data


def minimal(rid: str = "test/minimal", **fields: Any) -> dict[str, Any]:
    """The smallest valid record (the three required fields), plus `fields`."""
    return {"id": rid, "signature": f"ValueError: {rid} broke", "regex": f"ValueError: {rid}", **fields}


def full(rid: str = "test/full", **fields: Any) -> dict[str, Any]:
    """A record with every field (the seed's values, another id), plus `fields`."""
    data = copy.deepcopy(seed_json())
    data["id"] = rid
    data.update(fields)
    return data


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, value: Any, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    # "\n" only: str.splitlines() also breaks at U+2028, U+0085…, which JSON strings may hold raw
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


@dataclass(frozen=True)
class DbState:
    """Everything an import could change, to assert "the database is unchanged"."""

    records: int
    version: int
    workarounds: int
    votes: int
    digest: str


def db_state(path: Path | str) -> DbState | None:
    """The state of the database at `path`, or None if there is no file (a refused import
    must not even create one)."""
    if not Path(path).exists():
        return None
    store = Store(path)
    try:
        q = store.db.execute
        h = hashlib.sha256()
        for rid, digest, data in q("SELECT id, content_hash, data FROM records ORDER BY id"):
            h.update(f"{rid}\0{digest}\0{data}\n".encode())
        for row in q("SELECT * FROM votes ORDER BY reply_key, record_id, wkey, user_id"):
            h.update(repr(row).encode())
        return DbState(
            records=store.count(),
            version=store.version,
            workarounds=int(q("SELECT count(*) FROM workarounds").fetchone()[0]),
            votes=int(q("SELECT count(*) FROM votes").fetchone()[0]),
            digest=h.hexdigest(),
        )
    finally:
        store.close()


def copy_db(src: Path | str, dst: Path) -> Path:
    """A consistent copy of a SQLite database (the backup API, WAL included)."""
    with sqlite3.connect(str(src)) as a, sqlite3.connect(str(dst)) as b:
        a.backup(b)
    a.close()
    b.close()
    return dst


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()

    def json(self) -> Any:
        return json.loads(self.out)


Cli = Callable[..., Result]


def invoke(*argv: str | Path, stdin: str = "") -> Result:
    """Run `errfix ARGS…` in-process through click's CliRunner; unexpected exceptions propagate."""
    r = CliRunner().invoke(errfix, [str(a) for a in argv], input=stdin, catch_exceptions=False)
    return Result(r.exit_code, r.stdout, r.stderr)


@pytest.fixture
def cli() -> Cli:
    """Run `errfix ARGS…` in-process: `cli("match", "--json", "--db", db, stdin="…")`."""
    return invoke


def run_module(
    *argv: str | Path, stdin: str = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> Result:
    """Run `python -m bot ARGS…` in a subprocess: the real entry point, real stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *map(str, argv)],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        timeout=300,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Path of a database that does not exist yet (the CLI seeds it on first use)."""
    return tmp_path / "errfix.db"


@pytest.fixture
def store(tmp_path: Path) -> Iterable[Store]:
    """A new, empty, unseeded store on a real SQLite file."""
    s = Store(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def corpus_path() -> Path:
    assert CORPUS.is_file(), f"the public corpus is expected at {CORPUS.resolve()} (../shared beside the repo)"
    return CORPUS


@pytest.fixture(scope="session")
def corpus_records(corpus_path: Path) -> list[dict[str, Any]]:
    records = read_jsonl(corpus_path)
    assert len(records) == CORPUS_SIZE
    return records


@pytest.fixture(scope="session")
def corpus_db(tmp_path_factory: pytest.TempPathFactory, corpus_path: Path) -> Path:
    """A database with the seeds and the whole corpus, imported once through `errfix import`.

    Read only: tests that write must `copy_db` it.
    """
    path = tmp_path_factory.mktemp("corpus") / "corpus.db"
    r = invoke("import", corpus_path, "--db", path)
    assert r.code == 0, r.err
    return path


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new database as its first open leaves it (migrated, the bundled seeds imported through
    `open_store`), made once per test process: seeding costs about 0.3 s and hundreds of tests
    start from it. Tests never touch this file; `seeded_copy` gives each its own copy.
    """
    path = tmp_path_factory.mktemp("template") / "seeded.db"
    open_store(path).close()
    with sqlite3.connect(path) as conn:
        # no instance id yet: each copy makes its own on first use, as a new database does
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'instance_id'").fetchone() == (0,)
    conn.close()
    return path


SeededCopy = Callable[..., Path]


@pytest.fixture
def seeded_copy(tmp_path: Path, seeded_template: Path) -> SeededCopy:
    """`seeded_copy("name.db")`: a fresh seeded database of this test's own, in tmp_path."""

    def make(name: str = "errfix.db") -> Path:
        return copy_db(seeded_template, tmp_path / name)

    return make

"""Every command that touches the database finds it by one rule: `--db`, else `ERRFIX_DB` from the
environment, else `ERRFIX_DB` from `.env` in the working directory, else ./errfix.db.

Three real databases tell apart which one a command used: each holds the record `where/am-i` with
the source's name in its root cause, a different number of filler records, and one learned alias.
A malformed setting stops every command with one line and exit code 2.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.store import open_store
from bot.store.learning import Learning
from bot.store.store import Store
from tests.conftest import Cli, Result, copy_db, minimal, write_jsonl

SOURCES = ("dotenv", "environment", "flag")
MARK = "where/am-i"
ALIAS = "WhereError: the database moved"
PASTE = f"ValueError: {MARK} broke"


@dataclass(frozen=True)
class Dbs:
    """The three candidate databases, the one that must be used, and a scratch folder."""

    paths: dict[str, Path]
    chosen: str
    tmp: Path

    @property
    def used(self) -> Path:
        return self.paths[self.chosen]

    @property
    def others(self) -> list[Path]:
        return [p for name, p in self.paths.items() if name != self.chosen]


def root_cause(db: Path, rid: str = MARK) -> str:
    store = Store(db)
    try:
        return store.get(rid).root_cause
    finally:
        store.close()


def has(db: Path, rid: str) -> bool:
    store = Store(db)
    try:
        return store.has(rid)
    finally:
        store.close()


def aliases(db: Path) -> int:
    store = Store(db)
    try:
        return len([i for i in Learning(store).learned() if i.kind == "alias"])
    finally:
        store.close()


def count(db: Path) -> int:
    store = Store(db)
    try:
        return store.count()
    finally:
        store.close()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("seeded") / "seeded.db"
    open_store(path).close()
    return path


def make_db(seeded: Path, path: Path, source: str, fillers: int) -> Path:
    copy_db(seeded, path)
    store = Store(path)
    try:
        recs = [minimal(MARK, root_cause=f"from {source}")] + [minimal(f"filler/{i}") for i in range(fillers)]
        store.import_records([Record.model_validate(r) for r in recs])
        Learning(store).learn_alias(MARK, ALIAS, f"U_{source.upper()}")
    finally:
        store.close()
    return path


@pytest.fixture(params=SOURCES)
def dbs(request: pytest.FixtureRequest, tmp_path: Path, seeded: Path, monkeypatch: pytest.MonkeyPatch) -> Dbs:
    """Run in a folder whose .env names one database; the environment and --db name others."""
    paths = {s: make_db(seeded, tmp_path / f"{s}.db", s, fillers=n) for n, s in enumerate(SOURCES, 1)}
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / ".env").write_text(f"ERRFIX_DB={paths['dotenv']}\n", encoding="utf-8")
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("ERRFIX_DB", raising=False)
    if request.param in ("environment", "flag"):
        monkeypatch.setenv("ERRFIX_DB", str(paths["environment"]))
    return Dbs(paths, request.param, tmp_path)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A plain HTTP server with one records file, for `errfix sync`."""
    root = tmp_path_factory.mktemp("upstream")
    write_jsonl(root / "records.jsonl", [minimal("up/synced")])
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/records.jsonl"
    server.shutdown()
    server.server_close()


Check = Callable[[Result, Dbs], None]


def _import(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("import", write_jsonl(d.tmp / "new.jsonl", [minimal("where/new")]), *argv)


def _imported(r: Result, d: Dbs) -> None:
    assert has(d.used, "where/new") and not any(has(p, "where/new") for p in d.others)


def _export(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("export", *argv)


def _exported(r: Result, d: Dbs) -> None:
    rows = {row["id"]: row for row in map(json.loads, r.out.splitlines())}
    assert rows[MARK]["root_cause"] == f"from {d.chosen}"


def _match(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("match", "--json", *argv, stdin=PASTE)


def _matched(r: Result, d: Dbs) -> None:
    assert r.json()["matches"][0]["root_cause"] == f"from {d.chosen}"


def _search(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("search", "where/am-i", "--json", *argv)


def _found(r: Result, d: Dbs) -> None:
    [hit] = [m for m in r.json()["matches"] if m["id"] == MARK]
    assert hit["root_cause"] == f"from {d.chosen}"


def _show(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("show", MARK, "--json", *argv)


def _shown(r: Result, d: Dbs) -> None:
    assert r.json()["root_cause"] == f"from {d.chosen}"


def _stats(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("stats", "--json", *argv)


def _counted(r: Result, d: Dbs) -> None:
    assert r.json()["records"] == count(d.used)
    assert all(count(p) != count(d.used) for p in d.others)


def _learned(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("learned", "--json", *argv)


def _listed(r: Result, d: Dbs) -> None:
    assert [a["user_id"] for a in r.json()["aliases"]] == [f"U_{d.chosen.upper()}"]


def _unlearn(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("unlearn", "alias", MARK, ALIAS, *argv)


def _forgot(r: Result, d: Dbs) -> None:
    assert aliases(d.used) == 0 and [aliases(p) for p in d.others] == [1, 1]


def _sync(url: str) -> Callable[[Cli, Dbs, list[str]], Result]:
    def run(cli: Cli, d: Dbs, argv: list[str]) -> Result:
        return cli("sync", url, *argv)

    return run


def _synced(r: Result, d: Dbs) -> None:
    assert has(d.used, "up/synced") and not any(has(p, "up/synced") for p in d.others)


def _backup(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("backup", d.tmp / "copy.db", *argv)


def _backed_up(r: Result, d: Dbs) -> None:
    assert root_cause(d.tmp / "copy.db") == f"from {d.chosen}"


def _restore(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    saved = make_db(d.paths["flag"], d.tmp / "saved.db", "the backup", fillers=0)
    return cli("restore", saved, *argv)


def _restored(r: Result, d: Dbs) -> None:
    assert root_cause(d.used) == "from the backup"
    assert [root_cause(p) for p in d.others] == [f"from {s}" for s in SOURCES if s != d.chosen]


def _doctor(cli: Cli, d: Dbs, argv: list[str]) -> Result:
    return cli("doctor", *argv)


def _diagnosed(r: Result, d: Dbs) -> None:
    [line] = [line for line in r.out.splitlines() if " db.file " in line]
    assert str(d.used) in line


COMMANDS: dict[str, tuple[Callable[..., Result], Check, int]] = {
    "import": (_import, _imported, 0),
    "export": (_export, _exported, 0),
    "match": (_match, _matched, 0),
    "search": (_search, _found, 0),
    "show": (_show, _shown, 0),
    "stats": (_stats, _counted, 0),
    "learned": (_learned, _listed, 0),
    "unlearn": (_unlearn, _forgot, 0),
    "backup": (_backup, _backed_up, 0),
    "restore": (_restore, _restored, 0),
    "doctor": (_doctor, _diagnosed, 1),  # no Slack token here: the settings check fails, the db is checked
}


@pytest.mark.parametrize("command", [*COMMANDS, "sync"])
def test_every_command_uses_the_database_errfix_db_names(command: str, dbs: Dbs, cli: Cli, upstream: str) -> None:
    run, check, code = (_sync(upstream), _synced, 0) if command == "sync" else COMMANDS[command]
    argv = ["--db", str(dbs.paths["flag"])] if dbs.chosen == "flag" else []
    r = run(cli, dbs, argv)
    assert r.code == code, r.out + r.err
    check(r, dbs)


@pytest.mark.parametrize(
    "argv",
    [
        ["stats"],
        ["import", "records.jsonl"],
        ["match"],
        ["search", "nan"],
        ["show", MARK],
        ["export"],
        ["learned"],
        ["backup", "copy.db"],
        ["sync", "http://127.0.0.1:9/records.jsonl"],
        ["lint", "records.jsonl"],
        ["serve"],
        ["demo"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_malformed_setting_stops_every_command_with_one_line(
    argv: list[str], cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "records.jsonl", [minimal("bad/settings")])
    (tmp_path / ".env").write_text("ERRFIX_DB=never.db\nERRFIX_SYNC_TIMEOUT=a minute\n", encoding="utf-8")
    monkeypatch.delenv("ERRFIX_SYNC_TIMEOUT", raising=False)
    r = cli(*argv)
    assert (r.code, r.err_lines, r.out) == (
        2,
        ["errfix: ERRFIX_SYNC_TIMEOUT must be a whole number, got 'a minute'"],
        "",
    )
    assert not (tmp_path / "never.db").exists() and not (tmp_path / "copy.db").exists()

"""The layout in docs/architecture.md, checked: which package may import which, and what lives where.

A rule broken here is a design change: change docs/architecture.md and this table together.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from tests.conftest import REPO

BOT = REPO / "bot"

# package -> the bot packages (and top-level modules) it may import. `core` is pure; `store` is the
# only place with SQL; adapters (slack, cli, demo) sit on the service; serve composes everything.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "store": {"core", "errors"},
    "service": {"core", "store", "errors"},
    "telemetry": {"core"},  # the secret detector: every log line is redacted (#18)
    "slack": {"core", "service", "telemetry", "config", "errors"},
    "ops": {"core", "store", "service", "config", "errors"},
    "serve": {"core", "store", "service", "slack", "telemetry", "ops", "config", "errors"},
    "fakeslack": set(),
    "demo": {"core", "service", "slack", "serve", "fakeslack", "config", "errors"},
    "cli": {"core", "store", "service", "slack", "serve", "ops", "demo", "telemetry", "config", "errors"},
    "config": {"core", "errors"},
    "errors": set(),
    "__main__": {"cli"},
}
# Third-party modules that mean I/O or a platform: never in the pure core.
IMPURE = {"sqlite3", "sqlite_utils", "aiohttp", "slack_bolt", "slack_sdk", "socket", "subprocess", "requests"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _package(path: Path) -> str:
    rel = path.relative_to(BOT).with_suffix("").parts
    return rel[0]


def test_every_package_is_in_the_table() -> None:
    packages = {p.name for p in BOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in BOT.glob("*.py") if p.stem != "__init__"}
    assert packages | modules == set(ALLOWED), "a new package needs a row in ALLOWED and in docs/architecture.md"


def test_packages_import_only_what_the_layout_allows() -> None:
    wrong: list[str] = []
    for path in sorted(BOT.rglob("*.py")):
        own = _package(path)
        for name in _imports(path):
            if not name.startswith("bot."):
                continue
            other = name.split(".")[1]
            if other != own and other not in ALLOWED[own]:
                wrong.append(f"{path.relative_to(REPO)} imports {name}")
    assert wrong == []


def test_core_is_pure() -> None:
    wrong = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in sorted((BOT / "core").rglob("*.py"))
        for name in _imports(path)
        if name.split(".")[0] in IMPURE
    ]
    assert wrong == []


def test_the_import_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    """The checks above parse real files; this one proves the parser finds both import forms."""
    sample = tmp_path / "m.py"
    sample.write_text("import sqlite3\nfrom bot.store.store import Store\nfrom . import sibling\n")
    assert _imports(sample) == {"sqlite3", "bot.store.store"}


def test_no_loose_modules_in_bot() -> None:
    loose = {p.name for p in BOT.glob("*.py")} - {"__init__.py", "__main__.py", "errors.py", "config.py"}
    assert loose == set()


def test_modules_sharing_a_name_say_why() -> None:
    """Two `lint.py` in different packages are fine when each docstring names the other and why."""
    by_name: dict[str, list[Path]] = defaultdict(list)
    for path in BOT.rglob("*.py"):
        if path.name not in {"__init__.py", "__main__.py"}:
            by_name[path.name].append(path)
    unexplained: list[str] = []
    for paths in by_name.values():
        for path in paths:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            for other in paths:
                dotted = ".".join(other.relative_to(REPO).with_suffix("").parts)
                if other != path and dotted not in doc:
                    unexplained.append(f"{path.relative_to(REPO)} does not mention {dotted}")
    assert unexplained == []


# backup/restore and doctor inspect a database file that may be damaged or not errfix's at all,
# on read-only connections of their own: they never go through a Store, so their checks stay there.
SQL_OUTSIDE_STORE = {"bot/ops/backup.py", "bot/ops/doctor.py"}
SQL = re.compile(r"\b(?:SELECT\s.+\sFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b")


def test_sql_lives_in_the_store() -> None:
    wrong = [
        str(path.relative_to(REPO))
        for path in sorted(BOT.rglob("*.py"))
        if path.relative_to(BOT).parts[0] != "store"
        and str(path.relative_to(REPO)) not in SQL_OUTSIDE_STORE
        and SQL.search(path.read_text(encoding="utf-8"))
    ]
    assert wrong == []


def test_the_sql_check_sees_sql() -> None:
    assert SQL.search('db.execute("SELECT 1 FROM meta WHERE key = ?")')
    assert SQL.search("INSERT OR REPLACE INTO sync_state (url) VALUES (?)")
    assert not SQL.search("select the best candidate from the pool")

"""The fault suite's fixtures: the real bolt app over HTTP on 127.0.0.1 and the strict fake Slack
(the same ones the Slack tests use), plus stores filled with hostile records."""

from __future__ import annotations

from pathlib import Path

from bot.core.records import Record
from bot.store import open_store
from tests.slack.conftest import bot, db_file, fake, make_bot, read_store  # noqa: F401 - fixtures

EVIL_PASTE = "a" * 20_000 + "!"  # what `^(?=(a+)+$)` backtracks on for ever


def backtracking_records(n: int) -> list[Record]:
    """n records whose regexes RE2 refuses (look-ahead) and a backtracking engine stalls on."""
    return [Record(id=f"evil/{k}", signature="a" * (k % 7 + 3), regex=rf"^(?=(a+)+$)a{{0,{k}}}") for k in range(n)]


def hostile_store(db: Path, n: int = 1000) -> None:
    """A store that already holds `n` backtracking records (written before import refused them)."""
    store = open_store(str(db))
    try:
        store.import_records(backtracking_records(n))
    finally:
        store.close()

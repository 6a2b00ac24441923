"""The audit trail on a real SQLite file: one entry for each change to the team's knowledge or data
(learned and unlearned aliases, rejections undone, import, sync, restore, forget, purge), written
in the change's own transaction, redacted, newest first."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.ops.backup import backup, restore
from bot.service.errfix import Errfix
from bot.store import audit, open_store
from bot.store.files import load
from bot.store.learning import Learning
from bot.store.privacy import Privacy
from bot.store.store import Store
from bot.store.upstream import Fetched, Upstreams
from tests.conftest import full, minimal, write_jsonl

RID = "own/a"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "audit.db")
    s.import_records([Record.model_validate(full(RID))])
    return s


def _actions(store: Store) -> list[tuple[str, str, str]]:
    return [(e.action, e.actor, e.target) for e in audit.entries(store.db)]


def test_learning_and_unlearning_an_alias_are_audited_with_who(store: Store) -> None:
    learning = Learning(store)
    assert learning.learn_alias(RID, "OwnError: the pipeline broke", "U1")
    assert not learning.learn_alias(RID, "OwnError: the pipeline broke", "U2")  # known: nothing changed
    assert learning.unlearn_alias(RID, "OwnError: the pipeline broke", actor="cli:ops") == 1
    assert learning.unlearn_alias(RID, "OwnError: the pipeline broke", actor="cli:ops") == 0
    assert _actions(store) == [("unlearn-alias", "cli:ops", RID), ("learn-alias", "U1", RID)]
    assert [e.detail for e in audit.entries(store.db)] == [{"alias": "OwnError: the pipeline broke"}] * 2


def test_a_rejection_undone_is_audited_with_how_many_and_whose(store: Store) -> None:
    for user in ("U1", "U2"):
        store.db.execute(
            "INSERT INTO rejections (record_id, line, user_id, created_at) VALUES (?, 'valueerror: boom', ?, ?)",
            [RID, user, "2026-12-01T00:00:00Z"],
        )
    store.db.conn.commit()
    assert Learning(store).unlearn_rejection(RID, "valueerror: boom", actor="cli:ops") == 2
    (entry,) = audit.entries(store.db)
    assert (entry.action, entry.actor, entry.target) == ("unlearn-rejection", "cli:ops", RID)
    assert entry.detail == {"line": "valueerror: boom", "removed": 2, "of_user": "every user"}


def test_what_an_entry_holds_is_redacted(store: Store) -> None:
    assert Learning(store).learn_alias(RID, f"OwnError: key {AWS_KEY} refused", "U1")
    raw = store.db.execute("SELECT target || detail FROM audit").fetchone()[0]
    assert AWS_KEY not in raw and "[redacted:aws-access-key]" in raw
    audit.write(store.db, actor="cli:ops", action="import", target=f"https://u:{AWS_KEY}@x", detail={"n": [AWS_KEY]})
    assert all(AWS_KEY not in str(e.to_json()) for e in audit.entries(store.db))


def test_an_import_is_audited_in_its_transaction_with_the_actor_of_the_service(tmp_path: Path) -> None:
    svc = Errfix(Store(tmp_path / "import.db"), actor="cli:alice")
    loaded = load([write_jsonl(tmp_path / "r.jsonl", [minimal("own/x"), minimal("own/y")])])
    svc.import_loaded(loaded)
    svc.import_loaded(loaded)
    entries = svc.audit()
    assert [(e.action, e.actor) for e in entries] == [("import", "cli:alice")] * 2
    assert entries[0].detail == {"added": 0, "changed": 0, "unchanged": 2, "skipped": 0}
    assert entries[1].detail == {"added": 2, "changed": 0, "unchanged": 0, "skipped": 0}
    svc.close()


def test_a_new_database_records_its_seed_import(tmp_path: Path) -> None:
    store = open_store(tmp_path / "seeded.db")
    (entry,) = audit.entries(store.db)
    assert (entry.action, entry.actor, entry.detail["origin"]) == ("import", "errfix", "seed")
    assert entry.detail["added"] == store.count() > 100
    store.close()


def test_a_sync_that_changes_records_is_audited_and_one_that_does_not_is_not(store: Store) -> None:
    upstreams = Upstreams(store)
    records = [Record.model_validate(minimal("up/one")), Record.model_validate(minimal("up/two"))]
    fetched = Fetched("https://user:pw@kb.example/records.jsonl?token=x", b"body")
    upstreams.apply(fetched, records, actor="cli:ops")
    upstreams.apply(fetched, records, actor="cli:ops")  # the same records again: nothing changed
    upstreams.apply(fetched, records[:1], actor="errfix")
    assert _actions(store) == [
        ("sync", "errfix", "https://kb.example/records.jsonl?…"),
        ("sync", "cli:ops", "https://kb.example/records.jsonl?…"),
    ]
    assert audit.entries(store.db)[0].detail == {"added": 0, "changed": 0, "removed": 1, "removed_ids": ["up/two"]}


def test_a_restore_is_audited_in_the_restored_database(tmp_path: Path) -> None:
    db, saved = tmp_path / "live.db", tmp_path / "saved.db"
    store = Store(db)
    store.import_records([Record.model_validate(minimal("own/x"))])
    store.close()
    backup(db, saved)
    restore(saved, db, actor="cli:ops")
    store = Store(db)
    (entry,) = audit.entries(store.db)
    assert (entry.action, entry.actor, entry.target) == ("restore", "cli:ops", str(db))
    assert (entry.detail["from"], entry.detail["records"]) == (str(saved), 1)
    store.close()


def test_forget_and_purge_are_audited_and_listed_newest_first(store: Store) -> None:
    privacy = Privacy(store)
    store.db.execute(
        "INSERT INTO pastes (channel, ts, line, created_at, user_id) "
        "VALUES ('C1', '1.1', 'x', '2000-01-01T00:00:00Z', 'U7')"
    )
    store.db.conn.commit()
    privacy.purge_expired(datetime(2026, 12, 4, tzinfo=UTC), 30)
    privacy.forget_user("U1", actor="cli:ops")
    privacy.forget_channel("C9", actor="cli:ops")
    assert [a for a, _, _ in _actions(store)] == ["forget-channel", "forget-user", "retention-purge"]


def test_a_change_that_fails_leaves_no_audit_entry(store: Store) -> None:
    """The entry is in the change's transaction: a rollback takes both."""
    store.db.execute("CREATE TRIGGER refuse BEFORE DELETE ON pastes BEGIN SELECT RAISE(ABORT, 'refused'); END")
    store.db.execute(
        "INSERT INTO pastes (channel, ts, line, created_at, user_id) "
        "VALUES ('C1', '1.1', 'x', '2026-12-01T00:00:00Z', 'U1')"
    )
    store.db.conn.commit()
    with pytest.raises(sqlite3.IntegrityError):
        Privacy(store).forget_user("U1", actor="cli:ops")
    assert audit.entries(store.db) == []


def test_since_keeps_the_entries_at_or_after_it(store: Store) -> None:
    for at in ("2026-11-30T23:59:59Z", "2026-12-01T00:00:00Z", "2026-12-02T08:00:00Z"):
        store.db.execute("INSERT INTO audit (at, actor, action) VALUES (?, 'cli:ops', 'import')", [at])
    assert [e.at for e in audit.entries(store.db, "2026-12-01T00:00:00Z")] == [
        "2026-12-02T08:00:00Z",
        "2026-12-01T00:00:00Z",
    ]
    assert len(audit.entries(store.db)) == 3

"""`errfix forget-user`, `forget-channel` and `audit` through the command line, on a real SQLite file:
what each prints, that it exits 0, that it is audited as `cli:<login>`, and `--since`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.views import workaround_key
from bot.store.store import Store
from tests.conftest import SEED_ID, Cli


@pytest.fixture(autouse=True)
def login(monkeypatch: pytest.MonkeyPatch) -> None:
    """Who runs the commands, as getpass reads it."""
    monkeypatch.setenv("LOGNAME", "alice")


@pytest.fixture
def people_db(tmp_path: Path, cli: Cli) -> Path:
    """A seeded database where U1 (in C1) and U2 (in C2) pasted, were answered and voted."""
    db = tmp_path / "people.db"
    assert cli("stats", "--db", db).code == 0  # creates and seeds it
    store = Store(db)
    wkey = workaround_key(store.get(SEED_ID).workarounds[0].action)
    for n, user, channel in ((1, "U1", "C1"), (2, "U2", "C2")):
        store.db.execute(
            "INSERT INTO pastes (channel, ts, line, created_at, channel_type, user_id) "
            "VALUES (?, ?, 'RuntimeError: Loss is NaN', '2026-12-01T10:00:00Z', 'channel', ?)",
            [channel, f"{n}.1", user],
        )
        store.db.execute(
            "INSERT INTO replies (channel, reply_ts, message_ts, thread_ts, record_id, score, created_at) "
            "VALUES (?, ?, ?, ?, ?, 0.9, '2026-12-01T10:00:01Z')",
            [channel, f"{n}.9", f"{n}.1", f"{n}.1", SEED_ID],
        )
        store.vote(f"{channel}:{n}.9", SEED_ID, wkey, user, 1)
    store.db.conn.commit()
    store.close()
    return db


def _up_votes(db: Path) -> int:
    store = Store(db)
    try:
        return sum(t.up for t in store.tallies(SEED_ID).values())
    finally:
        store.close()


def test_forget_user_prints_what_it_removed_per_table(people_db: Path, cli: Cli) -> None:
    r = cli("forget-user", "U1", "--db", people_db)
    assert r.code == 0, r.err
    assert r.out.splitlines() == [
        "forgot user U1 (one transaction, audited):",
        "  pastes: 1 removed",
        "  rejections: 0 removed",
        "  aliases: 0 removed",
        "  votes: 1 detached, still counted",
        "  audit: 0 anonymised",
        "  memory: 0 removed",
        "  memory_resolutions: 0 removed",
        "  memory_votes: 0 removed",
    ]
    assert _up_votes(people_db) == 2
    store = Store(people_db)
    assert [r[0] for r in store.db.execute("SELECT user_id FROM pastes")] == ["U2"]
    store.close()
    again = cli("forget-user", "U1", "--db", people_db)
    assert again.code == 0 and "  pastes: 0 removed" in again.out.splitlines()


def test_forget_channel_prints_what_it_removed_per_table(people_db: Path, cli: Cli) -> None:
    r = cli("forget-channel", "C2", "--db", people_db)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "forgot channel C2 (one transaction, audited):"
    assert {"  pastes: 1 removed", "  replies: 1 removed", "  votes: 1 detached, still counted"} <= set(lines)
    assert _up_votes(people_db) == 2


def test_an_empty_id_is_refused(people_db: Path, cli: Cli) -> None:
    r = cli("forget-user", " ", "--db", people_db)
    assert r.code == 2 and r.err.startswith("errfix: give the Slack user id")


def test_audit_lists_what_the_cli_did_newest_first_as_the_login(people_db: Path, cli: Cli) -> None:
    assert cli("forget-user", "U1", "--db", people_db).code == 0
    assert cli("forget-channel", "C2", "--db", people_db).code == 0
    data = cli("audit", "--json", "--db", people_db).json()["entries"]
    assert [(e["action"], e["actor"], e["target"]) for e in data][:2] == [
        ("forget-channel", "cli:alice", "C2"),
        ("forget-user", "cli:alice", "U1"),
    ]
    assert data[-1]["action"] == "import" and data[-1]["detail"]["origin"] == "seed"
    text = cli("audit", "--db", people_db).out.splitlines()
    assert text[0].split("  ")[1:4] == ["cli:alice", "forget-channel", "C2"]
    assert text[-1] == "3 entries"


def test_unlearn_and_import_from_the_cli_are_audited(people_db: Path, cli: Cli, tmp_path: Path) -> None:
    store = Store(people_db)
    store.db.execute(
        "INSERT INTO aliases (record_id, alias, origin, created_by, created_at) "
        "VALUES (?, 'NaN again at step 5', 'learned', 'U1', '2026-12-01T10:00:00Z')",
        [SEED_ID],
    )
    store.db.conn.commit()
    store.close()
    assert cli("unlearn", "alias", SEED_ID, "NaN again at step 5", "--db", people_db).code == 0
    (tmp_path / "own.jsonl").write_text('{"id": "own/x", "signature": "OwnError: x", "regex": "OwnError"}\n')
    assert cli("import", tmp_path / "own.jsonl", "--db", people_db).code == 0
    data = cli("audit", "--json", "--db", people_db).json()["entries"]
    assert [(e["action"], e["actor"]) for e in data][:2] == [("import", "cli:alice"), ("unlearn-alias", "cli:alice")]
    assert data[0]["detail"]["added"] == 1 and data[1]["detail"] == {"alias": "NaN again at step 5"}


def test_audit_since_keeps_entries_at_or_after_the_date(people_db: Path, cli: Cli) -> None:
    store = Store(people_db)
    store.db.execute("DELETE FROM audit")
    for n, at in enumerate(("2026-11-30T23:59:59Z", "2026-12-01T00:00:00Z", "2026-12-02T08:30:00Z")):
        store.db.execute(
            "INSERT INTO audit (at, actor, action, target) VALUES (?, 'cli:ops', 'import', ?)", [at, f"t{n}"]
        )
    store.db.conn.commit()
    store.close()

    def since(*args: str) -> list[str]:
        r = cli("audit", *args, "--json", "--db", people_db)
        assert r.code == 0, r.err
        return [e["target"] for e in r.json()["entries"]]

    assert since() == ["t2", "t1", "t0"]
    assert since("--since", "2026-12-01") == ["t2", "t1"]
    assert since("--since", "2026-12-02T08:30:00Z") == ["t2"]
    assert since("--since", "2026-12-02T08:30:01") == []
    assert since("--since", "2026-12-02T10:30:00+02:00") == ["t2"]  # 08:30 UTC
    r = cli("audit", "--since", "2026-12-01", "--db", people_db)
    assert r.out.splitlines()[-1] == "2 entries since 2026-12-01T00:00:00Z"


def test_audit_refuses_a_date_it_cannot_read(people_db: Path, cli: Cli) -> None:
    r = cli("audit", "--since", "last tuesday", "--db", people_db)
    assert r.code == 2 and "--since: 'last tuesday' is not a date" in r.err

"""Retention and erasure on a real SQLite file (bot/store/privacy.py): the purge removes exactly
what is older than the cut, forget-user and forget-channel remove one person's or one channel's
rows and no one else's, votes stay counted with their identity gone, each is audited."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.core.views import Tally, workaround_key
from bot.service.errfix import Errfix
from bot.store import audit
from bot.store.inbox import Inbox, events_path
from bot.store.learning import Learning, Paste
from bot.store.privacy import Privacy
from bot.store.store import Reply, Store
from tests.conftest import full

NOW = datetime(2026, 12, 4, 12, 0, 0, tzinfo=UTC)
CUT = "2026-11-04T12:00:00Z"  # 30 days before NOW
OLDER = "2026-11-04T11:59:59Z"  # one second older than the cut: goes
NEWER = "2026-11-04T12:00:01Z"  # one second newer: stays
CUT_EPOCH = datetime(2026, 11, 4, 12, 0, 0, tzinfo=UTC).timestamp()
RID = "own/a"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "privacy.db")
    s.import_records([Record.model_validate(full(RID))])
    return s


def _wkeys(store: Store) -> list[str]:
    return [workaround_key(w.action) for w in store.get(RID).workarounds]


def _paste(store: Store, channel: str, ts: str, user: str, at: str, line: str = "ValueError: boom") -> None:
    store.db.execute(
        "INSERT INTO pastes (channel, ts, line, record_id, score, replied, created_at, channel_type, user_id) "
        "VALUES (?, ?, ?, NULL, NULL, 0, ?, 'channel', ?)",
        [channel, ts, line, at, user],
    )
    store.db.conn.commit()  # on disk, as errfix wrote it: the purge starts its own transaction


def _rejection(store: Store, line: str, user: str, at: str, channel: str | None = "C1") -> None:
    store.db.execute(
        "INSERT INTO rejections (record_id, line, user_id, created_at, channel) VALUES (?, ?, ?, ?, ?)",
        [RID, line, user, at, channel],
    )
    store.db.conn.commit()


def _count(store: Store, table: str, where: str = "1", params: list[object] | None = None) -> int:
    return int(store.db.execute(f"SELECT count(*) FROM {table} WHERE {where}", params or []).fetchone()[0])


def _audit(store: Store, action: str) -> list[audit.Entry]:
    return [e for e in audit.entries(store.db) if e.action == action]


# ---- retention --------------------------------------------------------------------------------


def test_the_purge_removes_exactly_the_rows_older_than_the_cut(store: Store) -> None:
    for n, at in enumerate((OLDER, CUT, NEWER)):
        _paste(store, "C1", f"1.{n}", "U1", at)
        _rejection(store, f"line {n}", "U1", at)
        store.db.execute("INSERT INTO clicks (id, created_at) VALUES (?, ?)", [f"click:{n}", at])
    store.db.conn.commit()
    version = store.version

    done = Privacy(store).purge_expired(NOW, 30, extra={"seen_events": 4, "jobs": 2})

    assert done.counts == {"pastes": 1, "rejections": 1, "clicks": 1, "seen_events": 4, "jobs": 2}
    assert [r[0] for r in store.db.execute("SELECT created_at FROM pastes ORDER BY created_at")] == [CUT, NEWER]
    assert [r[0] for r in store.db.execute("SELECT created_at FROM rejections ORDER BY 1")] == [CUT, NEWER]
    assert store.version == version + 1  # a rejection went: the matcher rebuilds without it
    (entry,) = _audit(store, "retention-purge")
    assert (entry.actor, entry.target) == ("errfix", "30 days")
    assert entry.detail == {"pastes": 1, "rejections": 1, "clicks": 1, "seen_events": 4, "jobs": 2}
    assert [r[0] for r in store.db.execute("SELECT id FROM clicks ORDER BY 1")] == ["click:1", "click:2"]


def test_the_service_purges_the_events_file_with_the_same_cut(tmp_path: Path) -> None:
    db = tmp_path / "svc.db"
    svc = Errfix.open(str(db), seed=False)
    inbox = Inbox(events_path(str(db)), clock=lambda: CUT_EPOCH - 1)
    inbox.accept(["event:old"], ("event:old", {}))
    inbox.clock = lambda: CUT_EPOCH
    inbox.accept(["event:cut"], ("event:cut", {}))
    inbox.close()
    try:
        done = svc.purge_expired(NOW, 30)
        assert (done.counts["seen_events"], done.counts["jobs"]) == (1, 1)
        (entry,) = [e for e in svc.audit() if e.action == "retention-purge"]
        assert (entry.detail["seen_events"], entry.detail["jobs"]) == (1, 1)
    finally:
        svc.close()
    inbox = Inbox(events_path(str(db)))
    assert [j.key for j in inbox.pending()] == ["event:cut"] and inbox.is_seen("event:cut")
    inbox.close()


def test_a_second_purge_finds_nothing_and_adds_no_audit_entry(store: Store) -> None:
    _paste(store, "C1", "1.1", "U1", OLDER)
    store.db.conn.commit()
    privacy = Privacy(store)
    assert privacy.purge_expired(NOW, 30).total == 1
    version = store.version
    again = privacy.purge_expired(NOW, 30)
    assert again.total == 0 and again.counts["pastes"] == 0 and store.version == version
    assert len(_audit(store, "retention-purge")) == 1


def test_a_shorter_retention_cuts_nearer(store: Store) -> None:
    _paste(store, "C1", "1.1", "U1", "2026-12-03T11:59:59Z")  # a day and a second old
    _paste(store, "C1", "1.2", "U1", "2026-12-03T12:00:01Z")
    store.db.conn.commit()
    assert Privacy(store).purge_expired(NOW, 1).counts["pastes"] == 1
    assert _count(store, "pastes") == 1


def test_zero_days_keeps_everything(store: Store) -> None:
    _paste(store, "C1", "1.1", "U1", "2000-01-01T00:00:00Z")
    _rejection(store, "old line", "U1", "2000-01-01T00:00:00Z")
    store.db.conn.commit()
    assert Privacy(store).purge_expired(NOW, 0).total == 0
    assert (_count(store, "pastes"), _count(store, "rejections")) == (1, 1)
    assert _audit(store, "retention-purge") == []


def test_the_purge_never_touches_the_audit_trail(store: Store) -> None:
    store.db.execute(
        "INSERT INTO audit (at, actor, action, target, detail) "
        "VALUES ('2000-01-01T00:00:00Z', 'U1', 'import', '', '{}')"
    )
    _paste(store, "C1", "1.1", "U1", OLDER)
    store.db.conn.commit()
    Privacy(store).purge_expired(NOW, 30)
    assert [e.at for e in audit.entries(store.db)][-1] == "2000-01-01T00:00:00Z"


# ---- forget-user ------------------------------------------------------------------------------


def _two_people(store: Store) -> None:
    """U1 (in C1, message 1.1, answer 1.9) and U2 (C2, 2.1, 2.9) each paste, reject, teach an
    alias and vote; U1 also votes on U2's answer."""
    learning = Learning(store)
    w0, w1 = _wkeys(store)[:2]
    for n, user, channel in ((1, "U1", "C1"), (2, "U2", "C2")):
        learning.log_paste(Paste(channel, f"{n}.1", f"ValueError: {n} broke", None, None, False, "channel", user))
        store.record_reply(Reply(channel, f"{n}.9", f"{n}.1", f"{n}.1", RID, 0.9))
        learning.reject(channel=channel, message_ts=f"{n}.1", record_id=RID, user_id=user)
        assert learning.learn_alias(RID, f"OwnError: taught by person {n}", user)
        store.vote(f"{channel}:{n}.9", RID, w0, user, 1)
        store.vote(f"{channel}:{n}.9", RID, w1, user, -1)
    store.vote("C2:2.9", RID, w0, "U1", 1)


def _cells_holding(store: Store, value: str) -> list[str]:
    """Every table.column whose rows hold `value` (anywhere in a text) in the database file."""
    found: list[str] = []
    tables = [r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        if table.startswith(("records_fts", "sqlite_", "_sqlite")):
            continue
        for col in [r[1] for r in store.db.execute(f"PRAGMA table_info({table})")]:
            n = store.db.execute(f'SELECT count(*) FROM {table} WHERE instr("{col}", ?) > 0', [value]).fetchone()[0]
            if n:
                found.append(f"{table}.{col}")
    return found


def test_forget_user_removes_that_persons_rows_and_no_one_elses(store: Store) -> None:
    _two_people(store)
    before = {t: _count(store, t) for t in ("pastes", "rejections", "votes", "replies")}
    u2_rows = (
        store.db.execute("SELECT * FROM pastes WHERE user_id = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM rejections WHERE user_id = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM aliases WHERE created_by = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM votes WHERE user_id = 'U2' ORDER BY wkey").fetchall(),
    )
    version = store.version

    done = Privacy(store).forget_user("U1", actor="cli:ops")

    assert done.counts == {
        **{"pastes": 1, "rejections": 1, "aliases": 1, "votes": 3, "audit": 1},
        **{"memory": 0, "memory_resolutions": 0, "memory_votes": 0},
    }
    assert (_count(store, "pastes"), _count(store, "rejections")) == (before["pastes"] - 1, before["rejections"] - 1)
    assert (_count(store, "votes"), _count(store, "replies")) == (before["votes"], before["replies"])
    assert u2_rows == (
        store.db.execute("SELECT * FROM pastes WHERE user_id = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM rejections WHERE user_id = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM aliases WHERE created_by = 'U2'").fetchall(),
        store.db.execute("SELECT * FROM votes WHERE user_id = 'U2' ORDER BY wkey").fetchall(),
    )
    assert store.version == version + 1  # an alias and a rejection went: the matcher rebuilds
    # the only trace of U1 left is the audit entry saying they were forgotten
    assert _cells_holding(store, "U1") == ["audit.target"]
    (entry,) = _audit(store, "forget-user")
    assert (entry.actor, entry.target, entry.detail["votes"]) == ("cli:ops", "U1", 3)


def test_vote_counts_are_unchanged_after_forget_and_each_vote_keeps_its_own_token(store: Store) -> None:
    _two_people(store)
    w0, w1 = _wkeys(store)[:2]
    assert store.tallies(RID) == {w0: Tally(3, 0), w1: Tally(0, 2)}
    Privacy(store).forget_user("U1", actor="cli:ops")
    assert store.tallies(RID) == {w0: Tally(3, 0), w1: Tally(0, 2)}
    tokens = [r[0] for r in store.db.execute("SELECT user_id FROM votes WHERE user_id LIKE 'forgotten:%'")]
    assert len(tokens) == 3 and len(set(tokens)) == 3  # nothing ties the three votes to one person


def test_two_forgotten_people_who_voted_the_same_fix_are_still_two_votes(store: Store) -> None:
    w0 = _wkeys(store)[0]
    for user in ("U1", "U2", "U3"):
        store.vote("C1:9.9", RID, w0, user, 1)
    privacy = Privacy(store)
    privacy.forget_user("U1", actor="cli:ops")
    privacy.forget_user("U2", actor="cli:ops")
    assert store.tallies(RID) == {w0: Tally(3, 0)}


def test_a_forgotten_persons_audit_entries_lose_their_name_and_text(store: Store) -> None:
    learning = Learning(store)
    assert learning.learn_alias(RID, "OwnError: taught by U1", "U1")
    assert learning.learn_alias(RID, "OwnError: taught by U2", "U2")
    _rejection(store, "ownerror: u1 line", "U1", NEWER)
    assert learning.unlearn_rejection(RID, "ownerror: u1 line", "U1", actor="cli:ops") == 1
    Privacy(store).forget_user("U1", actor="cli:ops")
    learned = {e.actor: e.detail for e in _audit(store, "learn-alias")}
    assert learned == {"forgotten": {}, "U2": {"alias": "OwnError: taught by U2"}}
    (undone,) = _audit(store, "unlearn-rejection")
    assert undone.detail["of_user"] == "forgotten" and undone.actor == "cli:ops"


def test_forgetting_someone_unknown_removes_nothing_but_is_audited(store: Store) -> None:
    _two_people(store)
    done = Privacy(store).forget_user("U404", actor="cli:ops")
    assert done.total == 0 and len(_audit(store, "forget-user")) == 1


# ---- forget-channel ---------------------------------------------------------------------------


def test_forget_channel_removes_that_channels_rows_and_keeps_its_votes_counted(store: Store) -> None:
    _two_people(store)
    w0, w1 = _wkeys(store)[:2]
    tallies = store.tallies(RID)

    done = Privacy(store).forget_channel("C1", actor="cli:ops", extra={"seen_events": 2, "jobs": 1})

    assert done.counts == {
        **{"pastes": 1, "replies": 1, "rejections": 1, "votes": 2, "seen_events": 2, "jobs": 1},
        **{"channel_settings": 0, "digests": 0, "memory": 0, "memory_resolutions": 0},
    }
    assert store.tallies(RID) == tallies == {w0: Tally(3, 0), w1: Tally(0, 2)}
    assert [r[0] for r in store.db.execute("SELECT DISTINCT channel FROM pastes")] == ["C2"]
    assert [r[0] for r in store.db.execute("SELECT DISTINCT channel FROM replies")] == ["C2"]
    assert [r[0] for r in store.db.execute("SELECT channel FROM rejections")] == ["C2"]
    assert _count(store, "votes", "reply_key LIKE 'C2:%'") == 3  # U2's two and U1's one on C2
    # the learned alias is the team's knowledge, its teacher's to erase: it stays
    assert _count(store, "aliases", "created_by = 'U1'") == 1
    assert _cells_holding(store, "C1") == ["audit.target"]
    (entry,) = _audit(store, "forget-channel")
    assert (entry.target, json.dumps(entry.detail, sort_keys=True)) == ("C1", json.dumps(done.counts, sort_keys=True))


def test_a_channel_whose_id_begins_another_is_left_alone(store: Store) -> None:
    w0 = _wkeys(store)[0]
    store.vote("C1:1.1", RID, w0, "U1", 1)
    store.vote("C10:1.1", RID, w0, "U1", 1)
    _paste(store, "C10", "1.1", "U1", NEWER)
    done = Privacy(store).forget_channel("C1", actor="cli:ops")
    assert (done.counts["votes"], done.counts["pastes"]) == (1, 0)
    assert _count(store, "votes", "reply_key = 'C10:1.1'") == 1 and _count(store, "pastes") == 1

"""The events file: dedupe keys and owed jobs, against a real SQLite file and a fake clock."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.errors import StoreError
from bot.store.inbox import Inbox, events_path


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def inbox(tmp_path: Path, clock: Clock) -> Inbox:
    box = Inbox(tmp_path / "errfix.db-events", clock=clock, ttl=100.0, purge_every=10.0)
    yield box
    box.close()


def test_the_events_file_sits_next_to_the_database() -> None:
    assert events_path("/var/lib/errfix/errfix.db") == "/var/lib/errfix/errfix.db-events"
    assert events_path(":memory:") == ":memory:"


def test_keys_are_accepted_once(inbox: Inbox) -> None:
    assert inbox.accept(["event:E1", "msg:C1:1.0"]) is True
    assert inbox.accept(["event:E1"]) is False
    assert inbox.accept(["event:E2", "msg:C1:1.0"]) is False  # Slack's retry with a new id, same message
    assert inbox.accept(["event:E3", "msg:C1:2.0"]) is True
    assert inbox.counts() == (4, 0)  # the refused E2 left nothing behind


def test_a_job_is_written_with_its_keys_and_not_by_a_duplicate(inbox: Inbox, clock: Clock) -> None:
    assert inbox.accept(["event:E1", "msg:C1:1.0"], ("event:E1", {"event": {"text": "first"}}))
    clock.now += 5
    assert not inbox.accept(["event:E9", "msg:C1:1.0"], ("event:E9", {"event": {"text": "retry"}}))
    [job] = inbox.pending()
    assert (job.key, job.body, job.created_at, job.attempts) == ("event:E1", {"event": {"text": "first"}}, 1e6, 0)


def test_jobs_survive_closing_the_file_as_a_kill_would(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "x.db-events"
    first = Inbox(path, clock=clock)
    first.accept(["event:E1"], ("event:E1", {"n": 1}))
    # no close(): another connection (a new process) sees the committed row
    second = Inbox(path, clock=clock)
    assert [j.key for j in second.pending()] == ["event:E1"]
    second.close()
    first.close()


def test_finish_attempt_and_release(inbox: Inbox) -> None:
    inbox.accept(["event:E1"], ("event:E1", {}))
    assert inbox.attempt("event:E1") == 1
    assert inbox.attempt("event:E1") == 2
    assert inbox.pending()[0].attempts == 2
    assert inbox.finish("event:E1") is True
    assert inbox.finish("event:E1") is False
    assert inbox.attempt("event:E1") == 0
    assert inbox.pending() == []
    inbox.accept(["answered:C1:1.0"])
    assert inbox.is_seen("answered:C1:1.0")
    inbox.release(["answered:C1:1.0"])
    assert not inbox.is_seen("answered:C1:1.0")
    assert inbox.accept(["answered:C1:1.0"]) is True


def test_pending_older_than(inbox: Inbox, clock: Clock) -> None:
    inbox.accept(["event:A"], ("event:A", {}))
    clock.now += 30
    inbox.accept(["event:B"], ("event:B", {}))
    clock.now += 10
    assert [j.key for j in inbox.pending(older_than=10)] == ["event:B", "event:A"][::-1]
    assert [j.key for j in inbox.pending(older_than=11)] == ["event:A"]
    assert [j.key for j in inbox.pending(older_than=41)] == []


def test_purge_removes_only_what_is_older_than_the_ttl(inbox: Inbox, clock: Clock) -> None:
    inbox.accept(["event:old"], ("event:old", {}))
    clock.now += 1
    inbox.accept(["event:new"], ("event:new", {}))
    assert inbox.purge(clock.now + 99.5) == (1, 1)  # then old is 100.5 s old, new 99.5
    assert inbox.counts() == (1, 1)
    assert inbox.pending()[0].key == "event:new"


def test_accept_purges_at_most_once_per_interval(inbox: Inbox, clock: Clock) -> None:
    inbox.accept(["k0"])  # the first accept purges (nothing yet) and starts the interval
    clock.now += 101  # k0 is now past the ttl
    inbox.accept(["k1"])  # 101 s since the last purge >= 10: purged
    assert not inbox.is_seen("k0")
    inbox.accept(["k2"])
    clock.now += 101
    inbox.accept(["k3"])  # purged again: k1 and k2 (101 s old) go
    assert (inbox.is_seen("k1"), inbox.is_seen("k2"), inbox.is_seen("k3")) == (False, False, True)
    clock.now += 9.5
    old = clock.now - 200
    inbox.db.execute("INSERT INTO seen (key, seen_at) VALUES ('ancient', ?)", [old])
    inbox.accept(["k4"])  # 9.5 s since the last purge: not yet
    assert inbox.is_seen("ancient")
    clock.now += 0.5
    inbox.accept(["k5"])  # 10 s: purged
    assert not inbox.is_seen("ancient")


def test_the_purge_uses_an_index(inbox: Inbox) -> None:
    plan = " ".join(
        str(row[-1]) for row in inbox.db.execute("EXPLAIN QUERY PLAN DELETE FROM seen WHERE seen_at < 5").fetchall()
    )
    assert "USING INDEX seen_at" in plan or "USING COVERING INDEX seen_at" in plan


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk-events"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match="not a usable errfix events file"):
        Inbox(path)


def test_no_transaction_is_left_open(inbox: Inbox) -> None:
    inbox.accept(["a"], ("a", {}))
    assert not inbox.db.conn.in_transaction
    with pytest.raises(sqlite3.Error):
        inbox.db.execute("INSERT INTO seen (key, seen_at) VALUES ('a', 1)")  # a duplicate key
    assert not inbox.db.conn.in_transaction


def test_forget_channel_removes_its_keys_and_jobs_only(inbox: Inbox) -> None:
    message = {"type": "event_callback", "event": {"type": "message", "channel": "C1", "ts": "1.1"}}
    reaction = {"type": "event_callback", "event": {"type": "reaction_added", "item": {"channel": "C1", "ts": "1.2"}}}
    elsewhere = {"type": "event_callback", "event": {"type": "message", "channel": "C10", "ts": "1.1"}}
    inbox.accept(["event:E1", "msg:C1:1.1"], ("event:E1", message))
    inbox.accept(["event:E2"], ("event:E2", reaction))
    inbox.accept(["event:E3", "msg:C10:1.1"], ("event:E3", elsewhere))
    inbox.accept(["answered:C1:1.1", "secret-notice:C1:1.1"])
    assert inbox.forget_channel("C1") == (3, 2)
    assert [j.key for j in inbox.pending()] == ["event:E3"]
    assert [inbox.is_seen(k) for k in ("event:E1", "event:E2", "msg:C10:1.1")] == [True, True, True]


def test_purge_before_a_cut(inbox: Inbox, clock: Clock) -> None:
    inbox.accept(["a"], ("a", {}))
    clock.now += 1
    inbox.accept(["b"], ("b", {}))
    assert inbox.purge_before(clock.now) == (1, 1)  # a is older than the cut; b is at it and stays
    assert inbox.counts() == (1, 1)


def test_by_default_a_key_is_kept_a_week_and_purged_every_ten_minutes(tmp_path: Path, clock: Clock) -> None:
    """Pinned with this test's own numbers (#20): a message edited or retried up to 7 days after
    errfix saw it is not handled again; its key goes at the first purge after that, and purges run
    at most every 600 s."""
    box = Inbox(tmp_path / "errfix.db-events", clock=clock)
    try:
        seen_at = clock.now
        box.accept(["msg:C1:1.0"])
        clock.now = seen_at + 7 * 86400 - 1
        assert box.accept(["msg:C1:1.0"]) is False  # purged just now, and still within the week
        clock.now = seen_at + 7 * 86400 + 598
        box.accept(["other"])  # 599 s after that purge: none yet, though the key is past its week
        assert box.is_seen("msg:C1:1.0")
        clock.now = seen_at + 7 * 86400 + 599
        assert box.accept(["msg:C1:1.0"]) is True  # 600 s: purged, so the message is new again
    finally:
        box.close()

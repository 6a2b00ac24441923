"""Team memory in the store (#36): only what the asker's channel may see, and erasure leaves none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.store import open_store
from bot.store.memory import Memory
from bot.store.privacy import Privacy

KEY = "quarrylockerror: shard orders held by pid <n>"


def remember(
    memory: Memory, channel: str, kind: str, ts: str, user: str = "U1", *, line: str = "QuarryLockError", key: str = KEY
) -> int | None:
    """A paste discussed in its thread (a reply): what "seen before" may link."""
    kept = memory.remember(channel=channel, channel_type=kind, ts=ts, thread_ts=ts, user_id=user, line=line, keys=[key])
    memory.note_reply(channel, ts, "U7")
    return kept


def test_a_thread_is_seen_from_its_own_channel_and_from_any_for_a_public_one(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db", seed=False)
    memory = Memory(store)
    remember(memory, "C_PUB", "channel", "1.1")
    remember(memory, "G_PRIV", "group", "2.1")
    remember(memory, "D_DM", "im", "3.1")
    seen_from = {c: {s.channel for s in memory.seen([KEY], channel=c, thread_ts="9.9")} for c in ("C_X", "G_PRIV")}
    assert seen_from == {"C_X": {"C_PUB"}, "G_PRIV": {"C_PUB", "G_PRIV"}}
    assert memory.seen([KEY], channel="C_PUB", thread_ts="1.1") == []  # never its own thread
    memory.remember(
        channel="C_PUB", channel_type="channel", ts="4.1", thread_ts="4.1", user_id="U1", line="x", keys=[KEY]
    )
    assert [s.ts for s in memory.seen([KEY], channel="C_PUB", thread_ts="9.9")] == ["1.1"]  # 4.1: nobody replied
    store.close()


def test_a_resolution_is_kept_redacted_and_solved_threads_come_first(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db", seed=False)
    memory = Memory(store)
    remember(memory, "C_PUB", "channel", "1.1")
    remember(memory, "C_PUB", "channel", "2.1")
    token = "xoxb-" + "1234567890-" * 3
    said = f"use {token}"
    assert memory.resolve(channel="C_PUB", thread_ts="1.1", kind="check", ts="1.2", user_id="U2", excerpt=said)
    assert not memory.resolve(channel="C_PUB", thread_ts="7.7", kind="check", ts="7.8", user_id="U2", excerpt="x")
    first, second = memory.seen([KEY], channel="C_X", thread_ts="9.9")
    assert (first.ts, first.solved, first.excerpt_user, second.solved) == ("1.1", True, "U2", False)
    assert token not in first.excerpt and first.excerpt.startswith("use ")
    memory.resolve(channel="C_PUB", thread_ts="2.1", kind="check", ts="2.2", user_id="U2", excerpt="y" * 400)
    latest = memory.seen([KEY], channel="C_X", thread_ts="9.9")[0]
    assert (latest.ts, latest.excerpt) == ("2.1", "y" * 280)  # a fix's words are kept to 280 characters
    store.close()


def test_of_two_solved_threads_the_one_sharing_the_pastes_best_key_comes_first(tmp_path: Path) -> None:
    """The later thread shares only the second key (a host-less URL): the earlier, sharing the first, wins."""
    store = open_store(tmp_path / "m.db", seed=False)
    memory = Memory(store)
    best, loose = "error: pull failed get <url a.example>", "~ error: pull failed get <url>"
    for ts, keys in (("1.1", [best, loose]), ("2.1", ["error: pull failed get <url b.example>", loose])):
        memory.remember(channel="C_PUB", channel_type="channel", ts=ts, thread_ts=ts, user_id="U1", line="x", keys=keys)
        memory.resolve(channel="C_PUB", thread_ts=ts, kind="check", ts=ts + "2", user_id="U2", excerpt="fix")
    assert [s.ts for s in memory.seen([best, loose], channel="C_X", thread_ts="9.9")] == ["1.1", "2.1"]
    assert [s.ts for s in memory.seen([loose, best], channel="C_X", thread_ts="9.9")] == ["2.1", "1.1"]
    store.close()


def test_a_paste_remembered_under_older_identities_gets_its_keys_again_once(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db", seed=False)
    memory = Memory(store)
    line = "W0309 21:19:18.193471    4766 quarry.go:726] shard orders lock held too long"
    remember(memory, "C_PUB", "channel", "1.1", line=line, key="old")
    assert memory.rekey() == 1 and memory.rekey() == 0
    store.db.execute("UPDATE meta SET value = '1' WHERE key = 'memory_identities'")
    assert memory.rekey() == 1  # an older version's memory: keyed again
    found = memory.seen(["shard orders lock held too long"], channel="C_X", thread_ts="9.9")
    assert [s.ts for s in found] == ["1.1"] and [s.ts for s in memory.seen(["old"], channel="C_X", thread_ts="9.9")]
    store.close()


def test_forget_channel_forget_user_and_the_purge_leave_nothing_of_what_they_erase(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db", seed=False)
    memory, privacy = Memory(store), Privacy(store)
    for n, (channel, user) in enumerate([("G_PRIV", "U1"), ("C_PUB", "U2"), ("C_PUB", "U3")]):
        mid = remember(memory, channel, "channel", f"{n}.1", user)
        memory.resolve(channel=channel, thread_ts=f"{n}.1", kind="check", ts=f"{n}.2", user_id=user, excerpt="fix")
        assert mid is not None and memory.vote(mid, "U9", 1) == 1
    privacy.forget_channel("G_PRIV", actor="cli:ops")
    privacy.forget_user("U2", actor="cli:ops")
    q = store.db.execute
    assert q("SELECT channel, user_id FROM memory").fetchall() == [("C_PUB", "U3")]
    assert q("SELECT count(*) FROM memory_keys").fetchone()[0] == 1
    assert q("SELECT channel, user_id FROM memory_resolutions").fetchall() == [("C_PUB", "U3")]
    assert q("SELECT count(*) FROM memory_votes").fetchone()[0] == 1
    later = datetime.now(UTC) + timedelta(days=181)
    done = privacy.purge_expired(later, 0, memory_days=180)
    assert done.counts["memory"] == 1 and memory.count() == 0
    store.close()


def test_the_home_lists_errors_not_their_secondary_keys(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db", seed=False)
    memory = Memory(store)
    site = "~ sharderror: <q> shard has no column <q> @ quarry/table.py in load"
    memory.remember(
        channel="C_PUB",
        channel_type="channel",
        ts="1.1",
        thread_ts="1.1",
        user_id="U1",
        line="ShardError",
        keys=[KEY, site],
    )
    memory.resolve(channel="C_PUB", thread_ts="1.1", kind="check", ts="1.2", user_id="U2", excerpt="reindex")
    assert [s.ts for s in memory.seen([site], channel="C_X", thread_ts="9.9")] == ["1.1"]
    solved, _ = memory.home()
    assert [(line, n) for line, n, _, _ in solved] == [("ShardError", 1)]
    store.close()

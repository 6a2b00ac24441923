"""Team memory (#36): the SQL of remembering pasted errors and the threads that solved them.

`Memory(store)` works over the store's connection (so on its one thread). A paste is remembered
with its identities (bot/core/team_memory.py), its thread, channel, channel type, author and time; its
thread's replies are counted with who took part; a thread is *solved* once a reply is marked ✅ (or
the paster reacted to it), a fix in errfix's answer got *Worked*, or a record was saved from it.
Of the resolution a short excerpt is kept, redacted like every stored line.

`seen` answers "has this error been pasted before, where this channel may look?": the thread is in
this channel, or in a public one; never a DM's, group DM's or another private channel's (#18).
Lookups go through the identity index, so their cost does not grow with the memory's size.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from bot.core.extract import extract
from bot.core.redact import redact_text
from bot.core.team_memory import EXCERPT, IDENTITY_VERSION, SECONDARY, Seen, identities
from bot.store.store import Store, now_iso

PUBLIC = "channel"
MAX_LINE = 1_000


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Memory:
    """The remembered pastes of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def remember(
        self, *, channel: str, channel_type: str, ts: str, thread_ts: str, user_id: str, line: str, keys: list[str]
    ) -> int | None:
        """Remember one paste (once: a repeat of the same message is ignored); its row id."""
        if not keys:
            return None
        with self.store.write_transaction():
            cur = self.db.execute(
                "INSERT OR IGNORE INTO memory (channel, channel_type, ts, thread_ts, user_id, line, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [channel, channel_type, ts, thread_ts, user_id, redact_text(line)[:MAX_LINE], now_iso()],
            )
            if cur.rowcount == 0:
                return None
            memory_id = int(cur.lastrowid or 0)
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO memory_keys (key, memory_id) VALUES (?, ?)", [(k, memory_id) for k in keys]
            )
        return memory_id

    def rekey(self) -> int:
        """After identity() changed (IDENTITY_VERSION), each remembered paste's kept line gets its
        keys under the new rules, so a paste remembered before still links; its old keys stay
        (they match nothing new, and cost nothing). The pastes rekeyed (0 when up to date)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'memory_identities'").fetchone()
        if row is not None and row[0] == IDENTITY_VERSION:
            return 0
        lines = self.db.execute("SELECT id, line FROM memory").fetchall()
        keys = [(key, memory_id) for memory_id, line in lines for key in identities(extract(str(line)))]
        with self.store.write_transaction():
            self.db.conn.executemany("INSERT OR IGNORE INTO memory_keys (key, memory_id) VALUES (?, ?)", keys)
            self.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('memory_identities', ?)", [IDENTITY_VERSION]
            )
        return len(lines)

    def note_reply(self, channel: str, thread_ts: str, user_id: str) -> None:
        """A reply in a remembered thread: counted, and its author among those who took part."""
        rows = self.db.execute(
            "SELECT id, participants FROM memory WHERE channel = ? AND thread_ts = ?", [channel, thread_ts]
        ).fetchall()
        if not rows:
            return
        with self.store.write_transaction():
            for memory_id, participants in rows:
                people = [p for p in str(participants).split(",") if p]
                if user_id and user_id not in people:
                    people.append(user_id)
                self.db.execute(
                    "UPDATE memory SET replies = replies + 1, participants = ? WHERE id = ?",
                    [",".join(people[:50]), memory_id],
                )

    def pasted_in(self, channel: str, user_id: str) -> bool:
        """Whether `user_id` has a remembered paste in `channel`."""
        row = self.db.execute("SELECT 1 FROM memory WHERE channel = ? AND user_id = ? LIMIT 1", [channel, user_id])
        return row.fetchone() is not None

    def set_thread(self, channel: str, thread_ts: str, replies: int, participants: list[str]) -> None:
        """A thread's replies and who took part, as read from Slack (`errfix remember`): set, not
        added, so reading a thread again counts it once."""
        with self.store.write_transaction():
            self.db.execute(
                "UPDATE memory SET replies = ?, participants = ? WHERE channel = ? AND thread_ts = ?",
                [replies, ",".join(participants[:50]), channel, thread_ts],
            )

    def backfill_state(self, channel: str) -> dict[str, str]:
        """Where an interrupted `errfix remember` of `channel` stopped ({} when none did)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [f"backfill:{channel}"]).fetchone()
        return dict(json.loads(row[0])) if row else {}

    def set_backfill_state(self, channel: str, state: dict[str, str] | None) -> None:
        with self.store.write_transaction():
            if state is None:
                self.db.execute("DELETE FROM meta WHERE key = ?", [f"backfill:{channel}"])
            else:
                self.db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [f"backfill:{channel}", json.dumps(state)]
                )

    def thread_author(self, channel: str, thread_ts: str) -> str | None:
        """Who pasted the remembered error a thread is about (None: no remembered paste there)."""
        row = self.db.execute(
            "SELECT user_id FROM memory WHERE channel = ? AND thread_ts = ? ORDER BY id LIMIT 1", [channel, thread_ts]
        ).fetchone()
        return None if row is None else str(row[0])

    def resolve(self, *, channel: str, thread_ts: str, kind: str, ts: str, user_id: str, excerpt: str) -> bool:
        """Mark a remembered thread solved (the latest resolution is the one kept); whether it is one."""
        if self.thread_author(channel, thread_ts) is None:
            return False
        with self.store.write_transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO memory_resolutions "
                "(channel, thread_ts, kind, ts, user_id, excerpt, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [channel, thread_ts, kind, ts, user_id, redact_text(excerpt).strip()[:EXCERPT], now_iso()],
            )
        return True

    _SEEN = (
        "SELECT m.id, m.channel, m.ts, m.thread_ts, m.created_at, r.kind, r.excerpt, r.user_id, "
        "(SELECT count(*) FROM memory_votes v WHERE v.memory_id = m.id AND v.value = 1), "
        "(SELECT count(*) FROM memory_votes v WHERE v.memory_id = m.id AND v.value = -1) FROM memory m "
        "LEFT JOIN memory_resolutions r ON r.channel = m.channel AND r.thread_ts = m.thread_ts "
    )

    def seen(self, keys: list[str], *, channel: str, thread_ts: str, limit: int = 3) -> list[Seen]:
        """Earlier pastes of an error with one of `keys`, in other threads, that `channel` may see
        and that were solved or at least discussed (a reply in the thread): solved first, then by
        the best of `keys` they share (an identity before a secondary key), then the latest."""
        if not keys:
            return []
        ranked = ",".join("(?, ?)" for _ in keys)  # a key's rank: the paste's best identity first
        rows = self.db.execute(
            f"WITH q(key, rank) AS (VALUES {ranked}), "
            "b(memory_id, best) AS (SELECT k.memory_id, min(q.rank) FROM memory_keys k JOIN q ON q.key = k.key "
            f"GROUP BY k.memory_id) {self._SEEN} JOIN b ON b.memory_id = m.id "
            "WHERE (m.channel = ? OR m.channel_type = ?) AND NOT (m.channel = ? AND m.thread_ts = ?) "
            "AND (r.kind IS NOT NULL OR m.replies > 0) "  # solved, or at least discussed
            "ORDER BY r.kind IS NULL, b.best, m.id DESC LIMIT ?",
            [*(v for rank, key in enumerate(keys) for v in (key, rank)), channel, PUBLIC, channel, thread_ts, limit],
        ).fetchall()
        return [_seen(row) for row in rows]

    def one(self, memory_id: int) -> Seen | None:
        """One remembered paste as a `Seen` (for re-rendering a team answer after a vote)."""
        row = self.db.execute(f"{self._SEEN} WHERE m.id = ?", [memory_id]).fetchone()
        return None if row is None else _seen(row)

    def vote(self, memory_id: int, user_id: str, value: int) -> int | None:
        """Worked (+1) / Didn't work (-1) on a team answer; the same again withdraws. The vote held."""
        with self.store.write_transaction():
            row = self.db.execute(
                "SELECT value FROM memory_votes WHERE memory_id = ? AND user_id = ?", [memory_id, user_id]
            ).fetchone()
            if row is not None and int(row[0]) == value:
                self.db.execute("DELETE FROM memory_votes WHERE memory_id = ? AND user_id = ?", [memory_id, user_id])
                return None
            self.db.execute(
                "INSERT OR REPLACE INTO memory_votes (memory_id, user_id, value, created_at) VALUES (?, ?, ?, ?)",
                [memory_id, user_id, value, now_iso()],
            )
        return value

    def home(self, limit: int = 5) -> tuple[list[tuple[str, int, str, str]], list[tuple[str, str, str, str]]]:
        """For the App Home (shown to everyone: public channels only): the errors solved most, as
        (line, times solved, channel, latest solved thread), and threads a reply solved that no
        record answers, worth saving as records, as (line, channel, thread, the solving reply). A
        secondary key (a raise site, bot/core/team_memory.py) is no error of its own to list."""
        solved = self.db.execute(
            "SELECT max(m.line), count(DISTINCT m.id), max(m.channel || ' ' || m.thread_ts) FROM memory_keys k "
            "JOIN memory m ON m.id = k.memory_id JOIN memory_resolutions r "
            "ON r.channel = m.channel AND r.thread_ts = m.thread_ts "
            f"WHERE m.channel_type = '{PUBLIC}' AND k.key NOT LIKE '{SECONDARY}%' "
            "GROUP BY k.key ORDER BY count(DISTINCT m.id) DESC, k.key LIMIT ?",
            [limit],
        ).fetchall()
        worth = self.db.execute(
            "SELECT m.line, m.channel, m.thread_ts, r.ts FROM memory_resolutions r JOIN memory m "
            "ON m.channel = r.channel AND m.thread_ts = r.thread_ts AND m.ts = m.thread_ts "
            f"WHERE r.kind = 'check' AND m.channel_type = '{PUBLIC}' ORDER BY r.created_at DESC LIMIT ?",
            [limit],
        ).fetchall()
        top = []
        for line, n, where in solved:
            channel, _, thread = str(where).partition(" ")
            top.append((str(line), int(n), channel, thread))
        return top, [(str(a), str(b), str(c), str(d)) for a, b, c, d in worth]

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM memory").fetchone()[0])

    # ---- erasure (inside the caller's transaction: bot/store/privacy.py) -----------------------

    def purge(self, now: datetime, days: int) -> dict[str, int]:
        """What is older than `days` (ERRFIX_MEMORY_DAYS; 0 keeps it)."""
        if days == 0:
            return {}
        cut = iso(now - timedelta(days=days))
        q = self.db.execute
        return {
            "memory": q("DELETE FROM memory WHERE created_at < ?", [cut]).rowcount,
            "memory_resolutions": q("DELETE FROM memory_resolutions WHERE created_at < ?", [cut]).rowcount,
        }

    def forget_user(self, user_id: str) -> dict[str, int]:
        q = self.db.execute
        return {
            "memory": q("DELETE FROM memory WHERE user_id = ?", [user_id]).rowcount,
            "memory_resolutions": q("DELETE FROM memory_resolutions WHERE user_id = ?", [user_id]).rowcount,
            "memory_votes": q("DELETE FROM memory_votes WHERE user_id = ?", [user_id]).rowcount,
        }

    def forget_channel(self, channel: str) -> dict[str, int]:
        q = self.db.execute
        q("DELETE FROM meta WHERE key = ?", [f"backfill:{channel}"])
        return {
            "memory": q("DELETE FROM memory WHERE channel = ?", [channel]).rowcount,
            "memory_resolutions": q("DELETE FROM memory_resolutions WHERE channel = ?", [channel]).rowcount,
        }


def _seen(row: tuple[Any, ...]) -> Seen:
    mid, channel, ts, thread_ts, at, kind, excerpt, user, up, down = row
    return Seen(
        int(mid), str(channel), str(ts), str(thread_ts), str(at), kind is not None,
        str(excerpt or ""), str(user or ""), str(kind or ""), int(up), int(down),
    )  # fmt: skip

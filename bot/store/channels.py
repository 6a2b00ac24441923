"""Each channel's settings and its weekly digests (#38): the SQL of `/errfix here` and `/errfix digest`.

`Channels(store)` works over the store's connection (so on its one thread). A channel with no row
is in the default mode, `auto`, with no digest. Every change is written with its audit entry in one
transaction. `digest_data` gathers one channel's week for the digest: public channels' pastes and
the channel's own, never a DM's, group DM's or another private channel's (#18).

A weekly digest is claimed (a row for the channel and slot) before it is posted and marked with the
message's ts after: a claim without a ts after a crash is either in Slack (the adapter finds it by
its metadata and marks it) or released and posted again, never posted twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.digest_view import MODES, ChannelView, DigestData, Thread
from bot.core.extract import normalize
from bot.core.redact import redact_text
from bot.store import audit
from bot.store.store import Store, now_iso

VISIBLE = "(p.channel_type = 'channel' OR p.channel = :channel)"  # what a channel's members may see


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Claim:
    """A weekly digest claimed and not known to be posted (errfix stopped in between)."""

    channel: str
    slot: str


class Channels:
    """Channel settings and digest claims of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def get(self, channel: str) -> ChannelView:
        row = self.db.execute(
            "SELECT mode, weekly_since, changed_by, changed_at FROM channel_settings WHERE channel = ?", [channel]
        ).fetchone()
        if row is None:
            return ChannelView(channel)
        return ChannelView(channel, str(row[0]), row[1] is not None, str(row[2]), str(row[3]))

    def mode(self, channel: str) -> str:
        row = self.db.execute("SELECT mode FROM channel_settings WHERE channel = ?", [channel]).fetchone()
        return str(row[0]) if row else "auto"

    def _upsert(self, channel: str, actor: str, **values: str | None) -> None:
        self.db.execute(
            "INSERT INTO channel_settings (channel, changed_by, changed_at) VALUES (?, ?, ?) "
            "ON CONFLICT(channel) DO UPDATE SET changed_by = excluded.changed_by, changed_at = excluded.changed_at",
            [channel, actor, now_iso()],
        )
        for column, value in values.items():
            self.db.execute(f"UPDATE channel_settings SET {column} = ? WHERE channel = ?", [value, channel])

    def set_mode(self, channel: str, mode: str, *, actor: str) -> bool:
        """`/errfix here MODE`; whether it changed anything."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        with self.store.write_transaction():
            before = self.mode(channel)
            if before == mode:
                return False  # nothing changes: nothing to audit or announce
            self._upsert(channel, actor, mode=mode)
            change = {"from": before, "to": mode}
            audit.write(self.db, actor=actor, action="channel-mode", target=channel, detail=change)
        return True

    def set_weekly(self, channel: str, weekly: bool, *, actor: str, now: datetime) -> bool:
        """`/errfix digest weekly|off`; whether it changed anything. A channel that turns it on
        gets its first digest at the next slot after `now` (bot/core/schedule.py)."""
        with self.store.write_transaction():
            if self.get(channel).weekly == weekly:
                return False
            self._upsert(channel, actor, weekly_since=iso(now) if weekly else None)
            audit.write(self.db, actor=actor, action="digest-weekly" if weekly else "digest-off", target=channel)
        return True

    def weekly(self) -> list[tuple[str, str]]:
        """(channel, since when) of every channel with a weekly digest."""
        rows = self.db.execute(
            "SELECT channel, weekly_since FROM channel_settings WHERE weekly_since IS NOT NULL ORDER BY channel"
        ).fetchall()
        return [(str(c), str(s)) for c, s in rows]

    # ---- weekly digests: claimed, then posted ---------------------------------------------

    def claim_digest(self, channel: str, slot: str) -> bool:
        """True for the first claim of (channel, slot) ever made: that caller posts the digest."""
        with self.store.write_transaction():
            cur = self.db.execute(
                "INSERT OR IGNORE INTO digests (channel, slot, claimed_at) VALUES (?, ?, ?)", [channel, slot, now_iso()]
            )
        return cur.rowcount == 1

    def digest_posted(self, channel: str, slot: str, ts: str) -> None:
        with self.store.write_transaction():
            self.db.execute("UPDATE digests SET ts = ? WHERE channel = ? AND slot = ?", [ts, channel, slot])

    def release_digest(self, channel: str, slot: str) -> None:
        """Forget a claim whose digest is not in Slack, so it is posted again."""
        with self.store.write_transaction():
            self.db.execute("DELETE FROM digests WHERE channel = ? AND slot = ? AND ts IS NULL", [channel, slot])

    def unposted(self) -> list[Claim]:
        rows = self.db.execute("SELECT channel, slot FROM digests WHERE ts IS NULL ORDER BY claimed_at").fetchall()
        return [Claim(str(c), str(s)) for c, s in rows]

    # ---- what a digest shows -------------------------------------------------------------

    def digest_data(self, channel: str, since: datetime, until: datetime, limit: int = 5) -> DigestData:
        """One channel's week (see the module docstring for what it may show)."""
        args = {"channel": channel, "since": iso(since), "until": iso(until), "limit": limit}
        q = self.db.execute
        window = "p.created_at >= :since AND p.created_at <= :until"
        pastes, answered = q(
            f"SELECT count(*), coalesce(sum(p.replied), 0) FROM pastes p WHERE {window} AND {VISIBLE}", args
        ).fetchone()
        errors = []
        for rid, sig, n in q(
            "SELECT p.record_id, r.signature, count(*) AS n FROM pastes p JOIN records r ON r.id = p.record_id "
            f"WHERE {window} AND {VISIBLE} GROUP BY p.record_id ORDER BY n DESC, p.record_id LIMIT :limit",
            args,
        ).fetchall():
            c, ts = q(
                f"SELECT p.channel, p.ts FROM pastes p WHERE {window} AND {VISIBLE} AND p.record_id = :rid "
                "ORDER BY p.channel = :channel DESC, p.id DESC LIMIT 1",
                {**args, "rid": rid},
            ).fetchone()
            errors.append((str(rid), str(sig), int(n), Thread(str(c), str(ts))))
        visible_reply = (
            "(substr(v.reply_key, 1, length(:channel) + 1) = :channel || ':' OR EXISTS (SELECT 1 FROM pastes p "
            "WHERE p.channel_type = 'channel' AND p.channel = substr(v.reply_key, 1, instr(v.reply_key, ':') - 1)))"
        )
        vwindow = "v.created_at >= :since AND v.created_at <= :until"
        fixes = [
            (str(rid), str(action), int(up))
            for rid, action, up in q(
                "SELECT v.record_id, w.action, sum(v.value = 1) AS up FROM votes v "
                "JOIN workarounds w ON w.record_id = v.record_id AND w.wkey = v.wkey "
                f"WHERE {vwindow} AND {visible_reply} GROUP BY v.record_id, v.wkey HAVING up > 0 "
                "ORDER BY up DESC, v.record_id LIMIT :limit",
                args,
            ).fetchall()
        ]
        voted = [
            (str(rid), int(up), int(down))
            for rid, up, down in q(
                "SELECT v.record_id, sum(v.value = 1), sum(v.value = -1) FROM votes v "
                f"WHERE {vwindow} AND {visible_reply} GROUP BY v.record_id "
                "ORDER BY count(*) DESC, v.record_id LIMIT :limit",
                args,
            ).fetchall()
        ]
        saved = [
            str(target)
            for (target,) in q(
                "SELECT DISTINCT target FROM audit WHERE action = 'teach' AND at >= :since AND at <= :until "
                "ORDER BY target LIMIT :limit",
                args,
            ).fetchall()
        ]
        groups: dict[str, list[tuple[str, str, str]]] = {}
        for line, c, ts in q(
            f"SELECT p.line, p.channel, p.ts FROM pastes p WHERE {window} AND {VISIBLE} AND p.record_id IS NULL "
            "AND p.line <> '' ORDER BY p.id",
            args,
        ).fetchall():
            groups.setdefault(normalize(str(line)), []).append((str(line), str(c), str(ts)))
        again = sorted(((k, v) for k, v in groups.items() if len(v) > 1 and k), key=lambda kv: (-len(kv[1]), kv[0]))
        unanswered = [(redact_text(v[-1][0]), len(v), Thread(v[-1][1], v[-1][2])) for _, v in again[:limit]]
        people = [
            str(u)
            for (u,) in q(
                "SELECT user_id FROM pastes p WHERE p.channel = :channel AND user_id IS NOT NULL AND "
                f"{window} GROUP BY user_id ORDER BY count(*) DESC LIMIT 20",
                args,
            ).fetchall()
        ]
        return DigestData(
            iso(since), iso(until), int(pastes), int(answered), errors, fixes, unanswered, saved, voted, people
        )

    def forget(self, channel: str) -> dict[str, int]:
        """A channel's settings and digest claims (in the caller's transaction: forget-channel)."""
        return {
            "channel_settings": self.db.execute("DELETE FROM channel_settings WHERE channel = ?", [channel]).rowcount,
            "digests": self.db.execute("DELETE FROM digests WHERE channel = ?", [channel]).rowcount,
        }

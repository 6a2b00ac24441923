"""What the team teaches errfix through Slack: pastes, wrong matches, picked records, votes.

`Learning(store)` holds the SQL of it, over the store's connection (so, like the store, used from
its one thread). Tables come from schema.py (m002): `pastes` logs every diagnosed channel paste
(the App Home lists the ones that matched nothing), `rejections` keeps "Not this error" clicks,
learned aliases go to `aliases` with origin 'learned'.

Rejections and learned aliases change what the matcher indexes, so adding or removing one bumps
the store version (`Store.bump_version`) and matchers rebuild. `errfix learned` lists both and
`errfix unlearn` removes them (`learned`, `unlearn_alias`, `unlearn_rejection`). Results are plain
dataclasses: building Slack blocks from them is the adapter's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.core.extract import normalize
from bot.core.redact import redact_text
from bot.core.views import MatchView
from bot.store import audit
from bot.store.store import Store, now_iso

# The views every member sees (App Home, /errfix stats) are built from public-channel pastes only:
# nothing from a DM, group DM or private channel is shown outside it (#18).
PUBLIC = "channel"
SHARED = f"channel_type = '{PUBLIC}'"
MAX_LINE = 1_000  # a stored paste line or alias is cut to this


def iso_days_ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Paste:
    """One diagnosed paste as logged: its best error line, what it matched, whether we answered."""

    channel: str
    ts: str
    line: str
    record_id: str | None
    score: float | None
    replied: bool
    channel_type: str = ""  # Slack's: channel (public), group (private), im, mpim; '' unknown
    user_id: str = ""  # who pasted it ('' unknown), so `errfix forget-user` finds it


@dataclass(frozen=True)
class Learned:
    """One learned alias (kind 'alias', text = the alias) or rejection (kind 'rejection', text =
    the normalised error line), with who taught it and when."""

    kind: str
    record_id: str
    text: str
    user_id: str
    created_at: str

    def to_json(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "record_id": self.record_id,
            "text": self.text,
            "user_id": self.user_id,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class WeekSummary:
    """What the App Home shows: (id, signature, count), (id, action, worked), (line, when)."""

    top_errors: list[tuple[str, str, int]] = field(default_factory=list)
    top_fixes: list[tuple[str, str, int]] = field(default_factory=list)
    unmatched: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class WeekCounts:
    """Pastes seen, answered and matched to nothing in the last seven days."""

    pastes: int
    answered: int
    unmatched: int


class Learning:
    """The pastes, rejections, learned aliases and vote clicks of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    # ---- pastes and rejections --------------------------------------------------------------

    def log_paste(self, paste: Paste) -> None:
        """Remember one diagnosed paste; its line is redacted here, so no secret reaches the file
        (rejections are made from this stored line, so they never see one either)."""
        self.db.execute(
            "INSERT INTO pastes (channel, ts, line, record_id, score, replied, created_at, channel_type, user_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                paste.channel,
                paste.ts,
                redact_text(paste.line)[:MAX_LINE],
                paste.record_id,
                paste.score,
                int(paste.replied),
                now_iso(),
                paste.channel_type,
                paste.user_id or None,
            ],
        )
        self.db.conn.commit()

    def paste_line(self, channel: str, ts: str) -> str | None:
        """The error line logged for the message at (channel, ts), if any."""
        row = self.db.execute(
            "SELECT line FROM pastes WHERE channel = ? AND ts = ? ORDER BY id DESC LIMIT 1", [channel, ts]
        ).fetchone()
        return str(row[0]) if row else None

    def reject(self, *, channel: str, message_ts: str, record_id: str, user_id: str) -> str | None:
        """ "Not this error" on our answer to the paste at (channel, message_ts).

        Stores the rejection (record, normalised error line, user, channel) and marks that paste as matching
        nothing (so the App Home lists it). Returns the paste's line, or None if it was not logged.
        """
        line = self.paste_line(channel, message_ts)
        if line is None:
            return None
        norm = normalize(line)[:MAX_LINE]
        with self.store.write_transaction():
            known = self.db.execute(
                "SELECT 1 FROM rejections WHERE record_id = ? AND line = ? AND user_id = ?",
                [record_id, norm, user_id],
            ).fetchone()
            self.db.execute(
                "INSERT OR REPLACE INTO rejections (record_id, line, user_id, created_at, channel) "
                "VALUES (?, ?, ?, ?, ?)",
                [record_id, norm, user_id, now_iso(), channel],
            )
            if not known:  # the matcher scores this record lower for similar pastes from now on
                self.store.bump_version()
            self.db.execute(
                "UPDATE pastes SET record_id = NULL, score = NULL WHERE channel = ? AND ts = ? AND record_id = ?",
                [channel, message_ts, record_id],
            )
        return line

    def rejected_by(self, *, channel: str, message_ts: str, record_id: str) -> str | None:
        """Who said our answer `record_id` to the paste at (channel, message_ts) is not the error."""
        row = self.db.execute(
            "SELECT line, record_id FROM pastes WHERE channel = ? AND ts = ? ORDER BY id DESC LIMIT 1",
            [channel, message_ts],
        ).fetchone()
        if row is None or row[1] is not None:
            return None
        found = self.db.execute(
            "SELECT user_id FROM rejections WHERE record_id = ? AND line = ? ORDER BY created_at LIMIT 1",
            [record_id, normalize(row[0])[:MAX_LINE]],
        ).fetchone()
        return str(found[0]) if found else None

    def last_rejected_line(self, user_id: str, within_days: float = 1.0) -> str | None:
        """The raw paste line this user last said errfix got wrong (for a "This one" button)."""
        row = self.db.execute(
            "SELECT record_id, line FROM rejections WHERE user_id = ? AND created_at >= ? "
            "ORDER BY created_at DESC LIMIT 1",
            [user_id, iso_days_ago(within_days)],
        ).fetchone()
        if row is None:
            return None
        _, norm = row
        for (line,) in self.db.execute(
            "SELECT line FROM pastes WHERE record_id IS NULL ORDER BY id DESC LIMIT 200"
        ).fetchall():
            if normalize(line)[:MAX_LINE] == norm:
                return str(line)
        return None

    def learn_alias(self, record_id: str, line: str, user_id: str) -> bool:
        """Make `line` a learned alias of `record_id`; True if it was new. Matchers rebuild.

        The alias is stored redacted: the marker reads and matches like the rest of the line."""
        line = " ".join(redact_text(line).split())[:MAX_LINE]
        if not line or not self.store.has(record_id):
            return False
        with self.store.write_transaction():
            cur = self.db.execute(
                "INSERT OR IGNORE INTO aliases (record_id, alias, origin, created_by, created_at) "
                "VALUES (?, ?, 'learned', ?, ?)",
                [record_id, line, user_id, now_iso()],
            )
            added = cur.rowcount > 0
            if added:
                self.store.bump_version()
                audit.write(self.db, actor=user_id, action="learn-alias", target=record_id, detail={"alias": line})
        return added

    def rejections(self) -> dict[str, list[tuple[str, str]]]:
        """Record id → its (normalised line, user id) rejections, for the matcher."""
        out: dict[str, list[tuple[str, str]]] = {}
        for rid, line, user in self.db.execute(
            "SELECT record_id, line, user_id FROM rejections ORDER BY record_id, created_at, line, user_id"
        ):
            out.setdefault(str(rid), []).append((str(line), str(user)))
        return out

    # ---- listing and undoing what was learned -----------------------------------------------

    def learned(self, record_id: str | None = None) -> list[Learned]:
        """Learned aliases, then rejections; oldest first. Only `record_id`'s if given."""
        one = "AND record_id = ?" if record_id is not None else ""
        params = [record_id] if record_id is not None else []
        aliases = self.db.execute(
            "SELECT 'alias', record_id, alias, coalesce(created_by, ''), created_at FROM aliases "
            f"WHERE origin = 'learned' {one} ORDER BY created_at, rowid",
            params,
        ).fetchall()
        rejected = self.db.execute(
            f"SELECT 'rejection', record_id, line, user_id, created_at FROM rejections WHERE 1 {one} "
            "ORDER BY created_at, rowid",
            params,
        ).fetchall()
        return [Learned(*(str(v) for v in row)) for row in [*aliases, *rejected]]

    def unlearn_alias(self, record_id: str, text: str, *, actor: str = audit.SYSTEM) -> int:
        """Forget a learned alias of `record_id` (given as listed, or as pasted); how many went.

        Only learned aliases: the record's own aliases are the record's, changed by importing it.
        `actor` (who asked) goes into the audit trail with it.
        """
        texts = list(
            dict.fromkeys([text, " ".join(text.split())[:MAX_LINE], " ".join(redact_text(text).split())[:MAX_LINE]])
        )
        marks = ",".join("?" * len(texts))
        with self.store.write_transaction():
            cur = self.db.execute(
                f"DELETE FROM aliases WHERE record_id = ? AND origin = 'learned' AND alias IN ({marks})",
                [record_id, *texts],
            )
            if cur.rowcount > 0:
                self.store.bump_version()
                audit.write(self.db, actor=actor, action="unlearn-alias", target=record_id, detail={"alias": texts[-1]})
        return int(cur.rowcount)

    def unlearn_rejection(
        self, record_id: str, line: str, user_id: str | None = None, *, actor: str = audit.SYSTEM
    ) -> int:
        """Forget "Not this error" on `record_id` for `line` (as listed, or the raw paste line):
        every user's, or only `user_id`'s. How many went (audited as `actor`'s)."""
        # as listed, as pasted (normalised), or as pasted with its secrets in it (stored redacted)
        lines = list(
            dict.fromkeys([line, normalize(line)[:MAX_LINE], normalize(redact_text(line)[:MAX_LINE])[:MAX_LINE]])
        )
        marks = ",".join("?" * len(lines))
        who, params = ("AND user_id = ?", [user_id]) if user_id is not None else ("", [])
        with self.store.write_transaction():
            cur = self.db.execute(
                f"DELETE FROM rejections WHERE record_id = ? AND line IN ({marks}) {who}",
                [record_id, *lines, *params],
            )
            if cur.rowcount > 0:
                self.store.bump_version()
                detail = {"line": lines[-1], "removed": cur.rowcount, "of_user": user_id or "every user"}
                audit.write(self.db, actor=actor, action="unlearn-rejection", target=record_id, detail=detail)
        return int(cur.rowcount)

    # ---- votes from buttons and reactions ---------------------------------------------------

    def click_applied(self, click_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM clicks WHERE id = ?", [click_id]).fetchone() is not None

    def click_vote(
        self, reply_key: str, record_id: str, wkey: str, user_id: str, value: int, click_id: str | None = None
    ) -> int | None:
        """A button click: sets `value`, changes the other one, or withdraws the same one.

        Returns the user's vote afterwards (None when withdrawn). Run on the store's one thread, so
        two clicks can't interleave between the read and the write. A click with a `click_id`
        already applied (replayed after a crash) changes nothing and returns the vote held.
        """
        with self.store.write_transaction():
            if click_id is not None:
                applied = self.db.execute(
                    "INSERT OR IGNORE INTO clicks (id, created_at) VALUES (?, ?)", [click_id, now_iso()]
                ).rowcount
                if not applied:
                    row = self.db.execute(
                        "SELECT value FROM votes WHERE reply_key = ? AND record_id = ? AND wkey = ? AND user_id = ?",
                        [reply_key, record_id, wkey, user_id],
                    ).fetchone()
                    return int(row[0]) if row else None
            previous = self.store.vote(reply_key, record_id, wkey, user_id, value)
            if previous == value:
                self.store.vote(reply_key, record_id, wkey, user_id, None)
                return None
        return value

    def reaction_vote(self, reply_key: str, view: MatchView, user_id: str, value: int, added: bool) -> bool:
        """A reaction is a vote on the top workaround; removing it withdraws that user's same-sign vote.

        Returns whether anything changed.
        """
        if not view.workarounds:
            return False
        top = view.workarounds[0].wkey
        if added:
            return self.store.vote(reply_key, view.id, top, user_id, value) != value
        with self.store.write_transaction():
            rows = self.db.execute(
                "SELECT wkey FROM votes WHERE reply_key = ? AND record_id = ? AND user_id = ? AND value = ? "
                "ORDER BY created_at DESC, rowid DESC",
                [reply_key, view.id, user_id, value],
            ).fetchall()
            keys = [r[0] for r in rows]
            if not keys:
                return False
            self.store.vote(reply_key, view.id, top if top in keys else keys[0], user_id, None)
        return True

    # ---- App Home -----------------------------------------------------------------------------

    def week_summary(self, days: float = 7.0, limit: int = 5) -> WeekSummary:
        """This week's most frequent matched errors and the fixes that worked most; unmatched pastes.

        Built from public-channel pastes only (the App Home is shown to everyone)."""
        since = iso_days_ago(days)
        q = self.db.execute
        errors = [
            (str(rid), str(sig), int(n))
            for rid, sig, n in q(
                "SELECT p.record_id, r.signature, count(*) AS n FROM pastes p JOIN records r ON r.id = p.record_id "
                f"WHERE p.created_at >= ? AND p.record_id IS NOT NULL AND p.{SHARED} GROUP BY p.record_id "
                "ORDER BY n DESC, p.record_id LIMIT ?",
                [since, limit],
            ).fetchall()
        ]
        fixes = [
            (str(rid), str(action), int(up))
            for rid, action, up in q(
                "SELECT v.record_id, w.action, sum(v.value = 1) AS up FROM votes v "
                "JOIN workarounds w ON w.record_id = v.record_id AND w.wkey = v.wkey WHERE v.created_at >= ? "
                "GROUP BY v.record_id, v.wkey HAVING up > 0 ORDER BY up DESC, v.record_id LIMIT ?",
                [since, limit],
            ).fetchall()
        ]
        unmatched = [  # lines are stored redacted; redacted again where everyone sees them (#18)
            (redact_text(str(line)), str(created))
            for line, created in q(
                f"SELECT line, created_at FROM pastes WHERE record_id IS NULL AND {SHARED} ORDER BY id DESC LIMIT ?",
                [limit * 2],
            ).fetchall()
        ]
        return WeekSummary(errors, fixes, unmatched)

    def week_counts(self) -> WeekCounts:
        """Pastes seen, answered, and matched to nothing in the last seven days."""
        since = iso_days_ago(7)
        row = self.db.execute(
            f"SELECT count(*), sum(record_id IS NULL), sum(replied) FROM pastes WHERE created_at >= ? AND {SHARED}",
            [since],
        ).fetchone()
        return WeekCounts(pastes=int(row[0] or 0), answered=int(row[2] or 0), unmatched=int(row[1] or 0))

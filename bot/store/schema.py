"""The database schema, created and upgraded by versioned sqlite-utils migrations.

Each migration is append-only: never edit one that has shipped, add the next. `SCHEMA_VERSION` is
the number of migrations, so `restore` can refuse a database written by a newer errfix.
`MIGRATION_NAMES` lists them in order (tests/store/test_store.py checks it against what a new
database applies), so nothing needs sqlite-utils' private list to know which migrations exist.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from bot.core.redact import redact_text

migrations = Migrations("errfix")


@migrations()
def m001_records(db: Database) -> None:
    """Records keep their full JSON (the round trip) plus the columns we search and join on."""
    db.execute(
        """CREATE TABLE records (
            id TEXT PRIMARY KEY,
            domain TEXT NOT NULL DEFAULT '',
            signature TEXT NOT NULL,
            regex TEXT NOT NULL,
            aliases_text TEXT NOT NULL DEFAULT '',
            root_cause TEXT NOT NULL DEFAULT '',
            tags_text TEXT NOT NULL DEFAULT '',
            data TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT 'import',
            imported_at TEXT NOT NULL
        )"""
    )
    db["records"].enable_fts(  # type: ignore[union-attr]
        ["id", "signature", "aliases_text", "root_cause", "tags_text"],
        create_triggers=True,
        tokenize="porter unicode61",
    )
    db.execute(
        """CREATE TABLE workarounds (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            wkey TEXT NOT NULL,
            action TEXT NOT NULL,
            prior_rate REAL NOT NULL,
            PRIMARY KEY (record_id, idx)
        )"""
    )
    db.execute("CREATE INDEX workarounds_wkey ON workarounds(record_id, wkey)")
    db.execute(
        """CREATE TABLE dead_ends (
            record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            action TEXT NOT NULL,
            prior_rate REAL NOT NULL,
            PRIMARY KEY (record_id, idx)
        )"""
    )
    db.execute(
        """CREATE TABLE aliases (
            record_id TEXT NOT NULL,
            alias TEXT NOT NULL,
            origin TEXT NOT NULL DEFAULT 'record',
            created_by TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (record_id, alias, origin)
        )"""
    )
    # Votes are keyed by the workaround's text (wkey), not its position, so re-importing a
    # record that reorders or adds workarounds keeps every vote on the fix it was cast for.
    db.execute(
        """CREATE TABLE votes (
            reply_key TEXT NOT NULL,
            record_id TEXT NOT NULL,
            wkey TEXT NOT NULL,
            user_id TEXT NOT NULL,
            value INTEGER NOT NULL CHECK (value IN (-1, 1)),
            created_at TEXT NOT NULL,
            PRIMARY KEY (reply_key, record_id, wkey, user_id)
        )"""
    )
    db.execute("CREATE INDEX votes_record ON votes(record_id, wkey)")
    db.execute(
        """CREATE TABLE replies (
            channel TEXT NOT NULL,
            reply_ts TEXT NOT NULL,
            message_ts TEXT NOT NULL,
            thread_ts TEXT NOT NULL,
            record_id TEXT NOT NULL,
            score REAL NOT NULL,
            locale TEXT NOT NULL DEFAULT 'en',
            created_at TEXT NOT NULL,
            PRIMARY KEY (channel, reply_ts)
        )"""
    )
    db.execute("CREATE INDEX replies_message ON replies(channel, message_ts)")
    db.execute(
        """CREATE TABLE seen_events (
            key TEXT PRIMARY KEY,
            seen_at REAL NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )"""
    )
    db.execute("INSERT INTO meta (key, value) VALUES ('store_version', '0')")


@migrations()
def m002_learning(db: Database) -> None:
    """What the team teaches: wrong matches ("Not this error") and a log of pastes."""
    db.execute(
        """CREATE TABLE rejections (
            record_id TEXT NOT NULL,
            line TEXT NOT NULL,
            user_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (record_id, line, user_id)
        )"""
    )
    db.execute(
        """CREATE TABLE pastes (
            id INTEGER PRIMARY KEY,
            channel TEXT NOT NULL,
            ts TEXT NOT NULL,
            line TEXT NOT NULL,
            record_id TEXT,
            score REAL,
            replied INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX pastes_created ON pastes(created_at)")


@migrations()
def m003_sync_state(db: Database) -> None:
    """`errfix sync URL`: per upstream URL, the validators of the last copy written (ETag,
    Last-Modified) and the hash of its body, so an unchanged upstream costs a 304 or nothing."""
    db.execute(
        """CREATE TABLE sync_state (
            url TEXT PRIMARY KEY,
            etag TEXT,
            last_modified TEXT,
            body_hash TEXT NOT NULL,
            records INTEGER NOT NULL,
            synced_at TEXT NOT NULL,
            checked_at TEXT NOT NULL
        )"""
    )


@migrations()
def m004_reply_rendering(db: Database) -> None:
    """What an answer was rendered from besides its record, so a re-render after a vote is the same
    answer with new counts: sure or not (NULL for older replies: decided by score), the other
    candidates shown ("Also possible", JSON [[id, score], ...]) and the note under it."""
    db.execute("ALTER TABLE replies ADD COLUMN sure INTEGER")
    db.execute("ALTER TABLE replies ADD COLUMN others TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE replies ADD COLUMN note TEXT NOT NULL DEFAULT ''")


@migrations()
def m005_paste_channel_type(db: Database) -> None:
    """Where each paste was made (Slack's `channel_type`: channel, group, im, mpim), so views shared
    with the whole team show only public-channel pastes (#18). Older pastes get '' (unknown), which
    counts as private: nothing from a DM or a private channel can leak through the old rows."""
    db.execute("ALTER TABLE pastes ADD COLUMN channel_type TEXT NOT NULL DEFAULT ''")


@migrations()
def m006_seen_events_moved(db: Database) -> None:
    """Dedupe keys moved to the events file (`bot.store.inbox`), so acks never wait on this one."""
    db.execute("DROP TABLE seen_events")


@migrations()
def m007_audit(db: Database) -> None:
    """The audit trail (#18): who changed the team's knowledge or data, when, what. Kept beyond
    retention. Also what erasure needs to find a person's or a channel's rows: the paste's author
    (NULL for older pastes: the retention purge ages them out) and the channel a rejection was made
    in (NULL for older ones)."""
    db.execute(
        """CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX audit_at ON audit(at)")
    db.execute("ALTER TABLE pastes ADD COLUMN user_id TEXT")
    db.execute("CREATE INDEX pastes_user ON pastes(user_id)")
    db.execute("CREATE INDEX pastes_channel ON pastes(channel, ts)")
    db.execute("ALTER TABLE rejections ADD COLUMN channel TEXT")
    db.execute("CREATE INDEX rejections_created ON rejections(created_at)")


@migrations()
def m008_clicks(db: Database) -> None:
    """The button clicks already applied (Slack's action id per user and time), so a click
    replayed after a crash is applied once: a second "Worked" would otherwise withdraw the vote."""
    db.execute("CREATE TABLE clicks (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)")
    db.execute("CREATE INDEX clicks_created ON clicks(created_at)")


def _scrub(db: Database, table: str, column: str, where: str = "1") -> None:
    """Redact `column` in place; a row whose redacted text already exists (a key column) goes."""
    rows = db.execute(f"SELECT rowid, {column} FROM {table} WHERE {where}").fetchall()
    for rowid, text in rows:
        clean = redact_text(str(text))
        if clean == text:
            continue
        cur = db.execute(f"UPDATE OR IGNORE {table} SET {column} = ? WHERE rowid = ?", [clean, rowid])
        if cur.rowcount == 0:  # the redacted line is there already (another key of the same kind)
            db.execute(f"DELETE FROM {table} WHERE rowid = ?", [rowid])


@migrations()
def m009_scrub_secrets(db: Database) -> None:
    """Text an errfix older than #18 kept as pasted (paste lines, rejection lines, learned
    aliases) redacted in place, as every write redacts it now. `secure_delete` (set on every
    connection, `Store`) zeroes the old bytes as the pages are rewritten; m010 compacts the file."""
    db.execute("PRAGMA secure_delete = ON")
    _scrub(db, "pastes", "line")
    _scrub(db, "rejections", "line")
    _scrub(db, "aliases", "alias", "origin <> 'record'")


@migrations(transactional=False)
def m010_compact_after_scrub(db: Database) -> None:
    """VACUUM once after m009: a rewritten file holds no free page with a secret in it, and the
    checkpoint truncates the write-ahead log, whose older frames held the rows as they were."""
    db.execute("PRAGMA secure_delete = ON")
    db.execute("VACUUM")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@migrations()
def m011_reply_kind_only(db: Database) -> None:
    """Whether an answer was general advice for the paste's kind of error (asked for, the record
    not knowing this very error: bot/core/knows.py), so a re-render after a vote says so again."""
    db.execute("ALTER TABLE replies ADD COLUMN kind_only INTEGER NOT NULL DEFAULT 0")


@migrations()
def m012_channel_settings(db: Database) -> None:
    """Each channel's choice of how errfix speaks there and whether it gets a weekly digest (#38),
    keyed on the channel id (a rename keeps it), and each weekly digest claimed or posted, so one
    is posted per channel and week across restarts and crashes."""
    db.execute(
        """CREATE TABLE channel_settings (
            channel TEXT PRIMARY KEY,
            mode TEXT NOT NULL DEFAULT 'auto' CHECK (mode IN ('auto', 'mention', 'off')),
            weekly_since TEXT,
            changed_by TEXT NOT NULL DEFAULT '',
            changed_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE digests (
            channel TEXT NOT NULL,
            slot TEXT NOT NULL,
            ts TEXT,
            claimed_at TEXT NOT NULL,
            PRIMARY KEY (channel, slot)
        )"""
    )


@migrations()
def m013_memory(db: Database) -> None:
    """Team memory (#36): each pasted error's identity and thread, its thread's replies, how it was
    solved (a short excerpt of the fix, redacted), and the votes on that team answer; and the
    "seen before" line of an answer, so a re-render after a vote says it again."""
    db.execute("ALTER TABLE replies ADD COLUMN seen TEXT NOT NULL DEFAULT ''")
    db.execute(
        """CREATE TABLE memory (
            id INTEGER PRIMARY KEY,
            channel TEXT NOT NULL,
            channel_type TEXT NOT NULL DEFAULT '',
            ts TEXT NOT NULL,
            thread_ts TEXT NOT NULL,
            user_id TEXT NOT NULL DEFAULT '',
            line TEXT NOT NULL,
            replies INTEGER NOT NULL DEFAULT 0,
            participants TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (channel, ts)
        )"""
    )
    db.execute("CREATE INDEX memory_thread ON memory(channel, thread_ts)")
    db.execute("CREATE INDEX memory_user ON memory(user_id)")
    db.execute("CREATE INDEX memory_created ON memory(created_at)")
    db.execute(
        """CREATE TABLE memory_keys (
            key TEXT NOT NULL,
            memory_id INTEGER NOT NULL REFERENCES memory(id) ON DELETE CASCADE,
            PRIMARY KEY (key, memory_id)
        )"""
    )
    db.execute("CREATE INDEX memory_keys_memory ON memory_keys(memory_id)")
    db.execute(
        """CREATE TABLE memory_resolutions (
            channel TEXT NOT NULL,
            thread_ts TEXT NOT NULL,
            kind TEXT NOT NULL,
            ts TEXT NOT NULL DEFAULT '',
            user_id TEXT NOT NULL DEFAULT '',
            excerpt TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            PRIMARY KEY (channel, thread_ts)
        )"""
    )
    db.execute("CREATE INDEX memory_resolutions_user ON memory_resolutions(user_id)")
    db.execute(
        """CREATE TABLE memory_votes (
            memory_id INTEGER NOT NULL REFERENCES memory(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            value INTEGER NOT NULL CHECK (value IN (-1, 1)),
            created_at TEXT NOT NULL,
            PRIMARY KEY (memory_id, user_id)
        )"""
    )


MIGRATION_NAMES: tuple[str, ...] = tuple(
    m.__name__
    for m in (
        m001_records,
        m002_learning,
        m003_sync_state,
        m004_reply_rendering,
        m005_paste_channel_type,
        m006_seen_events_moved,
        m007_audit,
        m008_clicks,
        m009_scrub_secrets,
        m010_compact_after_scrub,
        m011_reply_kind_only,
        m012_channel_settings,
        m013_memory,
    )
)
SCHEMA_VERSION = len(MIGRATION_NAMES)


def unknown_migrations(applied: list[str]) -> list[str]:
    """The applied migration names this errfix does not know: the database is from a newer one."""
    return [name for name in applied if name not in MIGRATION_NAMES]
